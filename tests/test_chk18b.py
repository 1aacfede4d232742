"""chk18b: moving from The Events Calendar (SPEC §17, §15) — an outside check.

The old addresses a site of The Events Calendar links must keep working after the move.
Each test fails on the current code for the reason its docstring gives."""

from __future__ import annotations

import re

import pytest

from tests.conftest import NS


def _titles(html: str) -> list[str]:
    """The event titles a list page shows, in order (each linked to /event/{slug}/)."""
    seen: list[str] = []
    for slug in re.findall(r'href="[^"]*/event/([^/"]+)/"', html):
        if slug not in seen:
            seen.append(slug)
    return seen


@pytest.fixture
def many(make_event, client, admin):
    """14 upcoming events in category "talks" (tag "outdoor"): two list pages of 10."""
    made = []
    for n in range(14):
        made.append(
            make_event(
                title=f"Talk {n:02d}",
                slug=f"talk-{n:02d}",
                start_date=f"+{n + 2} days 10am",
                end_date=f"+{n + 2} days 11am",
                categories=["talks"],
                tags=["outdoor"],
            )
        )
    return made


def _follow(client, path: str, hops: int = 5):
    answer = client.get(path)
    while answer.status_code in (301, 302, 303, 307, 308) and hops:
        location = answer.headers["Location"]
        location = re.sub(r"^https?://[^/]+", "", location)
        answer = client.get(location)
        hops -= 1
    return answer


# D1 ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old",
    [
        "/events/category/talks/list/page/2/",
        "/events/tag/outdoor/list/page/2/",
        "/events/category/talks/list/featured/page/2/",
    ],
)
def test_tec_term_list_page_addresses_answer(client, many, old):
    """The plugin's rewrite rules have `{events}/category/{slug}/list/page/N/` (and for tags,
    and featured): the "next page" of a term's list view. SPEC §17: break no link."""
    answer = client.get(old)
    assert answer.status_code in (200, 301, 308), (old, answer.status_code)
    if "featured" not in old:
        page = _follow(client, old)
        assert page.status_code == 200
        # page 2 of the term's list: the 11th to 14th talks
        assert _titles(page.get_data(as_text=True))[:1] == ["talk-10"]


# D2 ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old",
    [
        "/?post_type=tribe_events&eventDisplay=list&paged=2",
        "/events/list/?paged=2",
        "/events/?paged=2",
    ],
)
def test_tec_paged_parameter_gives_that_page(client, many, old):
    """The plugin's views write the page number as `paged` (View::$page_key); on a site
    without pretty permalinks every "Next events" link is `?post_type=tribe_events&
    eventDisplay=list&paged=2`. It must show page 2, as `/events/?page=2` does."""
    second = _follow(client, "/events/?page=2")
    assert second.status_code == 200
    expected = _titles(second.get_data(as_text=True))
    assert expected and expected[0] == "talk-10"
    page = _follow(client, old)
    assert page.status_code == 200
    assert _titles(page.get_data(as_text=True)) == expected


# D3 ---------------------------------------------------------------------------------
def test_tec_plain_permalink_tag_archive_keeps_the_tag(client, make_event):
    """`/?post_type=tribe_events&tag=SLUG` is the plugin's tag view without pretty
    permalinks (its rewrite maps `/events/tag/SLUG/` to exactly that query). It must lead
    to the tag's page, as `tribe_events_cat=SLUG` leads to the category's."""
    make_event(title="Tagged one", slug="tagged-one", tags=["outdoor"])
    make_event(title="Other one", slug="other-one", tags=["indoor"])
    page = _follow(client, "/?post_type=tribe_events&tag=outdoor")
    assert page.status_code == 200
    assert _titles(page.get_data(as_text=True)) == ["tagged-one"]


# The import itself, against a fake site of the plugin (tests/tec_fake.py) -------------
import os  # noqa: E402
import subprocess  # noqa: E402

from tests.helpers import BIN, ROOT  # noqa: E402
from tests.tec_fake import FakeTEC  # noqa: E402


@pytest.fixture
def fake_tec():
    site = FakeTEC().start()
    yield site
    site.stop()


