"""Side doors found by attack (issue 11): each test failed on the code before its fix.

Password-protected and unreadable items leak nothing through filters, searches, links,
de-duplication, embeddings or json_ld; inline items obey the direct routes' rules; plain
text stays plain; bad input is a clean 400."""

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from rules import clock, dates
from store.db import database
from store.models import Event, Venue
from tests.conftest import NS
from tests.helpers import Server, flask_cli

SECRET_PHONE = "555-0199"


@pytest.fixture
def protected_world(client, admin):
    """A public event linked to a password-protected venue and organizer, and a
    password-protected event that is featured, ticketed and categorised."""

    def post(path, body):
        response = client.post(f"{NS}{path}", json=body, headers=admin)
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    venue = post(
        "/venues",
        {
            "venue": "Hidden Hall",
            "address": "1 Secret Street",
            "city": "Covert",
            "phone": SECRET_PHONE,
            "geo_lat": 48.85,
            "geo_lng": 2.35,
            "password": "v-pass",
        },
    )
    organizer = post(
        "/organizers",
        {
            "organizer": "Quiet Org",
            "email": "quiet@example.org",
            "phone": SECRET_PHONE,
            "password": "o-pass",
        },
    )
    public = post(
        "/events",
        {
            "title": "Open day",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "venue": venue["id"],
            "organizer": [organizer["id"]],
        },
    )
    protected = post(
        "/events",
        {
            "title": "Members only",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "password": "e-pass",
            "featured": True,
            "ticketed": True,
            "categories": ["Secret"],
            "tags": ["hush"],
            "venue": venue["id"],
            "organizer": [organizer["id"]],
            "description": "Meet at the back door",
        },
    )
    return {"venue": venue, "organizer": organizer, "public": public, "protected": protected}


def ids(response, key="events"):
    assert response.status_code == 200, response.get_json()
    return [item["id"] for item in response.get_json()[key]]


def test_json_ld_shows_nothing_the_masked_embeddings_hide(client, protected_world):
    body = client.get(f"{NS}/events/{protected_world['public']['id']}").get_json()
    assert body["venue"]["address"] == ""
    text = json.dumps(body["json_ld"])
    for secret in ("1 Secret Street", "Covert", SECRET_PHONE, "quiet@example.org", "48.85"):
        assert secret not in text
    assert body["json_ld"]["location"]["name"] == "Hidden Hall"  # the name is never masked


def test_json_ld_of_readable_embeddings_is_complete(client, admin, protected_world):
    body = client.get(f"{NS}/events/{protected_world['public']['id']}", headers=admin).get_json()
    location = body["json_ld"]["location"]
    assert location["address"]["streetAddress"] == "1 Secret Street"
    assert location["geo"] == {"@type": "GeoCoordinates", "latitude": 48.85, "longitude": 2.35}
    assert body["json_ld"]["organizer"]["email"] == "quiet@example.org"


@pytest.mark.parametrize("who", ["anonymous", "subscriber", "contributor"])
def test_filters_on_masked_fields_skip_protected_events(client, as_role, protected_world, who):
    headers = {} if who == "anonymous" else as_role(who)
    protected_id = protected_world["protected"]["id"]
    venue_id, organizer_id = protected_world["venue"]["id"], protected_world["organizer"]["id"]
    for query in (
        "categories=secret",
        "tags=hush",
        "featured=true",
        "ticketed=true",
        f"venue={venue_id}",
        f"organizer={organizer_id}",
        "geoloc=true",
        "geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=5",
        "search=back+door",
    ):
        assert protected_id not in ids(client.get(f"{NS}/events?{query}", headers=headers)), query
    # Treated as absent, not as a hidden value: the event is among those without the field.
    for query in ("featured=false", "ticketed=false", "geoloc=false"):
        assert protected_id in ids(client.get(f"{NS}/events?{query}", headers=headers)), query


