"""Scratch PostgreSQL databases for the benches (bench/ingest.py, load.py, fuzz.py): each
bench drops and recreates its own by name, on the local server with trust auth."""

from __future__ import annotations

PG_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"


def reset_database(name: str) -> str:
    """Drop (closing its sessions) and recreate database ``name``; returns the server's version."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
        row = connection.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


def drop_database(name: str) -> None:
    """Drop database ``name``, closing its sessions."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
