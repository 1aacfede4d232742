"""What the iCalendar tests share (tests/test_ical.py, test_ical_series.py,
test_ical.py): a feed read and parsed, its VEVENTs, zones as other apps write them."""

from datetime import UTC, date, datetime

import icalendar
import recurring_ical_events

from tests.conftest import NS

# Wide enough for every file of the tests; the expander and the listing see the same span.
SPAN = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


def feed(client, path="/events", headers=None, **query):
    response = client.get(f"{NS}{path}", query_string={"ical": "1", **query}, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    return icalendar.Calendar.from_ical(response.get_data(as_text=True))


def vevents(calendar):
    return calendar.walk("VEVENT")


def _utc(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return f"{value} (day)"


def shown(data: bytes) -> list[tuple[str, str, str]]:
    """(UTC start, UTC end, title) of every occurrence a calendar application shows of the
    file (``recurring-ical-events``; a cancelled occurrence is not shown)."""
    found = recurring_ical_events.of(icalendar.Calendar.from_ical(data)).between(*SPAN)
    return sorted(
        (_utc(e["DTSTART"].dt), _utc(e["DTEND"].dt), str(e["SUMMARY"]))
        for e in found
        if str(e.get("STATUS", "")).upper() != "CANCELLED"
    )


def listed_whole(client, headers, **query) -> list[tuple[str, str, str]]:
    """The same triples from the JSON listing (``query`` its filters), every page."""
    found, page = [], 1
    query = {"start_date": "2000-01-01", "end_date": "2100-01-01", "per_page": 50, **query}
    while True:
        response = client.get(f"{NS}/events", query_string={**query, "page": page}, headers=headers)
        if response.status_code == 404:
            return sorted(found)
        body = response.get_json()
        for event in body["events"]:
            if event["all_day"]:
                last = date.fromisoformat(event["end_date"][:10])
                end = f"{date.fromordinal(last.toordinal() + 1)} (day)"
                found.append((f"{event['start_date'][:10]} (day)", end, event["title"]))
            else:
                found.append((event["utc_start_date"], event["utc_end_date"], event["title"]))
        if page >= body["total_pages"]:
            return sorted(found)
        page += 1


# America/New_York as Apple Calendar writes it.
APPLE_ZONE = """BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
TZOFFSETFROM:-0500
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
DTSTART:20070311T020000
TZNAME:EDT
TZOFFSETTO:-0400
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:-0400
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
DTSTART:20071104T020000
TZNAME:EST
TZOFFSETTO:-0500
END:STANDARD
END:VTIMEZONE"""

OUTLOOK_ZONES = """BEGIN:VTIMEZONE
TZID:W. Europe Standard Time
BEGIN:STANDARD
DTSTART:16011028T030000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010325T020000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VTIMEZONE
TZID:Tokyo Standard Time
BEGIN:STANDARD
DTSTART:16010101T000000
TZOFFSETFROM:+0900
TZOFFSETTO:+0900
END:STANDARD
END:VTIMEZONE"""