def test_filters_on_masked_fields_find_protected_events_for_those_who_may_read_them(
    client, admin, protected_world
):
    protected_id = protected_world["protected"]["id"]
    assert protected_id in ids(client.get(f"{NS}/events?geoloc=true", headers=admin))
    # The event's password opens the event's fields, not its protected venue's coordinates.
    assert protected_id not in ids(client.get(f"{NS}/events?geoloc=true&password=e-pass"))
    for query in ("categories=secret", "featured=true", "ticketed=true"):
        assert protected_id in ids(client.get(f"{NS}/events?{query}", headers=admin)), query
        with_password = client.get(f"{NS}/events?{query}&password=e-pass")
        assert protected_id in ids(with_password), query
        assert protected_id not in ids(client.get(f"{NS}/events?{query}&password=wrong")), query


def test_venue_and_organizer_search_does_not_read_masked_fields(client, admin, protected_world):
    for plural, key in (("venues", "venues"), ("organizers", "organizers")):
        assert ids(client.get(f"{NS}/{plural}?search={SECRET_PHONE}"), key) == []
        assert ids(client.get(f"{NS}/{plural}?search={SECRET_PHONE}", headers=admin), key)
    assert ids(client.get(f"{NS}/venues?search=secret+street"), "venues") == []
    assert ids(client.get(f"{NS}/organizers?search=example.org"), "organizers") == []
    # The name is public: searching it still finds the item.
    assert ids(client.get(f"{NS}/venues?search=hidden"), "venues") == [
        protected_world["venue"]["id"]
    ]


def test_links_of_unreadable_events_are_not_listed(client, admin, as_role, make_event):
    draft = make_event(
        status="draft",
        venue={"venue": "Draft Place"},
        organizer=[{"organizer": "Draft Org"}],
        categories=["Draftcat"],
        tags=["drafttag"],
    )
    protected = make_event(
        password="pw",
        venue={"venue": "Pw Place"},
        organizer=[{"organizer": "Pw Org"}],
        categories=["Pwcat"],
        tags=["pwtag"],
    )
    for who in ({}, as_role("subscriber"), as_role("contributor")):
        for event in (draft, protected):
            assert ids(client.get(f"{NS}/venues?event={event['id']}", headers=who), "venues") == []
            assert (
                ids(client.get(f"{NS}/organizers?event={event['id']}", headers=who), "organizers")
                == []
            )
            for plural in ("categories", "tags"):
                for param in ("post", "event"):
                    response = client.get(
                        f"{NS}/{plural}?{param}={event['id']}&hide_empty=false", headers=who
                    )
                    assert ids(response, plural) == [], (plural, param)
    assert len(ids(client.get(f"{NS}/venues?event={draft['id']}", headers=admin), "venues")) == 1
    assert (
        len(
            ids(
                client.get(f"{NS}/tags?post={protected['id']}&hide_empty=false", headers=admin),
                "tags",
            )
        )
        == 1
    )


def test_has_events_counts_only_events_the_caller_may_read(client, admin, make_event):
    for status in ("private", "draft", "pending"):
        make_event(
            status=status,
            venue={"venue": f"Only {status}"},
            organizer=[{"organizer": f"Org {status}"}],
        )
    make_event(status="future", date="2099-01-01 00:00:00", venue={"venue": "Only future"})
    public = make_event(venue={"venue": "Open venue"})
    found = client.get(f"{NS}/venues?has_events=true").get_json()["venues"]
    assert [v["venue"] for v in found] == ["Open venue"]
    assert public["venue"]["id"] == found[0]["id"]
    assert client.get(f"{NS}/organizers?has_events=true").get_json()["organizers"] == []
    # An administrator reads every event, but drafts and pending ones never count
    # (reference §3.5): the private, the scheduled and the open venue.
    assert len(ids(client.get(f"{NS}/venues?has_events=true", headers=admin), "venues")) == 3


