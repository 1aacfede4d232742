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


def test_the_list_view_lists_every_occurrence_the_api_lists(app, client, make_event):
    """SPEC §15: /events/ is "upcoming events (not yet ended), soonest first, 10 a page";
    SPEC §12: occurrences "are stored as events ... so every listing filter, the date
    window, paging and totals work unchanged". The API's upcoming listing
    (ends_after=now, strict) holds the 3 occurrences of a weekly series, as The Events
    Calendar Pro's list view does by default; the list page shows the series once
    ("Repeats"), so its entries, counts and paging differ from the API's (and so do the
    venue, organizer and term pages and the widget, which read the same way)."""
    app.config["SITE_TIMEZONE"] = "America/New_York"
    weekly(make_event, 3)
    make_event(title="Single", start_date=f"{FIRST} 10:00", end_date=f"{FIRST} 11:00")
    api = api_slugs(client, ends_after="now", strict_dates="true")
    assert len(api) == 4
    assert listed_slugs(page(client, "/events/")) == api


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


def test_a_pages_search_means_what_the_apis_search_means(app, client, admin, make_event):
    """SPEC §15: "The list, month and day views take `search` ... with the API's meaning".
    The API's `search=Boston` finds no event (no event's own text says Boston), but the
    list page's search also reads venues' names and cities and shows the event held at a
    venue in Boston: the page and the API give different answers to the same search."""
    app.config["SITE_TIMEZONE"] = "America/New_York"
    venue = client.post(
        f"{NS}/venues", json={"venue": "Granary", "city": "Boston"}, headers=admin
    ).get_json()
    make_event(
        title="Evening concert",
        start_date=f"{FIRST} 19:00",
        end_date=f"{FIRST} 21:00",
        venue=venue["id"],
    )
    api = api_slugs(client, search="Boston")
    assert api == []
    assert listed_slugs(page(client, "/events/?search=Boston")) == api
    day = page(client, f"/events/{FIRST}/?search=Boston")
    assert "Evening concert" not in day


def test_english_weeks_start_on_english_first_weekday(app, client):
    """SPEC §15: the month grid's "weeks start on the language's first weekday". The English
    pages are written in CLDR's `en` (= en_US: "Sun, November 29, 2026", 12-hour times),
    whose first weekday is Sunday (Babel: Locale.parse("en_US").first_week_day == 6; the
    likely subtags of `en` are en_Latn_US), but the English grid starts on Monday like the
    French and German ones (Babel's bare "en" falls back to the world's territory 001)."""
    def first_day(prefix: str) -> str:
        html = page(client, f"{prefix}/events/month/2027-02/")
        return re.findall(r'<th scope="col"><abbr title="([^"]+)"', html)[0]

    assert first_day("/fr") == "lundi"
    assert first_day("/de") == "Montag"
    assert first_day("") == "Sunday"
