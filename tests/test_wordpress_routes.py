"""SPEC §17: the plugin's namespace as an alias of ours, and the WordPress core routes
(``wp/v2``) that clients written for the plugin call: WordPress's shapes, our ids, our
permissions."""

from __future__ import annotations

import pytest

from app.urls import TEC_NAMESPACE
from tests.helpers import image_bytes, uploaded

NS = "/wp-json/calendar/events/v1"
TEC = f"/wp-json/{TEC_NAMESPACE}"
WP = "/wp-json/wp/v2"


# --- the alias ----------------------------------------------------------------------------


def test_the_rest_index_lists_both_namespaces_and_wordpress_core(client):
    namespaces = client.get("/wp-json/").get_json()["namespaces"]
    assert namespaces == ["calendar/events/v1", TEC_NAMESPACE, "wp/v2"]


def test_the_site_under_a_sub_path_is_its_home(under_blog, admin):
    """WordPress on a sub-path gives its home with the path (REST index ``url`` and
    ``home``, a user's ``link``); they lacked /blog (chk19s D1)."""
    index = under_blog("/blog/wp-json/").get_json()
    assert index["url"] == index["home"] == "http://localhost/blog"
    assert under_blog(f"/blog{WP}/users/me", headers=admin).get_json()["link"] == (
        "http://localhost/blog/"
    )
    listing = under_blog("/blog/", headers={"Accept": "application/json"}).get_json()
    assert listing["api"] == "http://localhost/blog/wp-json/"


def test_every_answer_under_the_alias_is_ours_with_links_in_the_namespace_asked(client, make_event):
    for n in range(3):
        make_event(title=f"Concert {n}", categories=["Music"], venue={"venue": "Hall"})
    ours = client.get(f"{NS}/events?per_page=2").get_json()
    theirs = client.get(f"{TEC}/events?per_page=2").get_json()
    assert theirs["next_rest_url"].startswith(f"http://localhost{TEC}/events")
    assert theirs["rest_url"].startswith(f"http://localhost{TEC}/events")
    event = theirs["events"][0]
    assert event["rest_url"] == f"http://localhost{TEC}/events/{event['id']}"
    assert event["categories"][0]["urls"]["self"].startswith(f"http://localhost{TEC}/categories/")
    # Apart from the namespace, byte for byte the same answer.
    assert _in_ours(theirs) == ours
    # Each namespace keeps its own cached answer.
    again = client.get(f"{NS}/events?per_page=2").get_json()
    assert again["rest_url"].startswith(f"http://localhost{NS}/")
    single = client.get(f"{TEC}/events/{event['id']}").get_json()
    assert single["rest_url"] == event["rest_url"]


def _in_ours(body):
    import json

    return json.loads(json.dumps(body).replace(TEC_NAMESPACE, "calendar/events/v1"))


def test_writes_work_through_the_alias(client, admin):
    response = client.post(
        f"{TEC}/events",
        json={"title": "Written", "start_date": "tomorrow 9am", "end_date": "tomorrow 10am"},
        headers=admin,
    )
    assert response.status_code == 201
    assert response.get_json()["rest_url"].startswith(f"http://localhost{TEC}/events/")
    term = client.post(f"{TEC}/tags", json={"name": "Jazz"}, headers=admin)
    assert term.status_code == 201
    assert term.headers["Location"] == f"http://localhost{TEC}/tags/{term.get_json()['id']}"
    body = {"title": "x", "start_date": "tomorrow 9am", "end_date": "tomorrow 10am"}
    assert client.post(f"{TEC}/events", json=body).status_code == 401


def test_the_namespace_index_and_route_descriptions_speak_the_namespace_asked(client):
    index = client.get(f"{TEC}/").get_json()
    assert index["namespace"] == TEC_NAMESPACE
    assert f"/{TEC_NAMESPACE}/events" in index["routes"]
    assert all(route.startswith(f"/{TEC_NAMESPACE}") for route in index["routes"])
    assert {entry["namespace"] for entry in index["routes"].values()} == {TEC_NAMESPACE}
    described = client.options(f"{TEC}/events").get_json()
    assert described["namespace"] == TEC_NAMESPACE
    assert client.get(f"{NS}/").get_json()["namespace"] == "calendar/events/v1"
    assert client.get(f"{TEC}/?namespace=calendar/events/v1").status_code == 404


def test_the_alias_is_a_prefix_of_whole_segments_and_works_under_language_roots(client):
    assert client.get("/wp-json/tribe/events/v10/events").status_code == 404
    assert client.get("/wp-json/tribe/events/v1events").status_code == 404
    french = client.get(f"/fr{TEC}/categories").get_json()
    assert french["rest_url"].startswith(f"http://localhost/fr{TEC}/categories")


def test_the_alias_can_be_turned_off(tmp_path):
    from app import create_app
    from tests.databases import drop_database, fresh_database

    setting = fresh_database(tmp_path, "off.db")
    app = create_app({"CALENDAR_DATABASE": setting, "TEC_NAMESPACE_ALIAS": False})
    try:
        client = app.test_client()
        assert client.get(f"{TEC}/events").status_code == 404
        assert TEC_NAMESPACE not in client.get("/wp-json/").get_json()["namespaces"]
    finally:
        app.extensions["calendar.db"].close_all()
        drop_database(setting)


# --- wp/v2 terms --------------------------------------------------------------------------


