"""Statements on hot request paths, in one place.

Each is written as a Peewee query over the models and compiled to SQL text once per
database engine (and per list length), then run with fresh parameters: the speed of
hand-written SQL without hand-written table or column names, so a renamed column fails
here at the first run instead of silently. Rows come back as ``Row`` objects named by the
query's own column aliases.
"""

from __future__ import annotations

from collections.abc import Callable

from peewee import Value

from store.db import database


class Param:
    """A placeholder in a statement's query: the ``index``-th argument of ``run``."""

    def __init__(self, index: int):
        self.index = index


def param(index: int) -> Value:
    return Value(Param(index), converter=False)


class Row:
    """A plain row with attribute access: cheaper than a model instance on hot paths."""

    __slots__ = ("__dict__",)

    def __init__(self, values: dict):
        self.__dict__.update(values)


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
        return database.execute_sql(sql, [args[i] for i in order])

    def rows(self, *args, sizes: tuple = ()) -> list[Row]:
        cursor = self.execute(*args, sizes=sizes)
        names = [column[0] for column in cursor.description]
        return [Row(dict(zip(names, values, strict=True))) for values in cursor.fetchall()]

    def first(self, *args, sizes: tuple = ()):
        return self.execute(*args, sizes=sizes).fetchone()

    def instances(self, model, *args, sizes: tuple = ()) -> list:
        """Rows as ``model`` instances, each value converted as the model's own query would."""
        cursor = self.execute(*args, sizes=sizes)
        by_column = {field.column_name: field for field in model._meta.sorted_fields}
        fields = [by_column[column[0]] for column in cursor.description]
        return [
            model(**{f.name: f.python_value(v) for f, v in zip(fields, values, strict=True)})
            for values in cursor.fetchall()
        ]


def in_list(first: int, size: int) -> list[Value]:
    """Placeholders ``first`` … ``first + size - 1`` for an ``IN`` list."""
    return [param(first + n) for n in range(size)]
