"""Inserting many new rows at once: one COPY on PostgreSQL, ``bulk_create`` elsewhere."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import CharField, Field, IntegerField, JSONField, Model, TextField

# A row: each field's value by its attname (``match_id``, not ``match``).
Row = Mapping[str, Any]


def rows_insert(model: type[Model], rows: Iterable[Row], *, batch_size: int | None = None) -> None:
    """Insert new rows of ``model``, each given as its fields' values by attname (a field
    left out takes its default), in their order (ids ascending), without reading their ids
    back.

    Every column gets what ``bulk_create`` of the rows made into instances would send (each
    field's ``get_db_prep_save``). On PostgreSQL the rows go in one COPY, without an
    instance each: that skips the INSERT's SQL (Django's compiler, psycopg's quoting of
    every parameter in Python, PostgreSQL's parse of one long statement) and Django's
    ``Model.__init__``, which were most of what storing a match's hands and an analysis's
    findings cost (bench/ingest.py step 5). A model with a field whose ``pre_save`` is its
    own (a time stamped on save), and any other database, get ``bulk_create`` itself.
    """
    # The connection itself, not django.db.connection's proxy: each field asks it for its
    # operations, and a proxy's attribute costs a lookup of the thread's connection.
    connection = connections[DEFAULT_DB_ALIAS]
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    if connection.vendor != "postgresql" or any(_owners(type(field))["pre_save"] is not Field for field in fields):
        model._default_manager.bulk_create((model(**row) for row in rows), batch_size=batch_size)
        return
    writers = [_column(field, connection) for field in fields]
    names = {field.attname for field in fields}
    quote = connection.ops.quote_name
    sql = f"COPY {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            if not row.keys() <= names:
                raise TypeError(f"{model.__name__} has no field {sorted(row.keys() - names)[0]!r} (rows give attnames)")
            copy.write_row([write(row.get(name, default)) for name, write, default in writers])


def _column(field: Field, connection: BaseDatabaseWrapper) -> tuple[str, Callable[[Any], Any], Any]:
    """A column of the COPY: the field's attname, its writer, and what a row that leaves it
    out gives it. A callable default (``uuid4``, ``now``) is called for each such row, as
    ``bulk_create``'s instances each call it; any other default is worked out once."""
    write = _writer(field, connection)
    if field.has_default() and callable(field.default):
        return field.attname, partial(_fresh_default, write, field.get_default), _LEFT_OUT
    return field.attname, write, field.get_default()


def _fresh_default(write: Callable[[Any], Any], default: Callable[[], Any], value: Any) -> Any:
    return write(default() if value is _LEFT_OUT else value)


_LEFT_OUT: Any = object()  # a row's value of a column with a callable default, where the row gives none


def _writer(field: Field, connection: BaseDatabaseWrapper) -> Callable[[Any], Any]:
    """What turns a value of ``field`` into the COPY's (see :func:`rows_insert`)."""
    kind = plain_type(field)
    if kind is not None:
        return partial(_plain_value, kind, field, connection)
    if json_text(field):
        return partial(_json_value, partial(json.dumps, cls=field.encoder))  # type: ignore[attr-defined]
    return partial(field.get_db_prep_save, connection=connection)


def _plain_value(kind: type, field: Field, connection: BaseDatabaseWrapper, value: Any) -> Any:
    if value is None or type(value) is kind:
        return value
    return field.get_db_prep_save(value, connection)


def _json_value(dumps: Callable[[Any], str], value: Any) -> str | None:
    # As the field's get_db_prep_save: None is SQL NULL; else the text psycopg's Jsonb would write.
    return None if value is None else dumps(value)


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
    owners = _owners(type(field))
    if owners["pre_save"] is not Field or owners["get_db_prep_save"] is not Field:
        return None
    if owners["get_db_prep_value"] is IntegerField and owners["get_prep_value"] is IntegerField:
        return int
    text = (owners["get_prep_value"], owners["to_python"])
    if owners["get_db_prep_value"] is Field and text in ((CharField, CharField), (TextField, TextField)):
        return str
    return None


def json_text(field: Field) -> bool:
    """Whether the field is Django's own JSON field, whose value PostgreSQL is sent as
    ``json.dumps`` of it with the field's encoder (psycopg's ``Jsonb``), and SQL NULL for None:
    a COPY row may hold that text itself.

    >>> from analysis.models import Finding
    >>> [json_text(Finding._meta.get_field(name)) for name in ("witness", "message")]
    [True, False]
    """
    owners = _owners(type(field))
    return (owners["pre_save"] is Field and owners["get_prep_value"] is Field
            and owners["get_db_prep_value"] is JSONField and owners["get_db_prep_save"] is JSONField)


def _owners(kind: type) -> dict[str, type]:
    """Which class of a field class's ancestry defines each method the COPY's writers read
    (asked for every field of every insert: one walk per field class, remembered)."""
    found = _OWNERS.get(kind)
    if found is None:
        found = _OWNERS[kind] = {
            name: next(c for c in kind.__mro__ if name in c.__dict__)
            for name in ("pre_save", "get_db_prep_save", "get_db_prep_value", "get_prep_value", "to_python")
        }
    return found


_OWNERS: dict[type, dict[str, type]] = {}
