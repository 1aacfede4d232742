"""How gunicorn serves the application: errors that gunicorn answers itself (request
line or headers too large, malformed requests, bad chunked bodies) carry the same JSON
error body as every other error (SPEC §6, §10), but for an address or headers too large
at a page's address, which the app answers as a page (SPEC §15); and a request must
arrive in time (app/arrival.py): a client silent for ``GUNICORN_READ_TIMEOUT`` seconds,
or dripping its headers or body slower than the minimum rate, is cut off.

Imported by ``gunicorn.conf.py``; gunicorn writes those answers through
``gunicorn.util.write_error``, which is replaced here by ``write_error``.

Logs (``CalendarLogger``): one line per entry (a traceback's lines joined by `` | ``, as
journald and log shippers read a line as an entry), the access log naming the client as
the app's throttling does (``X-Forwarded-For`` behind ``FORWARDED_ALLOW_IPS``), and the
app's own messages (a migration at start, an unhandled exception) in gunicorn's error log.
"""

from __future__ import annotations

import io
import logging
import socket
import sys
import threading
import time
from urllib.parse import unquote_to_bytes

import orjson
from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.http.errors import ConfigurationProblem
from gunicorn.workers import gthread

from app import arrival
from app.auth import forwarded_client
from app.errors import REFUSED
from app.headers import STANDARD_HEADERS
from app.i18n import N_

# gunicorn's statuses → the codes of SPEC §6.
CODES = {
    400: "rest_bad_request",
    403: "rest_forbidden",
    404: "rest_no_route",
    413: "rest_payload_too_large",
    414: "rest_request_uri_too_long",
    417: "rest_expectation_failed",
    431: "rest_request_headers_too_large",
    500: "internal_server_error",
    501: "rest_not_implemented",
}


# gunicorn's reasons, which the JSON error says in the language of its root (SPEC §1);
# marked here for the catalogs, translated by ``said``.
REASONS = (
    N_("Bad Request"),
    N_("Forbidden"),
    N_("URI Too Long"),
    N_("Expectation Failed"),
    N_("Request Header Fields Too Large"),
    N_("Internal Server Error"),
)


# Every answer's headers (app/headers.py), and CORS as the API answers a caller without
# credentials (gunicorn read none): a script of another site may read the JSON error.
REFUSAL_HEADERS = "".join(
    f"{name}: {value}\r\n"
    for name, value in (*STANDARD_HEADERS, ("Access-Control-Allow-Origin", "*"))
)


def json_error(status: int, reason: str, message: str) -> bytes:
    """The complete HTTP/1.1 answer for an error gunicorn raises before the app runs."""
    body = orjson.dumps(
        {
            "code": CODES.get(status, "rest_bad_request"),
            # gunicorn's detail can echo the client's bytes: the reason is enough.
            "message": said(reason),
            "data": {"status": status},
        }
    )
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json; charset=UTF-8\r\n"
        f"{REFUSAL_HEADERS}"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


# gunicorn's errors a browser meets at a page's address (a long link, large cookies, an
# address outside gunicorn's SCRIPT_NAME): the app's page when the request line names a
# page, as gunicorn has read nothing past it.
PAGE_STATUSES = (404, 414, 431)
# The application this worker serves (``CalendarWorker.load_wsgi``), which makes those pages.
_SERVED: dict = {}


def write_error(sock, status_int, reason, mesg):
    """gunicorn's error answer: the app's page (``page_error``) or the JSON error."""
    status = int(status_int)
    # A 404 (outside gunicorn's SCRIPT_NAME) is the app's own, its JSON too.
    page = page_error(sock, status, reason, status != 404) if status in PAGE_STATUSES else None
    util.write_nonblock(sock, page or json_error(status, reason, mesg))


util.write_error = write_error


def said(reason: str) -> str:
    """gunicorn's ``reason`` in the language of the root the refused request's path names
    (the site's default language at the bare root), as the app's catalogs say it."""
    app = _SERVED.get("app")
    served = arrival.current()
    path = request_path(served.head if served is not None else b"")
    if app is None or path is None:
        return reason
    segment = path.split("/")[1] if path.count("/") >= 2 else ""
    languages = app.config["LANGUAGES"]
    lang = segment if segment in languages else app.config["DEFAULT_LANGUAGE"]
    catalog = app.extensions["calendar.catalogs"].get(lang)
    return catalog.gettext(reason) if catalog else reason


def request_path(head: bytes) -> str | None:
    """The path of the request line that ``head`` begins (its start, as much as ``head``
    holds), as WSGI's ``PATH_INFO`` says it; None when ``head`` begins no request line."""
    method, _space, rest = head.partition(b" ")
    target = rest.split(b" ", 1)[0].split(b"\r", 1)[0].split(b"?", 1)[0]
    if not method.isalpha() or not target.startswith(b"/"):
        return None
    return unquote_to_bytes(target).decode("latin-1")


