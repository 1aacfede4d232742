"""Cached responses are never stale after a write and never shared across viewers."""

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
import requests

from rules import clock, dates
from tests.conftest import NS
from tests.helpers import Server, event_body


def test_listing_reflects_a_write_at_once(client, make_event):
    assert client.get(f"{NS}/events").get_json()["total"] == 0
    make_event()
    assert client.get(f"{NS}/events").get_json()["total"] == 1


def test_single_read_reflects_update_and_trash(client, admin, make_event):
    event = make_event()
    assert client.get(f"{NS}/events/{event['id']}").get_json()["title"] == "An event"
    client.post(f"{NS}/events/{event['id']}", json={"title": "Changed"}, headers=admin)
    assert client.get(f"{NS}/events/{event['id']}").get_json()["title"] == "Changed"
    client.delete(f"{NS}/events/{event['id']}", headers=admin)
    assert client.get(f"{NS}/events/{event['id']}").status_code == 403


def test_single_reads_keep_the_row_per_data_version_and_follow_writes(
    client, admin, as_role, make_event
):
    """A single read takes the event's row as kept for the data version (every query string
    a URL of its own, so the response cache never answers): writes, drafts, passwords, the
    trash and deletion show at once, for each viewer."""
    event = make_event(title="Kept row")
    url = f"{NS}/events/{event['id']}"
    seen = [client.get(f"{url}?_={n}").get_json()["title"] for n in range(3)]
    assert seen == ["Kept row"] * 3
    client.post(url, json={"title": "Written"}, headers=admin)
    assert client.get(f"{url}?_=3").get_json()["title"] == "Written"
    client.post(url, json={"status": "draft"}, headers=admin)
    assert client.get(f"{url}?_=4").status_code == 403
    assert client.get(f"{url}?_=4", headers=as_role("editor")).get_json()["status"] == "draft"
    client.post(url, json={"status": "publish", "password": "pw"}, headers=admin)
    hidden = client.get(f"{url}?_=5")
    assert hidden.status_code == 403 and hidden.get_json()["code"] == "event-password-protected"
    assert client.get(f"{url}?_=6&password=pw").get_json()["title"] == "Written"
    client.delete(url, headers=admin)
    assert client.get(f"{url}?_=7").get_json()["code"] == "event-no-longer-available"
    client.delete(f"{url}?force=true", headers=admin)
    assert client.get(f"{url}?_=8").status_code == 404
    assert client.get(f"{NS}/events/99999999999999999999?_=9").status_code == 404


def test_viewers_do_not_share_cached_responses(client, as_role, make_event):
    make_event(status="draft")
    editor = as_role("editor")
    assert client.get(f"{NS}/events", headers=editor).get_json()["total"] == 1
    assert client.get(f"{NS}/events").get_json()["total"] == 0
    assert client.get(f"{NS}/events", headers=editor).get_json()["total"] == 1


