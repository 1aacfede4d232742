"""Statements on hot request paths, in one place.

Each is written as a Peewee query over the models and compiled to SQL text once per
database engine (and per list length), then run with fresh parameters: the speed of
hand-written SQL without hand-written table or column names, so a renamed column fails
here at the first run instead of silently. Rows come back as ``Row`` objects named by the
query's own column aliases.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache

from cachetools import FIFOCache
from peewee import (
    AutoField,
    BigIntegerField,
    CharField,
    ForeignKeyField,
    IntegerField,
    TextField,
    Value,
)

from store.db import constants_written, database, execute_prepared


class Param:
    """A placeholder in a statement's query: the ``index``-th argument of ``run`` (a
    ``Statement``), or the value named ``index`` (a ``Shaped`` query)."""

    def __init__(self, index: int | str):
        self.index = index


def param(index: int | str) -> Value:
    return Value(Param(index), converter=False)


class Row:
    """A plain row with attribute access: cheaper than a model instance on hot paths.
    Read-only: rows may be shared between requests (store/memo.py)."""

    __slots__ = ("__dict__",)

    def __init__(self, values: dict):
        self.__dict__.update(values)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Row is read-only ({name})")

    def __delattr__(self, name):
        raise AttributeError(f"a Row is read-only ({name})")


class Statement:
    """``build(*sizes)`` returns a Peewee query whose parameters are ``param(i)``
    placeholders; ``sizes`` are the lengths of list parameters (``IN`` lists)."""

    def __init__(self, build: Callable):
        self.build = build
        self.compiled: dict[tuple, tuple[str, list]] = {}

    def _compile(self, sizes: tuple) -> tuple[str, list]:
        key = (type(database.obj), sizes)
        compiled = self.compiled.get(key)
        if compiled is None:
            sql, params = self.build(*sizes).sql()
            if not all(isinstance(p, Param) for p in params):
                raise TypeError(f"a literal parameter in a compiled statement: {sql}")
            compiled = self.compiled[key] = (sql, [p.index for p in params])
        return compiled

    def execute(self, *args, sizes: tuple = ()):
        sql, order = self._compile(sizes)
        return execute_prepared(sql, [args[i] for i in order])

    def rows(self, *args, sizes: tuple = ()) -> list[Row]:
        return rows_of(self.execute(*args, sizes=sizes))

    def first(self, *args, sizes: tuple = ()):
        return self.execute(*args, sizes=sizes).fetchone()

    def instances(self, model, *args, sizes: tuple = ()) -> list:
        return instances(model, self.execute(*args, sizes=sizes))


def rows_of(cursor) -> list[Row]:
    """A cursor's rows as ``Row`` objects named by the query's column aliases."""
    names = [column[0] for column in cursor.description]
    return [Row(dict(zip(names, values, strict=True))) for values in cursor.fetchall()]


def instances(model, cursor) -> list:
    """A cursor's rows as ``model`` instances, each value converted as the model's own
    query would, in the state Peewee's own cursor leaves them (``__data__`` filled, nothing
    dirty): set directly rather than field by field through ``__init__``, which costs more
    than the query on a page of events (tests/test_statements.py holds them equal). Text
    and integer columns come from both engines as ``str`` and ``int`` already, which is
    all Peewee's conversion of them would give; only the others are converted."""
    names, convert = _reading(model, tuple(column[0] for column in cursor.description))
    found = []
    for values in cursor.fetchall():
        row = model.__new__(model)
        data = row.__data__ = dict(zip(names, values, strict=True))
        for name, python_value in convert:
            value = data[name]
            if value is not None:
                data[name] = python_value(value)
        row._dirty = set()
        row.__rel__ = {}
        found.append(row)
    return found


@lru_cache(maxsize=256)
def _reading(model, columns: tuple) -> tuple[list, list]:
    """For ``instances``: the fields' names of ``columns``, and (name, conversion) for
    those that need converting; made once per model and column list."""
    by_column = {field.column_name: field for field in model._meta.sorted_fields}
    fields = [by_column[column] for column in columns]
    convert = [
        (field.name, field.python_value) for field in fields if not _arrives_converted(field)
    ]
    return [field.name for field in fields], convert


