"""chk17r: JSON API error bodies against the reference (SPEC §4-§6, §12)."""

from tests.conftest import NS

E = {"title": "x", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"}


def test_inline_venue_lone_coordinate_is_named_venue(client, admin):
    # an event has no geo_lat/geo_lng parameter: the inline venue's mistakes are named "venue"
    # (as the same body with geo_lat 500 is: {"venue": "geo_lat: Must be between -90 and 90."})
    r = client.post(
        f"{NS}/events", json={**E, "venue": {"venue": "Q", "geo_lat": 5}}, headers=admin
    )
    assert r.status_code == 400
    body = r.get_json()
    assert body["code"] == "rest_invalid_param"
    assert list(body["data"]["params"]) == ["venue"], body
    assert body["message"] == "Invalid parameter(s): venue"


def test_inline_venue_lone_coordinate_on_update_is_named_venue(client, admin, make_event):
    eid = make_event()["id"]
    r = client.post(
        f"{NS}/events/{eid}", json={"venue": {"venue": "Q", "geo_lng": 5}}, headers=admin
    )
    assert r.status_code == 400
    assert list(r.get_json()["data"]["params"]) == ["venue"], r.get_json()


def test_venue_lone_coordinate_named_beside_other_bad_params(client, admin):
    r = client.post(
        f"{NS}/venues", json={"venue": "Q", "geo_lat": 5, "website": "nope"}, headers=admin
    )
    assert r.status_code == 400
    params = r.get_json()["data"]["params"]
    assert "website" in params and ({"geo_lat", "geo_lng"} & set(params)), r.get_json()


def test_protected_venue_found_by_the_state_it_shows(client, admin):
    # a protected venue shows `state` to everyone (reference-behaviour §2.7: state is not masked);
    # SPEC §10 leaves out of searches only the fields that are masked, and the reference's venue
    # search reads _VenueState (§3.5)
    client.post(
        f"{NS}/venues",
        json={"venue": "Hall Q", "state": "Stateword", "password": "pw"},
        headers=admin,
    )
    shown = client.get(f"{NS}/venues").get_json()["venues"][0]
    assert shown["state"] == "Stateword"
    found = client.get(f"{NS}/venues?search=Stateword").get_json()
    assert found["total"] == 1, found
