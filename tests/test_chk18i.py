"""Outside check chk18i: feeds of series read as a calendar application reads them."""

from datetime import date, datetime
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from tests.conftest import NS

WIDE = {"start_date": "1990-01-01", "end_date": "2200-01-01", "per_page": 50}


def api_occurrences(client, series_id, headers):
    series = client.get(f"{NS}/events/{series_id}", headers=headers).get_json()
    out = [series]
    page = 1
    while True:
        r = client.get(f"{NS}/events", query_string={**WIDE, "post_parent": series_id, "page": page}, headers=headers)
        body = r.get_json()
        out += body["events"]
        if page >= int(r.headers.get("X-TEC-TotalPages", 1) or 1):
            break
        page += 1
    return out


def api_key(ev):
    if ev["all_day"]:
        return (ev["start_date"][:10], None)
    tz = ZoneInfo(ev["timezone"]) if ev["timezone"] not in ("UTC",) else ZoneInfo("UTC")
    s = datetime.fromisoformat(ev["utc_start_date"]).replace(tzinfo=ZoneInfo("UTC"))
    e = datetime.fromisoformat(ev["utc_end_date"]).replace(tzinfo=ZoneInfo("UTC"))
    return (s.isoformat(), e.isoformat())


def feed_key(comp):
    s = comp["DTSTART"].dt
    if isinstance(s, date) and not isinstance(s, datetime):
        return (s.isoformat(), None)
    e = comp["DTEND"].dt
    return (s.astimezone(ZoneInfo("UTC")).isoformat(), e.astimezone(ZoneInfo("UTC")).isoformat())


def expand(text, uid=None):
    cal = icalendar.Calendar.from_ical(text)
    comps = recurring_ical_events.of(cal).between(date(2000, 1, 1), date(2200, 1, 1))
    return sorted(feed_key(c) for c in comps if uid is None or str(c["UID"]) == uid)


def make_series(client, admin, **fields):
    body = {"title": "Series", "start_date": "2027-03-01 19:00:00", "end_date": "2027-03-01 21:00:00",
            "timezone": "Europe/Paris"}
    body.update(fields)
    r = client.post(f"{NS}/events", json=body, headers=admin)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


