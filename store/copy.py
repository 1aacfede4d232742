"""``flask copy-database``: a calendar copied from one database to another, across engines
(a SQLite file to a PostgreSQL server and back, SPEC §14)."""

from __future__ import annotations

import os

from store.db import (
    bind_database,
    is_url,
    open_database,
    refresh_statistics,
    reset_sequences,
    write_transaction,
)
from store.models import ALL_TABLES, Setting, Term
from store.schema import migrate

BATCH = 500
# Tables copied row for row, parents before the rows that refer to them. ``setting`` is
# not: each database keeps its own schema version and data version.
COPIED = [model for model in ALL_TABLES if model is not Setting]
# Columns the target's triggers keep (store/db.py::create_link_counter): not copied, or the
# links copied after them would count twice.
DERIVED = {Term.published}


class CopyError(Exception):
    pass


def normalise(setting: str) -> str:
    """A file path is taken from the current directory, as a shell user expects."""
    return setting if is_url(setting) or setting == ":memory:" else os.path.abspath(setting)


def copy_database(source_setting: str, target_setting: str) -> dict[str, int]:
    """Copies every row of the calendar in ``source_setting`` into ``target_setting``
    (created and migrated if needed; it must hold no calendar yet), in one transaction
    on the target. Returns the rows copied per table. Uploaded files are not in the
    database: the upload folder is copied with them (docs/deploy.md)."""
    source_setting, target_setting = normalise(source_setting), normalise(target_setting)
    if source_setting == target_setting:
        raise CopyError("the source and the target are the same database")
    source, target = open_database(source_setting), open_database(target_setting)
    try:
        for db in (source, target):
            bind_database(db)
            with db.connection_context():
                migrate()
        with source.connection_context(), target.connection_context():
            bind_database(target)
            for model in COPIED:
                if model.select().exists():
                    raise CopyError(
                        f"the target already holds a calendar (table {model._meta.table_name})"
                    )
            with write_transaction():
                counts = {model._meta.table_name: _copy_table(source, model) for model in COPIED}
                reset_sequences(COPIED)
            refresh_statistics()
        return counts
    finally:
        source.close_all()
        target.close_all()


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