def test_tags_are_listed_searched_and_created_in_wordpress_shapes(client, admin, make_event):
    made = client.post(
        f"{WP}/tags", json={"name": "Jazz", "description": "All that"}, headers=admin
    )
    assert made.status_code == 201
    tag = made.get_json()
    assert {k: tag[k] for k in ("name", "slug", "taxonomy", "count", "description", "parent")} == {
        "name": "Jazz",
        "slug": "jazz",
        "taxonomy": "post_tag",
        "count": 0,
        "description": "All that",
        "parent": 0,
    }
    assert tag["link"] == "http://localhost/events/tag/jazz/"
    assert made.headers["Location"] == f"http://localhost{WP}/tags/{tag['id']}"
    # The same id as our own route.
    assert client.get(f"{NS}/tags/{tag['id']}").get_json()["slug"] == "jazz"
    make_event(tags=[tag["id"]])
    client.post(f"{WP}/tags", json={"name": "Blues"}, headers=admin)
    listed = client.get(f"{WP}/tags")
    assert [t["slug"] for t in listed.get_json()] == ["blues", "jazz"]  # empty ones too
    assert listed.headers["X-WP-Total"] == "2"
    assert client.get(f"{WP}/tags?search=jaz").get_json()[0]["count"] == 1
    assert [t["id"] for t in client.get(f"{WP}/tags?slug=jazz").get_json()] == [tag["id"]]
    first = client.get(f"{WP}/tags?per_page=1&search=u")
    assert first.headers["X-WP-TotalPages"] == "1"
    paged = client.get(f"{WP}/tags?per_page=1")
    assert paged.headers["X-WP-TotalPages"] == "2"
    assert 'rel="next"' in paged.headers["Link"] and "per_page=1" in paged.headers["Link"]
    assert client.get(f"{WP}/tags?per_page=1&page=2").get_json()[0]["slug"] == "jazz"
    assert client.get(f"{WP}/tags/{tag['id']}").get_json()["name"] == "Jazz"


def test_categories_keep_their_parents_and_a_duplicate_is_wordpress_term_exists(client, admin):
    music = client.post(f"{WP}/tribe_events_cat", json={"name": "Music"}, headers=admin).get_json()
    assert music["taxonomy"] == "tribe_events_cat"
    rock = client.post(
        f"{WP}/tribe_events_cat", data={"name": "Rock", "parent": str(music["id"])}, headers=admin
    )
    assert rock.status_code == 201 and rock.get_json()["parent"] == music["id"]
    again = client.post(f"{WP}/tribe_events_cat", json={"name": "Music"}, headers=admin)
    assert again.status_code == 400
    assert again.get_json()["code"] == "term_exists"
    assert again.get_json()["data"]["term_id"] == music["id"]


def test_term_writes_and_bad_queries_answer_as_our_routes(client, as_role):
    assert client.post(f"{WP}/tags", json={"name": "x"}).status_code == 401
    author = as_role("author")
    assert client.post(f"{WP}/tags", json={"name": "x"}, headers=author).status_code == 403
    editor = as_role("editor")
    missing = client.post(f"{WP}/tags", json={}, headers=editor)
    assert (
        missing.status_code == 400 and missing.get_json()["code"] == "rest_missing_callback_param"
    )
    for query in ("per_page=101", "per_page=0", "page=x", "order=up"):
        answer = client.get(f"{WP}/tags?{query}")
        assert answer.status_code == 400, query
        assert answer.get_json()["code"] == "rest_invalid_param"
    assert client.get(f"{WP}/tags/999").status_code == 404
    assert client.get(f"{WP}/tags").get_json() == []


# --- wp/v2 media --------------------------------------------------------------------------


def test_media_upload_as_wordpress_takes_it_and_answers_an_attachment(client, admin):
    data = image_bytes(size=(800, 600))
    raw = client.post(
        f"{WP}/media",
        data=data,
        headers={
            **admin,
            "Content-Type": "image/jpeg",
            "Content-Disposition": 'attachment; filename="poster.jpg"',
        },
    )
    assert raw.status_code == 201
    media = raw.get_json()
    assert media["mime_type"] == "image/jpeg" and media["media_type"] == "image"
    details = media["media_details"]
    assert (details["width"], details["height"]) == (800, 600)
    assert {"thumbnail", "medium", "full"} <= set(details["sizes"])
    assert details["sizes"]["full"]["source_url"] == media["source_url"]
    assert client.get(media["source_url"].removeprefix("http://localhost")).status_code == 200
    # The same id as our own route.
    assert client.get(f"{NS}/media/{media['id']}").get_json()["id"] == media["id"]
    multipart = client.post(
        f"{WP}/media",
        data={"file": (__import__("io").BytesIO(data), "poster.jpg")},
        headers=admin,
        content_type="multipart/form-data",
    )
    assert multipart.status_code == 201
    listed = client.get(f"{WP}/media")
    assert listed.headers["X-WP-Total"] == "2"
    assert [m["id"] for m in listed.get_json()] == [multipart.get_json()["id"], media["id"]]
    assert client.get(f"{WP}/media/{media['id']}").get_json()["source_url"] == media["source_url"]


def test_media_rules_are_our_own(client, admin, as_role, make_event):
    data = image_bytes()
    assert client.post(f"{WP}/media", data=data).status_code == 401
    subscriber = as_role("subscriber")
    assert client.post(f"{WP}/media", data=data, headers=subscriber).status_code == 403
    junk = client.post(f"{WP}/media", data=b"not an image", headers=admin)
    assert junk.status_code == 400 and junk.get_json()["code"] == "rest_invalid_param"
    # An image only a draft shows is as hidden as the draft, listed and read alike.
    hidden = uploaded(client, admin, data)
    make_event(status="draft", image=hidden["id"])
    shown = uploaded(client, admin, image_bytes(colour=(1, 2, 3)))
    make_event(image=shown["id"])
    assert [m["id"] for m in client.get(f"{WP}/media").get_json()] == [shown["id"]]
    assert client.get(f"{WP}/media/{hidden['id']}").status_code == 404
    assert len(client.get(f"{WP}/media", headers=admin).get_json()) == 2
    assert client.get(f"{WP}/media?page=5").status_code == 400
    assert client.get(f"{WP}/media/99999").status_code == 404


