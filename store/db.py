"""The database: connection, pragmas, transactions, migrations.

Everything SQLite-specific lives here behind named helpers (``open_database``,
``write_transaction``, ``backup_to``, ``contains_text``, ``create_text_index``), so that another backend can
be added through Peewee without touching the queries elsewhere.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from contextlib import contextmanager

from peewee import SQL, DatabaseProxy, SqliteDatabase, fn
from playhouse.pool import PooledSqliteDatabase

# Every model binds to this proxy; ``bind_database`` points it at the app's database.
database = DatabaseProxy()

PRAGMAS = (
    # WAL lets readers in every gunicorn worker proceed while one writer commits.
    ("journal_mode", "wal"),
    ("foreign_keys", 1),
    # Writers queue for the lock for up to 10 s instead of failing with "database is locked".
    ("busy_timeout", 10000),
    # NORMAL in WAL mode: a commit is durable against a crash or SIGKILL of the process
    # (the WAL is in the OS page cache and is replayed on open); only an OS crash or
    # power loss can lose the last transactions. FULL would fsync on every commit and
    # cap write throughput for no gain against the failures a web process sees.
    ("synchronous", "normal"),
    # 2 MB page cache per connection: a gthread worker holds one connection per thread, and
    # the OS page cache holds the file anyway; keeps each worker under the 80 MB bar.
    ("cache_size", -2000),
    ("temp_store", "memory"),
)


def open_database(path: str) -> SqliteDatabase:
    """A Peewee database on the SQLite file ``path`` with the project's pragmas.

    Connections are pooled: each request still opens and closes one (request hooks), but
    closing returns it to the pool, so the pragmas and file open are paid once per thread.
    """
    if path != ":memory:":
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
    return PooledSqliteDatabase(
        path, pragmas=PRAGMAS, max_connections=32, stale_timeout=300, check_same_thread=False
    )


def bind_database(db: SqliteDatabase) -> None:
    database.initialize(db)


_local = threading.local()
_lock_files: dict[str, int] = {}
# flock excludes processes; threads of one process (gthread workers) queue on this first.
_thread_lock = threading.Lock()


@contextmanager
def _writer_lock():
    """A blocking file lock that queues writers of every worker process.

    SQLite's busy handler polls with sleeps of up to 100 ms when two processes want the
    write lock; ``flock`` wakes the next writer the moment the lock is released.
    """
    depth = getattr(_local, "depth", 0)
    path = database.database
    if depth or not path or path == ":memory:":
        _local.depth = depth + 1
        try:
            yield
        finally:
            _local.depth = depth
        return
    with _thread_lock:
        handle = _lock_files.get(path)
        if handle is None:
            handle = os.open(path + "-writer.lock", os.O_RDWR | os.O_CREAT, 0o600)
            _lock_files[path] = handle
        fcntl.flock(handle, fcntl.LOCK_EX)
        _local.depth = 1
        try:
            yield
        finally:
            _local.depth = 0
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def write_transaction(changes_data: bool = True):
    """A short write transaction that takes the write lock up front.

    ``BEGIN IMMEDIATE`` avoids the deadlock of two deferred transactions that both
    try to upgrade a read lock; the busy timeout then queues writers. Writes that change
    what the API serves bump the data version, which invalidates cached responses in
    every worker at once.
    """
    with _writer_lock(), database.atomic("IMMEDIATE") as txn:
        yield txn
        if changes_data and database.transaction_depth() == 1:
            database.execute_sql(
                "UPDATE setting SET value = CAST(value AS INTEGER) + 1 WHERE key = 'data_version'"
            )


def data_version() -> int:
    """Changes whenever data the API serves changes, in any worker."""
    row = database.execute_sql("SELECT value FROM setting WHERE key = 'data_version'").fetchone()
    return int(row[0]) if row else 0


def contains_text(column, text: str):
    """Case-insensitive substring test, with no wildcard characters to escape."""
    return fn.instr(fn.lower(column), text.lower()) > 0


def create_text_index(index: str, table: str, columns: tuple[str, ...]) -> None:
    """A trigram full-text index over ``table.columns`` kept in sync by triggers.

    The trigram tokenizer matches any substring of three characters or more,
    case-insensitively: the semantics of ``contains_text``, without scanning the table.
    """
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    database.execute_sql(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {index} USING fts5({cols}, content='{table}', "
        f"content_rowid='id', tokenize='trigram')"
    )
    database.execute_sql(_insert_trigger(index, table, columns))
    database.execute_sql(
        f"CREATE TRIGGER IF NOT EXISTS {index}_ad AFTER DELETE ON {table} BEGIN "
        f"INSERT INTO {index}({index}, rowid, {cols}) VALUES ('delete', old.id, {old}); END"
    )
    database.execute_sql(
        f"CREATE TRIGGER IF NOT EXISTS {index}_au AFTER UPDATE OF {cols} ON {table} BEGIN "
        f"INSERT INTO {index}({index}, rowid, {cols}) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO {index}(rowid, {cols}) VALUES (new.id, {new}); END"
    )
    database.execute_sql(f"INSERT INTO {index}({index}) VALUES ('rebuild')")


def create_link_counter(
    counter_table: str, counter: str, link_table: str, link_key: str, flag: str, value: int
) -> None:
    """Keeps ``counter_table.counter`` equal to the number of ``link_table`` rows pointing
    at it (``link_key``) whose ``flag`` is ``value``, through triggers: every insert,
    delete (cascades included) and update of a link, whichever code path makes it, as
    WordPress keeps ``term_taxonomy.count``. Recounted once here."""
    target = f"UPDATE {counter_table} SET {counter} = {counter}"
    name = f"{link_table}_{counter}"
    database.execute_sql(
        f"CREATE TRIGGER IF NOT EXISTS {name}_ai AFTER INSERT ON {link_table} "
        f"WHEN new.{flag} = {value} BEGIN {target} + 1 WHERE id = new.{link_key}; END"
    )
    database.execute_sql(
        f"CREATE TRIGGER IF NOT EXISTS {name}_ad AFTER DELETE ON {link_table} "
        f"WHEN old.{flag} = {value} BEGIN {target} - 1 WHERE id = old.{link_key}; END"
    )
    database.execute_sql(
        f"CREATE TRIGGER IF NOT EXISTS {name}_au AFTER UPDATE OF {flag}, {link_key} "
        f"ON {link_table} WHEN old.{flag} = {value} OR new.{flag} = {value} BEGIN "
        f"{target} - (old.{flag} = {value}) WHERE id = old.{link_key}; "
        f"{target} + (new.{flag} = {value}) WHERE id = new.{link_key}; END"
    )
    database.execute_sql(
        f"UPDATE {counter_table} SET {counter} = (SELECT COUNT(*) FROM {link_table} "
        f"WHERE {link_key} = {counter_table}.id AND {flag} = {value})"
    )


def _insert_trigger(index: str, table: str, columns: tuple[str, ...]) -> str:
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    return (
        f"CREATE TRIGGER IF NOT EXISTS {index}_ai AFTER INSERT ON {table} BEGIN "
        f"INSERT INTO {index}(rowid, {cols}) VALUES (new.id, {new}); END"
    )


@contextmanager
def bulk_text_index(index: str, table: str, columns: tuple[str, ...]):
    """Inside the caller's write transaction: rows inserted into ``table`` in the block
    are added to the text index in one statement at its end instead of one trigger call
    each (trigram indexing row by row is most of a large seed). New rows only: ids above
    the largest before the block."""
    last = database.execute_sql(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]
    database.execute_sql(f"DROP TRIGGER IF EXISTS {index}_ai")
    yield
    cols = ", ".join(columns)
    database.execute_sql(
        f"INSERT INTO {index}(rowid, {cols}) SELECT id, {cols} FROM {table} WHERE id > ?",
        [last],
    )
    database.execute_sql(_insert_trigger(index, table, columns))


TEXT_INDEX_MIN = 3  # trigrams: shorter words fall back to a scan


def _match_expression(words: list[str]) -> str:
    return " AND ".join('"' + word.replace('"', '""') + '"' for word in words)


def matching_ids(index: str, words: list[str]):
    """SQL for the ids of rows whose indexed text contains every one of ``words`` (3+
    characters each): one MATCH, so the index intersects the words' lists itself."""
    return SQL(f"(SELECT rowid FROM {index} WHERE {index} MATCH ?)", [_match_expression(words)])


