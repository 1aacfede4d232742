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


# The import itself, against a fake site of the plugin (tests/chk18b_fake.py) -------------
import os  # noqa: E402
import subprocess  # noqa: E402

from tests.chk18b_fake import FakeTEC  # noqa: E402
from tests.helpers import BIN, ROOT  # noqa: E402


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


def _row(stdout: str, kind: str) -> list[int]:
    line = next(line for line in stdout.splitlines() if line.split()[:1] == [kind])
    return [int(n) for n in line.split()[1:]]


# D4 ---------------------------------------------------------------------------------
def test_images_on_the_sites_own_address_are_downloaded(fake_tec, fresh_db):
    """SITE_URL `http://localhost:PORT`; the plugin gives image URLs on `127.0.0.1:PORT`,
    the very address (same IP, same port) the import reads the site at. SPEC §17: "Images
    are downloaded (http(s) only, the upload limits and decoding of §13) and become our own
    media." They are refused as "on an internal address" instead."""
    site = f"http://localhost:{fake_tec.port}"
    run = import_tec(fresh_db, site)
    assert "internal address" not in run.stdout, run.stdout
    assert _row(run.stdout, "images") == [2, 0, 0, 0], run.stdout
    assert run.returncode == 0, run.stdout + run.stderr


def _only(site, allowed):
    """The fake site answering only the addresses under ``allowed`` (others: 404)."""
    served = site.answer

    def answer(path, headers):
        if any(path.startswith(prefix) for prefix in allowed):
            return served(path, headers)
        return 404, {"Content-Type": "text/html"}, b"<h1>Not Found</h1>"

    site.answer = answer


# D5 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", ["", "/wp-json/tribe/events/v1"])
def test_a_site_whose_rest_index_is_hidden_is_still_imported(fake_tec, fresh_db, suffix):
    """SPEC §17: import-tec "reads a live site through its REST API
    (`{SITE_URL}/wp-json/tribe/events/v1`: categories ..., tags, venues, organizers, then
    events ...)". A site that serves the plugin's routes (and its namespace index) but not
    WordPress's root index `/wp-json/` (a security plugin's setting, or a test double that
    serves what the SPEC names) is refused: "is not a WordPress site (no REST API at
    /wp-json/)"."""
    _only(fake_tec, ["/wp-json/tribe/events/v1", "/wp-content/"])
    run = import_tec(fresh_db, fake_tec.base + suffix)
    assert "not a WordPress site" not in run.stdout + run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    assert _row(run.stdout, "events")[0] == 12, run.stdout


# D6 ---------------------------------------------------------------------------------
def test_credentials_are_not_refused_because_users_me_is_missing(fake_tec, fresh_db):
    """With `--user/--password` the plugin's routes accept the application password (they
    answer 401 to a wrong one and show the account's drafts to the right one). A site
    without WordPress's `wp/v2/users/me` route (404 rest_no_route) is stopped with "the site
    refused the user name and application password": a 404 is no refusal, and SPEC §17 asks
    only for "with credentials also what the account may read beyond published items"."""
    from tests.chk18b_fake import APP_PW, USER

    served = fake_tec.answer

    def answer(path, headers):  # the REST index and the plugin are there; wp/v2 is not
        if path.startswith("/wp-json/wp/v2/"):
            return (
                404,
                {},
                {
                    "code": "rest_no_route",
                    "data": {"status": 404},
                    "message": "No route was found matching the URL and request method.",
                },
            )
        return served(path, headers)

    fake_tec.answer = answer
    run = import_tec(fresh_db, fake_tec.base, "--user", USER, "--password", APP_PW)
    assert "refused the user name" not in run.stdout + run.stderr, run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    # the draft and the private event come too
    assert _row(run.stdout, "events")[0] == 14, run.stdout


# D7 ---------------------------------------------------------------------------------
def test_a_rerun_brings_changes_that_did_not_move_modified(fake_tec, fresh_db, tmp_path):
    """SPEC §17: "Running it again updates what changed (matched by source global_id)".
    In WordPress a meta-only change (`wp post meta update 51 _EventCost 15`, a plugin that
    flips `_tribe_featured`) or a deleted category (wp_delete_term unlinks it from every
    event) changes what the plugin answers for an event without moving its `modified_utc`.
    The import compares `modified_utc` only, counts such events "unchanged" and keeps the
    stale values."""
    first = import_tec(fresh_db, fake_tec.base, "--no-images")
    assert first.returncode == 0, first.stdout + first.stderr
    concert = fake_tec.events[0]
    concert["cost"] = "$15"
    concert["cost_details"]["values"] = ["15"]
    concert["featured"] = False
    lecture = fake_tec.events[1]
    assert lecture["slug"] == "old-lecture"
    del fake_tec.cats["talks"]  # the category deleted at the source
    for event in fake_tec.events:
        event["categories"] = [c for c in event["categories"] if c["slug"] != "talks"]
    second = import_tec(fresh_db, fake_tec.base, "--no-images")
    assert second.returncode == 0, second.stdout + second.stderr

    probe = subprocess.run(
        [
            os.path.join(BIN, "python"),
            "-c",
            "import json\nfrom wsgi import app\nc = app.test_client()\n"
            f"a = c.get('{NS}/events/by-slug/spring-concert').get_json()\n"
            f"b = c.get('{NS}/events/by-slug/old-lecture').get_json()\n"
            "print(json.dumps([a['cost'], a['featured'], [x['slug'] for x in b['categories']]]))",
        ],
        cwd=ROOT,
        env=fresh_db,
        capture_output=True,
        text=True,
        timeout=120,
    )
    cost, featured, categories = __import__("json").loads(probe.stdout.strip().splitlines()[-1])
    assert (cost, featured, categories) == ("$15", False, []), second.stdout


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


# D11 --------------------------------------------------------------------------------
def test_a_category_renamed_at_the_source_is_not_duplicated(fake_tec, fresh_db):
    """SPEC §17: "Running it again updates what changed ... and creates what is new;
    nothing is duplicated." A category whose slug (and name) was edited in WordPress
    (`talks` → `lectures`, same term id 14) is matched by slug only, so the rerun creates
    a second category and leaves the first, now empty, beside it: one source term, two
    categories here (and the term's id changes under every client)."""
    first = import_tec(fresh_db, fake_tec.base, "--no-images")
    assert first.returncode == 0, first.stdout + first.stderr
    talks = fake_tec.cats["talks"]
    talks.update(slug="lectures", name="Lectures", url=fake_tec.base + "/events/category/lectures/")
    for event in fake_tec.events:
        for term in event["categories"]:
            if term["id"] == talks["id"]:
                term.update(slug="lectures", name="Lectures")
    second = import_tec(fresh_db, fake_tec.base, "--no-images")
    assert second.returncode == 0, second.stdout + second.stderr
    assert _row(second.stdout, "categories") == [0, 1, 3, 0], second.stdout


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
