"""The total of a plain date window (``start_date`` and ``end_date``, ``strict_dates``)
summed by day (store/events.py::_window_counts over ``event_day``, kept by triggers): exact
for windows that start or end at any minute, within one day or over months, with events
that span days, hidden from listings, not published, moved, trashed or deleted.

The oracle is the listing itself: a page that holds the whole window is counted from its
rows (``list_events`` returns ``len(rows)`` when the first page is short), a page of one
needs the total."""

import itertools

import pytest

from store.db import database
from store.models import EventDay
from tests.conftest import NS

_n = itertools.count(990000)

EVENTS = [  # (title, start, end, extra fields)
    ("same day", "2031-03-10 09:00:00", "2031-03-10 11:00:00", {}),
    ("first minute", "2031-03-10 00:00:00", "2031-03-10 00:30:00", {}),
    ("last minute", "2031-03-11 23:30:00", "2031-03-11 23:59:59", {}),
    ("overnight", "2031-03-10 22:00:00", "2031-03-11 02:00:00", {}),
    ("three days", "2031-03-09 12:00:00", "2031-03-12 12:00:00", {}),
    ("a month", "2031-03-01 10:00:00", "2031-04-01 10:00:00", {}),
    ("next week", "2031-03-17 10:00:00", "2031-03-17 12:00:00", {}),
    ("hidden", "2031-03-10 10:00:00", "2031-03-10 12:00:00", {"hide_from_listings": True}),
    ("draft", "2031-03-10 10:00:00", "2031-03-10 12:00:00", {"status": "draft"}),
    ("private", "2031-03-11 10:00:00", "2031-03-11 12:00:00", {"status": "private"}),
    ("protected", "2031-03-11 13:00:00", "2031-03-11 14:00:00", {"password": "pw"}),
]

WINDOWS = [
    ("2031-03-10 00:00:00", "2031-03-10 23:59:59"),
    ("2031-03-10 09:00:00", "2031-03-10 11:00:00"),
    ("2031-03-10 09:00:01", "2031-03-10 10:59:59"),
    ("2031-03-10 00:00:00", "2031-03-11 02:00:00"),
    ("2031-03-10 00:00:01", "2031-03-11 01:59:59"),
    ("2031-03-09 12:00:00", "2031-03-12 12:00:00"),
    ("2031-03-09 12:00:01", "2031-03-12 12:00:00"),
    ("2031-03-09 00:00:00", "2031-03-12 11:59:59"),
    ("2031-03-01 00:00:00", "2031-03-31 23:59:59"),
    ("2031-03-01 10:00:00", "2031-04-01 10:00:00"),
    ("2031-02-01 00:00:00", "2031-05-01 00:00:00"),
    ("2031-03-11 23:30:00", "2031-03-11 23:59:59"),
    ("2031-03-12 00:00:00", "2031-03-17 23:59:59"),
    ("2031-03-18 00:00:00", "2031-03-20 00:00:00"),
]


def window_query(start: str, end: str) -> str:
    return (
        f"{NS}/events?strict_dates=true&start_date={start.replace(' ', 'T')}"
        f"&end_date={end.replace(' ', 'T')}"
    )


def totals(client, headers=None) -> list[tuple[int, int]]:
    """(total of a page of one, rows of a page of all) for each window."""
    found = []
    for start, end in WINDOWS:
        path = window_query(start, end)
        one = client.get(f"{path}&per_page=1&_={next(_n)}", headers=headers or {})
        every = client.get(f"{path}&per_page=50&_={next(_n)}", headers=headers or {})
        assert one.status_code in (200, 404) and every.status_code in (200, 404)
        rows = len(every.get_json()["events"]) if every.status_code == 200 else 0
        found.append((int(one.headers.get("X-WP-Total", 0)), rows))
    return found


@pytest.fixture
def events(client, admin):
    made = {}
    for title, start, end, extra in EVENTS:
        body = {"title": title, "start_date": start, "end_date": end, "timezone": "UTC", **extra}
        response = client.post(f"{NS}/events", json=body, headers=admin)
        assert response.status_code == 201, response.get_json()
        made[title] = response.get_json()["id"]
    return made


def assert_exact(client, headers=None):
    for (start, end), (total, rows) in zip(WINDOWS, totals(client, headers), strict=True):
        assert total == rows, (start, end, total, rows)


def test_window_totals_are_exact_for_every_kind_of_viewer(client, admin, as_role, events):
    assert_exact(client)
    assert_exact(client, admin)  # drafts, private and hidden-from-listings counted apart
    assert_exact(client, as_role("author"))
    # Not a trivial oracle: the windows hold different numbers of events.
    assert len({rows for _total, rows in totals(client)}) > 3


