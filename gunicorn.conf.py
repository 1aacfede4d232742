"""gunicorn settings used by `make run`, the tests that start a real server, and
`make bench`. Command-line options (--bind, --workers) override them."""

import sys

import app.arrival
import app.server  # gunicorn's own error answers become JSON
from app import ROOT, check_database
from app.config import SettingError, load_settings
from app.server_memory import limit_arenas, trim_now_and_then

# The same settings as the app's (defaults, instance/config.py, environment), checked before
# any worker starts: a setting that cannot work stops the server with one line.
try:
    settings = load_settings(ROOT)
    # A database that cannot be opened (no engine here speaks it, a folder, a server that
    # refuses) is said once, here: a worker that failed on it would be started again and
    # again.
    check_database(settings["CALENDAR_DATABASE"])
except SettingError as error:
    print(f"calendar: {error}", file=sys.stderr)
    sys.exit(1)

# Two malloc arenas for the threads of each worker (set here, before gunicorn forks them):
# a thread's own arena keeps the pages it freed, and eight of them kept workers over the
# 80 MB of SPEC §9.
limit_arenas()

# Threads per worker: a client that stalls mid-headers or mid-body holds one thread, not
# the worker, so the others keep being served (SPEC §10). A reverse proxy that buffers
# requests (docs/deploy.md) removes slow clients altogether.
worker_class = "app.server.CalendarWorker"  # gthread, with arrival deadlines
# One line per entry; the access log names the client behind trusted proxies.
logger_class = "app.server.CalendarLogger"
threads = settings["GUNICORN_THREADS"]
# A connection silent mid-request for GUNICORN_READ_TIMEOUT s is closed, and so is one whose
# request has not arrived after that long plus a second per 16 kB received (app/arrival.py).
app.arrival.READ_TIMEOUT = app.arrival.ARRIVAL_GRACE = settings["GUNICORN_READ_TIMEOUT"]
# Proxies whose forwarded headers (X-Forwarded-Proto…) gunicorn believes; the app's
# throttling reads the same. Unset means no proxy is trusted: gunicorn's own default
# (127.0.0.1) would let any local process turn the answers' links to https.
forwarded_allow_ips = ",".join(settings["FORWARDED_ALLOW_IPS"])
# gunicorn 27's control socket ($HOME/.gunicorn/gunicorn.ctl) is not used: under systemd the
# home folder is read-only, and two servers of one user would share its path.
control_socket_disable = True
# Idle keep-alive connections wait in the worker's poller, not in a thread.
keepalive = 5
# Limits of the request line and headers (gunicorn answers 414 / 431 past them).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190


def on_starting(server):
    """No worker would answer anyone: refused rather than accepting connections forever."""
    if server.cfg.workers < 1:
        print(
            f"calendar: WEB_CONCURRENCY: at least 1 worker (is {server.cfg.workers})",
            file=sys.stderr,
        )
        sys.exit(1)


def post_request(worker, req, environ, resp):
    """The heap's free pages given back now and then (app/server_memory.py): the 80 MB of
    SPEC §9 after cold traffic."""
    trim_now_and_then()


def post_worker_init(worker):
    """The pages' first costs (templates, Babel's data, the month grid's statements) paid
    before the worker serves, not by its first visitors (app/pages/warming.py), unless
    GUNICORN_WARM_UP is off (the suite's many short-lived servers)."""
    if not settings["GUNICORN_WARM_UP"]:
        return
    from app.pages.warming import warm_up

    warm_up(worker.wsgi)