def test_the_post_type_routes_and_media_honour_include_as_the_term_routes_do(client, admin):
    """wp/v2/tags?include= keeps the ids asked; wp/v2/tribe_venue and tribe_organizer
    (WordPress's posts controller, which takes ``include``) answered every item, and
    wp/v2/media every image, its ``search`` ignored too (chk17m D10)."""
    first = client.post(f"{NS}/organizers", json={"organizer": "First"}, headers=admin).get_json()
    client.post(f"{NS}/organizers", json={"organizer": "Second"}, headers=admin)
    hall = client.post(f"{NS}/venues", json={"venue": "Hall A"}, headers=admin).get_json()
    other = client.post(f"{NS}/venues", json={"venue": "Hall B"}, headers=admin).get_json()
    organizers = client.get(f"{WP}/tribe_organizer?include={first['id']}").get_json()
    assert [o["id"] for o in organizers] == [first["id"]]
    venues = client.get(f"{WP}/tribe_venue?include={hall['id']}").get_json()
    assert [v["id"] for v in venues] == [hall["id"]]
    both = client.get(f"{WP}/tribe_venue?include[]={hall['id']}&include[]={other['id']}")
    assert sorted(v["id"] for v in both.get_json()) == sorted([hall["id"], other["id"]])
    by_slug = client.get(f"{WP}/tribe_venue?slug=hall-a&include={other['id']}").get_json()
    assert by_slug == []  # the slug's item, and among the ids asked
    kept = uploaded(client, admin, image_bytes(), name="poster.jpg")
    uploaded(client, admin, image_bytes(colour=(1, 2, 3)), name="banner.jpg")
    assert [
        m["id"] for m in client.get(f"{WP}/media?include={kept['id']}", headers=admin).get_json()
    ] == [kept["id"]]
    found = client.get(f"{WP}/media?search=poster", headers=admin).get_json()
    assert [m["id"] for m in found] == [kept["id"]]


# --- wp/v2 users --------------------------------------------------------------------------


def test_users_me_answers_who_the_credentials_are(client, as_role):
    anonymous = client.get(f"{WP}/users/me")
    assert anonymous.status_code == 401
    assert anonymous.get_json()["code"] == "rest_not_logged_in"
    editor = as_role("editor", "mira")
    me = client.get(f"{WP}/users/me", headers=editor).get_json()
    assert (me["id"], me["name"], me["slug"]) == (as_role.user_id("mira"), "mira", "mira")
    wrong = client.get(f"{WP}/users/me", headers={"Authorization": "Basic bWlyYTpubw=="})
    assert wrong.status_code == 401


def test_term_lists_take_every_form_of_a_list(client, admin):
    ids = [
        client.post(f"{WP}/tribe_events_cat", json={"name": n}, headers=admin).get_json()["id"]
        for n in ("A", "B", "C")
    ]
    for query in (
        f"include[]={ids[0]}&include[]={ids[1]}",
        f"include={ids[0]}&include={ids[1]}",
        f"include={ids[0]},{ids[1]}",
        "slug[]=a&slug[]=b",
        "slug=a,b",
        f"exclude[]={ids[2]}",
    ):
        found = [t["id"] for t in client.get(f"{WP}/tribe_events_cat?{query}").get_json()]
        assert found == ids[:2], query


def test_the_alias_index_documents_its_own_namespace_as_the_default(client):
    index = client.get(f"{TEC}/").get_json()
    args = index["routes"][f"/{TEC_NAMESPACE}"]["endpoints"][0]["args"]
    assert args["namespace"]["default"] == TEC_NAMESPACE
    assert client.get(f"{TEC}/?namespace={TEC_NAMESPACE}").status_code == 200
    assert (
        client.get(f"{NS}/").get_json()["routes"]["/calendar/events/v1"]["endpoints"][0]["args"][
            "namespace"
        ]["default"]
        == "calendar/events/v1"
    )


# --- wp/v2 post types of the plugin ---------------------------------------------------------


def test_a_writer_finds_or_makes_venues_and_organizers_through_the_post_type_routes(
    client, admin, as_role
):
    made = client.post(
        f"{WP}/tribe_venue",
        json={
            "title": "Town Hall",
            "status": "publish",
            "meta": {"_VenueAddress": "1 Main St", "_VenueCity": "Springfield", "_VenueZip": "12"},
        },
        headers=admin,
    )
    assert made.status_code == 201
    venue = made.get_json()
    assert venue["type"] == "tribe_venue" and venue["title"]["rendered"] == "Town Hall"
    assert venue["meta"]["_VenueCity"] == "Springfield"
    ours = client.get(f"{NS}/venues/{venue['id']}").get_json()
    assert (ours["venue"], ours["address"], ours["zip"]) == ("Town Hall", "1 Main St", "12")
    assert [v["id"] for v in client.get(f"{WP}/tribe_venue?search=town").get_json()] == [
        venue["id"]
    ]
    assert [v["id"] for v in client.get(f"{WP}/tribe_venue?slug=town-hall").get_json()] == [
        venue["id"]
    ]
    organizer = client.post(
        f"{WP}/tribe_organizer",
        json={"title": {"raw": "City Arts"}, "meta": {"_OrganizerEmail": "arts@example.org"}},
        headers=admin,
    ).get_json()
    assert (
        client.get(f"{NS}/organizers/{organizer['id']}").get_json()["email"] == "arts@example.org"
    )
    # Our rules: anonymous callers may not write, a contributor's venue is not public.
    assert client.post(f"{WP}/tribe_venue", json={"title": "X"}).status_code == 401
    contributor = as_role("contributor")
    draft = client.post(f"{WP}/tribe_venue", json={"title": "Back room"}, headers=contributor)
    assert draft.status_code == 201 and draft.get_json()["status"] in ("draft", "pending")
    assert client.get(f"{WP}/tribe_venue?search=back").get_json() == []
    assert client.get(f"{WP}/tribe_venue?slug=back-room").get_json() == []
    assert client.get(f"{WP}/tribe_venue/{draft.get_json()['id']}").status_code == 403
    assert client.post(f"{WP}/tribe_venue", json={}, headers=admin).status_code == 400


