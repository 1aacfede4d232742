"""Checker chk16m: SPEC §17 (tribe/events/v1 alias, wp/v2 routes) after the PHP-alike changes."""

import pytest

from tests.conftest import NS

WP = "/wp-json/wp/v2"
TEC = "/wp-json/tribe/events/v1"

# Digits that are not ASCII: Arabic-Indic one, N'Ko one, mathematical bold one, full-width one.
OTHER_ONES = ["\u0661", "\u07c1", "\U0001d7cf", "\uff11"]


@pytest.mark.parametrize("one", OTHER_ONES)
def test_an_id_route_matches_ascii_digits_only(client, make_event, one):
    """WordPress routes are `(?P<id>\\d+)` read by PCRE without /u: ASCII digits only; a
    segment that does not match is 404 rest_no_route (reference-behaviour §0: "route regex
    mismatch ... 404 rest_no_route")."""
    event = make_event(title="Only by its ASCII id")
    assert event["id"] == 1
    answer = client.get(f"{TEC}/events/{one}")
    assert answer.status_code == 404, answer.get_json()
    assert answer.get_json()["code"] == "rest_no_route"


def test_a_write_to_an_id_spelt_in_other_digits_changes_nothing(client, admin, make_event):
    event = make_event(title="Kept")
    assert event["id"] == 1
    client.post(f"{TEC}/events/\u0661", json={"title": "Changed"}, headers=admin)
    client.delete(f"{NS}/events/\u0661", headers=admin)
    answer = client.get(f"{NS}/events/1", headers=admin)
    assert answer.status_code == 200, answer.get_json()  # not trashed by DELETE /events/١
    after = answer.get_json()
    assert after["title"] == "Kept" and after["status"] == "publish"


@pytest.mark.parametrize(
    "path",
    [
        "/wp/v2/tags/{t}",
        "/tribe/events/v1/tags/{t}",
        "/wp/v2/tribe_venue/{v}",
        "/calendar/events/v1/venues/{v}",
    ],
)
def test_other_id_routes_match_ascii_digits_only(client, admin, path):
    tag = client.post(f"{WP}/tags", json={"name": "Jazz"}, headers=admin).get_json()
    venue = client.post(f"{NS}/venues", json={"venue": "Hall"}, headers=admin).get_json()
    url = "/wp-json" + path.format(t=chr(0x660 + tag["id"]), v=chr(0x660 + venue["id"]))
    answer = client.get(url)
    assert answer.status_code == 404, (url, answer.get_json())


@pytest.mark.parametrize("name", ["\u0661", "\u00b2", "\u2460"])
def test_a_category_named_with_a_non_ascii_digit_is_a_name_not_an_id(client, admin, name):
    """reference-behaviour §8: each item "numeric -> existing term id; string -> existing term
    by slug or name, otherwise created". PHP's is_numeric() is ASCII-only, so "١", "²", "①"
    are names and the term is created; here they are taken as ids and refused."""
    answer = client.post(
        f"{TEC}/events",
        json={
            "title": "Numbered",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "categories": [name],
            "tags": [name],
        },
        headers=admin,
    )
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    assert [c["name"] for c in body["categories"]] == [name]
    assert [t["name"] for t in body["tags"]] == [name]


NFC, NFD = "Caf\u00e9", "Cafe\u0301"  # the same text, composed and decomposed


@pytest.mark.parametrize("query", [NFC, NFD])
def test_search_finds_canonically_equal_text_in_either_form(client, admin, make_event, query):
    """Names are NFC-normalised now, and a term search finds "Café" typed either way; but an
    event whose title was sent decomposed is missed by a composed search (and the reverse),
    and a decomposed search finds no venue or organizer at all (a composed one finds both)."""
    make_event(title=f"{NFC} night")
    make_event(title=f"{NFD} day")
    for name in (f"{NFC} Bleu", f"{NFD} Rouge"):
        client.post(f"{TEC}/venues", json={"venue": name}, headers=admin)
        client.post(f"{TEC}/organizers", json={"organizer": name}, headers=admin)
    events = client.get(f"{TEC}/events", query_string={"search": query}).get_json()["events"]
    assert len(events) == 2, [e["title"] for e in events]
    venues = client.get(f"{TEC}/venues", query_string={"search": query}).get_json()
    assert len(venues.get("venues", [])) == 2, venues
    organizers = client.get(f"{TEC}/organizers", query_string={"search": query}).get_json()
    assert len(organizers.get("organizers", [])) == 2, organizers