def test_de_duplication_only_against_items_the_caller_may_read(client, admin, as_role):
    contributor = as_role("contributor")
    draft = client.post(
        f"{NS}/venues",
        json={"venue": "Back Room", "status": "draft", "phone": SECRET_PHONE},
        headers=admin,
    ).get_json()
    answer = client.post(f"{NS}/venues", json={"venue": "Back Room"}, headers=contributor)
    assert answer.status_code == 201
    body = answer.get_json()
    assert body["id"] != draft["id"] and SECRET_PHONE not in json.dumps(body)
    event = client.post(
        f"{NS}/events",
        headers=contributor,
        json={
            "title": "Mine",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "organizer": [],
            "venue": {"venue": "Back Room"},
        },
    ).get_json()
    assert event["venue"]["id"] not in (draft["id"],)
    with database.connection_context():
        linked = Venue.get_by_id(event["venue"]["id"])
        assert linked.author != 1 and linked.phone == ""
    # An editor's own readable duplicate is still found (the reference's behaviour).
    again = client.post(f"{NS}/venues", json={"venue": "Back Room"}, headers=admin).get_json()
    assert again["id"] == draft["id"]


def test_linking_an_unreadable_venue_by_id_is_refused(client, admin, as_role):
    draft = client.post(
        f"{NS}/venues", json={"venue": "Locked", "status": "draft"}, headers=admin
    ).get_json()
    response = client.post(
        f"{NS}/events",
        headers=as_role("contributor"),
        json={
            "title": "Mine",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "venue": draft["id"],
        },
    )
    assert response.status_code == 400
    assert "venue" in response.get_json()["data"]["params"]


def test_inline_items_obey_the_direct_routes_rules(client, admin, as_role):
    contributor = as_role("contributor")
    body = {
        "title": "Mine",
        "start_date": "tomorrow 9am",
        "end_date": "tomorrow 10am",
        "venue": {"venue": "Self-published", "status": "publish"},
        "organizer": [{"organizer": "Self org", "status": "publish"}],
    }
    event = client.post(f"{NS}/events", json=body, headers=contributor).get_json()
    contributor_id = as_role.user_id("contributor")
    with database.connection_context():
        venue = Venue.get_by_id(event["venue"]["id"])
        assert (venue.status, venue.author) == ("pending", contributor_id)
    admin_id = as_role.user_id("administrator")
    for key, inline in (
        ("venue", {"venue": "Stolen", "author": admin_id}),
        ("organizer", [{"organizer": "Stolen", "author": admin_id}]),
    ):
        response = client.post(
            f"{NS}/events",
            headers=contributor,
            json={
                "title": "Mine",
                "start_date": "tomorrow 9am",
                "end_date": "tomorrow 10am",
                key: inline,
            },
        )
        assert response.status_code == 403, key
    with database.connection_context():
        assert not Venue.select().where(Venue.title == "Stolen").exists()


@pytest.mark.parametrize("role", ["administrator", "contributor"])
def test_text_fields_are_plain_text_for_every_role(client, as_role, role):
    headers = as_role(role)
    event = client.post(
        f"{NS}/events",
        headers=headers,
        json={
            "title": "<script>alert(1)</script>Gig <b>night</b>",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "cost": "<i>10</i> €",
            "tags": ["<script>x</script>tagged"],
            "venue": {
                "venue": "<img src=x onerror=alert(1)>Club",
                "address": "<b>1</b> Road",
                "phone": "<u>123</u>",
            },
            "organizer": [{"organizer": "<a href='javascript:x'>Org</a>", "email": "<b>a@b.c</b>"}],
        },
    ).get_json()
    assert event["title"] == "Gig night"
    assert event["cost"] == "10 €"
    assert event["tags"][0]["name"] == "tagged"
    assert "<" not in json.dumps(event)
    single = client.get(f"{NS}/events/{event['id']}", headers=headers).get_json()
    assert single["json_ld"]["name"] == "Gig night"


def test_term_names_are_plain_and_descriptions_sanitised(client, admin):
    body = client.post(
        f"{NS}/categories",
        headers=admin,
        json={
            "name": "<b>Jazz</b>",
            "description": "<p onclick='x()'>Hot</p><script>bad()</script>",
        },
    ).get_json()
    assert body["name"] == "Jazz"
    assert body["description"] == "<p>Hot</p>"


