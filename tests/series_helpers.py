"""What the tests of recurring series share (tests/test_recurrence.py, test_ical_series.py,
test_ical_feed_runs.py): a series made and read through HTTP, zones, DST days, rules."""

from datetime import date

from hypothesis import strategies as st

from store.db import database
from store.models import Event
from tests.conftest import NS

WIDE = {"start_date": "2000-01-01", "end_date": "2200-01-01", "per_page": 50}


def create_series(client, headers, **fields):
    body = {
        "title": "Weekly class",
        "start_date": "2027-03-01 19:00:00",
        "end_date": "2027-03-01 21:00:00",
        "timezone": "Europe/Paris",
        "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=5"],
    }
    body.update(fields)
    response = client.post(f"{NS}/events", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def occurrences(client, series_id, headers=None, **params):
    """The series' other occurrences, in date order (the post_parent filter)."""
    query = {**WIDE, "post_parent": series_id, **params}
    response = client.get(f"{NS}/events", query_string=query, headers=headers or {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()["events"]


def update(client, event_id, headers, **fields):
    return client.post(f"{NS}/events/{event_id}", json=fields, headers=headers)


def status_of(event_id: int) -> str:
    with database.connection_context():
        return Event.get_by_id(event_id).status


ZONES = [
    "Europe/Paris",
    "America/New_York",
    "Australia/Sydney",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Pacific/Chatham",
    "UTC",
]

DST_DAYS = [
    date(2027, 3, 14),  # America/New_York springs forward
    date(2027, 3, 28),  # Europe/Paris
    date(2027, 4, 4),  # Australia/Sydney falls back
    date(2027, 10, 3),  # Australia/Sydney springs forward
    date(2027, 10, 31),  # Europe/Paris falls back
    date(2027, 11, 7),  # America/New_York
]

WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


@st.composite
def rules(draw):
    freq = draw(st.sampled_from(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]))
    parts = [f"FREQ={freq}", f"INTERVAL={draw(st.integers(1, 3))}"]
    if freq == "WEEKLY" and draw(st.booleans()):
        days = draw(st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=3, unique=True))
        parts.append("BYDAY=" + ",".join(days))
    if freq == "MONTHLY" and draw(st.booleans()):
        parts.append(f"BYMONTHDAY={draw(st.sampled_from([1, 15, 29, 31, -1]))}")
    parts.append(f"COUNT={draw(st.integers(1, 25))}")
    return ";".join(parts)
