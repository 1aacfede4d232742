"""flask-smorest, subclassed once for the project's conventions.

- ``CalendarParser`` reads list parameters in all three forms (``x[]=a&x[]=b``,
  ``x=a&x=b``, ``x=a,b``), reads bodies as JSON or form data (merged over the query
  string, as WordPress merges request parameters; a GET's JSON body too), and turns validation failures into
  the project's ``ApiError`` instead of a 422.
- ``Api`` leaves error handling to ``app.errors``.
"""

from __future__ import annotations

import copy
import functools
import inspect
import re
import threading
from typing import NoReturn

import orjson
from apispec.ext.marshmallow import MarshmallowPlugin, resolver
from flask import request
from flask_smorest import Api as BaseApi
from flask_smorest import Blueprint as BaseBlueprint
from marshmallow import ValidationError
from marshmallow import fields as ma_fields
from marshmallow.utils import missing
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import MultiDict

from app.errors import ApiError, ParamErrors, from_validation_error
from app.i18n import _
from app.openapi import ERROR_DESCRIPTIONS, ERRORS_BY_METHOD
from rules.ids import is_digits
from schemas.errors import Error
from schemas.fields import BaseSchema


def query_values(source: MultiDict, multiple: frozenset) -> dict:
    """The query string as a plain dict for a schema: ``x[]`` keys folded into ``x``
    (PHP-style arrays, values kept in order); a name in ``multiple`` (a list field) keeps
    all its values, any other its last, as PHP reads a repeated name (app/forms.py)."""
    lists: dict[str, list] = {}
    for key, values in source.lists():
        name = key[:-2] if key.endswith("[]") else key
        if name in lists:
            lists[name] = lists[name] + values
        else:
            lists[name] = values
    return {name: values if name in multiple else values[-1] for name, values in lists.items()}


_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
# No body field nests deeper than two levels (organizer[0][organizer]); past this many
# brackets a key is kept as it is, so hostile keys cannot recurse without bound.
MAX_NESTING = 8


def _lists_from_indexes(value):
    """``{"0": a, "1": b}`` (from ``x[0]=a&x[1]=b``) as ``[a, b]``, recursively."""
    if isinstance(value, dict):
        value = {k: _lists_from_indexes(v) for k, v in value.items()}
        if value and all(is_digits(k) for k in value):
            return [value[k] for k in sorted(value, key=int)]
    return value


def list_keys(schema) -> frozenset:
    """The names (as sent) of a schema's fields that take several values: lists, and the
    raw values the store reads (ids, objects or lists of them). Worked out once per schema
    object."""
    keys = schema.__dict__.get("_calendar_list_keys")
    if keys is None:
        keys = schema._calendar_list_keys = frozenset(
            field.data_key or name
            for name, field in schema.fields.items()
            if isinstance(field, ma_fields.List | ma_fields.Raw | ma_fields.Dict)
        )
    return keys


def multidict_to_body(source: MultiDict, lists: frozenset | None = None) -> dict:
    """Form fields as a body, PHP-style as WordPress clients send them: ``[]`` keys become
    lists, ``venue[city]=X`` a nested object, ``organizer[0][organizer]=Y`` a list of
    objects. A plain name given twice is a list when it is one of ``lists`` (SPEC §3:
    ``x=a&x=b``; all of them when ``lists`` is None), else its last value, as PHP's."""
    body: dict = {}
    for key, values in source.lists():
        name, _sep, rest = key.partition("[")
        path = _BRACKETS.findall("[" + rest) if rest else []
        well_formed = "".join(f"[{p}]" for p in path) == ("[" + rest if rest else "")
        if not name or not well_formed or len(path) > MAX_NESTING:
            name, path = key, []  # not a well-formed bracket key: keep it as it is
        appending = bool(path) and path[-1] == ""
        if appending:
            path = path[:-1]
        keys = [name, *path]
        target = body
        for part in keys[:-1]:
            if not isinstance(target.get(part), dict):
                target[part] = {}
            target = target[part]
        leaf = keys[-1]
        if appending:
            existing = target.get(leaf)
            target[leaf] = (existing if isinstance(existing, list) else []) + values
        elif len(values) > 1 and not path and (lists is None or name in lists):
            target[leaf] = values
        else:
            target[leaf] = values[-1]
    return {key: _lists_from_indexes(value) for key, value in body.items()}


