"""How gunicorn serves the application: errors that gunicorn answers itself (request
line or headers too large, malformed requests, bad chunked bodies) carry the same JSON
error body as every other error (SPEC §6, §10), and a client that stalls mid-request is
cut off after ``GUNICORN_READ_TIMEOUT`` seconds.

Imported by ``gunicorn.conf.py``; gunicorn writes those answers through
``gunicorn.util.write_error``, which is replaced here by a JSON twin.
"""

from __future__ import annotations

import orjson
from gunicorn import util
from gunicorn.workers import gthread

# gunicorn's statuses → the codes of SPEC §6.
CODES = {
    400: "rest_bad_request",
    403: "rest_forbidden",
    413: "rest_payload_too_large",
    414: "rest_request_uri_too_long",
    417: "rest_expectation_failed",
    431: "rest_request_headers_too_large",
    500: "internal_server_error",
    501: "rest_not_implemented",
}


def json_error(status: int, reason: str, message: str) -> bytes:
    """The complete HTTP/1.1 answer for an error gunicorn raises before the app runs."""
    body = orjson.dumps(
        {
            "code": CODES.get(status, "rest_bad_request"),
            # gunicorn's detail can echo the client's bytes: the reason is enough.
            "message": reason,
            "data": {"status": status},
        }
    )
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json; charset=UTF-8\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock, status_int, reason, mesg):
    util.write_nonblock(sock, json_error(int(status_int), reason, mesg))


util.write_error = write_json_error

# Seconds a client may stay silent in the middle of its request (headers or body) before
# its connection is closed, so stalled clients free their thread.
# Set by gunicorn.conf.py from the settings (app/config.py: GUNICORN_READ_TIMEOUT).
READ_TIMEOUT = 10.0


class TimedConn(gthread.TConn):
    """A gthread connection whose reads time out: gunicorn makes the socket blocking
    (no timeout) before each request; the timeout is set again right after."""

    def init(self):
        super().init()
        self.sock.settimeout(READ_TIMEOUT)


gthread.TConn = TimedConn
