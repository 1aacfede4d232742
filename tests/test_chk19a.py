"""chk19a: outside check of the REST API's writes (events, venues, organizers, terms,
media, series), through HTTP with Flask's test client.

Almost every write path behaved as SPEC §4/§5/§12/§13 and the reference say (see
/tmp/w/chk19a.md). The defects below are about the cost of writes that name items by
name: the lookups that de-duplicate venues/organizers and terms compare a folded name
computed in Python for every row of the table (``unicode_fold`` registered in SQLite),
so a write costs in proportion to the size of the calendar, and a write naming many new
terms is quadratic while it holds the database's write lock.
"""

import time

from flask.testing import FlaskClient

from store.db import database, write_transaction
from store.models import Node, Term, Venue
from tests.conftest import NS, forget_all

BODY = {"title": "T", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 12:00"}


def _median_ms(samples):
    ordered = sorted(samples)
    return ordered[len(ordered) // 2] * 1000


def _timed(call, times=15):
    samples = []
    for i in range(times):
        started = time.perf_counter()
        answer = call(i)
        samples.append(time.perf_counter() - started)
        assert answer.status_code == 201, answer.get_json()
    return _median_ms(samples)


def _bulk_venues(count: int) -> None:
    """``count`` published venues written straight into the store (as a seeded or imported
    calendar holds them), with distinct names."""
    stamp = "2026-01-01 00:00:00"
    with database.connection_context(), write_transaction():
        rows = []
        for i in range(count):
            node = Node.create(kind="venue")
            rows.append(
                {
                    "id": node.id,
                    "author": 1,
                    "title": f"Seeded Venue {i}",
                    "slug": f"seeded-venue-{i}",
                    "date": stamp,
                    "date_utc": stamp,
                    "modified": stamp,
                    "modified_utc": stamp,
                }
            )
        for start in range(0, count, 500):
            Venue.insert_many(rows[start : start + 500]).execute()


def test_creating_a_venue_does_not_cost_a_scan_of_every_venue(app, client, admin):
    """POST /venues de-duplicates by name (reference §8.3); the lookup applies a Python
    fold to the name of every venue of the table (store/linked.py ``find_duplicate``), so
    one creation took 6 ms on an empty calendar, 24 ms with 20,000 venues and 89 ms with
    100,000 (inline venues in event writes, and organizers, alike). A lookup by name should
    use an index (a folded-name column), as the listing's growth bounds (§9) ask of reads."""
    empty = _timed(
        lambda i: client.post(f"{NS}/venues", json={"venue": f"Before {i}"}, headers=admin)
    )
    _bulk_venues(30_000)
    forget_all(app)
    full = _timed(
        lambda i: client.post(f"{NS}/venues", json={"venue": f"After {i}"}, headers=admin)
    )
    assert full < 3 * empty + 5, (
        f"POST /venues: {empty:.1f} ms with no venue, {full:.1f} ms with 30,000 venues"
    )


def _bulk_tags(count: int) -> None:
    """``count`` tags written straight into the store, with distinct names and slugs."""
    rows = [
        {"taxonomy": "tag", "name": f"Seeded Tag {i}", "slug": f"seeded-tag-{i}", "parent": 0}
        for i in range(count)
    ]
    with database.connection_context(), write_transaction():
        for start in range(0, count, 500):
            Term.insert_many(rows[start : start + 500]).execute()


def _new_tags_seconds(client, headers, label: str, count: int) -> float:
    started = time.perf_counter()
    answer = client.post(
        f"{NS}/events",
        json={**BODY, "tags": [f"{label} {i}" for i in range(count)]},
        headers=headers,
    )
    seconds = time.perf_counter() - started
    assert answer.status_code == 201, answer.get_json()
    assert len(answer.get_json()["tags"]) == count
    return seconds


def test_naming_new_tags_in_an_event_write_does_not_scan_every_tag(app, admin):
    """``tags``/``categories`` names unknown to the calendar create terms (SPEC §4). Each
    one is first looked up by name with a Python fold applied to the name of every term of
    the taxonomy (store/terms.py ``find_term``/``name_taken``), including the terms the same
    request has just made. So the cost of a new name grows with the number of terms, and a
    write naming many new names is quadratic while it holds the write lock: 500 new names
    took 0.3 s, 3,000 took 7 s and 8,000 took 28 s on a fresh calendar, and in the meantime
    a 3-field POST /events in the other gunicorn worker waited 27 s. A contributor may send
    such a request. Here: 300 new tags in one event write cost 0.45 s on an empty calendar
    and several times that once 6,000 tags exist. (A plain test client: the suite's check
    of each answer against /doc would blur the timing.)"""
    client = FlaskClient(app, app.response_class)
    empty = _new_tags_seconds(client, admin, "first", 300)
    _bulk_tags(6_000)
    forget_all(app)
    full = _new_tags_seconds(client, admin, "second", 300)
    assert full < 2.5 * empty + 0.3, (
        f"300 new tags: {empty:.2f} s with no tag, {full:.2f} s with 6,000 tags"
    )


LONG_TITLE = " ".join(["word"] * 51)  # 254 characters: its slug is cut at 200, after a dash


def test_an_event_with_a_long_title_is_found_by_its_slug_and_url(client, admin):
    """SPEC §4: slugs are generated from the title; §2/§15: ``url`` is the item's public
    page. A title whose slug is cut at 200 characters right after a word got a slug ending
    in "-" (store/posts.py ``slugify``: ``.strip("-")[:SLUG_MAX]``, the cut after the
    strip; WordPress's ``_truncate_post_slug`` trims the dash after cutting). The
    addresses then ask for the slug without its dash (``slug_asked``): GET
    /events/by-slug/{slug} answered 400 "No event has the slug …" and the event's own
    ``url`` 404, so its page, the sitemap's link and the by-slug writes were lost."""
    created = client.post(
        f"{NS}/events",
        json={"title": LONG_TITLE, "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"},
        headers=admin,
    )
    assert created.status_code == 201, created.get_json()
    event = created.get_json()
    slug = event["slug"]
    assert client.get(f"{NS}/events/by-slug/{slug}").status_code == 200
    page = client.get(event["url"].replace("http://localhost", ""))
    assert page.status_code == 200
    renamed = client.post(f"{NS}/events/by-slug/{slug}", json={"excerpt": "x"}, headers=admin)
    assert renamed.status_code == 200, renamed.get_json()


def test_a_venue_with_a_long_name_is_found_by_its_slug_and_url(client, admin):
    """The same slug rule for venues (and organizers): a 224-character name made the slug
    "hall-hall-…-hall-" (200 characters), and /venues/by-slug/{slug} answered 400 and the
    venue's ``url`` 404."""
    created = client.post(f"{NS}/venues", json={"venue": " ".join(["Hall"] * 45)}, headers=admin)
    assert created.status_code == 201, created.get_json()
    venue = created.get_json()
    assert client.get(f"{NS}/venues/by-slug/{venue['slug']}").status_code == 200
    assert client.get(venue["url"].replace("http://localhost", "")).status_code == 200


def test_a_category_whose_transliterated_slug_is_cut_is_found_by_its_slug(client, admin):
    """The same for terms, whose names are at most 200 characters but whose slug grows
    when transliterated ("Æ" is "ae"): the name "Æb Æb … Æb" (197 characters) made the
    slug "aeb-aeb-…-aeb-"; its page /events/category/{slug}/ answered 404, GET
    /events?categories={slug} 400 and GET /categories?slug={slug} nothing."""
    made = client.post(f"{NS}/categories", json={"name": ("Æb " * 66).strip()}, headers=admin)
    assert made.status_code == 201, made.get_json()
    term = made.get_json()
    event = client.post(
        f"{NS}/events",
        json={**BODY, "categories": [term["id"]]},
        headers=admin,
    )
    assert event.status_code == 201, event.get_json()
    found = client.get(f"{NS}/events?categories={term['slug']}&start_date=2029-01-01")
    assert found.status_code == 200, found.get_json()
    assert client.get(f"{NS}/categories?slug={term['slug']}").get_json()["total"] == 1
    assert client.get(term["url"].replace("http://localhost", "")).status_code == 200


_TWO_SERIES = r"""
import base64, sys
sys.path.insert(0, sys.argv[2])
from app import create_app
from store.db import database
from store.users import create_user
app = create_app({"CALENDAR_DATABASE": sys.argv[1], "UPLOAD_FOLDER": sys.argv[1] + "-up"})
with database.connection_context():
    _user, password = create_user("admin", "administrator")
auth = {"Authorization": "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()}
client = app.test_client()
for title in (" ".join(["word"] * 40), " ".join(["word"] * 39) + " wor"):
    answer = client.post(
        "/wp-json/calendar/events/v1/events",
        json={"title": title, "start_date": "2027-05-20 19:00", "end_date": "2027-05-20 21:00",
              "recurrence": ["RRULE:FREQ=DAILY;COUNT=4"]},
        headers=auth,
    )
    print(answer.status_code, flush=True)
"""


def test_a_second_long_titled_series_is_created_rather_than_hanging(tmp_path):
    """SPEC §12: a series' occurrences get slugs ``{slug}-{date}`` made unique with ``-2``
    suffixes. Two series whose titles make slugs of 190+ characters with the same first
    189 (here "word word … word" ×40, then ×39 + "wor"), on the same dates: the second
    POST /events never answers. store/recurrence.py ``_occurrence_slugs``: the occurrences'
    slugs, taken by the first series, are made unique by ``unique_slug``, whose ``-2`` cut at
    200 characters gives all of them the same slug; ``while slug in seen: slug =
    unique_slug(Event, f"{slug}-2", …)`` then cuts ``-2`` off again and loops for ever,
    inside the write transaction: on a live server (gunicorn, 2 workers) every later write
    of any client timed out too (reads still answered) until the server was restarted.
    Run in a child process, so that the loop can be stopped."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _TWO_SERIES, str(tmp_path / "series.db"), root],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=root,
        )
    except subprocess.TimeoutExpired as stopped:
        raise AssertionError(
            f"the second series' POST did not answer within 60 s: {stopped.stdout!r}"
        ) from None
    assert done.stdout.split() == ["201", "201"], (done.stdout, done.stderr[-2000:])
