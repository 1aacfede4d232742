"""chk18r: a new operator following README.md and docs/ literally (outside checker)."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from app import ROOT as _ROOT
from tests.helpers import BIN

ROOT = Path(_ROOT)

# Each test starts the app on SQLite files of its own (or reads files): once, under `make test`.
pytestmark = pytest.mark.sqlite_file


def _run(args, env, timeout=60):
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def _env(tmp_path, **settings):
    return {
        **os.environ,
        "CALENDAR_DATABASE": str(tmp_path / "calendar.db"),
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        **settings,
    }


# D1: docs/architecture.md "Where each rule of the SPEC lives" names functions that exist.
def _defined(source: str, name: str) -> bool:
    return all(
        re.search(
            r"(def|class)\s+%s\b|^\s*%s\s*[:=]|\b%s\s*=" % ((re.escape(p),) * 3), source, re.M
        )
        for p in name.split(".")
    )


def test_architecture_names_exist():
    text = (ROOT / "docs" / "architecture.md").read_text()
    refs = set(re.findall(r"`((?:app|store|rules|schemas)/[\w/]+(?:\.py)?)::([\w.]+)`", text))
    missing = []
    for path, name in sorted(refs):
        target = ROOT / path
        if target.is_dir():
            files = list(target.rglob("*.py"))
        elif target.is_file():
            files = [target]
        elif (ROOT / (path + ".py")).is_file():
            files = [ROOT / (path + ".py")]
        else:
            missing.append(f"{path} (no such file)")
            continue
        if not _defined("\n".join(f.read_text() for f in files), name):
            missing.append(f"{path}::{name}")
    assert missing == []


# D2: a SITE_URL whose bracketed host is no IP address: a traceback instead of one line.
@pytest.mark.parametrize("value", ["http://[zz]", "http://[::1"])
def test_site_url_with_bad_brackets_is_one_line(tmp_path, value):
    done = _run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "users", "list"],
        _env(tmp_path, SITE_URL=value),
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 1
    assert done.stderr.startswith("calendar: SITE_URL: ")
    assert len(done.stderr.strip().splitlines()) == 1


# D3: a SITE_URL naming no host (README: a Host header `a b` or `example.org:99999` names no
# host) is accepted at start, and every link (login links, url, rest_url) is made on it.
@pytest.mark.parametrize(
    "value",
    [
        "https://ex ample.org",
        "https://example.org:99999",
        "https://example.org:abc",
        "https://exa<mple>.org",
        "https://example.org:0",
        "https://a..b",
    ],
)
def test_site_url_naming_no_host_stops_the_start(tmp_path, value):
    done = _run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "users", "list"],
        _env(tmp_path, SITE_URL=value),
    )
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith("calendar: SITE_URL: ")


# D4: Flask's own settings in config.py are not checked at start: a value of another type
# (README: "a value of another type ... stops the start naming it"; numbers "may be written
# as text") starts the site, and then the editor, the pages or the API fail (500).
@pytest.mark.parametrize(
    "written",
    [
        'PERMANENT_SESSION_LIFETIME = "3600"',
        'PERMANENT_SESSION_LIFETIME = "x"',
        "SESSION_COOKIE_NAME = 5",
        "APPLICATION_ROOT = 5",
        'MAX_COOKIE_SIZE = "x"',
    ],
)
def test_flask_setting_that_cannot_work_stops_the_start_or_works(tmp_path, monkeypatch, written):
    from app import create_app
    from app.config import SettingError

    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "config.py").write_text(written + "\n")
    monkeypatch.setenv("CALENDAR_INSTANCE", str(folder))
    try:
        app = create_app({"CALENDAR_DATABASE": str(tmp_path / "c.db")})
    except SettingError:
        return  # stopped at start, naming it: what the README promises
    try:
        client = app.test_client()
        for address in [
            "/manage/signin",
            "/events/",
            "/wp-json/calendar/events/v1/events",
            "/manage/signin",
        ]:
            assert client.get(address).status_code < 500, address
    finally:
        app.extensions["calendar.db"].close_all()


# D5: `copy-database SOURCE TARGET` with a TARGET of another scheme blames the site's
# CALENDAR_DATABASE setting, which is fine, instead of naming TARGET.
def test_copy_database_names_the_target_not_the_setting(tmp_path):
    env = _env(tmp_path)
    flask = os.path.join(BIN, "flask")
    made = _run([flask, "--app", "wsgi", "migrate"], env)
    assert made.returncode == 0, made.stderr
    done = _run(
        [flask, "--app", "wsgi", "copy-database", str(tmp_path / "calendar.db"), "mysql://x/y"], env
    )
    assert done.returncode != 0
    assert "CALENDAR_DATABASE" not in done.stderr, done.stderr
    assert "mysql://" in done.stderr
