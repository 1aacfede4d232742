"""gunicorn settings used by `make run`, the tests that start a real server, and
`make bench`. Command-line options (--bind, --workers) override them."""

import os

import app.server  # noqa: F401  (gunicorn's own error answers become JSON)
from app.server_memory import limit_arenas

# Two malloc arenas for the threads of each worker (set here, before gunicorn forks them):
# a thread's own arena keeps the pages it freed, and eight of them kept workers over the
# 80 MB of SPEC §9.
limit_arenas()

# Threads per worker: a client that stalls mid-headers or mid-body holds one thread, not
# the worker, so the others keep being served (SPEC §10). A reverse proxy that buffers
# requests (docs/deploy.md) removes slow clients altogether.
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
# (and app/server.py closes a connection silent mid-request for GUNICORN_READ_TIMEOUT s)
# Idle keep-alive connections wait in the worker's poller, not in a thread.
keepalive = 5
# Limits of the request line and headers (gunicorn answers 414 / 431 past them).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
