"""chk19g: "every face tells the same story" — the pages, the feeds and the API's listing
show the same events, on the same dates, with the same counts (SPEC §3, §11, §12, §15).
Each test fails on the current code for the reason its docstring gives."""

import re
from datetime import UTC, date, datetime, timedelta

import icalendar
import recurring_ical_events

from tests.conftest import NS

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
FIRST = date.today() + timedelta(days=7)  # a weekly series' first date, a week ahead


def page(client, path):
    response = client.get(path, headers=HTML)
    assert response.status_code == 200, (path, response.status_code)
    return response.get_data(as_text=True)


def listed_slugs(html: str) -> list[str]:
    """The events a list page shows, in its order (their title links)."""
    return re.findall(r'class="event-title"><a href="/(?:\w\w/)?event/([^/]+)/"', html)


def api_slugs(client, **query) -> list[str]:
    answer = client.get(f"{NS}/events", query_string={"per_page": 50, **query})
    assert answer.status_code == 200, answer.get_json()
    return [event["slug"] for event in answer.get_json()["events"]]


def weekly(make_event, count: int, **fields) -> dict:
    return make_event(
        title="Weekly jam",
        start_date=f"{FIRST} 19:00",
        end_date=f"{FIRST} 21:00",
        recurrence=[f"RRULE:FREQ=WEEKLY;COUNT={count}"],
        **fields,
    )


def _feed_instances(client, query: str) -> list[tuple[str, datetime]]:
    answer = client.get(f"{NS}/events?ical=1&{query}")
    assert answer.status_code == 200
    calendar = icalendar.Calendar.from_ical(answer.get_data())
    found = recurring_ical_events.of(calendar).between(
        datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
    )
    return sorted((str(e["SUMMARY"]), e["DTSTART"].dt.astimezone(UTC)) for e in found)


def test_a_date_filtered_feed_holds_the_occurrences_its_listing_holds(app, client, make_event):
    """SPEC §11: "every listing filter applies" to `?ical=1`, and "a caller gets exactly
    the events its listing would show". A weekly series of 4; the listing of the second
    week's day holds one occurrence, but the feed of the same filters is the whole series
    (one VEVENT with its RRULE), so a calendar application subscribed to it shows all 4
    dates, three of them outside the dates asked for."""
    app.config["SITE_TIMEZONE"] = "America/New_York"
    weekly(make_event, 4)
    second = FIRST + timedelta(days=7)
    query = f"start_date={second}&end_date={second}"
    listed = client.get(f"{NS}/events?{query}").get_json()["events"]
    assert len(listed) == 1
    expected = [
        ("Weekly jam", datetime.fromisoformat(e["utc_start_date"]).replace(tzinfo=UTC))
        for e in listed
    ]
    assert _feed_instances(client, query) == expected