def test_an_events_tags_categories_and_image_are_set_through_its_post_type_route(
    client, admin, make_event
):
    event = make_event()
    tag = client.post(f"{WP}/tags", json={"name": "jazz"}, headers=admin).get_json()
    category = client.post(f"{WP}/tribe_events_cat", json={"name": "Music"}, headers=admin)
    image = client.post(
        f"{WP}/media", data=image_bytes(), headers={**admin, "Content-Type": "image/jpeg"}
    ).get_json()
    changed = client.post(
        f"{WP}/tribe_events/{event['id']}",
        json={
            "tags": [tag["id"]],
            "tribe_events_cat": [category.get_json()["id"]],
            "featured_media": image["id"],
        },
        headers=admin,
    )
    assert changed.status_code == 200
    post = changed.get_json()
    assert (post["tags"], post["featured_media"]) == ([tag["id"]], image["id"])
    ours = client.get(f"{NS}/events/{event['id']}").get_json()
    assert [t["slug"] for t in ours["tags"]] == ["jazz"]
    assert [c["slug"] for c in ours["categories"]] == ["music"]
    assert ours["image"]["id"] == image["id"]
    assert client.post(f"{WP}/tribe_events/{event['id']}", json={"tags": []}).status_code == 401
    assert client.get(f"{WP}/tribe_events/{event['id']}").get_json()["tags"] == [tag["id"]]
    assert client.get(f"{WP}/tribe_events/99999").status_code == 404


def test_a_protected_event_is_masked_on_its_post_type_route_too(client, admin, make_event):
    event = make_event(password="sesame", description="<p>Secret</p>")
    post = client.get(f"{WP}/tribe_events/{event['id']}")
    assert post.status_code == 403
    opened = client.get(f"{WP}/tribe_events/{event['id']}?password=sesame").get_json()
    assert opened["content"]["rendered"] == "<p>Secret</p>"


# --- what an outside tester found (2026-12) -----------------------------------------------


def test_wordpress_term_routes_filter_by_post_as_the_plugins_own(client, admin, make_event):
    """WordPress's terms controller takes ``post`` (the terms of that post; the block editor
    reads an event's terms so); the plugin's own /tags?post= does, and wp/v2 with the same filter (it listed every term)."""
    made = make_event(title="Tagged", tags=["Jazz"], categories=["Music"])
    event_id = made["id"] if isinstance(made, dict) else made.get_json()["id"]
    make_event(title="Other", tags=["Rock"], categories=["Dance"])
    ours = client.get(f"{TEC}/tags?post={event_id}").get_json()["tags"]
    assert [t["name"] for t in ours] == ["Jazz"]
    assert [t["name"] for t in client.get(f"{WP}/tags?post={event_id}").get_json()] == ["Jazz"]
    cats = client.get(f"{WP}/tribe_events_cat?post={event_id}").get_json()
    assert [t["name"] for t in cats] == ["Music"]
    for path in ("tags", "tribe_events_cat"):  # an id of no event, as on our route
        refused = client.get(f"{WP}/{path}?post=99999")
        assert refused.status_code == 400 and "post" in refused.get_json()["data"]["params"]


def test_term_and_media_writes_are_refused_in_wordpress_words(client, as_role):
    terms = "Sorry, you are not allowed to create terms in this taxonomy."
    posts = "Sorry, you are not allowed to create posts as this user."
    author, subscriber = as_role("author"), as_role("subscriber")
    for path, body, headers, status, message in (
        ("tags", {"name": "x"}, {}, 401, terms),
        ("tags", {"name": "x"}, author, 403, terms),
        ("tribe_events_cat", {"name": "x"}, {}, 401, terms),
        ("tribe_events_cat", {"name": "x"}, author, 403, terms),
        ("media", None, {}, 401, posts),
        ("media", None, subscriber, 403, posts),
    ):
        answer = client.post(f"{WP}/{path}", json=body, headers=headers)
        assert answer.status_code == status, (path, headers)
        assert answer.get_json()["code"] == "rest_cannot_create"
        assert answer.get_json()["message"] == message
    # A term write without its name is refused as malformed first (SPEC §5; WordPress checks
    # required args before the permission callback): a 400, even when anonymous.
    missing = client.post(f"{WP}/tribe_events_cat", json={})
    assert missing.status_code == 400
    assert missing.get_json()["code"] == "rest_missing_callback_param"


def test_what_is_not_there_is_answered_in_wordpress_words(client, admin):
    for path in ("tribe_events_cat/9999", "tags/9999"):
        missing = client.get(f"{WP}/{path}")
        assert missing.status_code == 404, path
        assert (missing.get_json()["code"], missing.get_json()["message"]) == (
            "rest_term_invalid",
            "Term does not exist.",
        )
    media = client.get(f"{WP}/media/99999")
    assert media.status_code == 404
    assert (media.get_json()["code"], media.get_json()["message"]) == (
        "rest_post_invalid_id",
        "Invalid post ID.",
    )
    empty = client.post(f"{WP}/media", headers=admin)
    assert empty.status_code == 400
    assert (empty.get_json()["code"], empty.get_json()["message"]) == (
        "rest_upload_no_data",
        "No data supplied.",
    )
    french = client.get(f"/fr{WP}/tags/9999").get_json()["message"]
    assert french != "Term does not exist."


