"""Outside checker chk17s: black-box findings against SPEC §1-§10 (each test fails on the
code it was written against, for the defect it names)."""

import calendar
from datetime import UTC, datetime

import pytest

from tests.conftest import NS


def _last_day_of_next_month(now: datetime) -> tuple:
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return calendar.monthrange(year, month)[1], year, month


def test_last_day_of_next_month_is_php_meaning_or_refused(client, admin):
    """SPEC §4: forms PHP's strtotime reads may be accepted, text that is not a date is a
    400. 'last day of next month' must not be accepted as some other date (it was read as
    'next month' minus one day)."""
    now = datetime.now(UTC)
    answer = client.post(
        f"{NS}/events",
        json={"title": "D", "start_date": "last day of next month", "end_date": "2045-01-01"},
        headers=admin,
    )
    if answer.status_code == 400:
        return
    assert answer.status_code == 201
    day, year, month = _last_day_of_next_month(now)
    assert answer.get_json()["start_date"][:10] == f"{year:04d}-{month:02d}-{day:02d}"


_BASE = {"title": "x", "start_date": "2041-01-01 10:00", "end_date": "2041-01-01 11:00"}


@pytest.mark.parametrize(
    "extra",
    [
        {"timezone": "Mars/Phobos", "website": "foo"},
        {"venue": 999999, "organizer": [999999]},
        {"categories": [999999], "tags": [999999]},
        {"author": 99999, "website": "foo"},
    ],
)
def test_every_bad_body_parameter_is_named_at_once(client, admin, extra):
    """SPEC §6: rest_invalid_param's data.params maps each bad parameter to a message
    (the reference validates every argument before answering: `Invalid parameter(s): a, b`).
    The product answered only the first stage's failures (one of the two here)."""
    answer = client.post(f"{NS}/events", json={**_BASE, **extra}, headers=admin)
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["code"] == "rest_invalid_param"
    assert set(body["data"]["params"]) == set(extra), body


@pytest.mark.parametrize(
    "query, bad",
    [
        ("venue=999999&organizer=999999", {"venue", "organizer"}),
        ("categories=nope&tags=nope", {"categories", "tags"}),
        ("venue=999999&per_page=0", {"venue", "per_page"}),
    ],
)
def test_every_bad_listing_parameter_is_named_at_once(client, query, bad):
    answer = client.get(f"{NS}/events?{query}")
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["code"] == "rest_invalid_param"
    assert set(body["data"]["params"]) == bad, body


def test_anonymous_update_is_no_oracle_for_a_drafts_dates(client, as_role):
    """SPEC §9 Security: no draft content reaches a caller who may not see it, by any
    route; §10: unreadable items leak nothing. An anonymous PATCH of a draft answered 400
    ('end date must not be before the start date', checked against the stored start)
    or 401 depending on the draft's stored start_date: bisecting end_date reads the
    draft's start to the second (and start_date its end)."""
    editor = as_role("editor")
    made = client.post(
        f"{NS}/events",
        json={
            "title": "Secret draft",
            "start_date": "2043-07-15 18:30:00",
            "end_date": "2043-07-15 20:00:00",
            "status": "draft",
        },
        headers=editor,
    ).get_json()
    assert client.get(f"{NS}/events/{made['id']}").status_code == 403
    before = client.patch(f"{NS}/events/{made['id']}", json={"end_date": "2043-07-15 18:29:59"})
    after = client.patch(f"{NS}/events/{made['id']}", json={"end_date": "2043-07-15 18:30:00"})
    assert before.status_code == after.status_code, (before.get_json(), after.get_json())
    subscriber = as_role("subscriber")
    early = client.patch(
        f"{NS}/events/{made['id']}", json={"start_date": "2043-07-15 19:59:59"}, headers=subscriber
    )
    late = client.patch(
        f"{NS}/events/{made['id']}", json={"start_date": "2043-07-15 20:00:01"}, headers=subscriber
    )
    assert early.status_code == late.status_code, (early.get_json(), late.get_json())


def test_anonymous_update_is_no_oracle_for_a_draft_venues_coordinates(client, as_role):
    """The same for a draft venue: `geo_lat` alone answered 400 (given together) when the
    draft venue has no stored coordinates and 401 when it has some."""
    editor = as_role("editor")
    with_geo = client.post(
        f"{NS}/venues",
        json={"venue": "Draft with geo", "status": "draft", "geo_lat": 1, "geo_lng": 2},
        headers=editor,
    ).get_json()
    without = client.post(
        f"{NS}/venues", json={"venue": "Draft without geo", "status": "draft"}, headers=editor
    ).get_json()
    a = client.patch(f"{NS}/venues/{with_geo['id']}", json={"geo_lat": 5})
    b = client.patch(f"{NS}/venues/{without['id']}", json={"geo_lat": 5})
    assert a.status_code == b.status_code, (a.get_json(), b.get_json())


def test_four_connections_stalled_mid_headers_do_not_stop_a_worker(tmp_path):
    """SPEC §10 'Slow clients' (with the `make run` defaults: 2 workers). Two stalled
    clients are fine, but four connections stalled mid-headers (one browser's worth)
    held every thread of a worker: the requests that worker accepted waited for the read
    timeout (about 10 s) instead of being answered."""
    import socket
    import time

    from tests.databases import drop_database, fresh_database
    from tests.helpers import Server, flask_cli

    database = fresh_database(tmp_path)
    flask_cli(database, "migrate")
    server = Server(database, workers=2)
    stalled = []
    try:
        for _ in range(4):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(b"GET /wp-json/ HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            stalled.append(sock)
        time.sleep(0.3)
        slowest = 0.0
        for n in range(12):
            started = time.monotonic()
            status, _body = server.request("GET", f"{NS}/events?per_page={n % 5 + 1}")
            slowest = max(slowest, time.monotonic() - started)
            assert status == 200
        assert slowest < 1, slowest
    finally:
        for sock in stalled:
            sock.close()
        server.stop()
        drop_database(database)


def test_anonymous_update_does_not_tell_a_draft_occurrence_from_a_draft(client, as_role):
    """Same root as the dates oracle: an anonymous PATCH with `recurrence` of an
    occurrence of a draft series answered 400 naming the series' id ('change the
    recurrence on event N'), where a plain draft answers 401."""
    editor = as_role("editor")
    series = client.post(
        f"{NS}/events",
        json={
            "title": "Draft series",
            "start_date": "2044-05-01 10:00",
            "end_date": "2044-05-01 11:00",
            "status": "draft",
            "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=3"],
        },
        headers=editor,
    ).get_json()
    listed = client.get(
        f"{NS}/events?post_parent={series['id']}&start_date=2044-05-01&end_date=2044-06-01",
        headers=editor,
    ).get_json()
    occurrence = listed["events"][0]["id"]
    plain = client.post(
        f"{NS}/events",
        json={
            "title": "Plain",
            "start_date": "2044-05-01 10:00",
            "end_date": "2044-05-01 11:00",
            "status": "draft",
        },
        headers=editor,
    ).get_json()
    a = client.patch(f"{NS}/events/{occurrence}", json={"recurrence": []})
    b = client.patch(f"{NS}/events/{plain['id']}", json={"recurrence": []})
    assert a.status_code == b.status_code, (a.get_json(), b.get_json())
    assert str(series["id"]) not in a.get_data(as_text=True)
