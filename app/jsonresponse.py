"""JSON responses serialised with orjson straight from plain dicts and lists."""

import re

import orjson
from flask import Response


def dumps(data) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


def kept(data: bytes) -> bytes:
    """``data`` in a buffer of its own length, for text kept beyond the request (the memos,
    the response cache): orjson 3.12 and later leave their output in a buffer of 4 kB at
    least, the next power of two past its length, and never trim it. 10,000 kept texts of
    1 kB held 78 MB instead of 10, and workers reached 170 MB after a cold run at 100,000
    events."""
    return bytes(memoryview(data))


def json_response(data, status: int = 200, headers=None) -> Response:
    response = Response(dumps(data), status=status, mimetype="application/json")
    if headers:
        for name, value in headers.items():
            response.headers[name] = value
    return response


# --- WordPress's ``_fields`` -----------------------------------------------------------


def _wanted(values: list[str]) -> dict:
    """``_fields`` as WordPress reads it (``wp_parse_list``; ``a.b`` a field of ``a``): a
    tree of the names to keep, ``True`` where the whole value is kept."""
    tree: dict = {}
    for value in values:
        for field in re.split(r"[\s,]+", value):
            if not field:
                continue
            *parents, last = field.split(".")
            node = tree
            for name in parents:
                if node.get(name) is True:
                    break
                node = node.setdefault(name, {})
            else:
                node[last] = True
    return tree


def _kept_fields(data, tree: dict):
    """``data`` with only the members ``tree`` names, as ``_rest_array_intersect_key_recursive``
    cuts a PHP array: an object by its names, a list by its positions (``lineage.0``; kept
    a list when they are its first ones), anything else asked into kept whole; an empty
    result is PHP's empty array, ``[]``."""
    if isinstance(data, list):
        items = {i: item for i, item in enumerate(data) if str(i) in tree}
        kept_items = {i: _member(item, tree[str(i)]) for i, item in items.items()}
        if list(kept_items) == list(range(len(kept_items))):
            return list(kept_items.values())
        return {str(i): item for i, item in kept_items.items()}
    if not isinstance(data, dict):
        return data
    kept_data = {key: _member(value, tree[key]) for key, value in data.items() if key in tree}
    return kept_data or []


def _member(value, wanted):
    """A member ``_fields`` keeps: whole (``True``), else cut by its own tree."""
    return value if wanted is True else _kept_fields(value, wanted)


def only_fields(response: Response, values: list[str]) -> Response:
    """A JSON answer of the API cut down to the fields ``_fields`` names, as WordPress's REST
    server cuts every answer (``rest_filter_response_fields``): each item of a list, else
    the object itself. Errors stay whole."""
    tree = _wanted(values)
    if not tree or response.status_code >= 400 or response.mimetype != "application/json":
        return response
    data = orjson.loads(response.get_data())
    if isinstance(data, list):
        data = [_kept_fields(item, tree) for item in data]
    else:
        data = _kept_fields(data, tree)
    response.set_data(dumps(data))
    return response


# --- WordPress's ``_jsonp`` ------------------------------------------------------------

# wp_check_jsonp_callback: letters, digits, ``_`` and ``.`` only.
_CALLBACK = re.compile(r"[\w.]+", re.ASCII)


def is_jsonp_callback(name: str) -> bool:
    return _CALLBACK.fullmatch(name) is not None


def as_jsonp(response: Response, callback: str) -> Response:
    """A JSON answer as WordPress's REST server answers ``?_jsonp=callback``: the same
    status, the JSON inside ``/**/callback(…)`` as JavaScript, for the old widgets that
    read a calendar with a ``<script>`` element."""
    if response.mimetype != "application/json" or response.direct_passthrough:
        return response
    response.set_data(b"/**/" + callback.encode() + b"(" + response.get_data() + b")")
    response.mimetype = "application/javascript"
    return response