def test_the_wordpress_namespace_has_its_index(client):
    index = client.get(WP)
    assert index.status_code == 200
    body = index.get_json()
    assert body["namespace"] == "wp/v2"
    assert "/wp/v2/tags" in body["routes"] and "/wp/v2/media" in body["routes"]
    assert {entry["namespace"] for entry in body["routes"].values()} == {"wp/v2"}


def test_plain_permalinks_rest_route_answers_as_the_pretty_address(client, make_event):
    make_event(title="Plain")
    pretty = client.get(f"{TEC}/events?per_page=1").get_json()
    plain = client.get("/?rest_route=/tribe/events/v1/events&per_page=1")
    assert plain.status_code == 200
    assert plain.get_json() == pretty
    assert (
        client.get("/?rest_route=/").get_json()["namespaces"]
        == client.get("/wp-json/").get_json()["namespaces"]
    )
    assert client.get("/?rest_route=/no/such/route").status_code == 404


@pytest.mark.parametrize(
    "path", ["/index.php?rest_route=/", "/index.php?rest_route=/tribe/events/v1/events"]
)
def test_plain_permalinks_rest_address_with_index_php(client, make_event, path):
    """chk18b D9: without pretty permalinks WordPress's own rest_url() is
    `{home}/index.php?rest_route=…` (get_rest_url() adds `index.php` so that nginx need not
    redirect), and that is the address the plugin's `rest_url`s and the `Link:
    rel="https://api.w.org/"` header give there. It was a 404 beside `/?rest_route=`.
    SPEC §17: "a client written for the plugin works by changing only the host"."""
    make_event(title="Listed")
    answer = client.get(path)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == client.get(path.replace("/index.php", "/")).get_json()


def test_categories_are_filtered_by_parent(client, admin):
    music = client.post(f"{WP}/tribe_events_cat", json={"name": "Music"}, headers=admin)
    parent = music.get_json()["id"]
    rock = client.post(
        f"{WP}/tribe_events_cat", json={"name": "Rock", "parent": parent}, headers=admin
    ).get_json()
    client.post(f"{WP}/tribe_events_cat", json={"name": "Theatre"}, headers=admin)
    children = client.get(f"{WP}/tribe_events_cat?parent={parent}").get_json()
    assert [c["id"] for c in children] == [rock["id"]]
    tops = client.get(f"{WP}/tribe_events_cat?parent=0").get_json()
    assert [c["slug"] for c in tops] == ["music", "theatre"]
    assert client.get(f"{WP}/tribe_events_cat?parent=x").status_code == 400


def test_a_wordpress_media_upload_answers_where_the_new_attachment_is(client, as_role):
    """Found by an outside check (fourteenth session): WordPress answers a created
    attachment with 201 and ``Location`` (its ``wp/v2/media/{id}``), as it does for terms."""
    author = as_role("author")
    headers = {
        **author,
        "Content-Type": "image/png",
        "Content-Disposition": 'attachment; filename="poster.png"',
    }
    response = client.post(f"{WP}/media", data=image_bytes("PNG", (400, 300)), headers=headers)
    assert response.status_code == 201
    created = response.get_json()
    assert response.headers.get("Location") == f"http://localhost{WP}/media/{created['id']}"
    assert client.get(response.headers["Location"]).get_json()["id"] == created["id"]


# --- WordPress's global parameters, on every route of the API -----------------------------

ALIAS = f"/wp-json/{TEC_NAMESPACE}"


def test_fields_keeps_only_the_fields_asked_for(client, make_event, admin):
    """rest_filter_response_fields: every answer, plugin routes included, cut to
    ``_fields`` (a list's items each; ``a.b`` a member of ``a``; order of the answer)."""
    event = make_event(title="Lean")
    one = client.get(f"{ALIAS}/events/{event['id']}", query_string={"_fields": "title,id"})
    assert one.status_code == 200
    assert one.get_data() == b'{"id":%d,"title":"Lean"}' % event["id"]
    nested = client.get(
        f"{ALIAS}/events/{event['id']}", query_string={"_fields": "id,cost_details.values"}
    )
    assert nested.get_json() == {"id": event["id"], "cost_details": {"values": []}}
    listing = client.get(f"{ALIAS}/events", query_string={"_fields": "total,total_pages"})
    assert listing.get_json() == {"total": 1, "total_pages": 1}
    listing_etag = listing.headers["ETag"]
    assert client.get(f"{ALIAS}/events").headers["ETag"] != listing_etag
    users = client.get("/wp-json/wp/v2/users/me", query_string={"_fields": "slug"}, headers=admin)
    assert users.get_json() == {"slug": "administrator"}
    missing = client.get(f"{ALIAS}/events/999999", query_string={"_fields": "id"})
    assert missing.status_code == 404 and missing.get_json()["code"]  # errors stay whole


def test_method_parameter_overrides_a_posts_method(client, make_event, admin):
    """WordPress's REST server takes the method from ``?_method=`` or the
    ``X-HTTP-Method-Override`` header (clients behind proxies that refuse DELETE). Only a
    POST: a GET never writes."""
    event = make_event(title="Doomed")
    response = client.post(f"{ALIAS}/events/{event['id']}?_method=DELETE", headers=admin)
    assert response.status_code == 200 and response.get_json()["status"] == "trash"
    again = client.get(f"{ALIAS}/events/{event['id']}", headers=admin)
    assert again.status_code == 403 and again.get_json()["code"] == "event-no-longer-available"
    other = make_event(title="Doomed too")
    headers = {**admin, "X-HTTP-Method-Override": "delete"}
    response = client.post(f"{ALIAS}/events/{other['id']}", headers=headers)
    assert response.status_code == 200 and response.get_json()["status"] == "trash"
    kept = make_event(title="Kept")
    asked = client.get(f"{ALIAS}/events/{kept['id']}?_method=DELETE&force=true", headers=admin)
    assert asked.status_code == 200 and asked.get_json()["status"] == "publish"


