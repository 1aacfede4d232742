"""Helpers shared by test files (no test file imports another)."""

import base64
import contextlib
import html
import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import requests
from PIL import Image

from rules import clock, dates
from store.db import database, is_postgres, write_transaction
from store.models import EventText
from tests.conftest import NS, csrf, forget_all
from tests.databases import copy_database, drop_database, fresh_database, query
from tests.site_instance import FOLDER as _SITE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Debian's Chromium: Playwright drives it, never downloads a browser (make test installs it).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
BIN = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def flask_cli(database, *args, **settings):
    env = {
        **os.environ,
        "CALENDAR_DATABASE": str(database),
        **{k: str(v) for k, v in settings.items()},
    }
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout


class Server:
    def __init__(self, database, workers=4, health="/healthz", **settings):
        self.port = free_port()
        env = {
            **os.environ,
            # The pages' warm-up (about 0.5 s of CPU per worker) is tested on its own
            # (tests/test_pages_warming.py); these servers start by the dozen.
            "GUNICORN_WARM_UP": "0",
            "CALENDAR_DATABASE": str(database),
            **{k: str(v) for k, v in settings.items()},
        }
        self.process = subprocess.Popen(
            [
                os.path.join(BIN, "gunicorn"),
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(workers),
                "wsgi:app",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 60  # a busy machine (a CI neighbour) starts it slowly
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.base + health, timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("gunicorn did not start")

    def request(self, method, path, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def kill(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            self.kill()


def ics(*events, extra="", zones=""):
    """A VCALENDAR with CRLF line ends around the given VEVENT bodies."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//Tests//EN"]
    lines += [x for x in extra.splitlines() if x]
    lines += [x for x in zones.splitlines() if x]
    for body in events:
        lines += ["BEGIN:VEVENT", *[x for x in body.splitlines() if x], "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return ("\r\n".join(lines) + "\r\n").encode()


def do_import(client, headers, data, **query):
    return client.post(
        f"{NS}/events/import",
        data=data,
        query_string=query,
        headers={**headers, "Content-Type": "text/calendar"},
    )


def imported(client, headers, data, **query):
    response = do_import(client, headers, data, **query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@contextlib.contextmanager
def chromium():
    """Debian's Chromium under Playwright, for the browser tests (one per module)."""
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), "Debian's chromium is needed (make test installs it)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


# The database `flask migrate` made, once per process of the suite: each test that wants
# a migrated database of its own gets a copy (the command's process is 1.4 s of CPU).
_MIGRATED: list[str] = []


def migrated_database(folder):
    """A new database, migrated by the command line, dropped after the test."""
    if not _MIGRATED:
        origin = fresh_database(Path(tempfile.mkdtemp(dir=_SITE)), empty=True)
        flask_cli(origin, "migrate")
        _MIGRATED.append(origin)
    setting = copy_database(_MIGRATED[0], folder)
    yield setting
    drop_database(setting)


# The rows a migration of SQLite once lost (a table rebuilt with foreign keys on).
LINK_TABLES = ("event_venue", "event_organizer", "event_term", "app_password")


def link_counts(path) -> dict[str, int]:
    """The rows of each of LINK_TABLES in the SQLite file ``path``."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in LINK_TABLES}


def old_release(commit: str, folder) -> Path:
    """The code of an earlier ``commit`` (git archive), in ``folder``/old: what a site
    that installed that release runs before it upgrades."""
    code = Path(folder) / "old"
    code.mkdir()
    archive = subprocess.run(
        ["git", "-C", ROOT, "archive", commit], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
    return code


def old_cli(code, env, *args) -> str:
    """A command of the release in ``code`` (old_release), run with this venv."""
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=code,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout


@contextlib.contextmanager
def read_only(path):
    """``path`` read-only for this process while the block runs: chattr +i as root (who
    ignores modes), else mode 0444."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        os.chmod(path, 0o444)
    try:
        yield
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=False)
        else:
            os.chmod(path, 0o600)


def new_admin(database) -> dict:
    """The Basic credentials of a new administrator made by the command line."""
    password = flask_cli(database, "users", "create", "admin", "--role", "administrator").split()[
        -1
    ]
    return {"Authorization": "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()}


def event_body(n):
    return {
        "title": f"Event {n}",
        "start_date": "tomorrow 9am",
        "end_date": "tomorrow 10am",
        "categories": ["Load"],
        "venue": {"venue": f"Hall {n % 5}"},
    }


def stored_event_ids(database):
    return {row[0] for row in query(str(database), "SELECT id FROM event")}


# --- images, clocks and stored texts (shared by the media, text and listing tests) ---------


def image_bytes(fmt="JPEG", size=(1200, 900), mode="RGB", colour=(200, 60, 30), **options):
    image = Image.new(mode, size, colour if mode != "P" else 3)
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def upload(client, headers, data: bytes, name="photo.jpg"):
    return client.post(
        f"{NS}/media", data={"file": (io.BytesIO(data), name)}, headers=headers or {}
    )


def uploaded(client, headers, data: bytes, name="photo.jpg") -> dict:
    response = upload(client, headers, data, name)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def soon(seconds=2):
    return dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=seconds))


def texts(app) -> dict[int, str | None]:
    """``{event id: body}`` as stored (None: to be made, "": never stored)."""
    with app.app_context(), database.connection_context():
        return {row.event_id: row.body for row in EventText.select()}


def unstore(app) -> None:
    """Every text set to "rendered afresh" (a write that makes none), every memo emptied."""
    with app.app_context(), database.connection_context(), write_transaction():
        EventText.update(body="").execute()
    forget_all(app)


def store_older_slug(app, model, item_id: int, slug: str) -> None:
    """``slug`` stored for an item as an older version left it (one ending in "-": it cut a
    long slug after trimming its dashes), every stored text and memo made afresh."""
    with app.app_context(), database.connection_context(), write_transaction():
        model.update(slug=slug).where(model.id == item_id).execute()
        EventText.update(body="").execute()
    forget_all(app)


def body_without_echo(response) -> dict:
    data = response.get_json()
    data.pop("rest_url", None)
    data.pop("next_rest_url", None)
    return data


def page_text(answer) -> str:
    """A page's visible words: tags, scripts and styles left out, whitespace folded."""
    body = answer.get_data(as_text=True)
    body = re.sub(r"(?s)<(script|style|head)[^>]*>.*?</\1>", " ", body)
    body = re.sub(r"<[^>]+>", " ", body)
    return re.sub(r"\s+", " ", html.unescape(body))


# The familiar address (du, tú) that no German or Spanish page or message may use: they
# say Sie and usted.
INFORMAL = {
    "de": re.compile(r"\b(du|Du|dir|dich|dein\w*|darfst|bist)\b"),
    "es": re.compile(r"\b(tienes|puedes|puedas|has iniciado|estás|tu|tus)\b"),
}


def signed_in_by_link(server, link: str) -> tuple[requests.Session, str]:
    """An editor's session signed in through ``users login-link`` (the set-password form),
    and its CSRF token."""
    path = "/manage/" + link.split("/manage/", 1)[1]
    editor = requests.Session()
    form = editor.get(server.base + path, timeout=30).text
    secret = "Correct-Horse-Battery-9"
    answer = editor.post(
        server.base + path,
        data={"csrf_token": csrf(form), "password": secret, "password_again": secret},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 303, answer.text
    return editor, csrf(editor.get(server.base + "/manage/", timeout=30).text)


def statements_sent(monkeypatch, action) -> list[tuple[str, list]]:
    """Each (SQL, parameters) the database is sent while ``action()`` runs."""
    sent = []
    execute = database.obj.execute_sql

    def spying(sql, params=None, *args, **kwargs):
        sent.append((sql, params))
        return execute(sql, params, *args, **kwargs)

    monkeypatch.setattr(database.obj, "execute_sql", spying)
    try:
        action()
    finally:
        monkeypatch.undo()
    return sent


def read_plans(app, monkeypatch, write, marker: str) -> list[str]:
    """The engine's plan (SQLite's ``EXPLAIN QUERY PLAN``, PostgreSQL's ``EXPLAIN``) of each
    read naming ``marker`` that ``write`` (a callable making one request) sends, a plan's
    lines joined by " / ": the mechanism behind a cost, where a timing would be the bench's."""
    # Connections of their own: one that ran a migration's ANALYZE (an earlier test's) keeps
    # planning by the rows counted then.
    app.extensions["calendar.db"].close_all()
    sent = statements_sent(monkeypatch, write)
    reads = [(s, p) for s, p in sent if marker in s and s.lstrip().startswith("SELECT")]
    explain = "EXPLAIN" if is_postgres() else "EXPLAIN QUERY PLAN"
    with app.app_context(), database.connection_context():
        return [
            " / ".join(row[-1] for row in database.execute_sql(f"{explain} {s}", p))
            for s, p in reads
        ]