@pytest.fixture
def fresh_db(tmp_path):
    db = tmp_path / "moved.db"
    env = {**os.environ, "CALENDAR_DATABASE": str(db), "UPLOAD_FOLDER": str(tmp_path / "up")}
    subprocess.run(
        [
            os.path.join(BIN, "flask"),
            "--app",
            "wsgi",
            "users",
            "create",
            "boss",
            "--role",
            "administrator",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return env


def import_tec(env, *args):
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "import-tec", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# D8 ---------------------------------------------------------------------------------
def test_wp_v2_terms_honour_orderby(client, make_event):
    """WordPress's term routes order by `orderby` (`count`, `id`, `slug`, `name`, ...) as
    clients such as a "popular tags" widget ask; SPEC §17 promises WordPress's shapes for
    `wp/v2/tags`. `orderby` is ignored (always by name), while our own `/tags` honours it."""
    make_event(title="A", tags=["zulu", "alpha"])
    make_event(title="B", tags=["zulu", "alpha"])
    make_event(title="C", tags=["alpha", "mike"])
    # counts: alpha 3, zulu 2, mike 1 (by name: alpha, mike, zulu)
    ours = client.get(f"{NS}/tags?orderby=count&order=desc&hide_empty=false").get_json()["tags"]
    assert [t["slug"] for t in ours] == ["alpha", "zulu", "mike"]
    theirs = client.get("/wp-json/wp/v2/tags?orderby=count&order=desc").get_json()
    assert [t["slug"] for t in theirs] == ["alpha", "zulu", "mike"]
    by_id = client.get("/wp-json/wp/v2/tags?orderby=id&order=asc").get_json()
    ids = [t["id"] for t in by_id]
    assert ids == sorted(ids)
    assert [t["slug"] for t in by_id] == ["zulu", "alpha", "mike"]  # created in that order


# D9 ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path", ["/index.php?rest_route=/", "/index.php?rest_route=/tribe/events/v1/events"]
)
def test_wordpress_plain_permalink_rest_address_with_index_php(client, make_event, path):
    """Without pretty permalinks WordPress's own rest_url() is `{home}/index.php?rest_route=…`
    (get_rest_url() adds `index.php` so that nginx need not redirect), and that is the
    address the plugin's `rest_url`s and the `Link: rel="https://api.w.org/"` header give
    there. `/?rest_route=` is served; `/index.php?rest_route=` is a 404. SPEC §17: "a client
    written for the plugin works by changing only the host"."""
    make_event(title="Listed")
    answer = client.get(path)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == client.get(path.replace("/index.php", "/")).get_json()


# D10 --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old", ["/events/feed/", "/events/category/talks/feed/", "/events/tag/outdoor/feed/"]
)
def test_tec_event_feeds_keep_answering(client, many, old):
    """The plugin's rewrite rules serve the events' RSS feed at `{events}/feed/` (also
    `rdf|rss|rss2|atom`), `{events}/category/{slug}/feed/` and `{events}/tag/{slug}/feed/`,
    and WordPress links it from every events page (`<link rel="alternate"
    type="application/rss+xml">`), so feed readers are subscribed to it. SPEC §17: moving
    must "break no link and no client". They answer 404."""
    answer = _follow(client, old)
    assert answer.status_code == 200, (old, answer.status_code)
    assert re.search(r"rss|atom|xml", answer.headers.get("Content-Type", ""))
    assert "Talk 00" in answer.get_data(as_text=True)


def _probe(env, code: str) -> str:
    """Run ``code`` against the database of ``env`` (``c`` is a test client of it)."""
    return (
        subprocess.run(
            [
                os.path.join(BIN, "python"),
                "-c",
                "from wsgi import app\nc = app.test_client()\n" + code,
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        .stdout.strip()
        .splitlines()[-1]
    )


# D12 --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "source_host, asked_host",
    [
        ("127.0.0.1", "localhost"),
        ("example.org", "www.example.org"),
        ("www.example.org", "example.org"),
    ],
)
def test_wordpress_shortlink_of_an_imported_event_under_another_host_name(
    fake_tec, fresh_db, source_host, asked_host
):
    """WordPress's shortlink `/?p=ID` (and `/?post_type=tribe_events&p=ID`) of an imported
    event (global_id `{source_host}?id=51`) moves to its page only when this service is
    asked under exactly that host name. Asked as `localhost` for `127.0.0.1`, or as the
    `www.` / bare twin of the old site's name (the usual state after a move: one of them
    redirects to the other), it falls to the list view: the link is broken. SPEC §17
    "break no link"; the import itself treats such addresses as one source
    (docs/moving-from-tec.md)."""
    fake_tec.host = source_host
    fake_tec.build()
    run = import_tec(fresh_db, fake_tec.base, "--no-images")
    assert run.returncode == 0, run.stdout + run.stderr
    same = _probe(
        fresh_db, f"print(c.get('/?p=51', base_url='http://{source_host}').headers.get('Location'))"
    )
    assert same.endswith("/event/spring-concert/"), same
    other = _probe(
        fresh_db,
        f"print(c.get('/?post_type=tribe_events&p=51', base_url='http://{asked_host}')"
        ".headers.get('Location'))",
    )
    assert other.endswith("/event/spring-concert/"), other


# D13 --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "page",
    [
        "/event/talk-00/",
        "/events/list/",
        "/events/category/talks/",
        "/events/tag/outdoor/",
        "/events/month/",
    ],
)
def test_tec_outlook_ical_export_links_give_the_calendar_file(client, many, page):
    """The plugin's "Export Outlook .ics file" link (beside "Export .ics file", on single
    events and on every view: e.g. `/events/tag/talks/day/2025-02-03/?outlook-ical=1`)
    is the page's address with `?outlook-ical=1`. `?ical=1` moves to our feed; the
    Outlook form answers the HTML page instead of a calendar file. SPEC §17: break no link."""
    plain = _follow(client, page + "?ical=1")
    assert plain.status_code == 200 and plain.mimetype == "text/calendar"
    answer = _follow(client, page + "?outlook-ical=1")
    assert answer.status_code == 200
    assert answer.mimetype == "text/calendar", answer.mimetype
    assert "BEGIN:VCALENDAR" in answer.get_data(as_text=True)
