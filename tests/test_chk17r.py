"""chk17r: JSON API error bodies against the reference (SPEC §4-§6, §12)."""

from tests.conftest import NS


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