def test_window_totals_follow_every_write(app, client, admin, events):
    def write(title, **body):
        response = client.post(f"{NS}/events/{events[title]}", json=body, headers=admin)
        assert response.status_code == 200, response.get_json()

    write("same day", start_date="2031-03-17 09:00:00", end_date="2031-03-18 01:00:00")
    write("hidden", hide_from_listings=False)
    write("overnight", hide_from_listings=True)
    write("draft", status="publish")
    assert_exact(client)
    assert client.delete(f"{NS}/events/{events['three days']}", headers=admin).status_code == 200
    assert (
        client.delete(f"{NS}/events/{events['a month']}?force=true", headers=admin).status_code
        == 200
    )
    assert_exact(client)
    assert_exact(client, admin)
    with app.app_context(), database.connection_context():
        kept = {(r.start_day, r.end_day, r.status): r.n for r in EventDay.select() if r.n}
    assert kept[("2031-03-17", "2031-03-18", "publish")] == 1
    assert ("2031-03-01", "2031-04-01", "publish") not in kept


def test_a_window_with_other_filters_or_statuses_is_counted_as_before(
    client, admin, make_event, events
):
    category = client.post(f"{NS}/categories", json={"name": "Talks"}, headers=admin).get_json()
    client.post(
        f"{NS}/events/{events['same day']}", json={"categories": [category["id"]]}, headers=admin
    )
    start, end = WINDOWS[0]
    for extra, headers in (
        (f"&categories={category['id']}", {}),
        ("&status=draft", admin),
        ("&status=publish,draft", admin),
        ("&search=minute", {}),
    ):
        path = window_query(start, end) + extra
        one = client.get(f"{path}&per_page=1&_={next(_n)}", headers=headers)
        every = client.get(f"{path}&per_page=50&_={next(_n)}", headers=headers)
        assert int(one.headers["X-WP-Total"]) == len(every.get_json()["events"]) > 0, extra


def test_totals_count_only_the_statuses_a_viewer_may_be_shown_and_stay_exact(
    app, client, admin, as_role, make_event
):
    """Totals count only ``listed_statuses`` (store/posts.py): a caller who cannot edit is
    shown published events and scheduled ones past their date, nothing else, through any
    listing; the totals of every role stay those of the rows, with or without a date
    window, a category or a status list."""
    from rules.posts import STATUSES
    from store.posts import listed_statuses
    from store.users import ANONYMOUS, CAPABILITIES, Viewer

    category = client.post(f"{NS}/categories", json={"name": "Every"}, headers=admin).get_json()
    contributor = as_role("contributor")
    author = as_role("author")
    day = "2031-06-10"
    for n, (status, extra) in enumerate(
        [
            ("publish", {}),
            ("future", {"date": "2020-01-01 00:00:00"}),  # scheduled, past its date
            ("future", {"date": "2099-01-01 00:00:00"}),  # scheduled, not yet
            ("draft", {}),
            ("pending", {}),
            ("private", {}),
            ("publish", {"hide_from_listings": True}),
        ]
    ):
        for headers in (admin, author, contributor):
            body = {
                "title": f"{status} {n}",
                "status": status,
                "start_date": f"{day} 1{n}:00:00",
                "end_date": f"{day} 1{n}:30:00",
                "categories": [category["id"]],
                **extra,
            }
            make_event(headers=headers, **body)  # a contributor's is pending, as theirs are
    trashed = make_event(title="trashed", start_date=f"{day} 18:00", end_date=f"{day} 19:00")
    assert client.delete(f"{NS}/events/{trashed['id']}", headers=admin).status_code == 200

    assert listed_statuses(ANONYMOUS) == ("publish", "future")
    for role, caps in CAPABILITIES.items():
        viewer = Viewer.__new__(Viewer)
        viewer.id, viewer.role, viewer.caps = 1, role, caps
        expected = STATUSES if "edit_posts" in caps else ("publish", "future")
        assert listed_statuses(viewer) == expected, role

    window = f"start_date={day}T00:00:00&end_date={day}T23:59:59&strict_dates=true"
    wide = f"start_date=2000-01-01&end_date=2100-01-01&categories={category['id']}"
    queries = [window, f"start_date={day}&end_date={day}", f"{window}&categories=Every", wide]
    for headers, may_edit in (
        ({}, False),
        (as_role("subscriber"), False),
        (contributor, True),
        (author, True),
        (as_role("editor"), True),
        (admin, True),
    ):
        for query in queries + ([f"{window}&status=any"] if may_edit else []):
            path = f"{NS}/events?{query}"
            one = client.get(f"{path}&per_page=1&_={next(_n)}", headers=headers)
            every = client.get(f"{path}&per_page=50&_={next(_n)}", headers=headers)
            assert one.status_code == every.status_code == 200, (query, one.get_json())
            rows = every.get_json()["events"]
            assert int(one.headers["X-WP-Total"]) == every.get_json()["total"] == len(rows) > 0
            if not may_edit:  # published, and scheduled past their date, by admin and author
                assert {e["status"] for e in rows} == {"publish"}, query
                assert sorted(e["title"] for e in rows) == ["future 1"] * 2 + ["publish 0"] * 2