def count_matching(index: str, words: list[str]) -> int:
    """How many rows contain every one of ``words``: read from the index alone."""
    sql = f"SELECT COUNT(*) FROM {index} WHERE {index} MATCH ?"
    return database.execute_sql(sql, [_match_expression(words)]).fetchone()[0]


def backup_to(path: str) -> None:
    """A consistent online copy of the database into ``path`` (SQLite backup API)."""
    source = database.connection()
    target = sqlite3.connect(path)
    try:
        source.backup(target)
    finally:
        target.close()


_INSERT_SQL: dict = {}


def _insert_statement(model):
    """(fields, SQL) of an insert of every column but an automatic id, compiled once."""
    cached = _INSERT_SQL.get(model)
    if cached is None:
        meta = model._meta
        fields = [
            f
            for f in meta.sorted_fields
            if not (f.primary_key and f.name == "id" and f.field_type == "AUTO")
        ]
        columns = ", ".join(f'"{f.column_name}"' for f in fields)
        marks = ", ".join("?" * len(fields))
        cached = _INSERT_SQL[model] = (
            fields,
            f'INSERT INTO "{meta.table_name}" ({columns}) VALUES ({marks})',
        )
    return cached


def _params(fields, values: dict) -> list:
    params = []
    for field in fields:
        if field.name in values:
            value = values[field.name]
        elif callable(field.default):
            value = field.default()
        else:
            value = field.default
        params.append(field.db_value(value))
    return params


def insert_row(model, values: dict) -> int:
    """Inserts one row with the model's Python defaults filled in, without building a
    query object (the hot write path); returns the rowid."""
    fields, sql = _insert_statement(model)
    return database.execute_sql(sql, _params(fields, values)).lastrowid


def insert_rows(model, rows: list[dict]) -> None:
    """Inserts many rows (defaults filled in as ``insert_row`` does) with one prepared
    statement: Peewee's ``insert_many`` spends most of a bulk load building SQL text."""
    if not rows:
        return
    fields, sql = _insert_statement(model)
    database.cursor().executemany(sql, [_params(fields, row) for row in rows])
