"""SPEC §11 with §12: a recurring series in the iCalendar feed is one VEVENT with its
RRULE/RDATE/EXDATE and one VEVENT with RECURRENCE-ID per occurrence edited on its own;
files with such VEVENTs are imported as series. Calendar applications expand what the
service writes (``recurring-ical-events``) into exactly the occurrences it lists."""

from datetime import UTC, date, datetime

import icalendar
import pytest
import recurring_ical_events

from tests.conftest import NS
from tests.test_recurrence import WIDE, create_series, occurrences, update

WINDOW = (datetime(2026, 1, 1, tzinfo=UTC), datetime(2030, 1, 1, tzinfo=UTC))


def calendar_of(client, path="/events", headers=None, **query):
    response = client.get(f"{NS}{path}", query_string={"ical": "1", **query}, headers=headers or {})
    assert response.status_code == 200, response.get_data(as_text=True)
    return icalendar.Calendar.from_ical(response.get_data(as_text=True))


def _utc(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return f"{value} (day)"


def expanded(calendar) -> list[tuple[str, str, str]]:
    """(UTC start, UTC end, title) of every occurrence a calendar application shows."""
    found = recurring_ical_events.of(calendar).between(*WINDOW)
    return sorted((_utc(e["DTSTART"].dt), _utc(e["DTEND"].dt), str(e["SUMMARY"])) for e in found)


def listed(client, headers=None, **query) -> list[tuple[str, str, str]]:
    """The same triples from the JSON listing, every page."""
    found, page = [], 1
    while True:
        params = {**WIDE, "page": page, **query}
        response = client.get(f"{NS}/events", query_string=params, headers=headers or {})
        if response.status_code == 404:
            break
        body = response.get_json()
        for event in body["events"]:
            if event["all_day"]:
                start = f"{event['start_date'][:10]} (day)"
                last = date.fromisoformat(event["end_date"][:10])
                end = f"{date.fromordinal(last.toordinal() + 1)} (day)"
            else:
                start, end = event["utc_start_date"], event["utc_end_date"]
            found.append((start, end, event["title"]))
        if page >= body["total_pages"]:
            break
        page += 1
    return sorted(found)


def vevents(calendar):
    return calendar.walk("VEVENT")


# --- the feed ----------------------------------------------------------------------------------


def test_feed_expands_to_exactly_the_listed_occurrences_across_dst(client, admin, make_event):
    series = create_series(
        client,
        admin,
        recurrence=[
            "RRULE:FREQ=WEEKLY;COUNT=10",
            "EXDATE;TZID=Europe/Paris:20270308T190000",
            "RDATE;TZID=Europe/Paris:20270302T190000",
        ],
    )
    others = occurrences(client, series["id"])
    moved = update(
        client,
        others[2]["id"],
        admin,
        title="Moved class",
        start_date="2027-03-23 20:30",
        end_date="2027-03-23 22:00",
    )
    assert moved.status_code == 200
    assert client.delete(f"{NS}/events/{others[4]['id']}", headers=admin).status_code == 200
    make_event(title="Single", start_date="2027-03-10 10:00", end_date="2027-03-10 11:00")
    weekend = create_series(
        client,
        admin,
        title="Market",
        all_day=True,
        start_date="2027-10-30",
        end_date="2027-10-30",
        timezone="America/New_York",
        recurrence=["RRULE:FREQ=WEEKLY;UNTIL=20271127", "EXDATE;VALUE=DATE:20271113"],
    )
    calendar = calendar_of(client, **WIDE)
    assert expanded(calendar) == listed(client)
    # One VEVENT per series and per edited occurrence, none for the others.
    summaries = sorted(str(e["SUMMARY"]) for e in vevents(calendar))
    assert summaries == ["Market", "Moved class", "Single", "Weekly class"]
    (head,) = [e for e in vevents(calendar) if str(e["SUMMARY"]) == "Weekly class"]
    (override,) = [e for e in vevents(calendar) if "RECURRENCE-ID" in e]
    assert str(override["UID"]) == str(head["UID"]) == f"{series['id']}@{_host(series)}"
    assert override["RECURRENCE-ID"].dt == datetime(2027, 3, 22, 19, tzinfo=_paris())
    assert head["DTSTART"].params["TZID"] == "Europe/Paris"
    text = calendar.to_ical().decode()
    assert "RRULE:FREQ=WEEKLY;COUNT=10" in text
    assert "EXDATE;TZID=Europe/Paris:20270308T190000" in text.replace("\r\n ", "")
    market = [e for e in vevents(calendar) if str(e["SUMMARY"]) == "Market"][0]
    assert market["DTSTART"].dt == date(2027, 10, 30)
    assert market["RRULE"]["UNTIL"] == [date(2027, 11, 27)]
    assert str(market["UID"]) == f"{weekend['id']}@{_host(weekend)}"


def _host(event):
    return event["global_id"].split("?", 1)[0]


def _paris():
    from zoneinfo import ZoneInfo

    return ZoneInfo("Europe/Paris")


def test_until_in_utc_beside_a_zoned_start(client, admin):
    create_series(client, admin, recurrence=["RRULE:FREQ=DAILY;UNTIL=20270305"])
    calendar = calendar_of(client, **WIDE)
    (head,) = vevents(calendar)
    # The whole last day in Paris, written in UTC as RFC 5545 requires.
    assert head["RRULE"]["UNTIL"] == [datetime(2027, 3, 5, 22, 59, 59, tzinfo=UTC)]
    assert expanded(calendar) == listed(client)
    assert len(expanded(calendar)) == 5


def test_an_occurrence_matching_the_filters_brings_its_series(client, admin, make_event):
    series = create_series(client, admin, categories="Dance")
    others = occurrences(client, series["id"])
    special = update(client, others[1]["id"], admin, title="Special", categories="Gala")
    make_event(title="Other", start_date="2027-03-16 10:00", end_date="2027-03-16 11:00")
    # A window holding only the third occurrence: the series comes with its rule.
    calendar = calendar_of(client, start_date="2027-03-15", end_date="2027-03-15")
    assert [str(e["SUMMARY"]) for e in vevents(calendar)] == ["Weekly class", "Special"]
    assert "RRULE" in vevents(calendar)[0]
    # A category only the edited occurrence has: the series, once, and the occurrence.
    gala = special.get_json()["categories"][0]["id"]
    calendar = calendar_of(client, categories=gala, **WIDE)
    assert [str(e["SUMMARY"]) for e in vevents(calendar)] == ["Weekly class", "Special"]
    assert vevents(calendar)[1]["RECURRENCE-ID"].dt == datetime(2027, 3, 15, 19, tzinfo=_paris())


def test_visibility_is_the_listings(client, admin, as_role):
    series = create_series(client, admin)
    others = occurrences(client, series["id"])
    update(client, others[0]["id"], admin, title="Rehearsal", status="draft")
    anonymous = calendar_of(client, **WIDE)
    assert [str(e["SUMMARY"]) for e in vevents(anonymous)] == ["Weekly class"]
    # The draft's date is left out rather than shown with the series' fields.
    assert expanded(anonymous) == listed(client)
    assert len(expanded(anonymous)) == 4
    as_editor = calendar_of(client, headers=admin, **WIDE)
    assert [str(e["SUMMARY"]) for e in vevents(as_editor)] == ["Weekly class", "Rehearsal"]
    assert expanded(as_editor) == listed(client, admin)
    # A series the caller may not read is not emitted; a published occurrence of it shows
    # on its own, as in the listing.
    update(client, series["id"], admin, status="draft")
    update(client, others[3]["id"], admin, status="publish", title="Open day")
    anonymous = calendar_of(client, **WIDE)
    (alone,) = vevents(anonymous)
    assert str(alone["SUMMARY"]) == "Open day" and "RECURRENCE-ID" not in alone
    assert str(alone["UID"]).startswith(f"{others[3]['id']}@")
    assert expanded(anonymous) == listed(client)


def test_protected_series_only_for_those_who_may_read_them(client, admin):
    create_series(client, admin, password="secret")
    assert vevents(calendar_of(client, **WIDE)) == []
    assert len(vevents(calendar_of(client, password="secret", **WIDE))) == 1
    assert len(vevents(calendar_of(client, headers=admin, **WIDE))) == 1


@pytest.mark.parametrize("which", ["series", "plain", "edited"])
def test_one_occurrence_or_series_by_id_or_slug_gives_the_series(client, admin, which):
    series = create_series(client, admin)
    others = occurrences(client, series["id"])
    update(client, others[2]["id"], admin, title="Edited")
    target = {"series": series, "plain": others[0], "edited": others[2]}[which]
    for path in (f"/events/{target['id']}", f"/events/by-slug/{target['slug']}"):
        calendar = calendar_of(client, path)
        assert [str(e["SUMMARY"]) for e in vevents(calendar)] == ["Weekly class", "Edited"]
        assert len(expanded(calendar)) == 5


# --- import ------------------------------------------------------------------------------------
