"""JSON responses serialised with orjson straight from plain dicts and lists."""

import orjson
from flask import Response


def dumps(data) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


def json_response(data, status: int = 200, headers=None) -> Response:
    response = Response(dumps(data), status=status, mimetype="application/json")
    if headers:
        for name, value in headers.items():
            response.headers[name] = value
    return response
