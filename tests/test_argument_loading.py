"""Every argument and body schema of the app loads as marshmallow's own loop does:
``schemas/fields.py::BaseSchema._deserialize`` skips the fields a request lacks that give
nothing, and must give the same values and the same errors for any input."""

import pytest
from marshmallow import Schema, ValidationError

from schemas.fields import BaseSchema

# Values of every kind a query string or a body brings, valid for some fields, not others.
SAMPLES = ["", "1", "0", "true", "x", "2026-06-01 18:30:00", "-5", "1,2", ["1", "2"], 3, None]


def _schemas(app) -> list:
    found = {}
    for view in app.view_functions.values():
        methods = getattr(getattr(view, "view_class", None), "methods", None) or ()
        handlers = [getattr(view.view_class, m.lower(), None) for m in methods] or [view]
        for handler in handlers:
            for schema in getattr(handler, "argument_schemas", ()):
                found[id(schema)] = schema
    return [s for s in found.values() if isinstance(s, BaseSchema)]


def _load(schema, data, loop, partial):
    BaseSchema._deserialize = loop
    try:
        return "ok", schema.load(data, partial=partial)
    except ValidationError as error:
        return "error", error.messages
    finally:
        BaseSchema._deserialize = OURS


OURS = BaseSchema._deserialize


@pytest.mark.parametrize("partial", [None, True])
def test_every_schema_loads_as_marshmallow_does(app, partial):
    schemas = _schemas(app)
    assert len(schemas) > 20  # every route's query and body schemas
    for schema in schemas:
        names = [f.data_key or name for name, f in schema.load_fields.items()]
        inputs = [{}, {"unknown": "1"}, {name: "x" for name in names}]
        inputs += [{name: value} for name in names for value in SAMPLES]
        for data in inputs:
            ours = _load(schema, data, OURS, partial)
            theirs = _load(schema, data, Schema._deserialize, partial)
            assert ours == theirs, (type(schema).__name__, data)
