"""Inserting many new rows at once: one COPY on PostgreSQL, ``bulk_create`` elsewhere."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import CharField, Field, IntegerField, Model, TextField


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
    plain = [(field, field.attname, plain_type(field)) for field in fields]
    quote = connection.ops.quote_name
    sql = f"COPY {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([_column_value(row, field, attname, kind, connection) for field, attname, kind in plain])


def _column_value(row: Model, field: Field, attname: str, kind: type | None, connection: BaseDatabaseWrapper) -> object:
    if kind is not None:
        value = row.__dict__.get(attname, _UNSET)  # a new row holds every field's value
        if value is None or type(value) is kind:
            return value
    return field.get_db_prep_save(field.pre_save(row, True), connection)


_UNSET = object()


def plain_type(field: Field) -> type | None:
    """``int`` or ``str`` where a value of exactly that type (or None) goes into a COPY row
    as it is: the field's class keeps Django's own ``pre_save`` (the attribute as set) and
    preparation (``int()`` of an integer field's value, ``str`` of a text field's), which a
    subclass may change; else None (the field prepares every value itself).

    PostgreSQL's operations wrap an integer in psycopg's type of the column's width (for an
    INSERT's parameters); COPY's text format writes the number the same either way.

    >>> from analysis.models import Finding
    >>> [plain_type(Finding._meta.get_field(name)) for name in ("hand", "kind", "witness", "match")]
    [<class 'int'>, <class 'str'>, None, None]
    """
    owners = {name: next(c for c in type(field).__mro__ if name in c.__dict__)
              for name in ("pre_save", "get_db_prep_save", "get_db_prep_value", "get_prep_value", "to_python")}
    if owners["pre_save"] is not Field or owners["get_db_prep_save"] is not Field:
        return None
    if owners["get_db_prep_value"] is IntegerField and owners["get_prep_value"] is IntegerField:
        return int
    text = (owners["get_prep_value"], owners["to_python"])
    if owners["get_db_prep_value"] is Field and text in ((CharField, CharField), (TextField, TextField)):
        return str
    return None