def test_jsonp_wraps_the_answer_in_the_callback_for_anyone(client, make_event, admin):
    """``?_jsonp=cb`` answers ``/**/cb(<json>)`` as JavaScript, as WordPress does for the old
    widgets that read a calendar with a ``<script>`` element; such an element of any site
    carries the browser's credentials, so it is answered as to an anonymous caller."""
    make_event(title="Wrapped")
    make_event(title="Secret draft", status="draft")
    response = client.get(f"{ALIAS}/events", query_string={"_jsonp": "cb"}, headers=admin)
    assert response.status_code == 200
    assert response.mimetype == "application/javascript"
    text = response.get_data(as_text=True)
    assert text.startswith("/**/cb(") and text.endswith(")")
    assert '"Wrapped"' in text and "Secret draft" not in text
    missing = client.get(f"{ALIAS}/events/999999", query_string={"_jsonp": "my.cb_2"})
    assert missing.status_code == 404
    assert missing.get_data(as_text=True).startswith('/**/my.cb_2({"code":')
    bad = client.get(f"{ALIAS}/events", query_string={"_jsonp": "alert(1)//"})
    assert bad.status_code == 400 and bad.mimetype == "application/json"
    assert bad.get_json()["code"] == "rest_callback_invalid"


# --- a second look at the fifteenth session's fixes -----------------------------------


def test_fields_given_as_a_php_array_cuts_the_answer(client, make_event):
    """WordPress reads ``?_fields[]=id&_fields[]=title`` as the list [id, title]
    (``wp_parse_list`` of an array): the answer holds those two fields. It was the whole
    event."""
    event = make_event(title="Cut me")
    answer = client.get(
        f"{NS}/events/{event['id']}?_fields[]=id&_fields[]=title", check_conformance=False
    )
    assert answer.status_code == 200
    assert set(answer.get_json()) == {"id", "title"}


def test_fields_into_a_scalar_keeps_the_scalar_as_wordpress(client, make_event):
    """``_rest_array_intersect_key_recursive`` only recurses when the value is an array: a
    string asked into (``title.rendered`` on this API, where ``title`` is a string) is
    kept whole. It became ``[]``."""
    event = make_event(title="Kept title")
    answer = client.get(
        f"{NS}/events/{event['id']}?_fields=title.rendered,id", check_conformance=False
    )
    assert answer.get_json() == {"id": event["id"], "title": "Kept title"}


def test_method_override_to_head_never_breaks_the_answer_of_a_post(client, make_event):
    """``POST …?_method=HEAD`` was served as a HEAD: a ``Content-Length`` of the whole
    event and no body, the answer of a POST; the client waits for bytes that never come
    (requests: IncompleteRead; a kept-alive connection is out of step)."""
    event = make_event()
    for how in (
        {"query_string": {"_method": "HEAD"}},
        {"headers": {"X-HTTP-Method-Override": "HEAD"}},
    ):
        answer = client.post(f"{NS}/events/{event['id']}", check_conformance=False, **how)
        length = answer.headers.get("Content-Length")
        assert length is None or int(length) == len(answer.data), (how, length, len(answer.data))


def test_method_named_twice_takes_the_last_as_php_reads_the_query(client, admin, make_event):
    """PHP's ``$_GET['_method']`` is the last of repeated names; ``?_method=DELETE&_method=GET``
    is a GET at WordPress. It trashed the event."""
    event = make_event()
    answer = client.post(f"{NS}/events/{event['id']}?_method=DELETE&_method=GET", headers=admin)
    assert answer.status_code == 200 and answer.get_json()["status"] == "publish", answer.get_json()


@pytest.mark.parametrize(
    "post_type, create, field",
    [
        ("tribe_venue", "venues", "venue"),
        ("tribe_organizer", "organizers", "organizer"),
    ],
)
@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_wp_v2_linked_post_types_write_on_put_and_patch(
    client, admin, post_type, create, field, method
):
    """wp/v2/tribe_venue/{id} (and tribe_organizer) take GET, POST, PUT and PATCH
    (WordPress's EDITABLE): all three writes write, as tribe_events/{id} does (a PUT or
    PATCH once answered 200 with the write dropped)."""
    made = client.post(f"{NS}/{create}", json={field: "Old name"}, headers=admin).get_json()
    answer = client.open(
        f"{WP}/{post_type}/{made['id']}",
        method=method,
        json={"title": "New name"},
        headers=admin,
    )
    assert answer.status_code == 200
    assert client.get(f"{NS}/{create}/{made['id']}").get_json()[field] == "New name"


def test_wp_v2_venue_put_without_credentials_is_refused(client, admin):
    made = client.post(f"{NS}/venues", json={"venue": "Hall"}, headers=admin).get_json()
    answer = client.open(f"{WP}/tribe_venue/{made['id']}", method="PUT", json={"title": "Mine"})
    assert answer.status_code == 401, (answer.status_code, answer.get_json())


def test_an_empty_jsonp_parameter_is_no_jsonp(client, make_event):
    """WP_REST_Server::serve_request: `if ( $jsonp_callback )` — an empty `_jsonp` (PHP
    falsy) asks no JSONP, so the answer is the plain JSON one; only a non-empty callback of
    other characters is a 400 rest_callback_invalid."""
    make_event()
    plain = client.get(f"{NS}/events").get_json()
    for query in ("_jsonp=", "_jsonp"):
        response = client.get(f"{NS}/events?{query}")
        assert response.status_code == 200, (query, response.get_json())
        assert response.mimetype == "application/json"
        assert response.get_json()["total"] == plain["total"] == 1