@pytest.mark.parametrize(
    "url",
    [
        'https://ok.example/"><script>',
        "https://ok.example/<x>",
        "https://ok.example/a b",
        "javascript:alert(1)",
        "https://ok.example/'onmouseover='x",
    ],
)
def test_url_fields_refuse_quotes_angle_brackets_and_spaces(client, admin, url):
    base = {"title": "T", "start_date": "tomorrow 9am", "end_date": "tomorrow 10am"}
    for path, body in (
        ("/events", {**base, "website": url}),
        ("/events", {**base, "image": url}),
        ("/venues", {"venue": "V", "website": url}),
        ("/organizers", {"organizer": "O", "website": url}),
    ):
        response = client.post(f"{NS}{path}", json=body, headers=admin)
        assert response.status_code == 400, (path, body)


def test_cost_range_in_one_string_keeps_both_bounds(client, admin, make_event):
    event = make_event(cost="10 - 20 €")
    assert event["cost"] == "10 - 20 €"
    assert event["cost_details"]["values"] == ["10", "20"]
    assert event["cost_details"]["currency_symbol"] == "€"
    assert event["cost_details"]["currency_position"] == "postfix"
    assert make_event(cost="$5 – $15")["cost_details"] == {
        "currency_symbol": "$",
        "currency_code": "",
        "currency_position": "prefix",
        "values": ["5", "15"],
    }


def test_category_filter_includes_child_categories(client, admin, make_event):
    parent = client.post(f"{NS}/categories", json={"name": "Music"}, headers=admin).get_json()
    child = client.post(
        f"{NS}/categories", json={"name": "Jazz", "parent": parent["id"]}, headers=admin
    ).get_json()
    grandchild = client.post(
        f"{NS}/categories", json={"name": "Bebop", "parent": child["id"]}, headers=admin
    ).get_json()
    in_child = make_event(categories=[child["id"]])
    in_grandchild = make_event(categories=[grandchild["id"]])
    make_event(categories=["Other"])
    found = ids(client.get(f"{NS}/events?categories=music"))
    assert sorted(found) == sorted([in_child["id"], in_grandchild["id"]])
    assert ids(client.get(f"{NS}/events?categories=bebop")) == [in_grandchild["id"]]


def test_many_search_words_are_one_phrase(client, admin, make_event):
    make_event(title="a b c d e f g h i j k")
    words = "+".join("abcdefghijklmnopqrstuvwxyz" * 2 + "abcdefghijk")  # 63 one-letter words
    for path in ("/venues", "/organizers", "/events"):
        assert client.get(f"{NS}{path}?search={words}").status_code == 200
    found = client.get(f"{NS}/events?search=a+b+c+d+e+f+g+h+i+j+k").get_json()["events"]
    assert [e["title"] for e in found] == ["a b c d e f g h i j k"]


def test_search_given_as_an_array_is_refused_as_the_reference_does(client, make_event):
    for path in ("/events", "/venues", "/organizers"):
        for query in ("search[]=a&search[]=b", "search[]=a"):
            response = client.get(f"{NS}{path}?{query}")
            assert response.status_code == 400, (path, query)
            assert response.get_json()["code"] == "archive-bad-search-string"
    # A plain name given twice is no array in PHP: its last value (app/forms.py).
    make_event(title="Banjo night")
    found = client.get(f"{NS}/events?search=zither&search=banjo")
    assert [e["title"] for e in found.get_json()["events"]] == ["Banjo night"]


@pytest.mark.parametrize("radius", ["-5", "0", "20001"])
def test_geoloc_radius_must_be_positive_and_bounded(client, radius):
    response = client.get(f"{NS}/events?geoloc_lat=1&geoloc_lng=1&geoloc_radius={radius}")
    assert response.status_code == 400
    assert "geoloc_radius" in response.get_json()["data"]["params"]


