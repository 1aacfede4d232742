"""What gunicorn and the app write to the logs (docs/deploy.md, "Logs"): one line per
entry, the client's own address behind a trusted proxy, the migration made at start."""

import logging
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from app.server import OneLine
from tests.helpers import BIN, ROOT, free_port

# Its servers run on SQLite files of their own, whatever the engine under test: once, under
# `make test`.
pytestmark = pytest.mark.sqlite_file


def _serve(tmp_path, **settings):
    port = free_port()
    access = tmp_path / "access.log"
    env = {
        **os.environ,
        "CALENDAR_DATABASE": str(tmp_path / "calendar.db"),  # new: migrated at start
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        **settings,
    }
    process = subprocess.Popen(
        [os.path.join(BIN, "gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", "1"]
        + ["--access-logfile", str(access), "wsgi:app"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    return process, base, access


def _get(url, **headers):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
        return r.read()


def _stop(process) -> str:
    process.terminate()
    return process.communicate(timeout=20)[1]


def _line_of(access, path: str) -> str:
    """The access log's line for ``path``: gunicorn's threads write a line after sending
    the answer, so the next request's line may come first."""
    (line,) = [line for line in access.read_text().splitlines() if f"GET {path} " in line]
    return line


def test_the_access_log_names_the_client_behind_a_trusted_proxy(tmp_path):
    process, base, access = _serve(tmp_path, FORWARDED_ALLOW_IPS="127.0.0.1")
    try:
        _get(base + "/healthz?proxied", **{"X-Forwarded-For": "198.51.100.7, 203.0.113.9"})
        _get(base + "/healthz?direct")
        _get(base + "/healthz?garbled", **{"X-Forwarded-For": 'a b "c" d'})  # no address
    finally:
        errors = _stop(process)
    # The nearest address the trusted proxy wrote; without a header, the peer itself.
    assert _line_of(access, "/healthz?proxied").startswith("203.0.113.9 ")
    assert _line_of(access, "/healthz?direct").startswith("127.0.0.1 ")
    assert _line_of(access, "/healthz?garbled").startswith("127.0.0.1 - ")
    assert "migrated the database from schema version 0 to " in errors
    assert all(line.startswith("[") for line in errors.splitlines() if line)  # one per entry


def test_an_untrusted_peer_cannot_name_another_client(tmp_path):
    process, base, access = _serve(tmp_path)  # FORWARDED_ALLOW_IPS unset: no proxy trusted
    try:
        _get(base + "/healthz?claimed", **{"X-Forwarded-For": "203.0.113.9"})
    finally:
        _stop(process)
    assert _line_of(access, "/healthz?claimed").startswith("127.0.0.1 ")


def test_a_traceback_is_logged_on_one_line():
    try:
        raise ValueError("boom\nsecond line")
    except ValueError:
        record = logging.LogRecord("app", logging.ERROR, "x", 1, "failed", None, sys.exc_info())
    line = OneLine(logging.Formatter("%(levelname)s %(message)s")).format(record)
    assert "\n" not in line
    assert line.startswith("ERROR failed | Traceback (most recent call last):")
    assert line.endswith("ValueError: boom | second line")
