"""chk17t: black-box checks of SPEC §11-§13 (real-world iCalendar files, series changed by
import, feeds, images). Each test fails on the current code for the defect it names."""

from datetime import UTC, datetime

import icalendar
import recurring_ical_events

from tests.conftest import NS

WINDOW = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC))

BERLIN = """BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE
"""


def ics(body: str, head: str = "") -> bytes:
    text = (
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//chk17t//test//EN\n"
        + head
        + BERLIN
        + body
        + "END:VCALENDAR\n"
    )
    return text.replace("\n", "\r\n").encode()


def do_import(client, headers, data: bytes) -> dict:
    response = client.post(
        f"{NS}/events/import", data=data, headers={**headers, "Content-Type": "text/calendar"}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _utc(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return f"{value} (day)"


def expanded(calendar) -> set:
    return {
        (_utc(e["DTSTART"].dt), _utc(e["DTEND"].dt), str(e["SUMMARY"]))
        for e in recurring_ical_events.of(calendar).between(*WINDOW)
    }


def served(client, headers, event_id) -> set:
    response = client.get(f"{NS}/events/{event_id}", query_string={"ical": "1"}, headers=headers)
    assert response.status_code == 200
    return expanded(icalendar.Calendar.from_ical(response.get_data(as_text=True)))


def test_feed_last_modified_does_not_go_back_when_an_event_leaves(client, as_role):
    """D2: SPEC §11 "subscribable by calendar applications (stable URL, ETag, Last-Modified)":
    Last-Modified is when the feed last changed (RFC 9110 §8.8.2); trashing an event changes
    the feed, so its Last-Modified cannot become older than the one served before."""
    import time
    from email.utils import parsedate_to_datetime

    editor = as_role("editor")
    window = {"ical": "1", "start_date": "2027-07-01", "end_date": "2027-07-02"}
    for title, hour in (("Stays", "10"), ("Leaves", "12")):
        response = client.post(
            f"{NS}/events",
            json={
                "title": title,
                "start_date": f"2027-07-01 {hour}:00",
                "end_date": f"2027-07-01 {hour}:30",
            },
            headers=editor,
        )
        assert response.status_code == 201
        leaving = response.get_json()["id"]
        time.sleep(1.1)
    before = client.get(f"{NS}/events", query_string=window)
    assert before.get_data(as_text=True).count("BEGIN:VEVENT") == 2
    time.sleep(1.1)
    assert client.delete(f"{NS}/events/{leaving}", headers=editor).status_code == 200
    after = client.get(f"{NS}/events", query_string=window)
    assert after.get_data(as_text=True).count("BEGIN:VEVENT") == 1
    assert after.headers["ETag"] != before.headers["ETag"]
    assert parsedate_to_datetime(after.headers["Last-Modified"]) >= parsedate_to_datetime(
        before.headers["Last-Modified"]
    ), (before.headers["Last-Modified"], after.headers["Last-Modified"])
