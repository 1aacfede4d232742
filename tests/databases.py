"""The database of each test: a new SQLite file, or, when ``TEST_DATABASE_URL`` names a
PostgreSQL server (``make test-postgres``), a database on it.

On PostgreSQL, ``per_test_database`` is one database migrated once per run and emptied before
each test (``TRUNCATE … RESTART IDENTITY``: ids start at 1 again, as in a new SQLite
file), which takes milliseconds where creating a database takes most of a second;
``fresh_database`` clones a new one from the migrated template, for tests that need
databases side by side, and ``drop_database`` removes it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from urllib.parse import urlsplit, urlunsplit

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "")
ON_POSTGRES = bool(TEST_DATABASE_URL)
# One template per process of the suite (pytest-xdist runs several): each drops and makes
# its own, and PostgreSQL copies a template only while no one else is connected to it.
TEMPLATE = "calendar_test_template_" + os.environ.get("PYTEST_XDIST_WORKER", "main")

_template_ready = False
_shared: dict = {}


def _with_name(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def _admin(sql: str) -> None:
    import psycopg2

    connection = psycopg2.connect(TEST_DATABASE_URL)
    try:
        connection.autocommit = True
        connection.cursor().execute(sql)
    finally:
        connection.close()


def _make_template() -> None:
    global _template_ready
    if _template_ready:
        return
    from store.db import bind_database, open_database
    from store.schema import migrate

    _admin(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)")
    _admin(f"CREATE DATABASE {TEMPLATE}")
    db = open_database(_with_name(TEST_DATABASE_URL, TEMPLATE))
    bind_database(db)
    with db.connection_context():
        migrate()
    db.close_all()
    _template_ready = True


def fresh_database(folder, name: str = "calendar.db", empty: bool = False) -> str:
    """The ``CALENDAR_DATABASE`` setting of a new database: on SQLite a file in
    ``folder`` (created at first open); on PostgreSQL a database already migrated, or
    ``empty``."""
    if not ON_POSTGRES:
        return str(folder / name)
    database_name = "calendar_test_" + uuid.uuid4().hex[:16]
    if empty:
        _admin(f"CREATE DATABASE {database_name}")
    else:
        _make_template()
        _admin(f"CREATE DATABASE {database_name} TEMPLATE {TEMPLATE}")
    return _with_name(TEST_DATABASE_URL, database_name)


def per_test_database(folder) -> str:
    """The ``CALENDAR_DATABASE`` of one test: a new SQLite file in ``folder``, or the shared
    PostgreSQL test database, emptied to its state just after migration."""
    if not ON_POSTGRES:
        return str(folder / "calendar.db")
    import psycopg2

    if not _shared:
        _shared["url"] = fresh_database(folder)
        connection = _shared["connection"] = psycopg2.connect(_shared["url"])
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename <> 'setting'"
            )
            tables = ", ".join(f'"{name}"' for (name,) in cursor.fetchall())
            cursor.execute("SELECT key, value FROM setting")
            settings = cursor.fetchall()
        _shared["reset"] = (tables, settings)
        return _shared["url"]
    tables, settings = _shared["reset"]
    with _shared["connection"].cursor() as cursor:
        cursor.execute(f"TRUNCATE {tables}, setting RESTART IDENTITY CASCADE")
        cursor.executemany("INSERT INTO setting (key, value) VALUES (%s, %s)", settings)
    return _shared["url"]


def copy_database(setting: str, folder, name: str = "calendar.db") -> str:
    """A new database holding what ``setting`` holds (no one may be connected to it): on
    SQLite a copy of its file in ``folder``, on PostgreSQL a database made from it."""
    if not ON_POSTGRES:
        target = folder / name
        shutil.copyfile(setting, target)
        return str(target)
    database_name = "calendar_test_" + uuid.uuid4().hex[:16]
    _admin(f"CREATE DATABASE {database_name} TEMPLATE {urlsplit(setting).path.lstrip('/')}")
    return _with_name(TEST_DATABASE_URL, database_name)


def drop_database(setting: str) -> None:
    if ON_POSTGRES and "://" in setting:
        _admin(f"DROP DATABASE IF EXISTS {urlsplit(setting).path.lstrip('/')} WITH (FORCE)")


def query(setting: str, sql: str) -> list[tuple]:
    """Rows of ``sql`` read straight from the database, around the application."""
    setting = str(setting)
    if "://" in setting:
        import psycopg2

        connection = psycopg2.connect(setting)
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql)
                return cursor.fetchall()
        finally:
            connection.close()
    with sqlite3.connect(setting) as connection:
        return connection.execute(sql).fetchall()


def integrity(setting: str) -> str:
    """SQLite's own check of the file; a PostgreSQL server keeps its own consistency."""
    setting = str(setting)
    if "://" in setting:
        return "ok"
    return query(setting, "PRAGMA integrity_check")[0][0]
