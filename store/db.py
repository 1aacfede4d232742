"""The database: connection, pragmas, transactions, migrations.

Two engines: a SQLite file (the default) or a PostgreSQL server (``postgresql://`` URL,
SPEC §14). Everything engine-specific lives here behind named helpers (``open_database``,
``write_transaction``, ``data_version``, ``backup_to``, ``contains_text``,
``create_text_index``, ``bulk_text_index``, ``matching_ids``, ``count_matching``,
``create_link_counter``, ``flag_column``, ``upsert``, ``insert_row``, ``insert_rows``,
``run_sql``, ``send_later``, ``constants_written``, ``totals_with_pages``,
``reset_sequences``), so the queries elsewhere are the same Peewee on both.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
import unicodedata
import weakref
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar, Token
from functools import cache, partial
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from peewee import (
    SQL,
    BooleanField,
    CharField,
    Database,
    DatabaseError,
    DatabaseProxy,
    Expression,
    Field,
    FloatField,
    ForeignKeyField,
    IntegerField,
    InterfaceError,
    NodeList,
    OperationalError,
    PostgresqlDatabase,
    TextField,
    Value,
    __exception_wrapper__,
    fn,
)
from playhouse.pool import MaxConnectionsExceeded, PooledPostgresqlDatabase, PooledSqliteDatabase

from rules import clock
from rules.text import fold
from store import fts_case

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
    # 1 MB page cache per connection: a gthread worker holds one connection per thread, and
    # the OS page cache holds the file anyway (a page missing here is one pread from it).
    ("cache_size", -1000),
    ("temp_store", "memory"),
    # No memory map of the file: each connection maps it on its own, so a worker's resident
    # size counted the pages it read once per thread (54 MB of a 13 MB file after the
    # bench's listings), and whole requests measured no slower reading through the OS page
    # cache (SPEC §9: workers under 80 MB; docs/performance.md, fifth pass).
    ("mmap_size", 0),
)


# Prepared statements each SQLite connection keeps (the driver's LRU, 128 by default). A
# worker holds a connection per thread, and eight connections' statements took 3 to 7 MB of
# a worker after `make bench` (SPEC §9: workers under 80 MB); 32 each took 2 to 4.3. The cold
# scenarios ask 116 distinct statements: 900 of their requests prepared 132 with 32 kept,
# 116 with 128 (docs/performance.md, seventh session).
SQLITE_STATEMENTS = 32

POSTGRES_SCHEMES = ("postgresql", "postgres")
# SQLite's INTEGER and REAL hold 64 bits; so does every integer and float column on
# PostgreSQL (ids up to rules/ids.py::MAX_ID, the login throttle's timestamps, coordinates).
POSTGRES_FIELD_TYPES = {
    "INT": "BIGINT",
    "AUTO": "BIGSERIAL",
    "BIGAUTO": "BIGSERIAL",
    "FLOAT": "DOUBLE PRECISION",
}
# Connections per process, at least: one per gunicorn thread (gunicorn.conf.py, more when
# GUNICORN_THREADS asks for more), and a wait rather than an error when a burst wants more.
POOL_SIZE = 32
POOL_WAIT = 30


class CalendarPostgresqlDatabase(PooledPostgresqlDatabase):
    """PostgreSQL text cannot hold NUL, where SQLite's can. The service stores none (the
    schemas refuse them), so a NUL can only be in a lookup (a login, a slug, a password):
    it becomes U+FFFD, which finds what the NUL finds on SQLite (nothing), where the
    driver would refuse the whole query."""

    def execute_sql(self, sql, params=None):
        return self._retrying(self._execute_once, sql, params)

    def _execute_once(self, sql, params=None):
        if params and any(isinstance(p, str) and "\x00" in p for p in params):
            params = [p.replace("\x00", "\ufffd") if isinstance(p, str) else p for p in params]
        unsent = _take_unsent()
        if unsent:  # sent first, in the same round trip (``send_later``)
            with __exception_wrapper__:
                statement = super().cursor().mogrify(sql, params or ())
            # The whole text goes through the driver's formatting again (peewee passes
            # ``()``): its own percent signs are doubled.
            sql, params = b"; ".join((*unsent, statement)).replace(b"%", b"%%"), ()
        return super().execute_sql(sql, params)

    def cursor(self, named_cursor=None):
        """A cursor; statements left to send (``send_later``) are sent first, so that one
        run on a cursor of its own (a bulk insert's pages) comes after them, as written."""
        unsent = _take_unsent()
        if unsent:
            with __exception_wrapper__:
                super().cursor().execute(b"; ".join(unsent))
        return super().cursor(named_cursor)

    def send_later(self, sql: str, params) -> None:
        """A statement whose answer no one reads (an insert without ``RETURNING``, an
        update), sent with the next statement or the ``COMMIT`` of the transaction, in one
        round trip with it: in order, so every later statement sees what it did; its
        failure fails that statement, and the transaction is rolled back all the same.
        Outside a transaction it is sent at once."""
        if not self.in_transaction():
            self.execute_sql(sql, params)
            return
        with __exception_wrapper__:
            statement = super().cursor().mogrify(sql, params)
        _unsent_statements().append(statement)

    def rollback(self):
        _take_unsent()  # the transaction's, never sent: nothing of them to undo
        return super().rollback()

    def _retrying(self, run, sql, params):
        for attempt in range(REPLACED_CONNECTIONS + 1):
            try:
                return run(sql, params)
            except (OperationalError, InterfaceError):
                if attempt == REPLACED_CONNECTIONS or not self._replace_dropped_connection():
                    raise
        raise AssertionError("unreachable")

    def _replace_dropped_connection(self) -> bool:
        """After a failed statement: when the server had dropped the connection (a restart,
        a fail-over, an idle connection cut) and no transaction was under way, the
        connection is given up and another taken, so the statement can be run again;
        False when the failure was anything else."""
        conn = self._state.conn
        if conn is None or not conn.closed or self.in_transaction():
            return False
        contexts = list(self._state.ctx)  # connection_context()s open on it stay open
        self.manual_close()  # closed, never back to the pool
        self.connect()
        self._state.ctx = contexts
        return True

    def _is_closed(self, conn) -> bool:
        """Whether a pooled connection is unusable. Peewee's pool asks the server
        (``SELECT 1``) at every checkout: a round trip per request, even for an answer
        from the response cache. A connection checked in less than ``PING_AFTER`` seconds
        ago is judged by its local state alone; one that sat longer is asked."""
        if conn.closed:
            return True
        last = _LAST_USED.get(conn)
        if last is not None and time.monotonic() - last < PING_AFTER:
            return self._adapter.txn_status(conn) == self._adapter.txn_unknown
        return super()._is_closed(conn)

    def _can_reuse(self, conn) -> bool:
        reusable = super()._can_reuse(conn)
        if reusable:
            _LAST_USED[conn] = time.monotonic()
        return reusable

    def begin(self, isolation_level=None):
        """``BEGIN``; for a write transaction (``_postgres_writer_lock``), with the writer
        lock and a read of the data version in the same round trip (statements of one
        simple query, run in order; the answer is the last one's)."""
        _take_unsent()  # of a transaction given up unended (a dropped connection): never sent
        if not getattr(_lock_at_begin, "on", False) or isolation_level:
            return super().begin(isolation_level)
        _lock_at_begin.on = False
        with __exception_wrapper__:
            cursor = self.cursor()
            sql = f"BEGIN; SELECT pg_advisory_xact_lock({WRITER_LOCK_KEY})"
            if not _lock_at_begin.read_version:  # a migration's: no setting table yet
                cursor.execute(sql)
                return
            cursor.execute(f"{sql}; {READ_VERSION}")
            row = cursor.fetchone()
        _lock_at_begin.version = int(row[0]) if row else None

    def commit(self):
        """``COMMIT``, after the statements a write left to send with it (``send_later``,
        then ``_bump_version``'s) in the same round trip: the writer lock is held that many
        round trips less."""
        before = getattr(_lock_at_begin, "commit_with", None)
        unsent = _take_unsent()
        if before is not None:
            unsent.append(before.encode())
            _lock_at_begin.commit_with = None
        if not unsent or self.is_closed():
            return super().commit()
        with __exception_wrapper__:
            self.cursor().execute(b"; ".join((*unsent, b"COMMIT")))

    def execute_prepared(self, sql: str, params, plan: str = "auto"):
        return self._retrying(partial(self._execute_prepared, plan=plan), sql, params)

    def _execute_prepared(self, sql: str, params, plan: str = "auto"):
        """``sql`` (psycopg2's ``%s`` placeholders) as a server-side prepared statement of
        the connection: parsed and planned once per connection, where a plain query is
        planned anew each time (planning was half of a listing query's time on the server,
        the round trip a fifth). A statement the server cannot prepare (a parameter whose
        type it cannot infer) is run plainly, for good."""
        connection = self.connection()
        prepared = _PREPARED.get(connection)
        if prepared is None:
            prepared = _PREPARED[connection] = set()
        name, text, count = _prepared_form(sql)
        if name not in prepared:
            if text is None or not self._prepare(connection, name, text):
                _UNPREPARABLE.add(sql)
                return self._execute_once(sql, params)
            prepared.add(name)
        arguments = f" ({', '.join(['%s'] * count)})" if count else ""
        # Without parameters a statement has one plan, whatever the mode.
        mode = "" if not count or self.in_transaction() else _plan_mode(connection, plan)
        return self._execute_once(f"{mode}EXECUTE {name}{arguments}", params)

    def constants_written(self, sql: str, params: list, constant: list[bool]) -> str:
        """``sql`` with the parameters marked ``constant`` written into its text as the
        literals the driver would send for them (``mogrify``: the text of a plain query)."""
        cursor = super().cursor()
        parts = sql.split("%s")
        text = [parts[0]]
        for value, fixed, part in zip(params, constant, parts[1:], strict=True):
            if fixed:
                with __exception_wrapper__:
                    literal = cursor.mogrify("%s", (value,)).decode()
                text.append(literal.replace("%", "%%"))
            else:
                text.append("%s")
            text.append(part)
        return "".join(text)

    def _prepare(self, connection, name: str, text: str) -> bool:
        """``PREPARE`` on the driver's cursor (a connection's setup, not one of its
        queries); whether the server took it. Inside a transaction (a write's statements)
        within a savepoint, so that a refused one leaves the transaction usable: a prepared
        statement belongs to the session and outlives a rollback (a write's statements
        were planned anew at every write: a write's read of its own event 0.77 ms)."""
        import psycopg2

        cursor = self.cursor()
        guarded = self.in_transaction()
        try:
            if guarded:
                cursor.execute("SAVEPOINT calendar_prepare")
            cursor.execute(f"PREPARE {name} AS {text}")
        except psycopg2.Error as error:
            if connection.closed:  # the server dropped it: another one is taken
                raise OperationalError(str(error)) from error
            if guarded:
                cursor.execute("ROLLBACK TO SAVEPOINT calendar_prepare")
                cursor.execute("RELEASE SAVEPOINT calendar_prepare")
            return False
        if guarded:
            cursor.execute("RELEASE SAVEPOINT calendar_prepare")
        return True


# Per thread (a connection's), the statements ``send_later`` keeps for the next round trip.
_unsent = threading.local()


def _unsent_statements() -> list:
    statements = getattr(_unsent, "statements", None)
    if statements is None:
        statements = _unsent.statements = []
    return statements


def _take_unsent() -> list:
    statements = getattr(_unsent, "statements", None)
    if not statements:
        return []
    _unsent.statements = []
    return statements


def send_later(sql: str, params) -> None:
    """``sql`` sent with the transaction's next statement on PostgreSQL
    (``CalendarPostgresqlDatabase.send_later``), at once on SQLite (no round trip to save)."""
    db = database.obj
    if isinstance(db, CalendarPostgresqlDatabase):
        db.send_later(sql, params)
    else:
        database.execute_sql(sql, params)


def _plan_mode(connection, plan: str) -> str:
    """What must precede an ``EXECUTE`` on ``connection`` (in the same round trip) for it
    to run as ``plan`` says (``PLAN_MODES``): nothing when the connection is set so
    already. PostgreSQL plans each of a prepared statement's first five runs for their
    values, and goes on doing so when it judges the generic plan costlier. For a statement whose plan does not depend on its values that
    judgement is wrong: an event page's previous/next was planned at every run, to run no
    faster (server CPU of a cold event page 2.5–2.9 → 0.8–1.1 ms at 100,000 events,
    docs/performance.md). A listing between dates or of a category is not one: its
    generic plan ran up to twice as long; nor the terms' listing, whose generic plan
    (a status as a parameter) took 14 ms at 100,000 events where its own took 1.7. And
    the other way: a search's first ids, whose generic plan (the word's pattern unknown)
    PostgreSQL kept after five runs, took 70–180 ms at 10,000 events where a plan for the
    word took 2.4 ("custom", docs/performance.md, eighteenth session).
    Set outside transactions only (in autocommit: a rollback would undo it), so the mode
    known is the connection's; a transaction runs its statements in that mode."""
    if _PLAN_MODES.get(connection, "auto") == plan:
        return ""
    _PLAN_MODES[connection] = plan
    return f"SET plan_cache_mode = {PLAN_MODES[plan]}; "


# How a prepared statement is planned (``plan_cache_mode``): by PostgreSQL's choice, by
# its generic plan (one whose plan does not depend on its values), or for its values at
# every run (one whose generic plan PostgreSQL misjudges).
PLAN_MODES = {"auto": "auto", "generic": "force_generic_plan", "custom": "force_custom_plan"}


# Per connection, the plan mode (``PLAN_MODES``) it is set to.
_PLAN_MODES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# How many dropped connections one statement replaces before its failure is the request's.
REPLACED_CONNECTIONS = 3
# Seconds a pooled connection may sit before its next checkout asks the server; per
# connection, when it was last checked in.
PING_AFTER = 2.0
_LAST_USED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# Per connection, the names of the statements prepared on it.
_PREPARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_UNPREPARABLE: set[str] = set()
_PREPARED_FORMS: dict[str, tuple] = {}


def _prepared_form(sql: str) -> tuple[str, str | None, int]:
    """(name, text with ``$n`` placeholders or None when it is not to be prepared, count)."""
    form = _PREPARED_FORMS.get(sql)
    if form is None:
        parts = sql.split("%s")
        text = parts[0]
        for number, part in enumerate(parts[1:], start=1):
            text += f"${number}{part}"
        text = text.replace("%%", "%")
        # Named by the statement's own text: threads that meet new statements at once
        # name each alike (a count of the forms made gave two statements one name, and a
        # connection then ran one with the other's parameters).
        name = "calendar_" + hashlib.blake2b(sql.encode(), digest_size=12).hexdigest()
        form = _PREPARED_FORMS[sql] = (name, text, len(parts) - 1)
    if sql in _UNPREPARABLE:
        return form[0], None, form[2]
    return form


def execute_prepared(sql: str, params, plan: str = "auto"):
    """The hot paths' compiled statements (store/sql.py): prepared on PostgreSQL
    (``CalendarPostgresqlDatabase.execute_prepared``; ``plan``: how it is planned,
    ``_plan_mode``), run as they are on SQLite (whose Python driver keeps its own cache of
    prepared statements)."""
    db = database.obj
    if isinstance(db, CalendarPostgresqlDatabase):
        return db.execute_prepared(sql, params, plan)
    return database.execute_sql(sql, params)


def constants_written(sql: str, params: list, constant: list[bool]) -> tuple[str, list[bool]]:
    """(the text to send, which of ``params`` go with it) of a statement whose parameters
    marked ``constant`` are the same at every run (a shape's literals, store/sql.py).
    PostgreSQL: those written into the text, so that its plans know them: a parameter is
    planned as any value, and the generic plan of a listing took "future", a status few
    events have, for one most have (the terms' listing: its custom plan, made at every
    run, was four fifths of its time on the server; docs/performance.md, eighteenth
    session). SQLite, whose plans do not weigh values: as it is."""
    db = database.obj
    if not isinstance(db, CalendarPostgresqlDatabase):
        return sql, [True] * len(params)
    return db.constants_written(sql, params, constant), [not fixed for fixed in constant]


class UnsupportedDatabase(ValueError):
    """``CALENDAR_DATABASE`` names a URL of an engine this service does not speak, or a
    PostgreSQL URL it cannot read. Said as the setting's fault; ``reason`` alone where the
    URL is a command's argument (``copy-database``'s TARGET)."""

    def __init__(self, reason: str):
        super().__init__(f"CALENDAR_DATABASE: {reason}")
        self.reason = reason


def failure_reason(error: Exception) -> str:
    """A driver's error in one line, as a message to an operator may quote it."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def shown_database(setting: str) -> str:
    """The database setting as it may be printed: a URL without its password."""
    if not is_url(setting):
        return setting
    try:
        password = urlsplit(setting).password
    except ValueError:  # a URL that cannot be read (an unclosed [): masked by its form
        password = None
        setting = re.sub(r"(://[^/@:]*:)[^@]*@", r"\1***@", setting, count=1)
    shown = setting
    if password is not None:
        shown = shown.replace(f":{password}@", ":***@", 1)
    # libpq takes the password as a parameter of the query too.
    return re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", shown)


def is_url(setting: str) -> bool:
    """Whether the database setting is a URL (``scheme://…``) rather than a file path."""
    return "://" in setting


def open_database(setting: str, connections: int = POOL_SIZE) -> Database:
    """The app's database: a PostgreSQL URL (``postgresql://user:password@host:port/name``)
    or the path of a SQLite file, opened with the project's pragmas.

    Connections are pooled: each request still opens and closes one (request hooks), but
    closing returns it to the pool, so the connection set-up is paid once per thread; the
    pool holds ``POOL_SIZE``, or ``connections`` (a worker's threads) when more.
    """
    connections = max(connections, POOL_SIZE)
    if is_url(setting):
        return CalendarPostgresqlDatabase(
            **_postgres_parameters(setting),
            field_types=POSTGRES_FIELD_TYPES,
            max_connections=connections,
            stale_timeout=300,
            timeout=POOL_WAIT,
        )
    if setting != ":memory:":
        directory = os.path.dirname(os.path.abspath(setting))
        os.makedirs(directory, exist_ok=True)
        _made_private(setting)
    db = PooledSqliteDatabase(
        setting,
        pragmas=PRAGMAS,
        max_connections=connections,
        timeout=POOL_WAIT,
        stale_timeout=300,
        check_same_thread=False,
        cached_statements=SQLITE_STATEMENTS,
    )
    db.register_function(_folded_value, "unicode_fold", 1, deterministic=True)
    return db


def refuse_read_only(setting: str) -> None:
    """An OSError when ``setting`` is a SQLite file (or its -wal, -shm) this process cannot
    write: one made by root, or made immutable. SQLite opens it and reads, and every write
    would fail (a 500, a traceback from a command), so the start says it at once."""
    if is_url(setting) or setting == ":memory:":
        return
    for path in (setting, f"{setting}-wal", f"{setting}-shm"):
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise OSError(f"{path} is read-only for this user")


def _made_private(path: str) -> None:
    """A new database file is made readable by its owner only (SQLite gives its -wal and
    -shm the same mode): it holds the key that signs the editor's sessions (SECRET_KEY, as
    instance/secret_key, 0600), which anyone who reads it could sign one with."""
    if os.path.lexists(path):
        return
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:  # made meanwhile, by another process
        pass


def _folded_value(value):
    return fold(value) if isinstance(value, str) else value


# rules/text.py::fold in PostgreSQL's SQL, ``{}`` the column: composed, lowered a character
# at a time (``LOWER``), the two small sigmas made one. Immutable, so an index may hold it.
# ``fold`` in PostgreSQL's words (its ``LOWER`` already makes "İ" one "i"); the event text
# index is made over it: a change here needs a migration that makes the index again (_v31).
_FOLD_SQL = "REPLACE(TRANSLATE(LOWER(NORMALIZE({}, NFC)), 'ς', 'σ'), 'i\u0307', 'i')"


def folded(column):
    """``column`` as ``fold`` writes a text, to compare with a text so folded. PostgreSQL:
    ``_FOLD_SQL``; SQLite, whose own ``lower`` folds A to Z only ("Été" would never meet
    "été": a term, a venue, a user's e-mail): ``fold`` itself, registered as
    ``unicode_fold`` (a call per row it compares). No index is made over it on SQLite: a
    file whose index needs our function fails ``PRAGMA integrity_check`` and any write from
    the ``sqlite3`` shell; so a term's lookup by name folds its taxonomy's names, and a
    venue's or organizer's de-duplication the titles of its key only (a column the writes
    fill in Python, store/linked.py::title_key; docs/performance.md, chk19a)."""
    if is_postgres():
        before, after = _FOLD_SQL.split("{}")
        return NodeList((SQL(before), column, SQL(after)), glue="")
    return fn.unicode_fold(column)


def _postgres_parameters(url: str) -> dict:
    scheme = url.split("://", 1)[0].lower()
    if scheme not in POSTGRES_SCHEMES:
        raise UnsupportedDatabase(
            f"unsupported scheme {scheme}:// (a SQLite file path or a "
            "postgresql://user:password@host:port/name URL)"
        )
    try:  # a port that is no number or out of range, an unclosed [ of an IPv6 address
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise UnsupportedDatabase(f"the PostgreSQL URL cannot be read ({error})") from None
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise UnsupportedDatabase("the PostgreSQL URL names no database")
    parameters = {"database": name, "host": parts.hostname or None, "port": port}
    if parts.username:
        parameters["user"] = unquote(parts.username)
    if parts.password:
        parameters["password"] = unquote(parts.password)
    for item in filter(None, parts.query.split("&")):  # e.g. ?sslmode=require
        key, _, value = item.partition("=")
        parameters[key] = unquote(value)
    # Before the URL's own ``options``, which may set them otherwise (the last one holds).
    parameters["options"] = " ".join(filter(None, (SESSION_OPTIONS, parameters.get("options"))))
    return {k: v for k, v in parameters.items() if v is not None}


# Settings of every connection's session, sent with its start (no round trip). No JIT
# compilation: a plan the planner costs above ``jit_above_cost`` (a visitor's search of
# the list page, a category's page at 100,000 events) was compiled at each run, 100 ms
# of a 110 ms statement at 10,000 events and 2.2 s at 100,000, for statements that read
# a few hundred rows (docs/performance.md, eighteenth session).
SESSION_OPTIONS = "-c jit=off"


def unavailable(error: Exception) -> bool:
    """Whether ``error`` says the database cannot answer now, so that a retry may succeed:
    a PostgreSQL server down, restarting or out of connections, a connection dropped, a
    pool with no free connection, SQLite's write lock still held when the busy timeout ran
    out. A fault of a query itself is not one (its 500 must not invite retries)."""
    if isinstance(error, InterfaceError | MaxConnectionsExceeded):
        return True
    if not isinstance(error, OperationalError):
        return False
    cause = getattr(error, "orig", None)  # the driver's own error, as peewee keeps it
    if isinstance(cause, sqlite3.OperationalError):
        return str(cause).startswith(("database is locked", "database is busy"))
    return type(cause).__module__.startswith("psycopg2")  # the server, not the query


def is_postgres() -> bool:
    """Whether the bound database is PostgreSQL (else SQLite)."""
    return isinstance(database.obj, PostgresqlDatabase)


def day_before_sql() -> str:
    """The ISO date (``YYYY-MM-DD``) before that of the text put for ``{}``, in the bound
    engine's SQL: ``dates_key``'s triggers and ``day_before``'s statements."""
    if is_postgres():
        return "to_char(CAST({} AS date) - 1, 'YYYY-MM-DD')"
    return "date({}, '-1 day')"


def day_before(day):
    """``day_before_sql`` of ``day``, an expression (a subquery) of a ``YYYY-MM-DD`` text."""
    before, after = day_before_sql().split("{}")
    return NodeList((SQL(before), day, SQL(after)), glue="")


def unindexed(column):
    """``column`` as a value SQLite's planner will not look up by index (same value, same
    type): a listing's page is then read in start order, stopping after the page, instead
    of gathering every row of each status (or every match of a word) and sorting them.
    PostgreSQL's planner makes that choice itself from its statistics (``ANALYZE``), and the
    opaque expression would hide the status column's from it: there the column stays as it
    is."""
    if is_postgres():
        return column
    if isinstance(column, IntegerField | ForeignKeyField):
        return column + SQL("0")
    return column.concat(SQL("''"))


def gather_statistics() -> None:
    """PostgreSQL: the planner's statistics of the tables, gathered now, where autovacuum
    gathers them only a while after a bulk load (seed, copy). Within the load's own
    transaction (``ANALYZE`` counts its rows), so that its commit, which makes the first
    stored texts, finds the texts to be made by a plan made from them: without them the
    loaded events were joined in a nested loop (minutes for 30,000 seeded events, hours
    for 100,000). Listings need them too, to walk an index in start order and stop after
    the page. SQLite's plans are made without statistics (``unindexed``)."""
    if is_postgres():
        database.execute_sql("ANALYZE")


def after_bulk_load(make_texts: Callable[[], object]) -> None:
    """After a bulk load's commit: the rest of its stored texts made (``make_texts``), then
    the tables vacuumed. PostgreSQL (``VACUUM (ANALYZE)``): the GIN text index took the
    loaded rows into its pending list, which the planner counts as read whole by every
    search, and statistics alone (the texts' rows changed) left it so: until autovacuum
    came by, each word of an event search read every event and folded three columns of
    each (42 ms at 10,000 demo events; 0.1 ms from the index once vacuumed,
    docs/performance.md). SQLite: the file rewritten without free space (queued with the
    writers): the stored texts, each made into its event's small row, left their pages
    half full (383 MB for 100,000 demo events, 253 MB after; a smaller file is a smaller
    share of it to read)."""
    make_texts()
    if is_postgres():
        database.execute_sql("VACUUM (ANALYZE)")  # outside a transaction, as VACUUM must be
        return
    with _writer_lock():
        # VACUUM writes the file's copy into a temporary database: on disk for this once,
        # as the connections' temp_store "memory" would hold the whole copy in RAM (a seed of
        # 1,000,000 events passed 3 GB before its 5 GB file was copied).
        database.execute_sql("PRAGMA temp_store = FILE")
        try:
            database.execute_sql("VACUUM")
        finally:
            database.execute_sql("PRAGMA temp_store = MEMORY")


def settle_text_index(index: str, table: str, columns: tuple[str, ...]) -> None:
    """After an import of many rows into ``table`` (``import-ics``, ``import-tec``,
    ``recurrence extend``), outside its transactions: on PostgreSQL, the rows that its GIN text index took into its pending
    list merged into the index and the statistics gathered (``VACUUM (ANALYZE)``, 0.2 s at
    10,000 events), for the reason ``after_bulk_load`` gives. SQLite's FTS5 index took each
    row as it came: nothing to do."""
    if is_postgres():
        database.execute_sql(f"VACUUM (ANALYZE) {table}")


def bind_database(db: Database) -> None:
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


# Keys of PostgreSQL's session advisory locks that let one run of a command at a time.
RUN_LOCK_KEYS = {"import-tec": 0x0CA1E4DB}


@contextmanager
def one_run_at_a_time(command: str):
    """Yields whether this is the only run of ``command`` on the database (False: another
    process runs it). Held until the block ends, released too when the process dies: on
    SQLite an ``flock`` on a file beside the database, on PostgreSQL a session advisory
    lock of the connection (so it holds for runs on other hosts as well)."""
    if is_postgres():
        key = RUN_LOCK_KEYS[command]
        mine = database.execute_sql("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]
        try:
            yield bool(mine)
        finally:
            if mine:
                database.execute_sql("SELECT pg_advisory_unlock(%s)", (key,))
        return
    path = database.database
    if not path or path == ":memory:":
        yield True
        return
    handle = os.open(f"{path}-{command}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(handle)  # releases the lock


# The key of PostgreSQL's transaction-scoped advisory lock that queues writers.
WRITER_LOCK_KEY = 0x0CA1E4DA


# Set while a write transaction begins: ``CalendarPostgresqlDatabase.begin`` then takes the
# writer lock with its ``BEGIN`` (one round trip for both).
_lock_at_begin = threading.local()


@contextmanager
def _postgres_writer_lock(changes_data: bool, held: bool):
    """Writers of every host queue on one advisory lock taken as the transaction's first
    statement, released by its commit or rollback: one writer at a time, as on SQLite, so
    the checks a write makes before it writes (unique slugs, names) hold; and in READ
    COMMITTED each later statement sees every write committed before the lock was granted.
    A transaction that begins here sends the lock with its ``BEGIN``; one nested in another
    takes it on its own (the outer one may not be a write), unless the thread ``held`` it
    already (an outer write transaction took it: asking again was a round trip for nothing).
    """
    outermost = not database.in_transaction()
    _lock_at_begin.on = outermost
    _lock_at_begin.read_version = changes_data
    try:
        with database.atomic() as txn:
            _lock_at_begin.on = False
            if not outermost and not held:
                database.execute_sql("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK_KEY,))
            yield txn
    finally:
        _lock_at_begin.on = False
        if outermost:
            _lock_at_begin.version = _lock_at_begin.commit_with = None


# What runs at the end of every outermost write transaction that changes data, inside it
# (store/texts.py makes the texts the write left to be made). A hook may return a function,
# called after the commit with the data version the write made (what the hook read last
# in the transaction is the data at that version).
BEFORE_COMMIT: list = []
# The write transactions the thread is in, and whether one of them changes data.
_writes = threading.local()


@contextmanager
def write_transaction(changes_data: bool = True):
    """A short write transaction that takes the write lock up front.

    SQLite: ``BEGIN IMMEDIATE`` avoids the deadlock of two deferred transactions that both
    try to upgrade a read lock; the busy timeout then queues writers. PostgreSQL: the
    advisory lock above. Writes that change what the API serves bump the data version,
    which invalidates cached responses in every worker (and every host) at once.
    """
    postgres = is_postgres()
    # The outermost write transaction of the thread commits (peewee's savepoints leave
    # ``transaction_depth`` at 1): it runs the hooks and bumps the version, once, if it or
    # one nested in it (``write_decided`` around a store's save) changed data.
    outermost = not getattr(_writes, "depth", 0)
    if not outermost and getattr(_writes, "joined", False):
        transaction = nullcontext()  # part of the write that holds the lock (write_decided)
    elif postgres:
        transaction = _postgres_writer_lock(changes_data, held=not outermost)
    else:
        transaction = _sqlite_writer_transaction()
    bumped, committed = None, []
    _writes.depth = getattr(_writes, "depth", 0) + 1
    _writes.changes = changes_data or (not outermost and _writes.changes)
    try:
        with transaction as txn:
            yield txn
            if outermost and _writes.changes:
                committed = [hook() for hook in BEFORE_COMMIT]
                bumped = _bump_version()
                _forget_pinned_version()
    finally:
        _writes.depth -= 1
    if bumped is not None:  # committed: the data is at this version until the next write
        _known_version(bumped, time.monotonic())
        for then in committed:
            if then is not None:
                then(bumped)
        if postgres:
            # Commit wait: a worker of any host may serve a version read up to
            # VERSION_LEASE ago (data_version); once the lease of every read made before
            # this commit has run out, no request that follows the acknowledgement can be
            # answered from the data before it.
            _acknowledge_after(time.monotonic() + VERSION_LEASE)


@contextmanager
def schema_transaction():
    """The write transaction of a migration. Some steps rebuild a SQLite table
    (playhouse.migrate: create a new one, copy, drop the old, rename): with foreign keys on,
    the drop deletes every row that refers to the old table (ON DELETE CASCADE), so an
    upgrade once emptied the event's links and the users' application passwords. As
    SQLite's "Making Other Kinds Of Table Schema Changes" says: foreign keys off outside
    the transaction (the pragma is a no-op inside one), the steps, then
    ``foreign_key_check`` before the commit: a step that leaves a row referring to nothing
    is rolled back. PostgreSQL alters its tables in place."""
    if is_postgres():
        with write_transaction(changes_data=False) as txn:
            yield txn
        return
    database.execute_sql("PRAGMA foreign_keys = OFF")
    try:
        with write_transaction(changes_data=False) as txn:
            broken = _foreign_key_violations()
            yield txn
            made = _foreign_key_violations() - broken
            if made:
                raise DatabaseError(f"a migration left rows that refer to nothing: {made}")
    finally:
        database.execute_sql("PRAGMA foreign_keys = ON")


def _foreign_key_violations() -> set[tuple]:
    """SQLite's ``foreign_key_check``, table by table: (child table, parent table, rows)."""
    rows = database.execute_sql(
        'SELECT "table", parent, count(*) FROM pragma_foreign_key_check GROUP BY 1, 2'
    )
    return set(rows.fetchall())


def write_decided(decide, write):
    """A write whose decision (the row it changes, the permission, the write rules, the
    values derived from the row, the existence of what it links to) is made from what
    ``decide`` reads, then saved by ``write(decision)`` in one write transaction. The
    decision is made first outside the transaction, which stays short; when another write
    was committed since it began reading, it is made again inside, under the writer lock,
    from a fresh read: a rule checked or a value derived from a row that changed in between
    would undo or bypass that write (SPEC §10). ``decide`` reads everything it decides from
    itself, and may raise (a 400, 403 or 404) inside: nothing is written then.

    While writes are contended (the process's last one had to decide again) the decision
    is made under the lock only: one made before it was made again in 99 % of the bench's
    writes (8 writers at once), its reads and the version's read a round trip each for
    nothing. Back to deciding first once a write finds no other committed since the
    process last knew the version."""
    global _contended
    early = not _contended
    if early:
        seen = committed_version()
        decision = decide()
    else:
        known = _lease[1] if _lease[0] is database.obj else None
    with write_transaction():
        version = _version_in_transaction()
        if not early:
            _contended = version != known
            decision = decide()
        elif version != seen:
            _contended = True
            decision = decide()
        # The write transactions of ``write`` join this one, without a savepoint each: a
        # failure of any of them leaves ``write`` and rolls this whole transaction back, so
        # there is nothing to roll back to (a savepoint and its release were two round
        # trips of every write on PostgreSQL, both under the writer lock).
        joined = getattr(_writes, "joined", False)
        _writes.joined = True
        try:
            return write(decision)
        finally:
            _writes.joined = joined


# Whether the last write of the process found another committed between its first
# decision and the writer lock (``write_decided``).
_contended = False


def committed_version() -> int:
    """The data version committed by now: not the one the request pinned, which may have
    been read after what the caller read before (``write_decided``)."""
    row = execute_prepared(READ_VERSION, ()).fetchone()
    return int(row[0]) if row else 0


def _version_in_transaction() -> int:
    """The data version inside a write transaction: every write committed before the
    writer lock was granted. PostgreSQL's ``BEGIN`` read it with the lock."""
    known = getattr(_lock_at_begin, "version", None)
    return known if known is not None else committed_version()


READ_VERSION = "SELECT value FROM setting WHERE key = 'data_version'"
BUMP_VERSION = (
    "UPDATE setting SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = 'data_version'"
)


# The last two data versions and when the writes that made them were made (seconds since
# the epoch, by rules/clock.py), moved with every bump: a feed that an event left changed
# then, though no event it still holds did (app/cache.py, ``written_times``).
_WRITTEN_BEFORE = (
    "INSERT INTO setting (key, value) SELECT 'data_written_before', value FROM setting"
    " WHERE key = 'data_written' ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
_WRITTEN = (
    "INSERT INTO setting (key, value) VALUES ('data_written', '{} {:.6f}')"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
READ_WRITTEN = "SELECT key, value FROM setting WHERE key IN ('data_written_before', 'data_written')"


def _bump_version() -> int | None:
    """The data version the write transaction makes, and the time of the write noted. On
    PostgreSQL its ``BEGIN`` read the version under the writer lock, which every bump is
    made under, so nothing moves it before the commit: the bump is sent with the
    ``COMMIT`` (``commit`` above), one round trip fewer while the lock is held."""
    known = getattr(_lock_at_begin, "version", None)
    if known is not None:
        written = _WRITTEN.format(known + 1, clock.timestamp())  # numbers: nothing to quote
        _lock_at_begin.commit_with = f"{BUMP_VERSION}; {_WRITTEN_BEFORE}; {written}"
        return known + 1
    row = database.execute_sql(f"{BUMP_VERSION} RETURNING value").fetchone()
    if row is None:
        return None
    database.execute_sql(_WRITTEN_BEFORE)
    database.execute_sql(_WRITTEN.format(int(row[0]), clock.timestamp()))
    return int(row[0])


def written_times() -> list[tuple[int, float]]:
    """(data version, when its write was made) of the last two writes that changed data
    (fewer before the first ones since this was noted), as committed by now."""
    rows = execute_prepared(READ_WRITTEN, ()).fetchall()
    pairs = (value.split() for _key, value in rows)
    return sorted((int(version), float(moment)) for version, moment in pairs)


@contextmanager
def _sqlite_writer_transaction():
    with _writer_lock(), database.atomic("IMMEDIATE") as txn:
        if _writes.depth == 1:  # the outermost (write_transaction counts them)
            # Reads a table first, so that this connection takes up a schema another
            # process changed (``flask seed``, ``flask migrate``) before it writes:
            # SQLite 3.40 fails a ``DELETE FROM event`` that meets the change itself (its
            # foreign-key cascades and the text index's trigger) with "no such table".
            # Under the write lock, nothing can change the schema again until the commit.
            database.execute_sql("SELECT 1 FROM sqlite_master LIMIT 0")
        yield txn


def data_version() -> int:
    """Changes whenever data the API serves changes, in any worker. Read once per pinned
    scope (a request: ``pin_data_version``); a write of that scope knows the version it
    made. On PostgreSQL a worker reads it at most once per VERSION_LEASE (a round trip to
    the server saved on most requests); every write waits that long before it is
    acknowledged (``write_transaction``), so no request after the acknowledgement, on any
    host, is answered from older data."""
    slot = _pinned.get()
    if slot is not None and slot[0] is not None:
        return slot[0]
    version = _leased_version() if is_postgres() else _read_version()
    if slot is not None:
        slot[0] = version
    return version


def _leased_version() -> int:
    """The version of a read that began less than VERSION_LEASE before this thread asked.
    A thread whose lease ran out waits for the read another thread of the worker has under
    way, and takes its answer if that read began within the lease before this thread asked
    (the rule a finished read is held to): under load the threads of a worker otherwise
    each sent their own read at once."""
    asked = time.monotonic()
    version = _leased(asked)
    if version is None:
        with _version_read:
            version = _leased(asked)
            if version is None:
                version = _read_version()
    return version


def _leased(asked: float) -> int | None:
    of, known, read_at = _lease
    return known if of is database.obj and asked - read_at < VERSION_LEASE else None


def _read_version() -> int:
    read_at = time.monotonic()  # before the query: the lease counts from its start
    row = execute_prepared(READ_VERSION, ()).fetchone()
    version = int(row[0]) if row else 0
    _known_version(version, read_at)
    return version


# Seconds a worker on PostgreSQL serves the data version it read without reading it again,
# and what its last read (or write) found: (database, version, monotonic time of the read).
VERSION_LEASE = 0.003
_lease: tuple = (None, None, 0.0)
# One read of the version at a time per worker (_leased_version).
_version_read = threading.Lock()


def _known_version(version: int, at: float) -> None:
    global _lease
    if _lease[0] is not database.obj or at >= _lease[2]:
        _lease = (database.obj, version, at)
    slot = _pinned.get()
    if slot is not None:
        slot[0] = version


# The data version of the current request: read at its first use, not before (a request
# that never asks costs no query), forgotten when the request writes.
_pinned: ContextVar[list | None] = ContextVar("pinned_data_version", default=None)


def pin_data_version() -> Token:
    """Starts a scope (one request) that reads the data version once; ``unpin`` ends it."""
    return _pinned.set([None, 0.0])  # [version, acknowledge at (monotonic)]


def unpin_data_version(token: Token) -> None:
    """Ends the scope, first waiting out the commit wait of its writes: the scope's end
    (a request's teardown) comes before its answer is sent."""
    slot = _pinned.get()
    if slot is not None:
        _wait_until(slot[1])
    try:
        _pinned.reset(token)
    except ValueError:  # ended in another context than it began: just end it
        _pinned.set(None)


def _acknowledge_after(moment: float) -> None:
    """A write of the current scope may be acknowledged at ``moment`` (monotonic), not
    before: the scope's end waits for it, so that the answer's own work after the commit
    (reading and rendering what the write made) runs inside the wait instead of after it;
    outside a scope (the CLI) the wait is now."""
    slot = _pinned.get()
    if slot is None:
        _wait_until(moment)
    else:
        slot[1] = max(slot[1], moment)


def _wait_until(moment: float) -> None:
    left = moment - time.monotonic()
    if left > 0:
        time.sleep(left)


def _forget_pinned_version() -> None:
    slot = _pinned.get()
    if slot is not None:
        slot[0] = None


def _like_pattern(text: str) -> str:
    """``%text%`` for ``LIKE`` and ``ILIKE``, with the text's own wildcards taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def contains_text(column, text: str, scan: bool = False):
    """Substring test in any case and Unicode form: the column and the text folded alike
    (``folded``, ``fold``), on either engine. But a ``scan`` of a whole table of events (a
    word too short for the text index) of an ASCII word keeps each engine's quicker test,
    the same on both: PostgreSQL's ``ILIKE``, which lowers "İ" and the Kelvin sign into
    ASCII as ``fold`` does (it does not compose: a decomposed "é" holds an "e" there, and
    on SQLite too); SQLite's ``lower``, A to Z, and those two capitals (``_ascii_lowered``).
    Python's fold costs SQLite half as much again per row, and PostgreSQL's ``NORMALIZE``
    four times ``ILIKE``'s: at 10,000 demo events ``search=ab`` takes 14 ms on SQLite,
    ``search=ét`` 22 ms (docs/performance.md)."""
    quick = scan and text.isascii()
    if is_postgres():
        if quick:
            return Expression(column, "ILIKE", Value(_like_pattern(text)))
        return Expression(folded(column), "LIKE", Value(_like_pattern(fold(text))))
    if quick:
        return _ascii_lowered(column, text.lower())
    return fn.instr(folded(column), fold(text)) > 0


def _ascii_lowered(column, word: str):
    """SQLite: ``column`` holds the ASCII ``word`` once lowered A to Z, or once "İ" and the
    Kelvin sign are lowered too ("i", "k"), in the rare rows that hold one (two ``instr``
    cost less than ``replace`` copying every text)."""
    found = fn.instr(fn.lower(column), word) > 0
    if not {"i", "k"} & set(word):
        return found
    rare = (fn.instr(column, "İ") > 0) | (fn.instr(column, "\u212a") > 0)
    lowered = fn.lower(fn.replace(fn.replace(column, "İ", "i"), "\u212a", "k"))
    return found | (rare & (fn.instr(lowered, word) > 0))


def create_text_index(index: str, table: str, columns: tuple[str, ...]) -> None:
    """A trigram full-text index over ``table.columns``, so that ``matching_ids`` finds the
    rows containing a word without scanning the table.

    SQLite: an FTS5 table with the trigram tokenizer, kept in sync by triggers; it
    matches any substring of three characters or more, case-insensitively, and a word is
    asked in either Unicode form (``_match_expression``): the semantics of
    ``contains_text``. PostgreSQL: a ``pg_trgm`` GIN index over the columns folded and a
    SQL function named after the index that returns the ids of the rows whose folded
    columns contain a folded word (``LIKE``, answered from the index; inlined by the
    planner).
    """
    if is_postgres():
        _create_postgres_text_index(index, table, columns)
        return
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
    WordPress keeps ``term_taxonomy.count``. Recounted once here. SQLite: three row
    triggers; PostgreSQL: one PL/pgSQL function run once per statement over its transition
    tables (a statement that adds 100,000 links updates each counter once, where a row
    trigger updated the same few counter rows, each a new row version, 100,000 times)."""
    target = f"UPDATE {counter_table} SET {counter} = {counter}"
    name = f"{link_table}_{counter}"
    if is_postgres():

        def change(rows: str, sign: str) -> str:
            return (
                f"UPDATE {counter_table} AS c SET {counter} = c.{counter} {sign} d.n FROM "
                f"(SELECT {link_key} AS id, COUNT(*) AS n FROM {rows} WHERE {flag} = {value} "
                f"GROUP BY {link_key}) AS d WHERE c.id = d.id; "
            )

        database.execute_sql(f"DROP TRIGGER IF EXISTS {name} ON {link_table}")  # row-level
        _statement_triggers(name, link_table, change("old_rows", "-"), change("new_rows", "+"))
    else:
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


def create_change_marker(marks: str, key: str, table: str, column: str) -> None:
    """Triggers that set ``marks.body`` to NULL (to be made again) for the rows of
    ``marks`` whose ``key`` is the ``column`` of a row of ``table`` inserted, updated or
    deleted, in the transaction of the write, whichever code path makes it (cascades
    included); ``table`` "event" itself also adds the mark of a new event. SQLite: row
    triggers; PostgreSQL: statement triggers over the transition tables, as in
    ``create_link_counter``."""
    name = f"{table}_{marks}"
    clear = f"UPDATE {marks} SET body = NULL WHERE {key} IN"
    if is_postgres():
        new = (
            f"INSERT INTO {marks} ({key}) SELECT {column} FROM new_rows "
            f"ON CONFLICT ({key}) DO UPDATE SET body = NULL; "
            if column == "id"  # the marked table itself: a new row gets its mark
            else f"{clear} (SELECT {column} FROM new_rows); "
        )
        _statement_triggers(name, table, f"{clear} (SELECT {column} FROM old_rows); ", new)
        return
    insert = (
        f"INSERT INTO {marks} ({key}) VALUES (new.{column}) "
        f"ON CONFLICT ({key}) DO UPDATE SET body = NULL"
        if column == "id"
        else f"{clear} (new.{column})"
    )
    for suffix, event, body in (
        ("ai", "INSERT", insert),
        ("ad", "DELETE", f"{clear} (old.{column})"),
        ("au", "UPDATE", f"{clear} (old.{column}, new.{column})"),
    ):
        database.execute_sql(
            f"CREATE TRIGGER IF NOT EXISTS {name}_{suffix} AFTER {event} ON {table} "
            f"BEGIN {body}; END"
        )


# ``event_day``'s key: the UTC days of an event's start and end, and its status.
DAY_KEY = (
    ("start_day", "substr({0}.utc_start, 1, 10)"),
    ("end_day", "substr({0}.utc_end, 1, 10)"),
    ("status", "{0}.status"),
)


def dates_key() -> tuple[tuple[str, str], ...]:
    """``event_dates``' key: the first and last day an event is on, its status and whether it
    is all day (where its first events may start: store/events.py::_spread). A timed
    event is on the UTC days from its start's to its last second's (one ending at a
    midnight after its start is not on the day that midnight begins); an all-day one on
    its own dates, whatever their UTC times (store/events.py::_on_day's rule, on UTC days)."""
    day_before_end = day_before_sql().format("substr({0}.utc_end, 1, 10)")
    last = (
        "CASE WHEN {0}.all_day THEN substr({0}.end_date, 1, 10) "
        "WHEN {0}.utc_end <= {0}.utc_start THEN substr({0}.utc_start, 1, 10) "
        "WHEN substr({0}.utc_end, 11) = ' 00:00:00' THEN " + day_before_end + " "
        "ELSE substr({0}.utc_end, 1, 10) END"
    )
    first = (
        "CASE WHEN {0}.all_day THEN substr({0}.start_date, 1, 10) "
        "ELSE substr({0}.utc_start, 1, 10) END"
    )
    return (
        ("first_day", first),
        ("last_day", last),
        ("status", "{0}.status"),
        ("all_day", "{0}.all_day"),
    )


# The columns ``dates_key`` reads (SQLite's update trigger watches them).
DATES_COLUMNS = (
    "utc_start",
    "utc_end",
    "all_day",
    "start_date",
    "end_date",
    "status",
    "hide_from_listings",
)


def create_day_counter(
    counter: str,
    table: str,
    key: tuple[tuple[str, str], ...] = DAY_KEY,
    columns: tuple[str, ...] = ("utc_start", "utc_end", "status", "hide_from_listings"),
) -> None:
    """Keeps ``counter`` (the ``key`` columns and ``n``) equal to the number of ``table``
    rows not ``hide_from_listings`` per value of ``key`` (each column's expression over a
    row: ``{0}`` names the row), through triggers on every insert, delete and update (of
    ``columns``, those the key reads, on SQLite), whichever code path makes it; counted once
    here. A count that falls to 0 keeps its row. SQLite: row triggers on the updates of those
    columns; PostgreSQL: statement triggers over the transition tables
    (``create_link_counter``), on every update (one that moves no day takes its rows off and
    puts them back; writers queue on one lock, so two never update the same counters at
    once)."""
    names = ", ".join(name for name, _expression in key)
    values = ", ".join(expression for _name, expression in key)
    if is_postgres():
        _postgres_day_triggers(counter, table, key)
        listed = "NOT hide_from_listings"
    else:
        _sqlite_day_triggers(counter, table, key, columns)
        listed = "hide_from_listings = 0"
    groups = ", ".join(str(n + 1) for n in range(len(key)))
    database.execute_sql(f"DELETE FROM {counter}")
    database.execute_sql(
        f"INSERT INTO {counter} ({names}, n) "
        f"SELECT {values.format(table)}, COUNT(*) FROM {table} WHERE {listed} GROUP BY {groups}"
    )


def _postgres_day_triggers(counter: str, table: str, key: tuple[tuple[str, str], ...]) -> None:
    names = ", ".join(name for name, _expression in key)
    values = ", ".join(expression for _name, expression in key)
    groups = ", ".join(str(n + 1) for n in range(len(key)))
    aliases = ", ".join(f"k{n}" for n in range(len(key)))

    def grouped(rows: str) -> str:
        return (
            f"(SELECT {values.format(rows)}, COUNT(*) FROM {rows} "
            f"WHERE NOT {rows}.hide_from_listings GROUP BY {groups}) AS d ({aliases}, c)"
        )

    def add(rows: str) -> str:
        return (
            f"INSERT INTO {counter} ({names}, n) "
            f"SELECT {aliases}, c FROM {grouped(rows)} "
            f"ON CONFLICT ({names}) DO UPDATE "
            f"SET n = {counter}.n + EXCLUDED.n; "
        )

    def take(rows: str) -> str:
        matched = " AND ".join(f"t.{name} = d.k{n}" for n, (name, _e) in enumerate(key))
        return f"UPDATE {counter} AS t SET n = t.n - d.c FROM {grouped(rows)} WHERE {matched}; "

    _statement_triggers(f"{table}_{counter}", table, take("old_rows"), add("new_rows"))


def _sqlite_day_triggers(
    counter: str, table: str, key: tuple[tuple[str, str], ...], columns: tuple[str, ...]
) -> None:
    names = ", ".join(name for name, _expression in key)
    values = ", ".join(expression for _name, expression in key)

    def add(row: str) -> str:
        return (
            f"INSERT INTO {counter} ({names}, n) "
            f"SELECT {values.format(row)}, 1 WHERE {row}.hide_from_listings = 0 "
            f"ON CONFLICT ({names}) DO UPDATE SET n = n + 1; "
        )

    def take(row: str) -> str:
        matched = " AND ".join(f"{name} = {value.format(row)}" for name, value in key)
        return f"UPDATE {counter} SET n = n - 1 WHERE {matched} AND {row}.hide_from_listings = 0; "

    for suffix, event, body in (
        ("ai", "INSERT", add("new")),
        ("ad", "DELETE", take("old")),
        ("au", f"UPDATE OF {', '.join(columns)}", take("old") + add("new")),
    ):
        database.execute_sql(
            f"CREATE TRIGGER IF NOT EXISTS {table}_{counter}_{suffix} AFTER {event} "
            f"ON {table} BEGIN {body} END"
        )


def _statement_triggers(name: str, table: str, on_old: str, on_new: str) -> None:
    """PostgreSQL: a PL/pgSQL function ``name`` run once per statement on ``table``, over
    its transition tables: ``on_old`` over the rows a delete or an update took away
    (``old_rows``), then ``on_new`` over those an insert or an update put (``new_rows``)."""
    database.execute_sql(
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN "
        f"IF TG_OP IN ('DELETE', 'UPDATE') THEN {on_old} END IF; "
        f"IF TG_OP IN ('INSERT', 'UPDATE') THEN {on_new} END IF; "
        f"RETURN NULL; END $$"
    )
    for suffix, event, tables in (
        ("ins", "INSERT", "NEW TABLE AS new_rows"),
        ("del", "DELETE", "OLD TABLE AS old_rows"),
        ("upd", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ):
        database.execute_sql(f"DROP TRIGGER IF EXISTS {name}_{suffix} ON {table}")
        database.execute_sql(
            f"CREATE TRIGGER {name}_{suffix} AFTER {event} ON {table} "
            f"REFERENCING {tables} FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
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
    the largest before the block. PostgreSQL's GIN index is kept by the server itself (its
    pending list batches the entries), so there is nothing to do there."""
    if is_postgres():
        yield
        return
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


def _create_postgres_text_index(index: str, table: str, columns: tuple[str, ...]) -> None:
    """The columns are indexed folded (``_FOLD_SQL``), and a pattern is a folded word, so
    that the index finds what ``contains_text`` finds: "ΔΡΟΜΟΣ" by "δρομος", a text
    stored decomposed by the word typed composed."""
    database.execute_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    operators = ", ".join(f"({_FOLD_SQL.format(c)}) gin_trgm_ops" for c in columns)
    database.execute_sql(f"CREATE INDEX IF NOT EXISTS {index} ON {table} USING gin ({operators})")
    # The folded expressions' statistics, which the planner weighs the index by: gathered
    # now, not when autovacuum comes by (a migration that makes the index again, ``_v30``).
    database.execute_sql(f"ANALYZE {table}")
    matches = " OR ".join(f"{_FOLD_SQL.format(c)} LIKE pattern" for c in columns)
    database.execute_sql(
        f"CREATE OR REPLACE FUNCTION {index}(pattern text) RETURNS SETOF bigint "
        f"LANGUAGE sql STABLE AS $$ SELECT id FROM {table} WHERE {matches} $$"
    )


def _match_expression(words: list[str]) -> str:
    """FTS5's query for every one of ``words``, each in the forms the index holds it in
    (``_fts_forms``)."""
    return " AND ".join(_any_of(_fts_forms(word) or [fold(word)]) for word in words)


def _any_of(forms: list[str]) -> str:
    phrases = ['"' + form.replace('"', '""') + '"' for form in forms]
    return phrases[0] if len(phrases) == 1 else f"({' OR '.join(phrases)})"


FTS_FORMS_MAX = 16  # phrases asked for one word; a word of more is scanned (``text_indexed``)


def _fts_forms(word: str) -> list[str] | None:
    """The texts FTS5's index must be asked for to find what ``contains_text`` finds of
    ``word``, or ``None`` when there would be more than ``FTS_FORMS_MAX``. The index holds
    the texts as written and folds their case with its own, older table (``_fts_misfolds``):
    so the word folded, with each of its letters also as every character the index does not
    fold to it ("istanbul" also as "İstanbul"), and decomposed, as a text written on macOS
    or in an Apple .ics is (PostgreSQL's index holds the texts folded: one form there)."""
    folded_word = fold(word)
    misfolds = _fts_misfolds()
    choices = [letter + misfolds.get(letter, "") for letter in folded_word]
    if math.prod(len(choice) for choice in choices) > FTS_FORMS_MAX:
        return None
    forms = ["".join(form) for form in itertools.product(*choices)]
    return list(dict.fromkeys([*forms, unicodedata.normalize("NFD", folded_word)]))


@cache
def _fts_misfolds() -> dict[str, str]:
    """Each letter that ``fold`` makes of characters that FTS5's trigram tokenizer folds to
    something else, and those characters (``store/fts_case.py``): worked out once per
    process, in a Python of its own (0.2 s), so that the 2 MB its probe leaves behind (the
    fold of every character, an FTS5 table in memory) stay out of a worker's memory (SPEC
    §9: under 80 MB); in this process if that Python cannot be run."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        found = subprocess.run(
            [sys.executable, "-m", "store.fts_case"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        )
        return json.loads(found.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return fts_case.misfolds()


def text_indexed(word: str) -> bool:
    """Whether the text index finds ``word`` as ``contains_text`` finds it: 3 characters
    or more, and on SQLite in at most ``FTS_FORMS_MAX`` forms; the others are scanned."""
    if len(word) < TEXT_INDEX_MIN:
        return False
    return is_postgres() or _fts_forms(word) is not None


def _matching_sql(index: str, words: list[str]) -> tuple[str, list]:
    """The ids of rows whose indexed text contains every one of ``words``. SQLite: one
    FTS5 MATCH (the index intersects the words' lists itself); PostgreSQL: the index's
    function per word (a ``LIKE`` of the folded word that the ``pg_trgm`` index answers),
    intersected."""
    if is_postgres():
        sql = " INTERSECT ".join(f"SELECT * FROM {index}(%s)" for _ in words)
        return sql, [_like_pattern(fold(word)) for word in words]
    return f"SELECT rowid FROM {index} WHERE {index} MATCH ?", [_match_expression(words)]


def matching_ids(index: str, words: list[str], placeholders=None):
    """SQL for the ids of rows whose indexed text contains every one of ``words`` (3+
    characters each); ``placeholders`` stand for ``matching_params`` in a statement
    compiled once per shape (store/sql.py)."""
    sql, params = _matching_sql(index, words)
    return SQL(f"({sql})", params if placeholders is None else placeholders)


def matching_params(index: str, words: list[str]) -> list:
    """The parameters of ``matching_ids``, in order."""
    return _matching_sql(index, words)[1]


def count_matching(index: str, words: list[str]) -> int:
    """How many rows contain every one of ``words``: read from the index alone."""
    sql, params = _matching_sql(index, words)
    return database.execute_sql(f"SELECT COUNT(*) FROM ({sql}) AS matches", params).fetchone()[0]


def totals_with_pages() -> bool:
    """Whether a listing's page should carry its total in each row (``COUNT(*) OVER ()``)
    rather than leave a full page's total to a count of its own: on PostgreSQL that count
    is one round trip more; SQLite counts in-process for less than its window function
    costs (a full page of terms 0.36 against 0.37 ms, docs/performance.md)."""
    return is_postgres()


def flag_column() -> str:
    """The DDL of a boolean column added by a migration (a ``BooleanField``): SQLite keeps
    0/1 in an INTEGER, PostgreSQL has BOOLEAN."""
    return "BOOLEAN NOT NULL DEFAULT FALSE" if is_postgres() else "INTEGER NOT NULL DEFAULT 0"


def _engine_form(sql: str) -> str:
    """Hand-written SQL whose placeholders are written ``?``, as the engine takes it: on
    PostgreSQL they become ``%s`` (the text must hold no other ``?`` nor ``%``)."""
    return sql.replace("?", "%s") if is_postgres() else sql


def run_sql(sql: str, params=()):
    """Runs hand-written SQL whose placeholders are written ``?``."""
    return database.execute_sql(_engine_form(sql), params)


def update_rows(table: str, key: str, columns: tuple[str, ...], rows: list) -> None:
    """Sets ``columns`` of the rows of ``table`` whose ``key`` is each row's last value to
    its first values, in the caller's transaction. PostgreSQL: one ``UPDATE … FROM
    (VALUES …)`` per page of 1,000 rows (a statement per row was parsed and planned each:
    the 105 texts a new weekly series makes took a third of its write); SQLite: one
    prepared statement run per row (``executemany``)."""
    if not rows:
        return
    if is_postgres():
        names = ", ".join((*columns, key))
        assigned = ", ".join(f"{column} = v.{column}" for column in columns)
        _values_pages(
            f"UPDATE {table} AS t SET {assigned} FROM (VALUES %s) AS v ({names}) "
            f"WHERE t.{key} = v.{key}",
            rows,
        )
        return
    assigned = ", ".join(f"{column} = ?" for column in columns)
    database.cursor().executemany(f"UPDATE {table} SET {assigned} WHERE {key} = ?", rows)


def _values_pages(template: str, rows: list) -> None:
    """``template``'s ``VALUES %s`` filled with ``rows`` (multi-row ``VALUES`` pages,
    PostgreSQL): a write's few rows are sent with its next statement (``send_later``: the
    links of a new event, its stored text, a series' occurrences), more in pages at once
    (``execute_values``: a bulk load's)."""
    if len(rows) > POSTGRES_PAGE:
        from psycopg2.extras import execute_values

        execute_values(database.cursor(), template, rows, page_size=POSTGRES_PAGE)
        return
    marks = "(" + ", ".join(["%s"] * len(rows[0])) + ")"
    send_later(template.replace("%s", ", ".join([marks] * len(rows)), 1), _flat(rows))


def _flat(rows: list) -> list:
    return [value for row in rows for value in row]


def upsert(model, **values):
    """Inserts a row, or replaces the columns given of the row with the same primary key
    (``INSERT … ON CONFLICT … DO UPDATE`` on both engines)."""
    key = model._meta.primary_key
    others = [getattr(model, name) for name in values if name != key.name]
    return model.insert(**values).on_conflict(conflict_target=[key], preserve=others).execute()


def backup_to(path: str) -> None:
    """A consistent online copy of the SQLite database into ``path`` (SQLite's backup API;
    store/backup.py copies a PostgreSQL calendar with store/copy.py instead)."""
    if os.path.exists(path) and os.path.samefile(path, database.database):
        raise RuntimeError("that is the database itself; name another file")
    source = database.connection()
    target = sqlite3.connect(path)
    try:
        source.backup(target)
    finally:
        target.close()


_INSERT_SQL: dict = {}


def _insert_statement(model):
    """(columns, SQL) of an insert of every column but an automatic id, compiled once per
    engine (the columns as ``_params`` reads them, ``_column``); on PostgreSQL the SQL
    returns the new row's key (``RETURNING``)."""
    postgres = is_postgres()
    cached = _INSERT_SQL.get((model, postgres))
    if cached is None:
        meta = model._meta
        fields = [
            f
            for f in meta.sorted_fields
            if not (f.primary_key and f.name == "id" and f.field_type == "AUTO")
        ]
        columns = ", ".join(f'"{f.column_name}"' for f in fields)
        marks = ", ".join([database.obj.param] * len(fields))
        sql = f'INSERT INTO "{meta.table_name}" ({columns}) VALUES ({marks})'
        if postgres:
            sql += f' RETURNING "{meta.primary_key.column_name}"'
        cached = _INSERT_SQL[(model, postgres)] = (tuple(map(_column, fields)), sql)
    return cached


class _Column(NamedTuple):
    """What ``_params`` needs of a field: its name, its default (``made``: called for each
    row), the Python type whose values its column stores as they are (None: every value is
    converted) and its conversion (``db_value``)."""

    name: str
    default: object
    made: bool
    stored_as: type | None
    db_value: object
    field: Field


def _column(field) -> _Column:
    default = field.default
    stored_as = _STORED_AS.get(type(field))
    return _Column(field.name, default, callable(default), stored_as, field.db_value, field)


# Peewee's fields whose ``db_value`` gives back a value of this type unchanged (``adapt``:
# ``str``, ``int``, ``bool``, ``float`` of it); subclasses that may convert are not listed.
_STORED_AS = {
    CharField: str,
    TextField: str,
    IntegerField: int,
    BooleanField: bool,
    FloatField: float,
}


def _params(columns, values: dict) -> list:
    params = []
    for name, default, made, stored_as, db_value, _field in columns:
        if name in values:
            value = values[name]
        else:
            value = default() if made else default
        # A value of the type the column stores is stored as it is (what ``db_value``
        # gives it back): 3,000 calls of Peewee's conversions for a 104-occurrence series.
        params.append(value if type(value) is stored_as else db_value(value))
    return params


def insert_row(model, values: dict) -> int:
    """Inserts one row with the model's Python defaults filled in, without building a
    query object (the hot write path), prepared on PostgreSQL; returns the new row's id."""
    fields, sql = _insert_statement(model)
    cursor = execute_prepared(sql, _params(fields, values))
    return cursor.fetchone()[0] if is_postgres() else cursor.lastrowid


def never_reused_id(table: str) -> int | None:
    """The id of a new row of ``table`` that no row of it ever had, inside the caller's
    write transaction: SQLite gives an ``INTEGER PRIMARY KEY`` the largest id plus one, so
    the newest row's id comes again once that row is deleted (a term's: WordPress never
    gives one twice, and a client's old link or filter would name another term). The last
    id given is kept in ``setting`` (from the table's largest the first time). None on
    PostgreSQL, whose sequences never give an id twice: the insert takes the next."""
    if is_postgres():
        return None
    key = f"last_id:{table}"
    largest = f'(SELECT COALESCE(MAX(id), 0) FROM "{table}")'
    row = database.execute_sql(
        f"UPDATE setting SET value = CAST(MAX(CAST(value AS INTEGER), {largest}) + 1 AS TEXT) "
        "WHERE key = ? RETURNING value",
        (key,),
    ).fetchone()
    if row is not None:
        return int(row[0])
    (value,) = database.execute_sql(f"SELECT {largest} + 1").fetchone()
    database.execute_sql("INSERT INTO setting (key, value) VALUES (?, ?)", (key, str(value)))
    return value


# The tables whose ids ``never_reused_id`` gives.
NEVER_REUSED = ("term",)


def last_given_ids(db: Database) -> dict[str, int]:
    """For each table of ``NEVER_REUSED``, the last id ``db`` (an open database of either
    engine, not necessarily the bound one) gave a row of it: what a copy continues after."""
    last = {}
    for table in NEVER_REUSED:
        (largest,) = db.execute_sql(f'SELECT COALESCE(MAX(id), 0) FROM "{table}"').fetchone()
        if isinstance(db, PostgresqlDatabase):
            (sequence,) = db.execute_sql(
                f"SELECT pg_get_serial_sequence('\"{table}\"', 'id')"
            ).fetchone()
            given = db.execute_sql(f"SELECT last_value, is_called FROM {sequence}").fetchone()
            kept = given[0] if given[1] else 0
        else:
            row = db.execute_sql(
                "SELECT value FROM setting WHERE key = ?", (f"last_id:{table}",)
            ).fetchone()
            kept = int(row[0]) if row else 0
        last[table] = max(int(largest), int(kept))
    return last


def continue_ids_after(last: dict[str, int]) -> None:
    """In the bound database, after a copy (inside its write transaction): no id of these
    tables that the source gave (``last_given_ids``) is given again."""
    for table, given in last.items():
        if is_postgres():
            if given:  # a sequence holds 1 at least; none given: it starts there anyway
                database.execute_sql(
                    f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                    f'GREATEST(%s, (SELECT COALESCE(MAX(id), 0) FROM "{table}")), true)',
                    (given,),
                )
        else:
            database.execute_sql(
                "INSERT INTO setting (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (f"last_id:{table}", str(given)),
            )


def insert_under_new_id(counter, counter_values: dict, model, values: dict, unless_held=""):
    """A row of ``counter`` (whose automatic id is the new id: store/models.py ``Node``),
    and ``values`` inserted into ``model`` under that id, which ``values["id"]`` is set to
    and which is returned. PostgreSQL: one prepared statement (the counter's insert in its
    ``WITH``), a round trip fewer on every create; SQLite: two statements.

    ``unless_held``: a column of a unique index (a slug), whose value another row may hold:
    then nothing is inserted into ``model`` (``ON CONFLICT DO NOTHING``) and None is
    returned, the counter's id given to nothing (as a deleted post's); the insert so says
    what a look-up before it would have, which on PostgreSQL was one more round trip under
    the writer lock."""
    counter_fields, counter_sql = _insert_statement(counter)
    postgres = is_postgres()
    key = (counter, model, unless_held, postgres)
    fields, sql = _INSERT_UNDER_NEW_ID.get(key, (None, None))
    if sql is None:
        fields, sql = _INSERT_UNDER_NEW_ID[key] = _under_new_id(counter_sql, model, unless_held)
    if not postgres:
        values["id"] = insert_row(counter, counter_values)
        inserted = execute_prepared(sql, [values["id"], *_params(fields, values)]).rowcount
        return values["id"] if inserted else None
    params = _params(counter_fields, counter_values) + _params(fields, values)
    row = execute_prepared(sql, params).fetchone()
    if row is None:
        return None
    values["id"] = row[0]
    return values["id"]


def _under_new_id(counter_sql: str, model, unless_held: str) -> tuple:
    """(the columns after the key, the SQL) of ``insert_under_new_id``'s insert into
    ``model``: on PostgreSQL with the counter's insert, on SQLite with the key given."""
    key = model._meta.primary_key
    fields = tuple(c for c in _insert_statement(model)[0] if c.field is not key)
    columns = ", ".join(f'"{f.column_name}"' for f in (key, *(c.field for c in fields)))
    marks = ", ".join([database.obj.param] * len(fields))
    table = model._meta.table_name
    held = ""
    if unless_held:
        held = f' ON CONFLICT ("{getattr(model, unless_held).column_name}") DO NOTHING'
    if not is_postgres():
        return fields, f'INSERT INTO "{table}" ({columns}) VALUES (?, {marks}){held}'
    sql = (
        f"WITH new_id AS ({counter_sql}) "
        f'INSERT INTO "{table}" ({columns}) '
        f"VALUES ((SELECT * FROM new_id), {marks}){held} "
        f'RETURNING "{key.column_name}"'
    )
    return fields, sql


_INSERT_UNDER_NEW_ID: dict = {}


# Rows per statement of a SQLite bulk insert, and the most parameters one may have.
SQLITE_ROWS = 200
SQLITE_VARIABLES = 30000
# Rows per statement of a PostgreSQL bulk insert (``execute_values``).
POSTGRES_PAGE = 1000


def insert_rows(model, rows: list[dict], returning: bool = False) -> list[int] | None:
    """Inserts many rows (defaults filled in as ``insert_row`` does) with one prepared
    statement: Peewee's ``insert_many`` spends most of a bulk load building SQL text.
    SQLite: ``executemany``; PostgreSQL: multi-row ``VALUES`` pages (``execute_values``).

    With ``returning``, the ids the database gave, in insert order (inside the caller's
    write transaction): PostgreSQL's ``RETURNING`` (a sequence may skip values); on
    SQLite, whose tables take the largest rowid plus one, the ids after the largest."""
    if not rows:
        return [] if returning else None
    fields, sql = _insert_statement(model)
    params = [_params(fields, row) for row in rows]
    if is_postgres():
        from psycopg2.extras import execute_values

        head, _, _ = sql.partition(" VALUES ")
        if not returning:
            _values_pages(head + " VALUES %s", params)
            return None
        key = model._meta.primary_key.column_name
        template = f'{head} VALUES %s RETURNING "{key}"'
        found = execute_values(
            database.cursor(), template, params, page_size=POSTGRES_PAGE, fetch=True
        )
        return [row[0] for row in found]
    first = 0
    if returning:
        table = model._meta.table_name
        key = model._meta.primary_key.column_name
        first = database.execute_sql(f'SELECT MAX("{key}") FROM "{table}"').fetchone()[0] or 0
    # Multi-row VALUES, not executemany: each statement of executemany has its own
    # statement journal, which a table with triggers makes cost a millisecond a row
    # (104 occurrences: 155 ms, against 40 ms in statements of many rows).
    head, _, values = sql.partition(" VALUES ")
    per = max(1, min(SQLITE_ROWS, SQLITE_VARIABLES // max(1, len(fields))))
    cursor = database.cursor()
    for start in range(0, len(params), per):
        chunk = params[start : start + per]
        statement = f"{head} VALUES " + ", ".join([values] * len(chunk))
        cursor.execute(statement, [value for row in chunk for value in row])
    return list(range(first + 1, first + 1 + len(rows))) if returning else None


def reset_sequences(models) -> None:
    """After rows were inserted with their ids given (a copy), new ids continue after the
    largest: PostgreSQL's sequences are moved; SQLite takes the largest rowid plus one."""
    if not is_postgres():
        return
    for model in models:
        key = model._meta.primary_key
        if getattr(key, "field_type", "") not in ("AUTO", "BIGAUTO"):
            continue
        table, column = model._meta.table_name, key.column_name
        database.execute_sql(
            f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'), "
            f'COALESCE((SELECT MAX("{column}") FROM "{table}"), 0) + 1, false)'
        )
