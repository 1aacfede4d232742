"""``flask copy-database``: a calendar copied from one database to another, across engines
(a SQLite file to a PostgreSQL server and back, SPEC §14)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from contextlib import closing, contextmanager
from urllib.parse import quote

from peewee import DatabaseError, PostgresqlDatabase

from store import texts
from store.db import (
    UnsupportedDatabase,
    after_bulk_load,
    bind_database,
    continue_ids_after,
    database,
    failure_reason,
    gather_statistics,
    is_url,
    last_given_ids,
    open_database,
    reset_sequences,
    shown_database,
    upsert,
    write_transaction,
)
from store.models import ALL_TABLES, Setting, Term
from store.schema import MIGRATIONS, migrate

BATCH = 500
# Tables copied row for row, parents before the rows that refer to them. ``setting`` is
# not: each database keeps its own schema version and data version; of its rows, only
# these travel with the calendar (the marks of the demo data, store/seed.py).
COPIED = [model for model in ALL_TABLES if model is not Setting]
COPIED_SETTINGS = ("demo_items",)
# Columns the target's triggers keep (store/db.py::create_link_counter): not copied, or the
# links copied after them would count twice.
DERIVED = {Term.published}


class CopyError(Exception):
    pass


def normalise(setting: str) -> str:
    """A file path is taken from the current directory, as a shell user expects."""
    return setting if is_url(setting) or setting == ":memory:" else os.path.abspath(setting)


def copy_database(
    source_setting: str, target_setting: str, replace: bool = False
) -> dict[str, int]:
    """Copies every row of the calendar in ``source_setting`` into ``target_setting``
    (created and migrated if needed; it must hold no calendar yet, or with ``replace`` its
    calendar is removed first, in the same transaction), in one transaction on the target.
    Returns the rows copied per table. Uploaded files are not in the database: the upload
    folder is copied with them (docs/deploy.md; ``flask backup`` archives both)."""
    source_setting, target_setting = normalise(source_setting), normalise(target_setting)
    if source_setting == target_setting:
        raise CopyError("the source and the target are the same database")
    if not is_url(source_setting) and not os.path.isfile(source_setting):
        raise CopyError(f"no database at {source_setting}")  # and nothing is created
    with tempfile.TemporaryDirectory() as work:
        source_setting = _at_current_schema(source_setting, work)
        return _copy(source_setting, target_setting, replace)


def _at_current_schema(setting: str, work: str) -> str:
    """The source as it may be migrated: a SQLite file of an older schema is copied into
    ``work`` first (read through a read-only connection), so the copy, never the source, is
    migrated (its rebuilt tables once lost their links: store/db.py::schema_transaction).
    A PostgreSQL source is migrated where it is, as any host of it would at its start."""
    if is_url(setting):
        return setting
    try:
        with closing(sqlite3.connect(f"file:{quote(setting)}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
            if row and int(row[0]) >= len(MIGRATIONS):
                return setting
            scratch = os.path.join(work, "source.db")
            with closing(sqlite3.connect(scratch)) as copy:
                db.backup(copy)
    except (sqlite3.Error, ValueError):
        return setting  # said as before, with the source named, by ``_copy``
    return scratch


def _copy(source_setting: str, target_setting: str, replace: bool) -> dict[str, int]:
    with _said(source_setting):
        source = open_database(source_setting)
    with _said(target_setting):  # a folder that cannot be made, a URL that cannot be read
        target = open_database(target_setting)
    previous = database.obj  # bound again at the end: a backup runs inside the app's context
    try:
        with _said(source_setting), source.connection_context():
            if not (source.table_exists("setting") and source.table_exists("event")):
                # Another program's database, or an empty file: left as it was.
                raise CopyError(f"{shown_database(source_setting)} holds no calendar")
        for db, setting in ((source, source_setting), (target, target_setting)):
            with _said(setting):
                bind_database(db)
                with db.connection_context():
                    migrate()
        with source.connection_context(), target.connection_context(), _said(source_setting):
            bind_database(target)
            if not replace and (table := holds_calendar()):
                raise CopyError(f"the target already holds a calendar (table {table})")
            with write_transaction(), _snapshot(source):
                if replace:
                    for model in reversed(COPIED):  # rows before the rows they refer to
                        model.delete().execute()
                    Setting.delete().where(Setting.key.in_(COPIED_SETTINGS)).execute()
                counts = {model._meta.table_name: _copy_table(source, model) for model in COPIED}
                _copy_settings(source)
                reset_sequences(COPIED)
                continue_ids_after(last_given_ids(source))  # a deleted term's id, never again
                gather_statistics()  # before the commit makes the first texts
            after_bulk_load(texts.make_all)
        return counts
    finally:
        source.close_all()
        target.close_all()
        if previous is not None:
            bind_database(previous)


def holds_calendar() -> str:
    """The name of the first table of the bound database that holds a row, else ""."""
    for model in COPIED:
        if model.select().exists():
            return model._meta.table_name
    return ""


@contextmanager
def _snapshot(db):
    """One read transaction on the source: every table as of one moment, so that a server
    writing to it meanwhile cannot make the copy hold a link without its event (the rows
    written meanwhile are not copied). SQLite's WAL keeps the first read's snapshot to the
    end of the transaction; PostgreSQL needs REPEATABLE READ for that."""
    with db.atomic():
        if isinstance(db, PostgresqlDatabase):
            db.execute_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


@contextmanager
def _said(setting: str):
    """A database error, as a CopyError naming the database (without its password)."""
    try:
        yield
    except (DatabaseError, OSError) as error:
        raise CopyError(
            f"cannot copy with {shown_database(setting)}: {failure_reason(error)}"
        ) from None
    except UnsupportedDatabase as error:  # an argument of the command, not the setting
        raise CopyError(f"cannot copy with {shown_database(setting)}: {error.reason}") from None


def _copy_settings(source) -> None:
    keys = ", ".join(f"'{key}'" for key in COPIED_SETTINGS)
    for key, value in source.execute_sql(
        f"SELECT key, value FROM setting WHERE key IN ({keys})"
    ).fetchall():
        upsert(Setting, key=key, value=value)


def _copy_table(source, model) -> int:
    """Rows are read with the source's own SQL (column names from the model), turned into
    Python values by the model's fields (SQLite's 0/1 become booleans), and written to the
    target (the bound database) by Peewee."""
    fields = [field for field in model._meta.sorted_fields if field not in DERIVED]
    columns = ", ".join(f'"{field.column_name}"' for field in fields)
    keys = ", ".join(f'"{field.column_name}"' for field in model._meta.get_primary_keys())
    cursor = source.execute_sql(f'SELECT {columns} FROM "{model._meta.table_name}" ORDER BY {keys}')
    copied = 0
    while rows := cursor.fetchmany(BATCH):
        values = [
            [field.python_value(value) for field, value in zip(fields, row, strict=True)]
            for row in rows
        ]
        model.insert_many(values, fields=fields).execute()
        copied += len(rows)
    return copied