def test_radius_search_finds_venues_at_the_east_and_west_edges(client, admin, make_event):
    """At 70°N a 1,000 km circle reaches 27.2° of longitude east and west (at 72.1°N), not
    the 26.3° that r / (R cos lat) gives: venues in between were missed."""
    import math

    from rules.geo import EARTH_RADIUS_KM, distance_km

    lat, lng, radius = 70.0, 20.0, 1000.0
    angular = radius / EARTH_RADIUS_KM
    edge_lat = math.degrees(math.asin(math.sin(math.radians(lat)) / math.cos(angular)))
    naive = math.degrees(angular / math.cos(math.radians(lat)))
    offset = naive + 0.7
    for east_west in (1, -1):
        venue_lng = lng + east_west * offset
        assert distance_km(lat, lng, edge_lat, venue_lng) < radius
        venue = client.post(
            f"{NS}/venues",
            headers=admin,
            json={"venue": f"Edge {east_west}", "geo_lat": edge_lat, "geo_lng": venue_lng},
        ).get_json()
        make_event(venue=venue["id"])
    found = client.get(f"{NS}/events?geoloc_lat={lat}&geoloc_lng={lng}&geoloc_radius={radius}")
    assert len(found.get_json()["events"]) == 2


@pytest.mark.parametrize("date", ["0999-12-31 10:00:00", "0001-01-01", "1000-01-01 00:05:00"])
def test_dates_before_year_1000_are_refused(client, admin, date):
    response = client.post(
        f"{NS}/events",
        headers=admin,
        json={
            "title": "Ancient",
            "start_date": date,
            "end_date": "2030-01-01 00:00:00",
            "timezone": "Europe/Paris",
        },
    )
    assert response.status_code == 400
    assert client.get(f"{NS}/events?start_date=2000-01-01").status_code == 200
    with database.connection_context():
        assert Event.select().count() == 0


@pytest.mark.parametrize("body", [{}, {"name": None, "description": None}, {"unknown": 1}])
@pytest.mark.parametrize("plural", ["categories", "tags"])
def test_empty_term_updates_change_nothing(client, admin, plural, body):
    term = client.post(f"{NS}/{plural}", json={"name": "Kept"}, headers=admin).get_json()
    for method in ("patch", "put", "post"):
        response = getattr(client, method)(f"{NS}/{plural}/{term['id']}", json=body, headers=admin)
        assert response.status_code == 200
        assert response.get_json()["name"] == "Kept"


def test_openapi_declares_masked_flags_nullable(client):
    doc = client.get(f"{NS}/doc").get_json()
    event = doc["components"]["schemas"]["Event"]["properties"]
    for flag in ("all_day", "featured", "ticketed", "sticky", "show_map", "hide_from_listings"):
        assert event[flag].get("nullable") is True, flag


def test_a_partial_update_does_not_write_fields_it_did_not_send(database_url):
    """Racing PATCHes of title and of start_date through two workers: the acknowledged
    date change always survives (it was lost in 10 of 40 trials before)."""
    database_file = database_url
    flask_cli(database_file, "migrate")
    password = flask_cli(database_file, "users", "create", "boss", "--role", "administrator")
    import base64

    token = base64.b64encode(f"boss:{password.strip().splitlines()[-1]}".encode()).decode()
    auth = {"Authorization": f"Basic {token}"}
    server = Server(database_file, workers=2)
    try:
        status, event = server.request(
            "POST",
            f"{NS}/events",
            {
                "title": "Race",
                "start_date": "2030-01-01 10:00",
                "end_date": "2030-12-31 12:00",
            },
            auth,
        )
        assert status == 201
        path = f"{NS}/events/{event['id']}"
        with ThreadPoolExecutor(4) as pool:
            for trial in range(20):
                day = f"2030-01-{trial + 2:02d} 09:00:00"
                futures = [
                    pool.submit(server.request, "PATCH", path, {"title": f"T{trial}"}, auth)
                    for _ in range(2)
                ]
                futures.append(
                    pool.submit(server.request, "PATCH", path, {"start_date": day}, auth)
                )
                assert [f.result()[0] for f in futures] == [200, 200, 200], [
                    f.result() for f in futures
                ]
                status, now = server.request("GET", path, None, auth)
                assert now["start_date"] == day, trial
    finally:
        server.kill()