def test_etag_and_not_modified(client, make_event):
    make_event()
    first = client.get(f"{NS}/events")
    etag = first.headers["ETag"]
    again = client.get(f"{NS}/events", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["ETag"] == etag
    make_event(title="Another")
    changed = client.get(f"{NS}/events", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_other_languages_are_cached_apart(client):
    assert (
        client.get(f"/fr{NS}/events").get_json()["rest_url"].startswith(f"http://localhost/fr{NS}")
    )
    assert client.get(f"{NS}/events").get_json()["rest_url"].startswith(f"http://localhost{NS}")


def test_term_counts_follow_event_writes(client, admin, make_event):
    event = make_event(categories="Music")
    term = event["categories"][0]
    assert client.get(f"{NS}/categories/{term['id']}").get_json()["count"] == 1
    client.delete(f"{NS}/events/{event['id']}", headers=admin)
    assert client.get(f"{NS}/categories/{term['id']}").get_json()["count"] == 0
    assert client.get(f"{NS}/categories").get_json()["total"] == 0


def test_scheduled_event_goes_live_without_a_write(client, make_event, app):
    from datetime import timedelta

    from rules import clock, dates

    soon = clock.utcnow().replace(tzinfo=None) + timedelta(seconds=2)
    make_event(title="Soon", status="future", date_utc=dates.fmt(soon))
    assert client.get(f"{NS}/events").get_json()["total"] == 0
    try:
        clock.advance(3)  # the cached listing must not outlive the publication
        assert client.get(f"{NS}/events").get_json()["total"] == 1
    finally:
        clock.reset()


def test_the_cache_cap_counts_what_entries_take_not_only_bodies():
    from app.cache import ResponseCache

    cache = ResponseCache(max_bytes=10_000)
    headers = [("X-TEC-Total", "1"), ("Link", "<https://example.org/next>; rel=next" * 4)]
    for n in range(200):
        cache.put(("", "host", f"/events?page={n}", "public"), 1, 200, headers, b"{}", '"e"')
    assert 0 < len(cache.entries) < 20  # empty bodies still cost their keys and headers
    assert cache.entries.currsize <= 10_000


def test_views_declare_that_they_are_cached(app):
    declared = {
        endpoint
        for endpoint, view in app.view_functions.items()
        if getattr(getattr(view, "view_class", None), "cached", False)
    }
    assert {"events.Events", "events.EventById", "venues.Venues", "tags.TagList"} <= declared
    assert "openapi_document" not in declared


def test_paged_totals_follow_writes_and_publications(client, make_event, admin):
    from datetime import timedelta

    from rules import clock, dates

    for n in range(3):
        make_event(title=f"Event {n}")
    soon = clock.utcnow().replace(tzinfo=None) + timedelta(seconds=2)
    make_event(title="Soon", status="future", date_utc=dates.fmt(soon))

    def total(page):  # a new URL each time: no cached response, only the cached total
        total.serial += 1
        body = client.get(f"{NS}/events?per_page=1&page={page}&_={total.serial}").get_json()
        return body["total"]

    total.serial = 0
    assert total(1) == total(2) == 3
    make_event(title="Event 3")
    assert total(2) == 4
    try:
        clock.advance(3)
        assert total(3) == 5
    finally:
        clock.reset()


def test_one_shape_many_values(client, make_event):
    """Listings of one shape share a compiled statement (store/sql.py ``Shaped``): each
    request's own values reach it, none is kept from the one that compiled it."""
    for day, title in ((3, "March"), (4, "April"), (5, "May")):
        make_event(
            title=title, start_date=f"2031-0{day}-10 10:00:00", end_date=f"2031-0{day}-10 12:00:00"
        )

    def titles(month, serial):
        start, end = f"2031-0{month}-01", f"2031-0{month}-28"
        url = f"{NS}/events?start_date={start}&end_date={end}&per_page=1&_={serial}"
        body = client.get(url).get_json()
        return [e["title"] for e in body["events"]], body["total"]

    assert titles(3, 1) == (["March"], 1)
    assert titles(4, 2) == (["April"], 1)
    assert titles(5, 3) == (["May"], 1)
    assert titles(6, 4) == ([], 0)


def test_a_value_that_escapes_the_shape_is_caught(app):
    """The tests run every shaped statement twice (compiled, and built from its values): a
    literal that varies within a shape would be served to the next request of that shape."""

    from store.db import database
    from store.models import Event
    from store.sql import Shaped

    shaped = Shaped()
    with database.connection_context():

        def build(title):
            return lambda ref: Event.select(Event.id).where(Event.title == title)

        shaped.execute(("by title",), build("A"), {})
        with pytest.raises(AssertionError):
            shaped.execute(("by title",), build("B"), {})


def test_embedded_venues_follow_writes_and_viewers(client, as_role, admin, make_event):
    """Venues and organizers are rendered once per data version and way of seeing them
    (app/render.py ``RenderMemo``): a write shows at once, and a viewer who may not read a
    protected venue never gets the rendering made for one who may."""
    event = make_event(venue={"venue": "Hall", "address": "1 Main St", "password": "pw"})
    venue_id = event["venue"]["id"]
    editor = as_role("editor")

    def venue(serial, headers=None):
        url = f"{NS}/events?_={serial}"
        return client.get(url, headers=headers or {}).get_json()["events"][0]["venue"]

    assert venue(1, editor)["address"] == "1 Main St"
    assert venue(2)["address"] == ""  # masked for the public
    assert venue(3, editor)["address"] == "1 Main St"
    response = client.post(f"{NS}/venues/{venue_id}", json={"venue": "Big Hall"}, headers=admin)
    assert response.status_code == 200
    assert venue(4)["venue"] == "Big Hall" and venue(4)["address"] == ""
    assert venue(5, editor)["venue"] == "Big Hall"


def test_embedded_term_counts_follow_a_publication_without_a_write(client, make_event):
    """Stored term counts and the earliest scheduled date are made once per data version:
    a scheduled event whose date passes must still count, with no write in between."""
    from datetime import timedelta

    from rules import clock, dates

    shown = make_event(title="Shown", categories="Music")
    term_id = shown["categories"][0]["id"]
    soon = clock.utcnow().replace(tzinfo=None) + timedelta(seconds=2)
    make_event(title="Soon", status="future", date_utc=dates.fmt(soon), categories=[term_id])

    def embedded_count(serial):  # a new URL each time: no cached response
        body = client.get(f"{NS}/events/{shown['id']}?_={serial}").get_json()
        return body["categories"][0]["count"]

    assert embedded_count(1) == embedded_count(2) == 1
    assert client.get(f"{NS}/categories/{term_id}?_=1").get_json()["count"] == 1
    try:
        clock.advance(3)
        assert embedded_count(3) == 2
        assert client.get(f"{NS}/categories/{term_id}?_=2").get_json()["count"] == 2
        listed = client.get(f"{NS}/events?_=1").get_json()
        assert listed["total"] == 2
        assert {e["categories"][0]["count"] for e in listed["events"]} == {2}
    finally:
        clock.reset()


def test_a_request_that_writes_reads_the_new_data_version(app):
    """One data-version read per request, and a fresh one after the request's own write
    (what it renders or caches after the write is keyed by the new version)."""
    from store.db import data_version, pin_data_version, unpin_data_version, write_transaction

    with app.app_context(), app.extensions["calendar.db"].connection_context():
        pin = pin_data_version()
        try:
            before = data_version()
            with write_transaction():
                pass
            assert data_version() == before + 1
        finally:
            unpin_data_version(pin)


def test_linked_rows_follow_writes(client, admin, make_event):
    """The venues, organizers and terms of a page are read once per data version
    (store/events.py ``load_relations``): a rename, a new order or a trashed item shows
    at once, on the single event and in listings."""
    event = make_event(
        categories="Music",
        tags="loud",
        venue={"venue": "Hall"},
        organizer=[{"organizer": "Ann"}, {"organizer": "Bob"}],
    )
    ann, bob = (o["id"] for o in event["organizer"])
    venue_id, term_id = event["venue"]["id"], event["categories"][0]["id"]

    def shown(serial):
        single = client.get(f"{NS}/events/{event['id']}?_={serial}").get_json()
        listed = client.get(f"{NS}/events?_={serial}").get_json()["events"][0]
        for key, name in (("venue", "venue"), ("organizer", "organizer")):
            items = [single[key]] if isinstance(single[key], dict) else single[key]
            also = [listed[key]] if isinstance(listed[key], dict) else listed[key]
            assert [(i["id"], i[name]) for i in items] == [(i["id"], i[name]) for i in also]
        for key in ("categories", "tags"):
            assert single[key] == listed[key]
        return single

    first = shown(1)
    assert [o["organizer"] for o in first["organizer"]] == ["Ann", "Bob"]
    assert [t["name"] for t in first["tags"]] == ["loud"]
    client.post(f"{NS}/categories/{term_id}", json={"name": "Jazz"}, headers=admin)
    assert shown(2)["categories"][0]["name"] == "Jazz"
    client.post(f"{NS}/events/{event['id']}", json={"organizer": [bob, ann]}, headers=admin)
    assert [o["organizer"] for o in shown(3)["organizer"]] == ["Bob", "Ann"]
    assert client.delete(f"{NS}/venues/{venue_id}", headers=admin).status_code == 200
    assert client.delete(f"{NS}/organizers/{bob}", headers=admin).status_code == 200
    last = shown(4)
    assert not last["venue"] and [o["organizer"] for o in last["organizer"]] == ["Ann"]


def test_answers_over_http_and_https_keep_their_own_links(client, make_event):
    """The response cache's key holds the scheme: links are absolute, so the answer made
    for a plain-HTTP request is not the one for HTTPS on the same host."""
    event = make_event()
    for scheme in ("http", "https", "http", "https"):
        single = client.get(f"{NS}/events/{event['id']}", base_url=f"{scheme}://cal.example")
        listing = client.get(f"{NS}/events", base_url=f"{scheme}://cal.example")
        assert single.get_json()["rest_url"].startswith(f"{scheme}://cal.example/")
        assert listing.get_json()["rest_url"].startswith(f"{scheme}://cal.example/")
        assert listing.get_json()["events"][0]["url"].startswith(f"{scheme}://cal.example/")


def test_a_json_answer_is_kept_from_its_second_ask_a_feed_from_its_first(app, client, make_event):
    """URLs asked once (cold traffic: a month at a random minute) do not fill the worker's
    cache; a URL asked again is kept and then answered from it."""
    make_event()
    cache = app.extensions["calendar.cache"]
    cache.clear()
    url = f"{NS}/events?per_page=5"
    first = client.get(url)
    assert first.status_code == 200 and not cache.entries
    second = client.get(url)
    assert second.data == first.data and second.headers["ETag"] == first.headers["ETag"]
    assert len(cache.entries) == 1
    for n in range(3):  # asked once each: noted, not kept
        assert client.get(f"{url}&_={n}").status_code == 200
    assert len(cache.entries) == 1
    assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    feed = client.get(f"{NS}/events?ical=1")
    assert feed.mimetype == "text/calendar" and len(cache.entries) == 2


def test_urls_asked_once_are_remembered_between_half_and_all_of_the_notes_kept():
    """The notes of URLs asked once (``AskedOnce``): a URL asked again within the last
    half of the notes is admitted, once; older notes are let go, a bounded memory."""
    from app.cache import AskedOnce

    notes = AskedOnce(8)
    assert [notes.again(mark) for mark in range(4)] == [False] * 4
    assert notes.again(0) and not notes.again(0)  # a note is used up when it admits
    assert [notes.again(mark) for mark in range(10, 20)] == [False] * 10
    assert len(notes) <= 8
    assert not notes.again(1)  # noted 12 notes ago: let go, noted again
    assert notes.again(19) and notes.again(17)  # among the last four: remembered


def test_a_write_is_acknowledged_once_the_version_lease_ran_out_with_the_answer_made_meanwhile(
    app, client, admin, monkeypatch
):
    """On PostgreSQL a worker serves a data version read up to ``VERSION_LEASE`` ago, so
    a write is acknowledged no sooner than that after its commit (SPEC §14: no request
    after the acknowledgement, on any host, is answered from older data). The wait is
    paid at the request's end, not inside the write, so the answer's own work after the
    commit runs within it; SQLite, one file read by every worker, waits for nothing."""
    import store.db
    from store.db import is_postgres, pin_data_version, unpin_data_version, write_transaction

    monkeypatch.setattr(store.db, "VERSION_LEASE", 0.4)
    with app.app_context(), app.extensions["calendar.db"].connection_context():
        pin = pin_data_version()
        began = time.monotonic()
        try:
            with write_transaction():
                pass
            after_write = time.monotonic() - began
        finally:
            unpin_data_version(pin)
        scope = time.monotonic() - began
        postgres = is_postgres()
    assert after_write < 0.4
    assert (scope >= 0.4) == postgres
    began = time.monotonic()
    response = client.post(f"{NS}/events", json=event_body(1), headers=admin)
    assert response.status_code == 201
    assert time.monotonic() - began >= (0.4 if postgres else 0)


def test_the_threads_of_a_worker_whose_lease_ran_out_share_one_version_read(app, monkeypatch):
    """On PostgreSQL, threads that find the worker's version lease run out at once wait for
    the one read under way instead of each sending their own (it began after they asked,
    so its answer is as fresh as theirs would be); on SQLite each asks its own file."""
    import store.db

    monkeypatch.setattr(store.db, "VERSION_LEASE", 5.0)
    monkeypatch.setattr(store.db, "_lease", (None, None, 0.0))
    reads = []
    execute_prepared = store.db.execute_prepared

    def slow_read(sql, params):
        reads.append(sql)
        time.sleep(0.2)
        return execute_prepared(sql, params)

    monkeypatch.setattr(store.db, "execute_prepared", slow_read)
    db = app.extensions["calendar.db"]
    together = threading.Barrier(4)

    def ask(_n):
        with app.app_context(), db.connection_context():
            together.wait()
            return store.db.data_version(), store.db.is_postgres()

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(ask, range(4)))
    assert len(set(answers)) == 1
    postgres = answers[0][1]
    assert len(reads) == (1 if postgres else 4)


def test_a_head_carries_the_etag_of_its_get_and_may_be_not_modified(client, make_event):
    """A HEAD of the API is its GET without the body: the same ETag, and a 304 when it
    matches (it had none, and answered 200)."""
    event = make_event(title="Head")
    for url in (f"{NS}/events", f"{NS}/events/{event['id']}", f"{NS}/events?ical=1"):
        etag = client.get(url).headers["ETag"]
        head = client.head(url)
        assert head.status_code == 200 and head.headers.get("ETag") == etag, url
        assert client.head(url, headers={"If-None-Match": etag}).status_code == 304, url


TITLE = "Ending Soon Zeta"


def _ending_in(seconds: int) -> dict:
    now = clock.utcnow().replace(tzinfo=None)
    return {
        "title": TITLE,
        "start_date": dates.fmt(now - timedelta(hours=1)),
        "end_date": dates.fmt(now + timedelta(seconds=seconds)),
        "timezone": "UTC",
        "venue": {"venue": "Zeta Room"},
        "organizer": [{"organizer": "Zeta Org"}],
    }


UPCOMING_FACES = [
    "/events/",
    "/events/list/",
    "/events/embed/",
    "/fr/events/",
    "/venue/zeta-room/",
    "/organizer/zeta-org/",
    # the list page's own "subscribe" feed, and the same question asked of the JSON API
    f"{NS}/events?ical=1&ends_after=now&strict_dates=true",
    f"{NS}/events?ends_after=now&strict_dates=true",
]


def test_an_ended_event_leaves_the_upcoming_views_at_once(client, make_event):
    """Found by an outside check. SPEC §15: /events/ lists "upcoming events (not yet ended)", a venue's and an
    organizer's page "its upcoming events". An event that ends while those answers are in
    the response cache stayed listed until the entry expired (up to 30 s: app/cache.py only
    bounds an entry's life by the next scheduled publication and the next midnight)."""
    event = make_event(**_ending_in(5))
    past = "/events/?past=1"
    for _ in range(3):
        assert event["url"].split("//")[1].split("/", 1)[1] not in client.get(past).get_data(
            as_text=True
        )
    for path in UPCOMING_FACES:
        for _ in range(3):  # a JSON/HTML answer is kept from its second ask
            answer = client.get(path)
            assert answer.status_code == 200, path
            assert TITLE in answer.get_data(as_text=True), path
    clock.advance(7)  # the event has ended two seconds ago
    stale = [p for p in UPCOMING_FACES if TITLE in client.get(p).get_data(as_text=True)]
    # and the past list (SPEC §15 "?past=1 lists past events") shows it at once
    link = "/" + event["url"].split("//")[1].split("/", 1)[1]
    in_past = link in client.get(past).get_data(as_text=True)
    assert (stale, in_past) == ([], True), f"still upcoming on {stale}; on ?past=1: {in_past}"


def test_an_ended_occurrence_leaves_the_repeats_list_of_the_event_page_at_once(client, make_event):
    """SPEC §15: an occurrence's page shows "repeats" with the next occurrences. The
    first occurrence, once ended, stayed in that list while the page was cached (the page
    without the response cache leaves it out)."""
    now = clock.utcnow().replace(tzinfo=None)
    series = make_event(
        title="Daily Lambda",
        start_date=dates.fmt(now - timedelta(hours=1)),
        end_date=dates.fmt(now + timedelta(seconds=5)),
        timezone="UTC",
        recurrence=["RRULE:FREQ=DAILY;COUNT=3"],
    )
    second = client.get(f"{NS}/events?post_parent={series['id']}").get_json()["events"][0]
    page = f"/event/{second['slug']}/"
    first_link = f"/event/{series['slug']}/"

    def repeats(html):
        found = re.search(r'id="series-title".*?</ul>', html, re.S)
        assert found, "no Repeats list"
        return found.group(0)

    for _ in range(3):
        assert first_link in repeats(client.get(page).get_data(as_text=True))
    clock.advance(7)  # the first occurrence ended two seconds ago
    assert first_link not in repeats(client.get(page).get_data(as_text=True))


def _fresh(base, path, **headers):
    """A GET on a new connection: either worker may answer it."""
    return requests.get(base + path, headers={"Connection": "close", **headers}, timeout=30)


def test_an_ended_event_leaves_the_upcoming_list_on_a_live_server(database, admin_auth):
    """The same through gunicorn with two workers and the real clock: after the event's end,
    no worker may still list it on /events/ (it did, from its cached answer)."""
    server = Server(database, workers=2)
    try:
        now = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
        end = now + timedelta(seconds=6)
        body = {**_ending_in(6), "start_date": dates.fmt(now - timedelta(hours=1))}
        body["end_date"] = dates.fmt(end)
        status, _event = server.request("POST", f"{NS}/events", body, admin_auth)
        assert status == 201
        for _ in range(8):
            assert TITLE in _fresh(server.base, "/events/").text
            assert TITLE in _fresh(server.base, "/venue/zeta-room/").text
        while datetime.now(UTC).replace(tzinfo=None) < end + timedelta(seconds=1):
            time.sleep(0.2)
        stale = [
            path
            for path in ("/events/", "/venue/zeta-room/")
            for _ in range(6)
            if TITLE in _fresh(server.base, path).text
        ]
        assert stale == [], f"an ended event still listed as upcoming: {stale}"
    finally:
        server.stop()