# The bodies of a DELETE read for its parameters, as WordPress reads them.
DELETE_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")


def _reads_body(req) -> bool:
    """Whether the parameters of a request answered from its query are read from its body
    too, over the query, as WordPress's ``get_parameter_order``: a DELETE's JSON or form
    (``force``), a GET's JSON (``POST ?_method=GET``: a query too long for an address)."""
    if not req.environ.get("CONTENT_TYPE"):
        return False  # no type named (most reads): no body to read (``mimetype`` parses it)
    if req.method == "DELETE":
        return req.mimetype in DELETE_BODY_TYPES
    return req.method in ("GET", "HEAD") and req.mimetype == "application/json"


def query_parameters(req, schema, multiple: frozenset) -> dict:
    """The parameters of a request answered from its query (``multiple``: as
    ``query_values``), and from its body where WordPress reads one too (``_reads_body``):
    every route's, ours through the parser and wp/v2's, reads them alike."""
    values = query_values(req.args, multiple)
    if _reads_body(req):
        values.update(request_body(req, list_keys(schema)))
    return values


# What a query may load as when it names none of a schema's fields: strings, numbers and
# flags, which no view can change in the copy it is given.
_SCALARS = (str, int, float, bool, type(None))
# webargs' own default for ``unknown`` (EXCLUDE for the query): the one the fast path reads as.
_DEFAULT_UNKNOWN = inspect.signature(FlaskParser.parse).parameters["unknown"].default


def empty_query_load(schema) -> dict | None:
    """What ``schema`` loads of a query that names none of its fields, when that is always
    the same: its hooks are BaseSchema's null handling (an empty query has no nulls), no
    default is made by a call, no field is required, every value a scalar. None when it is
    not so; worked out once per schema object (the argument schemas are made once)."""
    kept = schema.__dict__.get("_calendar_empty_load")
    if kept is None:
        kept = schema._calendar_empty_load = _empty_load(schema)
    return kept if kept is not False else None


def _empty_load(schema) -> dict | bool:
    if not isinstance(schema, BaseSchema):
        return False
    hooks = [hook[0] for each in schema._hooks.values() for hook in each]
    if any(getattr(type(schema), name) is not getattr(BaseSchema, name, None) for name in hooks):
        return False
    if any(callable(field.load_default) for field in schema.fields.values()):
        return False
    try:
        loaded = schema.load({})
    except ValidationError:
        return False
    return loaded if all(isinstance(value, _SCALARS) for value in loaded.values()) else False


def names_a_field(args: MultiDict, schema) -> bool:
    """Whether a query's names (``x[]`` read as ``x``, as ``query_values`` folds them) name
    one of ``schema``'s fields as sent."""
    names = schema.__dict__.get("_calendar_query_names")
    if names is None:
        names = schema._calendar_query_names = frozenset(
            field.data_key or name for name, field in schema.load_fields.items()
        )
    return any((key[:-2] if key.endswith("[]") else key) in names for key in args)


