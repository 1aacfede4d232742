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


def test_category_bad_parent_named_beside_other_bad_params(client, admin):
    r = client.post(f"{NS}/categories", json={"name": "", "parent": 999}, headers=admin)
    assert r.status_code == 400
    assert set(r.get_json()["data"]["params"]) == {"name", "parent"}, r.get_json()
    r = client.post(
        f"{NS}/categories", json={"name": "B", "slug": "", "parent": 999}, headers=admin
    )
    assert set(r.get_json()["data"]["params"]) == {"slug", "parent"}, r.get_json()


def test_venue_lone_coordinate_named_beside_other_bad_params(client, admin):
    r = client.post(
        f"{NS}/venues", json={"venue": "Q", "geo_lat": 5, "website": "nope"}, headers=admin
    )
    assert r.status_code == 400
    params = r.get_json()["data"]["params"]
    assert "website" in params and ({"geo_lat", "geo_lng"} & set(params)), r.get_json()


def test_category_cycle_refused_only_to_those_who_may_edit(client, admin, as_role):
    # the loop check reads the stored hierarchy (the reference: wp_update_term, in the handler,
    # after permission_callback): a caller who may not edit terms gets 401/403, as for a
    # duplicate name (term_exists) on the same route
    a = client.post(f"{NS}/categories", json={"name": "A"}, headers=admin).get_json()["id"]
    b = client.post(f"{NS}/categories", json={"name": "B", "parent": a}, headers=admin).get_json()[
        "id"
    ]
    r = client.post(f"{NS}/categories/{a}", json={"parent": b})
    assert r.status_code == 401, r.get_json()
    assert r.get_json()["code"] == "rest_forbidden"
    r = client.post(f"{NS}/categories/{a}", json={"parent": b}, headers=as_role("contributor"))
    assert r.status_code == 403, r.get_json()
    r = client.post(f"{NS}/categories/{a}", json={"parent": b}, headers=admin)
    assert r.status_code == 400 and r.get_json()["code"] == "rest_invalid_param"


def test_term_list_exclude_and_include_named_beside_other_bad_params(client):
    # reference-behaviour §3.6: exclude/include ids must exist (else 400), an arg validator like order's
    r = client.get(f"{NS}/categories?exclude=2389&order=")
    assert r.status_code == 400
    assert set(r.get_json()["data"]["params"]) == {"exclude", "order"}, r.get_json()
    r = client.get(f"{NS}/tags?include=2389&order=")
    assert set(r.get_json()["data"]["params"]) == {"include", "order"}, r.get_json()


def test_venue_and_organizer_lists_name_status_beside_other_bad_params(client):
    # as GET /events?status=draft&page=0 does ("page, status")
    for route in ("venues", "organizers"):
        r = client.get(f"{NS}/{route}?status=draft&page=0")
        assert r.status_code == 400
        assert set(r.get_json()["data"]["params"]) == {"page", "status"}, (route, r.get_json())


def test_list_event_and_parent_ids_named_beside_other_bad_params(client):
    # reference-behaviour §3.5/§3.6: `event`/`post` must be an existing event, `parent` an existing
    # category (else 400): arg validators, collected with page/order
    cases = [
        ("/venues?event=99999&page=0", {"event", "page"}),
        ("/organizers?event=99999&page=0", {"event", "page"}),
        ("/categories?post=99999&order=", {"post", "order"}),
        ("/tags?event=99999&order=", {"event", "order"}),
        ("/categories?parent=9999&order=", {"parent", "order"}),
    ]
    for url, names in cases:
        r = client.get(NS + url)
        assert r.status_code == 400
        assert set(r.get_json()["data"]["params"]) == names, (url, r.get_json())


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
