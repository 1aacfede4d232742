"""vtec15: a second outside check of this evening's import-tec changes (one run at a time,
members-only APIs, undated drafts, websites, zone-less and untitled events, long
descriptions, renamed slugs), against a small WordPress + The Events Calendar fake."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from app.config import SettingError, load_settings
from tests.conftest import NS
from tests.helpers import BIN, ROOT

TEC = "/wp-json/tribe/events/v1"
PAGE = {"Accept": "text/html"}


def _event(base: str, source_id: int, slug: str, **fields) -> dict:
    day = f"2026-12-{1 + source_id % 28:02d}"
    start, end = f"{day} 19:00:00", f"{day} 21:00:00"
    event = {
        "id": source_id, "global_id": f"127.0.0.1?id={source_id}",
        "global_id_lineage": [f"127.0.0.1?id={source_id}"], "author": "1",
        "status": "publish", "date": "2026-11-01 09:00:00", "date_utc": "2026-11-01 09:00:00",
        "modified": "2026-11-20 10:00:00", "modified_utc": "2026-11-20 10:00:00",
        "url": f"{base}/event/{slug}/", "rest_url": f"{base}{TEC}/events/{source_id}",
        "title": f"Concert {source_id}", "description": "<p>Tonight</p>\n", "excerpt": "",
        "slug": slug, "image": False, "all_day": False,
        "start_date": start, "end_date": end, "utc_start_date": start, "utc_end_date": end,
        "timezone": "UTC", "timezone_abbr": "UTC", "cost": "",
        "cost_details": {"currency_symbol": "", "currency_code": "", "currency_position": "",
                         "values": []},
        "website": f"{base}/event/{slug}/", "show_map": True, "show_map_link": True,
        "hide_from_listings": False, "sticky": False, "featured": False,
        "categories": [], "tags": [], "venue": [], "organizer": [], "custom_fields": [],
    }  # fmt: skip
    event.update(fields)
    return event


class Site:
    """A WordPress site running the plugin at the root of a local port."""

    def __init__(self):
        self.events: list[dict] = []
        self.venues: list[dict] = []
        self.index: dict = {}
        self.delay = 0.0
        self.members_only = ""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if site.members_only and self.headers.get("Authorization") != site.members_only:
                    status, body = 401, {"code": "rest_login_required", "data": {"status": 401}}
                else:
                    status, body = site.answer(self.path)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str):
        parts = urlsplit(path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/wp-json/":
            return 200, {"namespaces": ["wp/v2", "tribe/events/v1"], **self.index}
        if parts.path == "/wp-json/wp/v2/users/me":
            return 200, {"id": 3, "name": "Migrator", "slug": "migrator"}
        if parts.path == "/wp-json/wp/v2/tribe_events":
            edit = query.get("context") == "edit"
            posts = [{"id": e["id"], **({"password": ""} if edit else {})} for e in self.events]
            return 200, [] if int(query.get("page", 1)) > 1 else posts
        kind = parts.path.removeprefix(f"{TEC}/").rstrip("/")
        if kind.startswith("events/"):
            wanted = int(kind.split("/")[1])
            return 200, next(e for e in self.events if e["id"] == wanted)
        items = {"events": self.events, "venues": self.venues}.get(kind, [])
        if kind == "events":
            time.sleep(self.delay)
        per_page, page = int(query.get("per_page", 10)), int(query.get("page", 1))
        pages = max(1, -(-len(items) // per_page))
        body = {
            kind: items[(page - 1) * per_page : page * per_page],
            "rest_url": f"{self.base}{TEC}/{kind}/?page={page}",
            "total": len(items),
            "total_pages": pages,
        }
        if page < pages:
            body["next_rest_url"] = f"{self.base}{TEC}/{kind}/?page={page + 1}"
        return 200, body


@pytest.fixture
def site():
    made = Site()
    yield made
    made.close()


def run(app, *args):
    return app.test_cli_runner().invoke(args=["import-tec", *args])


def _ours(client, slug: str, headers: dict | None = None) -> dict:
    answer = client.get(f"{NS}/events/by-slug/{slug}", headers=headers or {})
    assert answer.status_code == 200, slug
    return answer.get_json()


def _process(database: str, base: str) -> subprocess.Popen:
    env = {**os.environ, "CALENDAR_DATABASE": str(database)}
    return subprocess.Popen(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "import-tec", base, "--no-images"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _status(client, path: str) -> tuple[int, str | None]:
    answer = client.get(path, headers=PAGE)
    return answer.status_code, answer.headers.get("Location")


def test_an_event_renamed_to_the_slug_another_gave_up_in_the_same_run_keeps_it(
    app, client, admin, site
):
    """SPEC §17 "Each item keeps its slug (so ``/event/{slug}/`` … keep their addresses)".
    Between two runs the source renamed event A ``gala`` → ``gala-old`` and event B
    ``party`` → ``gala`` (B listed first). B was written while A still held ``gala`` here:
    B became ``gala-2`` (for good: later runs find it unchanged), and ``/event/gala/``, B's
    address at the source, answers 301 to A."""
    first = "2026-11-20 10:00:00"
    site.events = [
        _event(site.base, 10, "party", title="B", modified_utc=first),
        _event(site.base, 20, "gala", title="A", modified_utc=first),
    ]
    assert run(app, site.base).exit_code == 0
    later = "2026-11-28 10:00:00"
    site.events = [
        _event(site.base, 10, "gala", title="B", modified_utc=later),
        _event(site.base, 20, "gala-old", title="A", modified_utc=later),
    ]
    assert run(app, site.base).exit_code == 0
    assert run(app, site.base).exit_code == 0  # a further run does not mend it either
    assert _status(client, "/event/gala/") == (200, None)
    assert _ours(client, "gala")["title"] == "B"
    assert _ours(client, "gala-old")["title"] == "A"


def test_a_members_only_site_read_without_credentials_is_not_called_another_site(
    app, client, admin, site
):
    """docs/moving-from-tec.md: "one that is not WordPress (no JSON REST index)". A site
    whose REST API answers signed-in callers only (401 ``rest_login_required`` as JSON on
    ``/wp-json/``, a security plugin's setting) is WordPress; run without ``--user`` it
    was said "is not a WordPress site (no REST API at /wp-json/)", which sends the operator
    looking for the wrong mistake: the error should say the site asks for credentials."""
    site.members_only = "Basic " + base64.b64encode(b"migrator:abcd EFGH").decode()
    site.events = [_event(site.base, 62, "members")]
    result = run(app, site.base)
    assert result.exit_code == 1
    assert "not a WordPress site" not in result.output
    assert "401" in result.output or "--user" in result.output


def test_an_event_whose_title_is_only_markup_is_titled_by_its_slug(app, client, admin, site):
    """docs/moving-from-tec.md: "an event published without a title … is titled by its
    slug, with a warning: line, so that its address is kept". A title that holds only
    markup (an icon ``<i class="fa fa-music"></i>``, an empty ``<span></span>``: nothing a
    visitor reads) passed the importer's check, then our write path stripped it to nothing
    and the event failed ("title: Must not be empty."): its address was lost."""
    site.events = [
        _event(site.base, 301, "icon-night", title='<i class="fa fa-music"></i>'),
        _event(site.base, 302, "empty-span", title="<span></span>"),
    ]
    result = run(app, site.base)
    assert result.exit_code == 0, result.output
    assert _status(client, "/event/icon-night/") == (200, None)
    assert _status(client, "/event/empty-span/") == (200, None)


def test_a_venue_renamed_at_the_source_keeps_its_earlier_address(app, client, admin, site):
    """SPEC §17: "break no link"; WordPress redirects a renamed venue's old slug
    (``_wp_old_slug``, for every post type) as it does an event's. The import keeps an
    event's earlier address (301), not a venue's: ``/venue/old-hall/``, served here after
    the first run, answers 404 after the second."""

    def venue(slug: str, modified: str) -> dict:
        return {
            "id": 61, "author": "1", "status": "publish", "date": "2026-11-02 10:00:00",
            "date_utc": "2026-11-02 09:00:00", "modified": modified, "modified_utc": modified,
            "url": f"{site.base}/venue/{slug}/", "venue": "Hall", "slug": slug,
            "global_id": "127.0.0.1?id=61", "global_id_lineage": ["127.0.0.1?id=61"],
        }  # fmt: skip

    site.venues = [venue("old-hall", "2026-11-02 10:00:00")]
    site.events = [_event(site.base, 62, "in-the-hall", venue=site.venues[0])]
    assert run(app, site.base).exit_code == 0
    assert _status(client, "/venue/old-hall/") == (200, None)
    site.venues = [venue("new-hall", "2026-11-25 10:00:00")]
    site.events = [_event(site.base, 62, "in-the-hall", venue=site.venues[0])]
    assert run(app, site.base).exit_code == 0
    status, location = _status(client, "/venue/old-hall/")
    assert status == 301 and location.endswith("/venue/new-hall/")


def test_an_undated_draft_is_dated_when_published(app, client, admin, site):
    """docs/moving-from-tec.md: WordPress's ``0000-00-00 00:00:00`` of a draft never given
    a date becomes "none, dated when published, as there". The import dated it at the
    run's time, and publishing it here an hour later kept that date."""
    from rules import clock

    clock.freeze()
    floating = {"date": "0000-00-00 00:00:00", "date_utc": "0000-00-00 00:00:00"}
    site.events = [_event(site.base, 62, "undated", status="draft", **floating)]
    assert run(app, site.base, "--user", "migrator", "--password", "abcd EFGH").exit_code == 0
    draft = _ours(client, "undated", admin)
    clock.advance(3600)
    published = client.patch(
        f"{NS}/events/{draft['id']}", json={"status": "publish"}, headers=admin
    )
    assert published.status_code == 200
    assert published.get_json()["date_utc"] == clock.utcnow_str()


def _settings_of(tmp_path, monkeypatch, line: str):
    """load_settings of an instance folder whose config.py holds ``line``."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "config.py").write_text(line + "\n")
    monkeypatch.setenv("CALENDAR_INSTANCE", str(folder))
    monkeypatch.setenv("UPLOAD_FOLDER", str(tmp_path / "uploads"))
    monkeypatch.delenv("CALENDAR_DATABASE", raising=False)
    return load_settings(ROOT)


@pytest.mark.sqlite_file
@pytest.mark.parametrize(
    "key, written",
    [
        ("MAX_PER_PAGE", "10.5"),
        ("ICAL_MAX_EVENTS", "2.5"),
        ("GUNICORN_THREADS", "2.5"),
        ("RECURRENCE_MAX", "3.5"),
    ],
)
def test_a_whole_number_setting_written_as_a_python_fraction_stops_the_start(
    tmp_path, monkeypatch, key, written
):
    """README: "Numbers and flags may be written as Python values or as text … a number
    that is not one … stops the start with one line naming the setting". The text
    ``"10.5"`` is refused ("is not a whole number"); the Python value ``10.5`` in
    instance/config.py was taken: the server started, then ``GET
    /wp-json/calendar/events/v1/events?per_page=11`` answered 500 (MAX_PER_PAGE = 10.5),
    the feed ``?ical=1`` 500 (ICAL_MAX_EVENTS = 2.5: "datatype mismatch"), and gunicorn
    said "Invalid value for threads: 2.5" without naming the setting."""
    with pytest.raises(SettingError) as raised:
        _settings_of(tmp_path, monkeypatch, f"{key} = {written}")
    assert str(raised.value).startswith(f"{key}: ")


@pytest.mark.sqlite_file
@pytest.mark.parametrize("root", ["/<x>", "/wp-json?x=1", "/api#v1"])
def test_an_api_root_that_is_no_path_stops_the_start(tmp_path, monkeypatch, root):
    """README: "a value that cannot work … stops the start with one line naming the
    setting". ``API_ROOT = "/<x>"`` was accepted and read as a Werkzeug rule: every API
    request (``GET /wp-json/``, ``GET /abc/calendar/events/v1/events``) answered 500
    (``rest_index() got an unexpected keyword argument 'x'``); ``"/wp-json?x=1"`` was
    accepted and its API could not be reached at all (404 at the address the index
    announces)."""
    with pytest.raises(SettingError) as raised:
        _settings_of(tmp_path, monkeypatch, f"API_ROOT = {root!r}")
    assert str(raised.value).startswith("API_ROOT: ")


@pytest.mark.sqlite_file
def test_a_number_too_large_for_the_check_is_one_line(tmp_path):
    """README: one line naming the setting, never a traceback. ``AUTH_FAILURE_WINDOW =
    10**400`` (or the same digits in the environment) raised ``OverflowError: int too
    large to convert to float`` from the check itself: a 30-line traceback from ``flask
    migrate``, and gunicorn's "Failed to read config file"."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "config.py").write_text("AUTH_FAILURE_WINDOW = 10**400\n")
    env = {**os.environ, "CALENDAR_INSTANCE": str(folder),
           "UPLOAD_FOLDER": str(tmp_path / "uploads")}  # fmt: skip
    env.pop("CALENDAR_DATABASE", None)
    done = subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "migrate"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("calendar: AUTH_FAILURE_WINDOW: ")


def test_an_event_with_a_slug_as_long_as_wordpress_allows_keeps_its_address(
    app, client, admin, site
):
    """SPEC §17: "Each item keeps its slug (so ``/event/{slug}/`` … keep their addresses)".
    WordPress keeps a slug of up to 200 characters (``post_name`` varchar(200),
    ``_truncate_post_slug(…, 200)``: a long title gives one); ours refuses slugs over 190,
    so such an event failed ("slug: Is too long.") and its address answered 404."""
    slug = ("a-very-long-title-" * 11)[:195]
    site.events = [_event(site.base, 401, slug)]
    result = run(app, site.base)
    assert result.exit_code == 0, result.output
    assert _status(client, f"/event/{slug}/") == (200, None)


def test_an_event_with_a_title_as_long_as_wordpress_allows_is_brought(app, client, admin, site):
    """WordPress keeps ``post_title`` in a TEXT column (65,535 bytes); ours refuses titles
    over 1,000 characters, so an event whose title was pasted long (1,200 characters
    here) failed ("title: Is too long.") and its page was lost, the case the description's
    limit was raised for this evening."""
    site.events = [_event(site.base, 402, "long-title", title="Word " * 240)]
    result = run(app, site.base)
    assert result.exit_code == 0, result.output
    assert _status(client, "/event/long-title/") == (200, None)
