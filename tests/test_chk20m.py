"""Outside check chk20m: recurring series (SPEC §12) and images (SPEC §13), through HTTP."""

from datetime import datetime, timedelta

from tests.conftest import NS
from tests.series_helpers import create_series, occurrences

UTC_FORMAT = "%Y-%m-%d %H:%M:%S"


def _utc(text):
    return datetime.strptime(text, UTC_FORMAT)


def test_fall_back_day_occurrence_keeps_the_series_duration(client, admin):
    """D1: SPEC §12 'Each occurrence keeps the series' local wall-clock time and duration'.
    A 1-hour daily 02:30 Europe/Paris series crossing the 2027-10-31 fall-back: the
    occurrence of that day must last 1 hour (RFC 5545 3.8.5.3: with DTEND, 'the same exact
    duration will apply to all the members of the generated recurrence set'), as the
    spring-forward day already does (03:30-04:30 CEST)."""
    series = create_series(
        client,
        admin,
        title="Overlap",
        start_date="2027-10-30 02:30:00",
        end_date="2027-10-30 03:30:00",
        timezone="Europe/Paris",
        recurrence=["RRULE:FREQ=DAILY;COUNT=3"],
    )
    events = [series, *occurrences(client, series["id"], admin)]
    assert len(events) == 3
    for event in events:
        length = _utc(event["utc_end_date"]) - _utc(event["utc_start_date"])
        assert length == timedelta(hours=1), (
            event["start_date"],
            event["utc_start_date"],
            event["utc_end_date"],
        )


def test_an_occurrence_feed_gives_that_one_event(client, admin):
    """D5: SPEC §11 '`GET {ns}/events/{id}?ical=1` ... give one event'. For the id of one
    occurrence (the 2027-03-15 date of a weekly series), a calendar application importing the
    file must get that date only, not the five dates of the whole series."""
    import datetime as dt

    import icalendar
    import recurring_ical_events

    series = create_series(client, admin, title="One date")
    third = occurrences(client, series["id"], admin)[1]
    assert third["start_date"] == "2027-03-15 19:00:00"
    answer = client.get(f"{NS}/events/{third['id']}", query_string={"ical": 1}, headers=admin)
    assert answer.status_code == 200
    calendar = icalendar.Calendar.from_ical(answer.data)
    dates = [
        e["DTSTART"].dt.strftime("%Y-%m-%d %H:%M")
        for e in recurring_ical_events.of(calendar).between(
            dt.datetime(2027, 1, 1), dt.datetime(2028, 1, 1)
        )
    ]
    assert dates == ["2027-03-15 19:00"]