@pytest.mark.parametrize("role", ["anonymous", "subscriber", "contributor", "author", "editor"])
def test_sql_and_python_agree_on_who_reads_protected_fields(app, as_role, role):
    """``store.posts.unmasked_clause`` (filters) and ``app.auth.may_see_protected``
    (representations) are twins: for every status and owner they give the same answer."""
    from app.auth import may_see_protected
    from store.models import User
    from store.posts import unmasked_clause
    from store.users import ANONYMOUS, Viewer

    owner_headers = as_role(role) if role != "anonymous" else None
    other = as_role("editor", "someone-else")
    with database.connection_context():
        viewer = ANONYMOUS if owner_headers is None else Viewer(User.get(User.login == role))
        owner_ids = [viewer.id or 0, as_role.user_id("someone-else")]
        rows = []
        for status in ("publish", "future", "draft", "pending", "private"):
            for author in owner_ids:
                for password in ("", "pw"):
                    rows.append(
                        Event.create(
                            id=len(rows) + 1,
                            title="x",
                            slug=f"x-{len(rows)}",
                            status=status,
                            author=author,
                            password=password,
                            date="2020-01-01 00:00:00",
                            date_utc="2020-01-01 00:00:00",
                            modified="2020-01-01 00:00:00",
                            modified_utc="2020-01-01 00:00:00",
                            start_date="2030-01-01 00:00:00",
                            end_date="2030-01-01 01:00:00",
                            utc_start="2030-01-01 00:00:00",
                            utc_end="2030-01-01 01:00:00",
                        )
                    )
        for password in (None, "pw", "wrong"):
            in_sql = {e.id for e in Event.select().where(unmasked_clause(Event, viewer, password))}
            in_python = {e.id for e in rows if may_see_protected(viewer, e, password)}
            assert in_sql == in_python, password
    assert other


# --- venue= and organizer= only see the links the event's own read shows (SPEC §10) -------


def _listed(client, query, headers=None):
    response = client.get(f"{NS}/events?{query}", headers=headers or {})
    assert response.status_code == 200, response.get_json()
    return [event["id"] for event in response.get_json()["events"]]


@pytest.mark.parametrize("status", ["draft", "pending", "private"])
@pytest.mark.parametrize("kind", ["venue", "organizer"])
def test_filters_by_an_unreadable_venue_or_organizer_find_nothing(
    client, admin, as_role, make_event, kind, status
):
    """An anonymous read of the event shows no venue (organizer); ``?venue=ID`` used to find
    the event all the same, in the listing and its feed, telling which events the hidden
    item is linked to. Those who may read the item still find the event."""
    item = client.post(
        f"{NS}/{kind}s", json={kind: f"Hidden {status}", "status": status}, headers=admin
    ).get_json()
    event = make_event(**{kind: [item["id"]]})
    assert client.get(f"{NS}/events/{event['id']}").get_json()[kind] == []
    assert _listed(client, f"{kind}={item['id']}") == []
    assert _listed(client, f"{kind}={item['id']}", as_role("subscriber")) == []
    feed = client.get(f"{NS}/events?{kind}={item['id']}&ical=1").get_data(as_text=True)
    assert "BEGIN:VEVENT" not in feed
    assert _listed(client, f"{kind}={item['id']}", admin) == [event["id"]]


@pytest.mark.parametrize("kind", ["venue", "organizer"])
def test_filters_by_a_trashed_venue_or_organizer_find_nothing_for_anyone(
    client, admin, make_event, kind
):
    """A trashed venue (organizer) is left out of every event's representation, the
    administrator's too, so a filter by it finds nothing; restored, it finds the event again."""
    item = client.post(f"{NS}/{kind}s", json={kind: "Soon trashed"}, headers=admin).get_json()
    event = make_event(**{kind: [item["id"]]})
    assert _listed(client, f"{kind}={item['id']}") == [event["id"]]
    assert client.delete(f"{NS}/{kind}s/{item['id']}", headers=admin).status_code == 200
    assert client.get(f"{NS}/events/{event['id']}", headers=admin).get_json()[kind] == []
    assert _listed(client, f"{kind}={item['id']}") == []
    assert _listed(client, f"{kind}={item['id']}", admin) == []
    restored = client.post(f"{NS}/{kind}s/{item['id']}", json={"status": "publish"}, headers=admin)
    assert restored.status_code == 200
    assert _listed(client, f"{kind}={item['id']}") == [event["id"]]


