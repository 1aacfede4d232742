"""chk16c: consistency across workers and faces (SPEC §9 Reliability, §14 no stale answers,
§15 "ETag/304 and the response cache as for the API"). Each test failed on the code it was
written against, for the reason its docstring gives."""

import re
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests

from rules import clock, dates
from tests.conftest import NS
from tests.helpers import Server, migrated_database, new_admin

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
    """SPEC §15: /events/ lists "upcoming events (not yet ended)", a venue's and an
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


@pytest.fixture
def database(tmp_path):
    yield from migrated_database(tmp_path)


@pytest.fixture
def admin_auth(database):
    return new_admin(database)


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