def _arrives_converted(field) -> bool:
    if isinstance(field, ForeignKeyField):
        field = field.rel_field
    return type(field) in _AS_STORED


_AS_STORED = {CharField, TextField, IntegerField, BigIntegerField, AutoField}


class Names:
    """What a ``Shaped`` query's build reads its values through: placeholders named after
    them (``Literals`` gives the values themselves, to check the compiled text)."""

    def __call__(self, name: str):
        return param(name)

    def list(self, name: str, size: int) -> list:
        return [param(f"{name}.{n}") for n in range(size)]

    def raw(self, name: str):  # inside ``SQL(text, params)``, which adds no placeholder
        return Param(name)


class Literals(Names):
    def __init__(self, values: dict):
        self.values = values

    def __call__(self, name: str):
        return self.values[name]

    def list(self, name: str, size: int) -> list:
        return [self.values[f"{name}.{n}"] for n in range(size)]

    def raw(self, name: str):
        return self.values[name]


class _Constant:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Shaped:
    """Queries built by one function whose SQL depends on the *shape* of a request (which
    filters are set, list lengths, the viewer's role) and not on its values: built and
    compiled once per ``(engine, shape)``, then run with the request's values, read by name.

    ``build(ref)`` must take every value that varies within a shape through ``ref``
    (``ref("name")``, ``ref.list("name", size)``); literals it leaves in the query are kept
    as constants of the shape (on PostgreSQL written into the statement's text, for its
    plans to know them: ``constants_written``). With ``CHECK`` (the tests) every run also
    builds the query from the values themselves and fails when the text or parameters
    differ: a value that escaped ``ref`` would otherwise be served to the next request of
    the same shape."""

    CHECK = False

    def __init__(self, size: int = 512):
        self.compiled = FIFOCache(maxsize=size)  # read without the lock: a read moves nothing
        self.lock = threading.Lock()

    def execute(self, shape: tuple | None, build: Callable, values: dict, plan="auto"):
        """Runs the query of ``shape`` with ``values``; ``shape`` None: built afresh.
        ``plan``: how PostgreSQL plans it (``store/db.py::PLAN_MODES``)."""
        if shape is None:
            sql, params = build(Literals(values)).sql()
            return database.execute_sql(sql, params)
        key = (type(database.obj), shape)
        try:
            sql, order, sent, sent_order = self.compiled[key]
        except KeyError:
            sql, params = build(Names()).sql()
            order = [p.index if isinstance(p, Param) else _Constant(p) for p in params]
            constant = [type(p) is _Constant for p in order]
            sent, kept = constants_written(sql, params, constant)
            sent_order = order
            if not all(kept):  # PostgreSQL's: the constants are in the text
                sent_order = [p for p, sent_with in zip(order, kept, strict=True) if sent_with]
            with self.lock:
                self.compiled[key] = (sql, order, sent, sent_order)
        if Shaped.CHECK:
            args = [p.value if type(p) is _Constant else values[p] for p in order]
            literal = build(Literals(values)).sql()
            if literal != (sql, args):
                raise AssertionError(f"shape {shape} compiled {sql} {args}, built {literal}")
        args = [p.value if type(p) is _Constant else values[p] for p in sent_order]
        return execute_prepared(sent, args, plan)


def in_list(first: int, size: int) -> list[Value]:
    """Placeholders ``first`` … ``first + size - 1`` for an ``IN`` list."""
    return [param(first + n) for n in range(size)]


def last_page_total(rows: list, offset: int, limit: int) -> int | None:
    """A listing's total when ``rows``, its page from ``offset``, is its last page (short
    of ``limit``, and not past the end: then it has rows, or it is the first), so that no
    count need be asked; None otherwise."""
    return offset + len(rows) if len(rows) < limit and (rows or not offset) else None
