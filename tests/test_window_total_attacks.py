"""Attacks on window totals summed by day (store/events.py::_window_counts), by an outside
review: odd windows and events, statuses, scheduled dates, writes, series, imports, seed.
Found by it, now mended: ``featured=false`` and ``ticketed=false`` (filters set to false)
were taken for no filter, so the window's published events were all counted
(``test_false_flags_select``, ``test_ticketed_false_selects``)."""

import itertools
from datetime import timedelta

from rules import clock, dates
from tests.conftest import NS

_n = itertools.count(3770000)

EVENTS = [
    ("zero", "2031-03-10 00:00:00", "2031-03-10 00:00:00", {}),
    ("zero mid", "2031-03-11 12:00:00", "2031-03-11 12:00:00", {}),
    ("to midnight", "2031-03-10 08:00:00", "2031-03-12 00:00:00", {}),
    ("last sec", "2031-03-11 00:00:00", "2031-03-11 23:59:59", {}),
    ("long", "2031-01-01 00:00:00", "2031-12-31 23:59:59", {}),
    ("very long", "1000-01-01 00:00:00", "9999-12-30 23:59:59", {}),
    ("y9999", "9999-12-30 10:00:00", "9999-12-31 23:59:59", {}),
    ("y9999b", "9999-12-29 10:00:00", "9999-12-30 23:59:59", {}),
    ("y1000", "1000-01-01 00:00:00", "1000-01-02 00:00:00", {}),
    ("mid", "2031-03-11 05:00:00", "2031-03-11 06:00:00", {}),
    ("draft", "2031-03-11 05:00:00", "2031-03-11 06:00:00", {"status": "draft"}),
    ("hidden", "2031-03-11 05:00:00", "2031-03-11 06:00:00", {"hide_from_listings": True}),
]

WINDOWS = [
    ("2031-03-10 00:00:00", "2031-03-10 00:00:00"),
    ("2031-03-10 00:00:00", "2031-03-12 00:00:00"),
    ("2031-03-10 00:00:01", "2031-03-12 00:00:00"),
    ("2031-03-10 00:00:00", "2031-03-11 23:59:59"),
    ("2031-03-09 23:59:59", "2031-03-12 00:00:00"),
    ("2031-03-11 00:00:00", "2031-03-11 23:59:59"),
    ("2031-03-11 12:00:00", "2031-03-11 12:00:00"),
    ("2031-03-12 00:00:00", "2031-03-10 00:00:00"),  # start after end
    ("2031-01-01 00:00:00", "2031-12-31 23:59:59"),
    ("1000-01-01 00:00:00", "9999-12-31 23:59:59"),
    ("1000-01-01 00:00:00", "9999-12-30 23:59:59"),
    ("1000-01-01 00:00:00", "9999-12-30 23:59:58"),
    ("9999-12-29 00:00:00", "9999-12-30 23:59:59"),
    ("9999-12-30 00:00:00", "9999-12-30 23:59:59"),
    ("1000-01-01 00:00:00", "1000-01-02 00:00:00"),
    ("1000-01-01 00:00:00", "1000-01-01 23:59:59"),
    ("2000-01-01 00:00:00", "2040-01-01 00:00:00"),
]


def path_of(start, end, extra=""):
    return (
        f"{NS}/events?strict_dates=true&start_date={start.replace(' ', 'T')}"
        f"&end_date={end.replace(' ', 'T')}{extra}"
    )


def check(client, headers=None, extra="", windows=WINDOWS):
    bad, seen = [], []
    for start, end in windows:
        path = path_of(start, end, extra)
        one = client.get(f"{path}&per_page=1&_={next(_n)}", headers=headers or {})
        every = client.get(f"{path}&per_page=50&_={next(_n)}", headers=headers or {})
        assert one.status_code in (200, 400, 404), (start, end, one.status_code, one.get_data())
        assert every.status_code in (200, 400, 404), (start, end, every.status_code)
        rows = len(every.get_json()["events"]) if every.status_code == 200 else 0
        total = int(one.headers.get("X-WP-Total", 0))
        seen.append(rows)
        if total != rows:
            bad.append((start, end, extra, total, rows))
    assert not bad, bad
    return seen


