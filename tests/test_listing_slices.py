"""A listing asked more than once keeps its first ids (store/events.py::list_events,
``FIRST_IDS``), like its total: its first pages are then slices of them. The slices must
be the pages the query would give, for every viewer, after every write and clock move.

Every request has a URL of its own (``_=N``), so the response cache never answers."""

import itertools

import pytest

from rules import clock
from store.events import FIRST_IDS
from tests.conftest import NS
from tests.helpers import soon

_n = itertools.count(120000)


def page(client, query, headers=None):
    response = client.get(f"{NS}/events?{query}&_={next(_n)}", headers=headers or {})
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response


def titles(client, query, headers=None):
    return [e["title"] for e in page(client, query, headers).get_json()["events"]]


@pytest.fixture(autouse=True)
def _clock_back():
    yield
    clock.reset()


def day(n):
    return f"2031-03-{n:02d} 10:00:00"


def test_pages_asked_again_are_the_query_s_pages(client, admin, make_event):
    for n in range(1, 8):
        make_event(title=f"E{n}", start_date=day(n), end_date=day(n))
    window = "start_date=2031-03-01&end_date=2031-03-31"
    expected = [f"E{n}" for n in range(1, 8)]
    for _ in range(3):  # asked once, then sliced from the kept ids
        assert titles(client, f"{window}&per_page=3&page=1") == expected[0:3]
        assert titles(client, f"{window}&per_page=3&page=2") == expected[3:6]
        assert titles(client, f"{window}&per_page=3&page=3") == expected[6:7]
        assert titles(client, f"{window}&per_page=5&page=2") == expected[5:7]
        response = page(client, f"{window}&per_page=3&page=2")
        assert response.get_json()["total"] == 7 and response.headers["X-WP-Total"] == "7"
        assert response.get_json()["total_pages"] == 3
    response = client.get(f"{NS}/events?{window}&per_page=3&page=4&_={next(_n)}")
    assert response.status_code == 404


def test_a_write_reaches_the_kept_pages(client, admin, make_event):
    for n in (1, 3, 5):
        make_event(title=f"E{n}", start_date=day(n), end_date=day(n))
    window = "start_date=2031-03-01&end_date=2031-03-31&per_page=2"
    assert titles(client, f"{window}&page=2") == ["E5"]
    assert titles(client, f"{window}&page=1") == ["E1", "E3"]  # now kept
    made = make_event(title="E2", start_date=day(2), end_date=day(2))
    assert titles(client, f"{window}&page=1") == ["E1", "E2"]
    assert titles(client, f"{window}&page=2") == ["E3", "E5"]
    client.delete(f"{NS}/events/{made['id']}", headers=admin)
    assert titles(client, f"{window}&page=1") == ["E1", "E3"]
    assert page(client, f"{window}&page=1").get_json()["total"] == 3


def test_each_viewer_has_its_own_pages(client, admin, as_role, make_event):
    make_event(title="Open", start_date=day(1), end_date=day(1))
    make_event(title="Draft", status="draft", start_date=day(2), end_date=day(2))
    make_event(title="Later", start_date=day(3), end_date=day(3))
    window = "start_date=2031-03-01&end_date=2031-03-31&per_page=2"
    editor = as_role("editor")
    for _ in range(2):
        assert titles(client, f"{window}&page=1", editor) == ["Open", "Draft"]
        assert titles(client, f"{window}&page=1") == ["Open", "Later"]
        assert titles(client, f"{window}&page=2", editor) == ["Later"]
        assert page(client, f"{window}&page=1").get_json()["total"] == 2


def test_a_scheduled_event_joins_the_kept_pages_at_its_date(client, make_event):
    make_event(title="Now", start_date=day(1), end_date=day(1))
    make_event(title="Soon", status="future", date_utc=soon(2), start_date=day(2), end_date=day(2))
    make_event(title="Then", start_date=day(3), end_date=day(3))
    window = "start_date=2031-03-01&end_date=2031-03-31&per_page=2"
    assert titles(client, f"{window}&page=1") == ["Now", "Then"]
    assert titles(client, f"{window}&page=1") == ["Now", "Then"]  # kept
    clock.advance(3)
    assert titles(client, f"{window}&page=1") == ["Now", "Soon"]
    assert page(client, f"{window}&page=2").get_json()["total"] == 3


