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


# Queries that name none of a schema's fields: none, a client's cache-buster, unknown names.
UNNAMED = ["", "_=1700000000", "_=1&utm_source=x", "x[]=1&x[]=2", "=1"]


def test_a_query_naming_no_field_loads_as_webargs_parse_does(app):
    """``CalendarParser.parse`` answers such a query with the schema's load of the empty
    query (``empty_query_load``): the same arguments as webargs' own parse of it."""
    from webargs.flaskparser import FlaskParser

    from app.smorest import Blueprint, empty_query_load

    parser = Blueprint.ARGUMENTS_PARSER
    schemas = [s for s in _schemas(app) if empty_query_load(s) is not None]
    assert len(schemas) >= 5  # every GET route's query schema
    for schema in schemas:
        for query in UNNAMED:
            with app.test_request_context(f"/wp-json/calendar/events/v1/events?{query}"):
                ours = parser.parse(schema, location="query")
                theirs = FlaskParser.parse(parser, schema, location="query")
            assert ours == theirs, (type(schema).__name__, query)
            assert ours is not empty_query_load(schema)  # a copy: a view may change its own


def test_a_schema_with_its_own_hooks_or_made_defaults_is_parsed_in_full():
    from marshmallow import fields, validates_schema

    from app.smorest import empty_query_load

    class Checked(BaseSchema):
        page = fields.Integer(load_default=1)

        @validates_schema
        def whole(self, data, **_kwargs):
            pass

    class Made(BaseSchema):
        at = fields.String(load_default=lambda: "now")

    class Required(BaseSchema):
        id = fields.Integer(required=True)

    class Listed(BaseSchema):
        ids = fields.List(fields.Integer(), load_default=[])

    for schema in (Checked(), Made(), Required(), Listed(), Schema()):
        assert empty_query_load(schema) is None, type(schema).__name__


@pytest.mark.parametrize(
    "query",
    ["?_=1", "?_=1&page=x", "?_=1&per_page=0&page=x", "?_=1&search[]=a", "?x[]=1", ""],
)
def test_the_events_listing_answers_as_with_the_query_parsed_in_full(
    app, client, monkeypatch, query
):
    from webargs.flaskparser import FlaskParser

    from app.smorest import CalendarParser

    url = f"/wp-json/calendar/events/v1/events{query}"
    fast = client.get(url)
    app.extensions["calendar.cache"].clear()
    monkeypatch.setattr(CalendarParser, "parse", FlaskParser.parse)  # webargs' own steps
    full = client.get(url)
    assert (fast.status_code, fast.get_json()) == (full.status_code, full.get_json())
