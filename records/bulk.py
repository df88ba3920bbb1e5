"""Inserting many new rows at once: one COPY on PostgreSQL, ``bulk_create`` elsewhere."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model


def rows_insert(model: type[Model], rows: Iterable[Model], *, batch_size: int | None = None) -> None:
    """Insert new, unsaved rows of ``model`` in their order (ids ascending), without reading
    their ids back.

    Every column but the id gets what ``bulk_create`` would send (each field's ``pre_save``
    and ``get_db_prep_save``), so a new field with a default needs nothing here. COPY skips
    the INSERT's SQL: Django's compiler and psycopg's quoting of every parameter in Python,
    and PostgreSQL's parse of one long statement, which were most of what storing a match's
    hands (bench/ingest.py step 5) and an analysis's findings cost.
    """
    # The connection itself, not django.db.connection's proxy: each field asks it for its
    # operations, and a proxy's attribute costs a lookup of the thread's connection.
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(rows, batch_size=batch_size)
        return
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    quote = connection.ops.quote_name
    sql = f"COPY {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([field.get_db_prep_save(field.pre_save(row, True), connection) for field in fields])