def test_past_the_kept_ids_pages_come_from_the_query(client, admin):
    count = FIRST_IDS + 5
    rows = [
        {
            "title": f"N{n:03d}",
            "start_date": "2031-05-01 10:00:00",
            "end_date": "2031-05-01 11:00:00",
        }
        for n in range(count)
    ]
    for row in rows:
        assert client.post(f"{NS}/events", json=row, headers=admin).status_code == 201
    # The last page lies past the kept ids, the others within them.
    size = 50  # the most a page of events holds
    pages = -(-count // size)
    assert (pages - 1) * size <= FIRST_IDS < pages * size
    window = f"start_date=2031-05-01&end_date=2031-05-02&per_page={size}"
    seen = []
    for _round in range(2):
        seen = []
        for number in range(1, pages + 1):
            body = page(client, f"{window}&page={number}").get_json()
            assert body["total"] == count and body["total_pages"] == pages
            seen += [e["title"] for e in body["events"]]
        assert seen == [f"N{n:03d}" for n in range(count)]  # same start: by id


def test_a_last_page_short_of_its_size_gives_the_total_without_a_count(
    app, make_event, monkeypatch
):
    """A listing read once (no first ids kept) whose page is its last, short of its size,
    takes its total from the page (store/sql.py::last_page_total): the count is asked only
    for a full page or one past the end, and the totals are the same."""
    from app.pages.reading import events_of
    from store import events
    from store.db import database

    for n in range(1, 6):
        make_event(title=f"E{n}", start_date=day(n), end_date=day(n).replace("10:", "11:"))
    counted, count = [], events._count
    monkeypatch.setattr(events, "_count", lambda *a: counted.append(1) or count(*a))
    window = {"start_date": "2031-03-01", "end_date": "2031-04-01"}
    for offset, limit, asks, names in (
        (4, 2, False, ["E5"]),
        (0, 10, False, ["E1", "E2", "E3", "E4", "E5"]),
        (2, 2, True, ["E3", "E4"]),
        (6, 2, True, []),
    ):
        counted.clear()
        events._totals.entries.clear()
        events._first_ids.entries.clear()
        with app.test_request_context(), database.connection_context():
            shown, total = events_of(window, offset, limit)  # as the pages read it
        assert ([e["title"] for e in shown], total, bool(counted)) == (names, 5, asks), offset


def test_what_has_not_ended_is_one_listing_from_one_event_end_to_the_next(
    client, make_event, monkeypatch
):
    """The upcoming list (``ends_after`` now) keeps its first ids and total from one second
    to the next while no event ends (store/posts.py::last_end_by); an event's end, a write
    or a draft's end moves it on."""
    from store import events

    clock.freeze()
    make_event(title="Ending", start_date=soon(-60), end_date=soon(30))
    make_event(title="Later", start_date=soon(3600), end_date=soon(7200))
    draft = make_event(title="Draft", status="draft", start_date=soon(-60), end_date=soon(10))
    asked = "ends_after=now&strict_dates=true&per_page=1"
    read, ordered = [], events._ordered
    monkeypatch.setattr(events, "_ordered", lambda *a, **k: read.append(1) or ordered(*a, **k))
    for _ in range(2):  # asked twice: its first ids are kept
        assert titles(client, f"{asked}&page=1") == ["Ending"]
    read.clear()
    for seconds in (1, 8):  # no event ends before these seconds
        clock.advance(seconds)
        assert titles(client, f"{asked}&page=1") == ["Ending"]
        assert titles(client, f"{asked}&page=2") == ["Later"]
        assert page(client, f"{asked}&page=2").get_json()["total"] == 2
    assert read == []  # the same listing, from its kept ids and total
    clock.advance(1)  # the draft has ended: a new span of the clock, a listing read again
    assert titles(client, f"{asked}&page=1") == ["Ending"]
    assert read
    clock.advance(20)  # "Ending" has ended
    assert titles(client, f"{asked}&page=1") == ["Later"]
    assert page(client, f"{asked}&page=1").get_json()["total"] == 1
    make_event(title="Next", start_date=soon(600), end_date=soon(900))  # a write
    assert titles(client, f"{asked}&page=1") == ["Next"]
    assert draft["status"] == "draft"