def test_users_me_slug_is_the_logins_nicename(client, as_role):
    """SPEC §17: GET wp/v2/users/me answers WordPress's shape; a user's `slug` there is
    user_nicename, sanitize_title of the login (lower case, '@' and '.' not kept), as the
    README's e-mail sign-in now invites logins such as 'Alice'."""
    headers = as_role("editor", "Alice")
    me = client.get("/wp-json/wp/v2/users/me", headers=headers).get_json()
    assert me["name"] == "Alice"
    assert me["slug"] == "alice"


def test_a_post_served_as_get_reads_its_json_body_as_wordpress_does(client, admin, make_event):
    """WordPress's REST request reads JSON body parameters whatever the method
    (WP_REST_Request::get_parameter_order puts 'JSON' first), so `POST ?_method=GET` with
    a JSON body is a GET with those parameters: how a client sends a query too long for a
    URL. Ours serves it as a GET without them (every event)."""
    make_event(title="Alpha")
    make_event(title="Beta")
    response = client.post(
        f"{NS}/events?_method=GET",
        json={"search": "Alpha"},
        headers=admin,
        check_conformance=False,  # /doc lists no POST 200: it is served as GET
    )
    assert response.status_code == 200
    assert [e["title"] for e in response.get_json()["events"]] == ["Alpha"]


def test_a_get_with_a_json_body_is_not_answered_from_the_cache_of_its_address(client, make_event):
    """A GET's JSON body is parameters (above), which the response cache's key does not
    hold: such a request is neither answered from it nor kept in it."""
    make_event(title="Alpha")
    make_event(title="Beta")
    for search, titles in (("Alpha", ["Alpha"]), ("Beta", ["Beta"])):
        answer = client.post(
            f"{NS}/events?_method=GET", json={"search": search}, check_conformance=False
        )
        assert [e["title"] for e in answer.get_json()["events"]] == titles
    assert client.get(f"{NS}/events?_method=GET").get_json()["total"] == 2


def test_a_malformed_wp_v2_term_write_is_a_400_even_when_anonymous(client):
    """SPEC §5: validation before authorisation, on WordPress's routes as on ours."""
    for route in (f"{WP}/tags", f"{WP}/tribe_events_cat"):
        tribe = client.post(f"{NS}/categories", json={"name": ["x"]})
        assert tribe.status_code == 400  # our own namespace validates first
        answer = client.post(route, json={"name": ["x"]})
        assert answer.status_code == 400, (route, answer.get_json())
        assert answer.get_json()["code"] == "rest_invalid_param"


def test_a_wp_v2_term_write_with_broken_json_is_rest_invalid_json_when_anonymous(client):
    answer = client.post(f"{WP}/tags", data="{", headers={"Content-Type": "application/json"})
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["code"] == "rest_invalid_json"


def test_a_wp_v2_category_named_in_decomposed_form_is_a_duplicate(client, admin):
    """As on our routes (tests/test_terms.py): NFC and NFD spellings are one name."""
    assert (
        client.post(f"{WP}/tribe_events_cat", json={"name": "Zoé"}, headers=admin).status_code
        == 201
    )
    again = client.post(f"{WP}/tribe_events_cat", json={"name": "Zoe\u0301"}, headers=admin)
    assert again.status_code == 400 and again.get_json()["code"] == "term_exists"