class CalendarParser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def get_default_request(self):
        # The request itself, not Flask's proxy: the loaders read five or six of its
        # attributes, each through the proxy a lookup of the context (and, on Python 3.11,
        # an AttributeError made and dropped before the proxy's ``__getattr__``).
        return request._get_current_object()

    def parse(self, argmap, req=None, *, location=None, **kwargs):
        """webargs' parse; a query naming none of the schema's fields (none at all, or a
        client's cache-buster ``?_=…``, which the schema would drop) is the schema's own
        load of the empty query (``empty_query_load``), without webargs' steps and
        marshmallow's load again: a tenth of a single read's time."""
        if (
            location == "query"
            and kwargs.get("validate") is None
            and kwargs.get("unknown", _DEFAULT_UNKNOWN) is _DEFAULT_UNKNOWN
        ):
            req = req if req is not None else self.get_default_request()
            empty = empty_query_load(argmap)
            if empty is not None and not _reads_body(req) and not names_a_field(req.args, argmap):
                return dict(empty)
        return super().parse(argmap, req, location=location, **kwargs)

    def load_querystring(self, req, schema):
        if "search" in schema.fields and "search[]" in req.args:
            # An array where a string is expected: the reference's own answer (a repeated
            # plain ``search`` is its last value there, as any other name's).
            raise ApiError(
                "archive-bad-search-string", _("The 'search' parameter must be a string"), 400
            )
        return query_parameters(req, schema, self._multiple_keys(schema))

    def _multiple_keys(self, schema) -> frozenset:
        """The names of the schema's list fields, worked out once per schema object (the
        argument schemas are made once, app/smorest.py ``Blueprint``)."""
        keys = schema.__dict__.get("_calendar_multiple_keys")
        if keys is None:
            proxy = self._makeproxy({}, schema)
            keys = schema._calendar_multiple_keys = frozenset(proxy.multiple_keys)
        return keys

    def load_json(self, req, schema):
        lists = list_keys(schema)
        body = request_body(req, lists)
        merged = multidict_to_body(req.args, lists)
        merged.update(body)
        return merged

    def handle_error(self, error, req, schema, *, error_status_code, error_headers):
        answer = from_validation_error(error, schema)
        if answer.code == "rest_invalid_param":  # joined by the view's checks (``Blueprint``)
            answer.schema = schema
            answer.loaded = loaded_part(schema, error)
        raise answer


def loaded_part(schema, error) -> dict:
    """What ``schema`` loaded of a request it refused (``error``, its ValidationError): the
    parameters it took, and the defaults of those it lacks or refused."""
    return {**_defaults(schema), **(error.valid_data or {})}


def raise_joined(answer: ApiError, loaded: dict, checks) -> NoReturn:
    """A schema's refusal (``answer``, a ``rest_invalid_param``) joined by what ``checks``
    says of the parameters it ``loaded``, so that one answer names every bad parameter
    (SPEC §6); a check's other refusal (a 403) does not replace the parameters' answer."""
    found = ParamErrors(answer.data["params"])
    with found.check():
        checks(loaded)
    found.raise_any()
    raise answer


def _defaults(schema) -> dict:
    """The values a schema gives the fields a request lacks (or sent wrong)."""
    return {
        name: field.load_default() if callable(field.load_default) else field.load_default
        for name, field in schema.fields.items()
        if field.load_default is not missing
    }


def request_body(req, lists: frozenset | None = None) -> dict:
    """The body as a dict, from JSON or a form (``lists``: as ``multidict_to_body``);
    ``{}`` when there is none."""
    if req.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return multidict_to_body(req.form, lists)
    raw = req.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ApiError("rest_invalid_json", _("The request body is not valid JSON."), 400) from None
    if not isinstance(body, dict):
        raise ApiError("rest_invalid_json", _("The request body must be a JSON object."), 400)
    return body


class Blueprint(BaseBlueprint):
    ARGUMENTS_PARSER = CalendarParser()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # flask-smorest's hook for completing each operation's documentation, as
        # BEMServer's extensions do: runs after its own argument and response callbacks.
        self._prepare_doc_cbks.append(document_conventions)

    def doc(self, **kwargs):
        """flask-smorest's decorator, its documentation kept on the view itself: its wrapper
        only called the view (through the app's proxy, ``ensure_sync``) at every request."""
        document = super().doc(**kwargs)

        def record(func):
            func._apidoc = document(func)._apidoc
            return func

        return record

    def arguments(self, schema, *args, checks=None, **kwargs):
        """flask-smorest's decorator, which also records the schema on the view as
        ``argument_schemas`` (outermost first) for the namespace index. A schema class is
        instantiated once here, not by webargs on every request (marshmallow 4 schemas
        keep no state between loads). ``checks(arguments)``: the view's own checks of its
        arguments (those that read the database), also run on what the schema loaded when
        it refused the rest, so that one answer names every bad parameter (SPEC §6)."""
        if isinstance(schema, type):
            schema = schema()
        decorator = super().arguments(schema, *args, **kwargs)

        def record(func):
            inner = list(getattr(func, "argument_schemas", ()))
            wrapper = decorator(func)
            if checks is not None:
                wrapper = _also_checked(wrapper, schema, checks)
            wrapper.argument_schemas = [schema, *inner]
            return wrapper

        return record