def page_error(sock, status: int, reason: str, pages_only: bool = True) -> bytes | None:
    """The app's answer to ``status`` at the address the refused request names, when it
    answers a page there (by the path alone: gunicorn has not read the headers), else None
    (but for ``pages_only`` false: its JSON too)."""
    served = arrival.current()
    path = request_path(served.head if served is not None else b"")
    app = _SERVED.get("app")
    if path is None or app is None:
        return None
    try:
        environ = _refused_environ(sock, path, status)
        return _page_answer(app, environ, status, reason, pages_only)
    except Exception:  # the JSON error rather than nothing
        logging.getLogger("app").exception("the page of a refused request failed")
        return None


def _refused_environ(sock, path: str, status: int) -> dict:
    """A WSGI environ of ``GET path`` that the app answers with the error ``status``."""
    name = sock.getsockname()
    host, port = name[:2] if isinstance(name, tuple) else ("localhost", 80)
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": str(host),
        "SERVER_PORT": str(port),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        REFUSED: status,
    }


def _page_answer(app, environ: dict, status: int, reason: str, pages_only=True) -> bytes | None:
    """The complete HTTP/1.1 answer of ``app`` to ``environ`` when it is a page (or
    whatever it is, but for ``pages_only``), else None."""
    said: dict = {}

    def start_response(status_line, headers, exc_info=None):
        said["headers"] = headers

    answer = app(environ, start_response)
    try:
        body = b"".join(answer)
    finally:
        getattr(answer, "close", lambda: None)()
    headers = [
        (name, value)
        for name, value in said.get("headers", [])
        if name.lower() not in ("content-length", "connection")
    ]
    page = any(n.lower() == "content-type" and v.startswith("text/html") for n, v in headers)
    if pages_only and not page:
        return None
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers)
    head = f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n{lines}"
    return (head + f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1") + body


# How long, and how much, of a body refused unread (``arrival.close_after``) is read and
# dropped after its answer before the connection closes.
LINGER_SECONDS = 2.0
LINGER_BYTES = 32 * 1024 * 1024


def linger(sock) -> None:
    """The staged close of RFC 9112 §9.6 after an answer that closes the connection while
    the client is still sending its body (a 413): the answer sent whole (FIN), the rest of
    the body read and dropped until the client closes its side, for a bounded time. Closed
    at once, the socket resets the connection, and a client still sending (``requests``,
    ``http.client``) meets a broken pipe instead of the answer. On the request's thread,
    outside the app's (``APP_THREADS``): the worker's main thread never waits."""
    deadline = time.monotonic() + LINGER_SECONDS
    drained = 0
    try:
        sock.shutdown(socket.SHUT_WR)
        while drained < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            chunk = sock.recv(65536)
            if not chunk:
                return
            drained += len(chunk)
    except OSError:  # the client is gone, or silent past the deadline (TimeoutError)
        return


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


# Threads of a worker that run the app at once. A thread that runs it holds a database
# connection (SQLite's page cache and prepared statements: 1 to 2 MB each), and more than
# four of them took a worker over the 80 MB of SPEC §9 (docs/performance.md); the other
# threads (GUNICORN_THREADS) read request heads, so that clients stalled mid-headers hold
# those and not the app (SPEC §10), and wait here for their turn.
APP_THREADS = 4


class CalendarWorker(gthread.ThreadWorker):
    """gunicorn's gthread worker, each request's arrival clock started when the request is
    queued for a thread, and at most ``APP_THREADS`` of its threads in the app at once
    (the worker class of gunicorn.conf.py)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.in_app = threading.BoundedSemaphore(min(self.cfg.threads, APP_THREADS))

    def handle_request(self, req, conn):
        asked: list[bool] = []

        def closing():  # gunicorn's answer says ``Connection: close`` when it ``must_close``
            req.must_close = True
            asked.append(True)

        conn.arrival.closing = closing
        with self.in_app:
            kept = super().handle_request(req, conn)
        if asked:
            linger(conn.sock)
        return kept

    def handle_error(self, req, client, addr, exc):
        """An address outside gunicorn's ``SCRIPT_NAME`` (the only ConfigurationProblem it
        raises) is not found there: a 404 (the app's page at a page's address), not the
        500 gunicorn answers. APPLICATION_ROOT (app/urls.py ``MountedAt``) is the setting
        docs/deploy.md gives; a server started with SCRIPT_NAME gets the same answers."""
        if not isinstance(exc, ConfigurationProblem):
            return super().handle_error(req, client, addr, exc)
        try:
            write_error(client, 404, "Not Found", "")
        except Exception:  # noqa: BLE001 (gunicorn's own: the client may be gone)
            self.log.debug("Failed to send error message.")
        return None

    def load_wsgi(self):
        super().load_wsgi()
        _SERVED["app"] = self.wsgi

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