def test_a_term_form_that_is_not_utf8_is_not_said_to_miss_its_name(client, admin):
    answer = client.post(
        "/wp-json/wp/v2/tags",
        data=b"name=Caf\xe9",
        headers={**admin, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 400
    assert answer.get_json()["code"] != "rest_missing_callback_param", answer.get_json()


@pytest.mark.parametrize("taxonomy", ["tags", "tribe_events_cat"])
@pytest.mark.parametrize("asked", ["BIG-MUSIC", "Big Music"])
def test_wp_v2_term_slug_filter_is_sanitised_like_wordpress(client, admin, taxonomy, asked):
    """WP_Term_Query runs every `slug` through sanitize_title(), so `?slug=BIG-MUSIC` or
    `?slug=Big Music` finds the term `big-music`, as `?slug=HALL` finds the venue `hall`."""
    made = client.post(f"{WP}/{taxonomy}", json={"name": "Big Music"}, headers=admin).get_json()
    assert made["slug"] == "big-music"
    found = client.get(f"{WP}/{taxonomy}", query_string={"slug": asked}).get_json()
    assert [t["id"] for t in found] == [made["id"]]


@pytest.mark.parametrize(
    "route,make",
    [
        ("tags", {"name": "Jazz"}),
        ("tribe_events_cat", {"name": "Jazz"}),
        ("tribe_venue", {"title": "Jazz"}),
        ("tribe_organizer", {"title": "Jazz"}),
    ],
)
def test_a_wp_v2_post_served_as_get_reads_its_json_body(client, admin, route, make):
    """WordPress reads JSON body parameters whatever the method (WP_REST_Request's parameter
    order puts JSON first), so `POST ...?_method=GET` with {"search": "jaz"} is a search,
    as on our own namespaces' listings."""
    other = {k: "Blues" for k in make}
    for body in (make, other):
        assert client.post(f"{WP}/{route}", json=body, headers=admin).status_code == 201
    for asked in ({"search": "jaz"}, {"slug": "jazz"}, {"per_page": 1, "search": "jazz"}):
        found = client.post(f"{WP}/{route}?_method=GET", json=asked)
        assert found.status_code == 200
        assert [item["slug"] for item in found.get_json()] == ["jazz"], (asked, found.get_json())


@pytest.mark.parametrize(
    "route", ["tags", "tribe_events_cat", "media", "tribe_venue", "tribe_organizer"]
)
def test_wp_v2_collections_allow_every_method_the_caller_may_use(client, admin, route):
    """WordPress's rest_send_allow_header lists every method of the matched route whose
    permission check passes (the wp/v2 index itself lists GET and POST for these routes):
    an administrator's GET says "GET, POST", and an anonymous POST says "GET", though our
    views serve each method of these routes apart."""
    assert client.get(f"/wp-json/wp/v2/{route}", headers=admin).headers.get("Allow") == "GET, POST"
    refused = client.post(f"/wp-json/wp/v2/{route}", json={"name": "x", "title": "x"})
    assert refused.status_code in (400, 401)
    assert refused.headers.get("Allow") == "GET"


@pytest.mark.parametrize(
    "sent, named",
    [
        (
            {"title": "", "tribe_events_cat": [99999], "featured_media": 99997},
            {"title", "tribe_events_cat", "featured_media"},
        ),
        ({"status": "zz", "featured_media": 99997}, {"status", "featured_media"}),
    ],
)
def test_the_event_post_type_route_names_every_bad_parameter_as_sent(
    client, admin, make_event, sent, named
):
    """Outside check chk17m D4 (SPEC §6, §17): our own route names the title, categories and
    image in one answer; WordPress's route of the post type named only the body's own
    faults, and by our fields' names, not those the client sent."""
    event_id = make_event(title="E")["id"]
    ours = client.post(
        f"{NS}/events/{event_id}",
        json={"title": "", "categories": [99999], "image": 99997},
        headers=admin,
    )
    assert set(ours.get_json()["data"]["params"]) == {"title", "categories", "image"}
    theirs = client.post(f"{WP}/tribe_events/{event_id}", json=sent, headers=admin)
    assert theirs.status_code == 400
    assert set(theirs.get_json()["data"]["params"]) == named, theirs.get_json()


@pytest.mark.parametrize(
    "post_type, create, field, url_key",
    [
        ("tribe_venue", "venues", "venue", "_VenueURL"),
        ("tribe_organizer", "organizers", "organizer", "_OrganizerWebsite"),
    ],
)
def test_the_linked_post_type_routes_name_the_parameters_the_client_sent(
    client, admin, post_type, create, field, url_key
):
    """Outside check chk17m D5 (SPEC §6, §17): an empty title was answered as
    data.params.venue (or organizer), a bad meta URL as website: fields the client never
    sent. A meta key is named as WordPress writes it, meta[key]."""
    made = client.post(f"{NS}/{create}", json={field: "Hall"}, headers=admin).get_json()
    for path in (f"{WP}/{post_type}", f"{WP}/{post_type}/{made['id']}"):
        answer = client.post(path, json={"title": "", "status": "publish"}, headers=admin)
        assert answer.status_code == 400
        assert set(answer.get_json()["data"]["params"]) == {"title"}, answer.get_json()
        answer = client.post(
            path,
            json={"title": "", "meta": {url_key: "nope"}, "featured_media": 99997},
            headers=admin,
        )
        assert answer.status_code == 400
        named = set(answer.get_json()["data"]["params"])
        assert named == {"title", f"meta[{url_key}]", "featured_media"}, answer.get_json()
    missing = client.post(f"{WP}/{post_type}", json={"status": "publish"}, headers=admin)
    assert missing.get_json()["data"]["params"] == ["title"], missing.get_json()


@pytest.mark.parametrize("route", ["tags", "tribe_events_cat"])
def test_wp_v2_terms_honour_orderby(client, make_event, route):
    """chk18b D8: WordPress's term routes order by `orderby` (`count`, `id`, `slug`, `name`,
    `include`, ...) as clients such as a "popular tags" widget ask, and refuse a name they do
    not know (400 `rest_invalid_param` naming `orderby`); SPEC §17 promises WordPress's
    shapes for `wp/v2/tags`. `orderby` was ignored (always by name), while our own `/tags`
    honours it."""
    field = "tags" if route == "tags" else "categories"
    make_event(title="A", **{field: ["zulu", "alpha"]})
    make_event(title="B", **{field: ["zulu", "alpha"]})
    make_event(title="C", **{field: ["alpha", "mike"]})
    # counts: alpha 3, zulu 2, mike 1 (by name: alpha, mike, zulu)
    ours = client.get(f"{NS}/{field}?orderby=count&order=desc&hide_empty=false").get_json()
    assert [t["slug"] for t in ours[field]] == ["alpha", "zulu", "mike"]
    theirs = client.get(f"{WP}/{route}?orderby=count&order=desc").get_json()
    assert [t["slug"] for t in theirs] == ["alpha", "zulu", "mike"]
    by_id = client.get(f"{WP}/{route}?orderby=id&order=asc").get_json()
    assert [t["slug"] for t in by_id] == ["zulu", "alpha", "mike"]  # created in that order
    assert [t["id"] for t in by_id] == sorted(t["id"] for t in by_id)
    by_slug = client.get(f"{WP}/{route}?orderby=slug&order=desc").get_json()
    assert [t["slug"] for t in by_slug] == ["zulu", "mike", "alpha"]
    ids = {t["slug"]: t["id"] for t in by_id}
    asked = f"{ids['mike']},{ids['zulu']},{ids['alpha']}"
    included = client.get(f"{WP}/{route}?orderby=include&include={asked}").get_json()
    assert [t["slug"] for t in included] == ["mike", "zulu", "alpha"]
    unknown = client.get(f"{WP}/{route}?orderby=foo")
    assert unknown.status_code == 400
    assert unknown.get_json()["code"] == "rest_invalid_param"
    assert "orderby" in unknown.get_json()["data"]["params"]
