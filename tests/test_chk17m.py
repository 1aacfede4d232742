"""chk17m: SPEC §6/§17 checks through the plugin's alias (tribe/events/v1)."""

from __future__ import annotations

TEC = "/wp-json/tribe/events/v1"


def _event_id(make_event) -> int:
    made = make_event(title="E", start_date="2027-01-05 10:00:00", end_date="2027-01-05 12:00:00")
    return made["id"] if isinstance(made, dict) else made.get_json()["id"]


def test_an_update_names_an_end_before_the_stored_start_beside_another_bad_parameter(
    client, admin, make_event
):
    """SPEC §6: data.params maps *each* bad parameter. Alone, this end_date is a 400 naming
    it; with both dates sent it is named beside website; with only end_date sent beside a bad
    website, the end_date was dropped from the answer."""
    event_id = _event_id(make_event)
    answer = client.patch(
        f"{TEC}/events/{event_id}",
        json={"end_date": "2027-01-01 09:00:00", "website": "ftp://x"},
        headers=admin,
    )
    assert answer.status_code == 400
    assert set(answer.get_json()["data"]["params"]) == {"end_date", "website"}


def test_an_update_names_an_until_before_the_stored_start_beside_another_bad_parameter(
    client, admin, make_event
):
    event_id = _event_id(make_event)
    answer = client.patch(
        f"{TEC}/events/{event_id}",
        json={"recurrence": ["RRULE:FREQ=DAILY;UNTIL=20260101T000000Z"], "featured": "maybe"},
        headers=admin,
    )
    assert answer.status_code == 400
    assert set(answer.get_json()["data"]["params"]) == {"recurrence", "featured"}