def make_all(client, admin):
    made = {}
    for title, start, end, extra in EVENTS:
        body = {"title": title, "start_date": start, "end_date": end, "timezone": "UTC", **extra}
        r = client.post(f"{NS}/events", json=body, headers=admin)
        assert r.status_code == 201, (title, r.get_json())
        made[title] = r.get_json()["id"]
    return made


def test_odd_windows(client, admin, as_role):
    make_all(client, admin)
    seen = check(client)
    assert len(set(seen)) > 3, seen
    check(client, admin)
    check(client, as_role("author"))
    for extra in (
        "&status=publish,draft",
        "&status=future",
        "&status=publish,future",
        "&status=publish",
        "&status=draft",
    ):
        check(client, admin, extra)


def test_writes(client, admin):
    made = make_all(client, admin)

    def write(title, **body):
        r = client.post(f"{NS}/events/{made[title]}", json=body, headers=admin)
        assert r.status_code == 200, r.get_json()

    write("hidden", hide_from_listings=False)
    write("mid", hide_from_listings=True)
    check(client)
    write("mid", hide_from_listings=False)
    write("long", start_date="2031-03-10 00:00:00", end_date="2031-03-11 00:00:00")
    check(client)
    assert client.delete(f"{NS}/events/{made['zero']}", headers=admin).status_code == 200
    check(client)
    check(client, admin)
    r = client.post(f"{NS}/events/{made['zero']}", json={"status": "publish"}, headers=admin)
    assert r.status_code == 200, r.get_json()
    check(client)
    assert client.delete(f"{NS}/events/{made['mid']}?force=true", headers=admin).status_code == 200
    check(client)


def test_scheduled_reaching_date(client, admin, make_event):
    soon = dates.fmt(clock.utcnow() + timedelta(seconds=60))
    make_event(
        title="Soon",
        status="future",
        date_utc=soon,
        start_date="2031-03-11 05:00:00",
        end_date="2031-03-11 06:00:00",
        timezone="UTC",
    )
    make_event(
        title="Soon2",
        status="future",
        date_utc=soon,
        start_date="2031-03-10 05:00:00",
        end_date="2031-03-12 00:00:00",
        timezone="UTC",
    )
    make_event(
        title="Pub",
        start_date="2031-03-11 01:00:00",
        end_date="2031-03-11 02:00:00",
        timezone="UTC",
    )
    before = check(client)
    check(client, admin, "&status=future")
    clock.advance(120)
    try:
        after = check(client)
        check(client, admin, "&status=publish,draft")
        check(client, admin, "&status=future")
        assert after != before
    finally:
        clock.reset()