CASES = {
    "weekly_byday_paris_dst": dict(start_date="2027-03-01 19:00:00", end_date="2027-03-01 21:00:00",
                                   timezone="Europe/Paris", recurrence=["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=12"]),
    "weekly_ny_dst_until": dict(start_date="2027-03-02 08:30:00", end_date="2027-03-02 09:30:00",
                                timezone="America/New_York",
                                recurrence=["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270401T000000Z"]),
    "monthly_bymonthday": dict(start_date="2027-01-31 10:00:00", end_date="2027-01-31 11:00:00",
                               timezone="Europe/Paris", recurrence=["RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=6"]),
    "monthly_bysetpos": dict(start_date="2027-01-29 18:00:00", end_date="2027-01-29 20:00:00",
                             timezone="America/New_York",
                             recurrence=["RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=8"]),
    "yearly": dict(start_date="2027-02-28 12:00:00", end_date="2027-02-28 13:00:00", timezone="Europe/Paris",
                   recurrence=["RRULE:FREQ=YEARLY;COUNT=5"]),
    "allday_weekly": dict(start_date="2027-03-26 00:00:00", end_date="2027-03-27 23:59:59", all_day=True,
                          timezone="Europe/Paris", recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"]),
    "exdate_rdate": dict(start_date="2027-03-01 19:00:00", end_date="2027-03-01 21:00:00", timezone="Europe/Paris",
                         recurrence=["RRULE:FREQ=WEEKLY;COUNT=6", "EXDATE;TZID=Europe/Paris:20270315T190000",
                                     "RDATE;TZID=Europe/Paris:20270402T190000"]),
    "count_dtstart_not_in_rule": dict(start_date="2027-03-02 19:00:00", end_date="2027-03-02 21:00:00",
                                      timezone="Europe/Paris", recurrence=["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"]),
    "utc_daily": dict(start_date="2027-03-26 23:30:00", end_date="2027-03-27 00:30:00", timezone="UTC",
                      recurrence=["RRULE:FREQ=DAILY;COUNT=4"]),
    "exdate_utc_form": dict(start_date="2027-03-01 19:00:00", end_date="2027-03-01 21:00:00",
                            timezone="Europe/Paris",
                            recurrence=["RRULE:FREQ=WEEKLY;COUNT=6", "EXDATE:20270315T180000Z"]),
    "rdate_date_allday": dict(start_date="2027-03-01 00:00:00", end_date="2027-03-01 23:59:59", all_day=True,
                              timezone="Europe/Paris",
                              recurrence=["RRULE:FREQ=WEEKLY;COUNT=3", "RDATE;VALUE=DATE:20270401",
                                          "EXDATE;VALUE=DATE:20270308"]),
    "interval_until_local": dict(start_date="2027-10-20 01:30:00", end_date="2027-10-20 02:30:00",
                                 timezone="America/New_York",
                                 recurrence=["RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=20271201"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_feed_expansion_equals_api(client, admin, name):
    s = make_series(client, admin, title=name, **CASES[name])
    api = sorted(api_key(e) for e in api_occurrences(client, s["id"], admin))
    one = client.get(f"{NS}/events/{s['id']}?ical=1", headers=admin)
    assert one.status_code == 200
    text = one.get_data()
    cal = icalendar.Calendar.from_ical(text)
    uid = str(next(c for c in cal.walk("VEVENT"))["UID"])
    assert expand(text, uid) == api, text.decode()
    listing = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}, headers=admin)
    assert expand(listing.get_data(), uid) == api


FEED_OF_ANOTHER_DATABASE = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calendar-events//Events Calendar REST API//EN\r\n"
    "BEGIN:VEVENT\r\nUID:7@localhost\r\nDTSTAMP:20270101T000000Z\r\nLAST-MODIFIED:20270101T000000Z\r\n"
    "SUMMARY:Seven\r\nURL:http://localhost/event/seven/\r\n"
    "DTSTART;TZID=Europe/Paris:20270301T190000\r\nDTEND;TZID=Europe/Paris:20270301T210000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:1@localhost\r\nDTSTAMP:20270101T000000Z\r\nLAST-MODIFIED:20270101T000000Z\r\n"
    "SUMMARY:One\r\nURL:http://localhost/event/one/\r\n"
    "DTSTART;TZID=Europe/Paris:20270310T190000\r\nDTEND;TZID=Europe/Paris:20270310T210000\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_http_import_of_a_feed_into_a_fresh_database_keeps_every_event(client, admin):
    """SPEC §11: 'Each VEVENT becomes an event (recurring ones a series)'. A feed written by
    another database of this service on the same host (a move, a restore) imported into an
    empty one: the series imported first gets id 1, and the next VEVENT, UID 1@localhost, must
    not be taken for it (its URL names another page, the event was made by this very import
    from another UID)."""
    r = client.post(f"{NS}/events/import", data=FEED_OF_ANOTHER_DATABASE,
                    headers={**admin, "Content-Type": "text/calendar"})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    titles = sorted(e["title"] for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"]
                    if not e["post_parent"])
    assert titles == ["One", "Seven"], (titles, body)
    assert len(body["created"]) == 2 and body["unchanged"] == [], body


def test_cli_import_of_our_own_feed_with_an_edited_occurrence_creates_nothing(app, client, admin, tmp_path):
    """SPEC §11: UIDs are stable ``{id}@{host}``; 'Import is idempotent by UID: importing the same file again
    creates nothing and touches nothing'. The HTTP import of our own feed finds every VEVENT unchanged;
    ``flask import-ics`` (no SITE_URL, as ``make run`` leaves it) finds the series but creates the edited
    occurrence (RECURRENCE-ID VEVENT, its URL the occurrence's page) again as a new event: a duplicate."""
    s = make_series(client, admin, title="Weekly class", recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"])
    occ = api_occurrences(client, s["id"], admin)
    assert client.post(f"{NS}/events/{occ[2]['id']}", json={"title": "Edited class"}, headers=admin).status_code == 200
    assert not app.config.get("SITE_URL")
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).get_data()
    before = sorted((e["id"], e["title"], e["start_date"]) for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"])
    path = tmp_path / "feed.ics"
    path.write_bytes(feed)
    result = app.test_cli_runner().invoke(args=["import-ics", str(path)])
    assert result.exit_code == 0, result.output
    after = sorted((e["id"], e["title"], e["start_date"]) for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"])
    assert after == before, result.output


def test_an_occurrence_on_a_spring_forward_day_keeps_the_series_duration(client, admin):
    """SPEC §12: 'Each occurrence keeps the series' local wall-clock time and duration in the series'
    timezone'; RFC 5545 §3.8.5.3: 'the same exact duration will apply to all the members of the
    generated recurrence set'. A daily 02:30-03:30 in New York: on 2027-03-14 (02:00 -> 03:00) the
    occurrence must still last one hour, not be an empty 03:30-03:30 event."""
    s = make_series(client, admin, title="Night shift", start_date="2027-03-12 02:30:00", end_date="2027-03-12 03:30:00",
                    timezone="America/New_York", recurrence=["RRULE:FREQ=DAILY;COUNT=4"])
    evs = api_occurrences(client, s["id"], admin)
    gap = next(e for e in evs if e["start_date"].startswith("2027-03-14"))
    start = datetime.fromisoformat(gap["utc_start_date"])
    end = datetime.fromisoformat(gap["utc_end_date"])
    assert (end - start).total_seconds() == 3600, (gap["start_date"], gap["end_date"])


def test_cli_import_with_site_url_of_a_feed_into_a_fresh_database_keeps_every_event(app, client, admin, tmp_path):
    """The same as over HTTP, with ``flask import-ics`` when SITE_URL is set (a production setting)."""
    app.config["SITE_URL"] = "http://localhost"
    path = tmp_path / "feed.ics"
    path.write_text(FEED_OF_ANOTHER_DATABASE)
    result = app.test_cli_runner().invoke(args=["import-ics", str(path)])
    titles = sorted(e["title"] for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"]
                    if not e["post_parent"])
    assert titles == ["One", "Seven"], (titles, result.output)


def test_import_never_overwrites_a_local_event_with_a_foreign_vevent_of_the_same_number(client, admin):
    """A VEVENT ``UID:1@localhost`` whose URL is another page (``/event/one/``, written by another database on
    this host) is not our event 1 ("Local", ``/event/local/``): importing it must not replace that event."""
    client.post(f"{NS}/events", json={"title": "Local", "start_date": "2027-05-01 10:00:00",
                                      "end_date": "2027-05-01 11:00:00"}, headers=admin)
    head, _seven, one = FEED_OF_ANOTHER_DATABASE.split("BEGIN:VEVENT")
    feed = (head + "BEGIN:VEVENT" + one).replace("LAST-MODIFIED:20270101T000000Z", "LAST-MODIFIED:20300101T000000Z")
    r = client.post(f"{NS}/events/import", data=feed, headers={**admin, "Content-Type": "text/calendar"})
    assert r.status_code == 200
    titles = sorted(e["title"] for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"])
    assert titles == ["Local", "One"], (titles, r.get_json())
