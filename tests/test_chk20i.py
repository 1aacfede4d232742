"""Outside checks (chk20i) of SPEC §11: iCalendar feeds and import, as calendar
applications and operators use them. Each test fails on the current code for the defect
it names."""

import icalendar

from rules import clock
from tests.conftest import NS


def test_a_vevent_changed_by_its_venue_or_category_says_it_changed(client, admin, make_event):
    """SPEC §11: import updates "a changed event (higher SEQUENCE or later LAST-MODIFIED)",
    and README: "Exporting a series and importing the feed elsewhere gives the same
    occurrences". When a venue or category is renamed, every feed's VEVENT of its events
    shows the new LOCATION / CATEGORIES, but keeps its old LAST-MODIFIED and DTSTAMP (and
    no SEQUENCE): a second site that imported the feed, importing it again, reports the
    event "unchanged" and keeps the old venue and category names for good (seen live:
    `flask import-ics URL` into a second instance). RFC 5545 §3.8.7.3: LAST-MODIFIED is when
    "the information associated with the calendar component was last revised"."""
    clock.freeze()
    venue = client.post(f"{NS}/venues", json={"venue": "Old Hall"}, headers=admin).get_json()
    term = client.post(f"{NS}/categories", json={"name": "Old Cat"}, headers=admin).get_json()
    event = make_event(
        start_date="2030-05-01 10:00:00",
        end_date="2030-05-01 11:00:00",
        venue=venue["id"],
        categories=[term["id"]],
    )

    def vevent():
        data = client.get(f"{NS}/events/{event['id']}?ical=1").data
        (component,) = icalendar.Calendar.from_ical(data).walk("VEVENT")
        return component

    before = vevent()
    assert str(before["LOCATION"]).startswith("Old Hall")
    clock.advance(5)
    renamed = client.post(f"{NS}/venues/{venue['id']}", json={"venue": "New Hall"}, headers=admin)
    assert renamed.status_code == 200
    after = vevent()
    assert str(after["LOCATION"]).startswith("New Hall")
    changed = after["LAST-MODIFIED"].dt > before["LAST-MODIFIED"].dt or int(
        after.get("SEQUENCE", 0)
    ) > int(before.get("SEQUENCE", 0))
    assert changed, "LOCATION changed but LAST-MODIFIED/SEQUENCE did not"
