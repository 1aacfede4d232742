"""chk17m: SPEC §6/§17 checks through the plugin's alias (tribe/events/v1)."""

from __future__ import annotations

import pytest

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


WP = "/wp-json/wp/v2"
NS = "/wp-json/calendar/events/v1"


def test_the_post_type_route_names_every_bad_parameter_at_once(client, admin, make_event):
    """Our own route names title, image and categories in one answer; WordPress's route of
    the post type (same rules, SPEC §17) named only the body's own faults."""
    event_id = _event_id(make_event)
    ours = client.post(
        f"{NS}/events/{event_id}",
        json={"title": "", "categories": [99999], "image": 99997},
        headers=admin,
    )
    assert set(ours.get_json()["data"]["params"]) == {"title", "categories", "image"}
    theirs = client.post(
        f"{WP}/tribe_events/{event_id}",
        json={"title": "", "tribe_events_cat": [99999], "featured_media": 99997},
        headers=admin,
    )
    assert theirs.status_code == 400
    assert len(theirs.get_json()["data"]["params"]) == 3, theirs.get_json()


def test_the_post_type_routes_name_the_field_the_client_sent(client, admin):
    """wp/v2/tribe_venue takes WordPress's post shape (``title``); an empty title was
    answered as data.params.venue, a field the client never sent (SPEC §6: data.params maps
    each bad parameter)."""
    for route in ("tribe_venue", "tribe_organizer"):
        answer = client.post(
            f"{WP}/{route}", json={"title": "", "status": "publish"}, headers=admin
        )
        assert answer.status_code == 400
        assert set(answer.get_json()["data"]["params"]) == {"title"}, answer.get_json()


def test_a_term_update_is_refused_before_its_place_in_the_tree_is_checked(client, admin, as_role):
    """This session's order (fff5707): an update checks the body against the stored item only
    after permission. Events do (an end before the stored start is a 401 to anonymous); a
    category's "own ancestor" check, which reads the stored tree, answered 400 first."""
    arts = client.post(f"{TEC}/categories", json={"name": "Arts"}, headers=admin).get_json()
    child = client.post(
        f"{TEC}/categories", json={"name": "Theatre", "parent": arts["id"]}, headers=admin
    ).get_json()
    subscriber = as_role("subscriber", "sub-17m")
    for headers, status in (({}, 401), (subscriber, 403)):
        for parent in (child["id"], arts["id"]):
            answer = client.patch(
                f"{TEC}/categories/{arts['id']}", json={"parent": parent}, headers=headers
            )
            assert answer.status_code == status, (parent, answer.get_json())
    assert client.get(f"{TEC}/categories/{arts['id']}").get_json()["parent"] == 0


@pytest.mark.parametrize(
    "path, named",
    [
        ("venues?status=zz&per_page=0", {"status", "per_page"}),
        ("organizers?status=zz&per_page=0", {"status", "per_page"}),
        ("venues?event=99999&per_page=0", {"event", "per_page"}),
        ("categories?parent=99999&per_page=0", {"parent", "per_page"}),
    ],
)
def test_listings_name_every_bad_parameter_at_once(client, path, named):
    """Each of these alone is a 400 naming it; beside a bad per_page only per_page was named
    (the events' listing names status beside per_page)."""
    answer = client.get(f"{TEC}/{path}")
    assert answer.status_code == 400
    assert set(answer.get_json()["data"]["params"]) == named, answer.get_json()


def test_a_term_write_names_a_missing_parent_beside_an_empty_name(client, admin):
    """Alone, a parent that is no term is a 400 naming parent; beside an empty name only the
    name was named."""
    alone = client.post(f"{TEC}/categories", json={"name": "X", "parent": 99999}, headers=admin)
    assert set(alone.get_json()["data"]["params"]) == {"parent"}
    for path in (f"{TEC}/categories", f"{WP}/tribe_events_cat"):
        both = client.post(path, json={"name": "", "parent": 99999}, headers=admin)
        assert both.status_code == 400
        assert set(both.get_json()["data"]["params"]) == {"name", "parent"}, (path, both.get_json())
