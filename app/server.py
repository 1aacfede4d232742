"""How gunicorn serves the application: errors that gunicorn answers itself (request
line or headers too large, malformed requests, bad chunked bodies) carry the same JSON
error body as every other error (SPEC §6, §10), and a request must arrive in time
(app/arrival.py): a client silent for ``GUNICORN_READ_TIMEOUT`` seconds, or dripping its
headers or body slower than the minimum rate, is cut off.

Imported by ``gunicorn.conf.py``; gunicorn writes those answers through
``gunicorn.util.write_error``, which is replaced here by a JSON twin.

Logs (``CalendarLogger``): one line per entry (a traceback's lines joined by `` | ``, as
journald and log shippers read a line as an entry), the access log naming the client as
the app's throttling does (``X-Forwarded-For`` behind ``FORWARDED_ALLOW_IPS``), and the
app's own messages (a migration at start, an unhandled exception) in gunicorn's error log.
"""

from __future__ import annotations

import logging
import socket

import orjson
from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.workers import gthread

from app import arrival
from app.auth import forwarded_client

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


class TimedConn(gthread.TConn):
    """A gthread connection whose requests must arrive in time (app/arrival.py): the
    parser reads the socket through an ``ArrivalSocket``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.arrival = arrival.Arrival()

    def init(self):
        super().init()
        unreader = getattr(self.parser, "unreader", None)  # HTTP/1 only
        if unreader is not None and not isinstance(unreader.sock, arrival.ArrivalSocket):
            unreader.sock = arrival.ArrivalSocket(unreader.sock, self.arrival)

    def close(self, graceful=False):
        """gunicorn's graceful close lingers up to 2 s for the client to close its side,
        on the worker's main thread: four clients dripping bodies stalled every request of
        the worker for 8 s. Here the answer is sent whole (FIN first) and what the client
        has already sent is read, so that closing does not reset the connection, without
        waiting for more."""
        if not graceful:
            return super().close()
        sock = self.sock
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.setblocking(False)
            for _chunk in range(16):
                if not sock.recv(65536):
                    break
        except OSError:  # nothing more to read now (BlockingIOError), or already gone
            pass
        finally:
            util.close(sock)


class CalendarWorker(gthread.ThreadWorker):
    """gunicorn's gthread worker, each request's arrival clock started when the request is
    queued for a thread (the worker class of gunicorn.conf.py)."""

    def enqueue_req(self, conn):
        conn.arrival.begin()
        super().enqueue_req(conn)

    def handle(self, conn):
        arrival.serving(conn.arrival)
        try:
            return super().handle(conn)
        finally:
            arrival.end()


gthread.TConn = TimedConn


class OneLine(logging.Formatter):
    """Another formatter's entry on one line: a traceback's lines joined by `` | ``."""

    def __init__(self, inner: logging.Formatter | None):
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        return " | ".join(line for line in self.inner.format(record).splitlines() if line)


class CalendarLogger(Logger):
    """gunicorn's logger (``logger_class`` of gunicorn.conf.py), see the module's text."""

    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(OneLine(handler.formatter))
        app_log = logging.getLogger("app")
        app_log.setLevel(logging.INFO)
        app_log.handlers = [*self.error_log.handlers]

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["h"] = forwarded_client(
            environ.get("REMOTE_ADDR") or "-",
            environ.get("HTTP_X_FORWARDED_FOR", ""),
            self.cfg.forwarded_allow_ips,
        )
        return atoms