def test_recurring_series(client, admin, make_event):
    ev = make_event(
        title="Series",
        start_date="2031-03-10 09:00:00",
        end_date="2031-03-10 10:00:00",
        timezone="UTC",
        recurrence="RRULE:FREQ=DAILY;COUNT=5",
    )
    check(client)
    r = client.post(
        f"{NS}/events/{ev['id']}",
        json={"start_date": "2031-03-11 23:00:00", "end_date": "2031-03-12 01:00:00"},
        headers=admin,
    )
    assert r.status_code == 200, r.get_json()
    check(client)
    check(client, admin)


ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//rev//EN
BEGIN:VEVENT
UID:a@rev
DTSTART:20310311T120000Z
DTEND:20310311T100000Z
SUMMARY:Backwards
END:VEVENT
BEGIN:VEVENT
UID:b@rev
DTSTART:20310311T120000Z
DURATION:-PT5H
SUMMARY:Negative duration
END:VEVENT
BEGIN:VEVENT
UID:c@rev
DTSTART;VALUE=DATE:20310310
DTEND;VALUE=DATE:20310312
SUMMARY:All day
END:VEVENT
BEGIN:VEVENT
UID:d@rev
DTSTART:20310311T230000Z
SUMMARY:No end
END:VEVENT
BEGIN:VEVENT
UID:e@rev
DTSTART:20310310T000000Z
DTEND:20310312T000000Z
RRULE:FREQ=DAILY;COUNT=3
SUMMARY:Recurring import
END:VEVENT
END:VCALENDAR
"""


def test_import(client, admin):
    r = client.post(
        f"{NS}/events/import",
        data=ICS.replace("\n", "\r\n"),
        headers={**admin, "Content-Type": "text/calendar"},
    )
    assert r.status_code == 200, r.get_json()
    print(r.get_json())
    seen = check(client)
    check(client, admin)
    check(client, admin, "&status=publish,draft")
    assert max(seen) > 0


def test_seed(app, client):
    from store.db import database
    from store.seed import seed

    with app.app_context(), database.connection_context():
        seed(300, rng=__import__("random").Random(7))
    windows = []
    from store.models import Event

    with app.app_context(), database.connection_context():
        days = sorted({e.utc_start[:10] for e in Event.select(Event.utc_start).limit(40)})
    for d in days[:6]:
        windows += [(f"{d} 00:00:00", f"{d} 23:59:59"), (f"{d} 06:00:00", f"{d[:8]}28 12:00:00")]
    check(client, windows=windows)


def test_false_flags_select(client, admin, make_event):
    make_event(
        title="Featured",
        featured=True,
        start_date="2031-03-11 05:00:00",
        end_date="2031-03-11 06:00:00",
        timezone="UTC",
    )
    make_event(
        title="Plain",
        start_date="2031-03-11 07:00:00",
        end_date="2031-03-11 08:00:00",
        timezone="UTC",
    )
    make_event(
        title="Plain2",
        start_date="2031-03-11 09:00:00",
        end_date="2031-03-11 10:00:00",
        timezone="UTC",
    )
    for extra in ("&featured=false", "&featured=true", "&featured=0"):
        check(
            client,
            extra=extra,
            windows=[
                ("2031-03-11 00:00:00", "2031-03-11 23:59:59"),
                ("2031-03-10 00:00:00", "2031-03-12 23:59:59"),
            ],
        )


def test_ticketed_false_selects(client, admin, make_event):
    make_event(
        title="Ticketed",
        ticketed=True,
        start_date="2031-03-11 05:00:00",
        end_date="2031-03-11 06:00:00",
        timezone="UTC",
    )
    make_event(
        title="Plain",
        start_date="2031-03-11 07:00:00",
        end_date="2031-03-11 08:00:00",
        timezone="UTC",
    )
    make_event(
        title="Plain2",
        start_date="2031-03-11 09:00:00",
        end_date="2031-03-11 10:00:00",
        timezone="UTC",
    )
    check(client, extra="&ticketed=false", windows=[("2031-03-11 00:00:00", "2031-03-11 23:59:59")])


def test_series_delete_and_hide(client, admin, make_event):
    ev = make_event(
        title="Series",
        start_date="2031-03-10 09:00:00",
        end_date="2031-03-10 10:00:00",
        timezone="UTC",
        recurrence="RRULE:FREQ=DAILY;COUNT=4",
    )
    seen = check(client)
    assert max(seen) >= 2, seen
    r = client.post(f"{NS}/events/{ev['id']}", json={"hide_from_listings": True}, headers=admin)
    assert r.status_code == 200, r.get_json()
    check(client)
    r = client.post(
        f"{NS}/events/{ev['id']}",
        json={"hide_from_listings": False, "status": "draft"},
        headers=admin,
    )
    assert r.status_code == 200, r.get_json()
    check(client)
    check(client, admin)
    assert client.delete(f"{NS}/events/{ev['id']}?force=true", headers=admin).status_code == 200
    check(client)
    check(client, admin)