def _also_checked(view, schema, checks):
    """``view``, its ``schema``'s refusal joined by what ``checks`` says of the rest."""

    @functools.wraps(view)
    def checked(*args, **kwargs):
        try:
            return view(*args, **kwargs)
        except ApiError as error:
            if getattr(error, "schema", None) is not schema:
                raise
            raise_joined(error, error.loaded, checks)

    return checked


def document_conventions(doc: dict, _doc_info: dict, *, method: str, **_kwargs) -> dict:
    """What every operation shares: reads are public and writes need HTTP Basic; bodies
    may also be form-encoded; the error responses of the method, with the one error body."""
    if method not in ERRORS_BY_METHOD:
        return doc
    doc["security"] = [] if method == "get" else [{"basicAuth": []}]
    body = doc.get("requestBody", {}).get("content", {})
    if "application/json" in body:
        body.setdefault(
            "application/x-www-form-urlencoded", copy.deepcopy(body["application/json"])
        )
    responses = doc.setdefault("responses", {})
    responses.pop("default", None)
    for status in ERRORS_BY_METHOD[method]:
        responses.setdefault(
            status,
            {
                "description": ERROR_DESCRIPTIONS[status],
                "content": {"application/json": {"schema": "Error"}},
            },
        )
    return doc


# The reference's names for the shapes both documents describe (samples/doc.json): a client
# generated from its document finds the same components in ours.
REFERENCE_NAMES = {
    "EventOut": "Event",
    "VenueOut": "Venue",
    "OrganizerOut": "Organizer",
    "TermOut": "Term",
    "MediaOut": "Image",
}


def interface_type(_converter, field, ret, **_kwargs) -> dict:
    """The type interface.md gives a field whose class reads more (``wp_type``: a status
    list read as a string, a venue's ``show_map`` as a string), as the namespace index
    gives it too; fields the document leaves untyped stay so."""
    stated = field.metadata.get("wp_type")
    if not stated or "type" not in ret or ret["type"] == stated:
        return {}
    ret.pop("items", None)
    return {"type": stated}


def schema_name(schema) -> str:
    name = resolver(schema)
    return REFERENCE_NAMES.get(name, name)


class Api(BaseApi):
    """Also: a blueprint's routes are documented when the document is first asked for
    (``document()``), not when the blueprint is registered. Documenting them was 0.45 s of
    every app's start (each gunicorn worker, each CLI command), for a document that most
    processes never serve."""

    ERROR_SCHEMA = Error

    def _init_spec(self, *, marshmallow_plugin=None, **options):
        plugin = marshmallow_plugin or MarshmallowPlugin(schema_name_resolver=schema_name)
        super()._init_spec(marshmallow_plugin=plugin, **options)
        plugin.converter.add_attribute_function(interface_type)
        self._undocumented: list = []
        self._documenting = threading.Lock()

    def register_blueprint(self, blp, *, parameters=None, **options):
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append((blp, name, parameters))

    def document(self):
        """The spec, with every registered blueprint's routes in it (in their order)."""
        with self._documenting:
            while self._undocumented:
                blp, name, parameters = self._undocumented.pop(0)
                blp.register_views_in_doc(
                    self, self._app, self.spec, name=name, parameters=parameters
                )
                self.spec.tag({"name": name, "description": blp.description})
        return self.spec

    def _register_error_handlers(self):
        """Errors are handled by ``app.errors`` for every layer, not only smorest's."""