def test_a_filter_by_a_protected_venue_finds_its_events(client, admin, make_event):
    """A password-protected venue is shown (masked) in its events' representations, its id
    included: filtering by that id reveals nothing the event's read does not."""
    venue = client.post(
        f"{NS}/venues", json={"venue": "Locked hall", "password": "pw"}, headers=admin
    ).get_json()
    event = make_event(venue=venue["id"])
    assert client.get(f"{NS}/events/{event['id']}").get_json()["venue"]["id"] == venue["id"]
    assert _listed(client, f"venue={venue['id']}") == [event["id"]]


def _linked_listing(client, param, item_id, serial):
    """X-WP-Total and the ids of every page of ``?{param}={item_id}`` (a new URL each time:
    no cached response, only the kept totals and first ids)."""
    found, page, total = [], 1, None
    while True:
        response = client.get(
            f"{NS}/events",
            query_string={param: item_id, "per_page": 2, "page": page, "_": f"{serial}-{page}"},
        )
        if response.status_code != 200:
            break
        total = int(response.headers["X-WP-Total"])
        found += [event["id"] for event in response.get_json()["events"]]
        if len(found) >= total:
            break
        page += 1
    return total, found


@pytest.mark.parametrize("kind", ["venue", "organizer"])
def test_linked_filters_follow_a_scheduled_item_reaching_its_date(client, admin, make_event, kind):
    """?venue= (?organizer=) counts a link only when the item is readable (published, or
    scheduled with its date passed). Its date passing changes that without a write: the
    listing's kept totals and first ids were keyed by the publication horizon of events
    only, and stayed empty although each event's own read showed the item."""
    soon = clock.utcnow().replace(tzinfo=None) + timedelta(seconds=2)
    item = client.post(
        f"{NS}/{kind}s",
        json={kind: "Hall", "status": "future", "date_utc": dates.fmt(soon)},
        headers=admin,
    ).get_json()
    ids = [make_event(title=f"E{n}", **{kind: [item["id"]]})["id"] for n in range(3)]
    for serial in range(3):  # asked more than once: the first ids are kept
        assert _linked_listing(client, kind, item["id"], serial) == (0, [])
    try:
        clock.advance(3)
        shown = client.get(f"{NS}/events/{ids[0]}").get_json()[kind]
        shown = shown if isinstance(shown, list) else [shown]
        assert [x["id"] for x in shown] == [item["id"]]  # the event's own read shows it now
        assert _linked_listing(client, kind, item["id"], 10) == (3, ids)
    finally:
        clock.reset()


def test_a_protected_venues_map_flags_are_masked_as_the_reference(client, admin, make_event):
    """reference-behaviour.md: masking replaces ``show_map`` and ``show_map_link`` with
    null; the venue's own read and the event's embedded venue say so alike."""
    venue = client.post(
        f"{NS}/venues", json={"venue": "Hidden hall", "password": "open sesame"}, headers=admin
    ).get_json()
    event = make_event(title="At the hidden hall", venue=venue["id"])
    read = client.get(f"{NS}/venues/{venue['id']}").get_json()
    assert (read["show_map"], read["show_map_link"]) == (None, None)
    embedded = client.get(f"{NS}/events/{event['id']}").get_json()["venue"]
    assert (embedded["show_map"], embedded["show_map_link"]) == (None, None)
    unlocked = client.get(f"{NS}/venues/{venue['id']}", headers=admin).get_json()
    assert unlocked["show_map"] is True
