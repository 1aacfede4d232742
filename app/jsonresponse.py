"""JSON responses serialised with orjson straight from plain dicts and lists, and the
headers every answer carries."""

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


# Set on every answer by app/__init__.py, after the response cache has stored the view's own
# headers (app/cache.py): a cached answer and a 304 get them as a fresh one does.
STANDARD_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Robots-Tag", "noindex"),
    ("Access-Control-Allow-Methods", "OPTIONS, GET, POST, PUT, PATCH, DELETE"),
    (
        "Access-Control-Allow-Headers",
        # WordPress's list (raw uploads send Content-Disposition, SPEC §13), and If-None-Match
        "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, If-None-Match",
    ),
    (
        "Access-Control-Expose-Headers",
        "X-TEC-Total, X-TEC-TotalPages, X-WP-Total, X-WP-TotalPages, Link, ETag",
    ),
)
