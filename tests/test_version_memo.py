"""Attacks on the per-data-version memo (store/memo.py), the pinned data version, the
one-step standard headers, the plain-dict query arguments and the cheaper rows.

Every request that must not be answered from the response cache has a URL of its own
(``_=N``); where a cached and a fresh answer are compared, the same URL is asked twice."""

import itertools
import os

import pytest

from rules import clock
from tests.conftest import NS, forget_all, strip_page_urls
from tests.helpers import soon

_n = itertools.count(5000)


def get(client, path, headers=None):
    sep = "&" if "?" in path else "?"
    return client.get(f"{path}{sep}_={next(_n)}", headers=headers or {})


def ok(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_json()


@pytest.fixture(autouse=True)
def _clock_back():
    yield
    clock.reset()


# --- linked rows by id, once per data version ---------------------------------------------


def test_venue_rename_trash_restore_reaches_every_embedding(client, admin, make_event):
    event = make_event(venue={"venue": "Hall"})
    venue_id = event["venue"]["id"]
    single = f"{NS}/events/{event['id']}"
    assert ok(client.get(single))["venue"]["venue"] == "Hall"
    assert ok(client.get(f"{NS}/events"))["events"][0]["venue"]["venue"] == "Hall"
    assert ok(client.post(f"{NS}/venues/{venue_id}", json={"venue": "Big"}, headers=admin))
    assert ok(client.get(single))["venue"]["venue"] == "Big"
    assert ok(client.get(f"{NS}/events"))["events"][0]["venue"]["venue"] == "Big"
    assert client.delete(f"{NS}/venues/{venue_id}", headers=admin).status_code == 200
    assert ok(client.get(single))["venue"] in ([], {}, None)
    assert ok(client.get(f"{NS}/events"))["events"][0]["venue"] in ([], {}, None)
    restored = client.post(f"{NS}/venues/{venue_id}", json={"status": "publish"}, headers=admin)
    assert restored.status_code == 200, restored.get_json()
    assert ok(client.get(single))["venue"]["venue"] == "Big"
    assert ok(get(client, single))["venue"]["venue"] == "Big"


def test_draft_venue_and_organizer_hidden_from_public_embedding(client, admin, as_role, make_event):
    event = make_event(venue={"venue": "Hall"}, organizer=[{"organizer": "Org"}])
    venue_id, org_id = event["venue"]["id"], event["organizer"][0]["id"]
    editor = as_role("editor")
    # warm the memo with the published rows, for the public and for an editor
    for headers in ({}, editor):
        body = ok(get(client, f"{NS}/events", headers))["events"][0]
        assert body["venue"]["id"] == venue_id and body["organizer"][0]["id"] == org_id
    for kind, item in (("venues", venue_id), ("organizers", org_id)):
        r = client.post(f"{NS}/{kind}/{item}", json={"status": "draft"}, headers=admin)
        assert r.status_code == 200, r.get_json()
    for url in (f"{NS}/events", f"{NS}/events/{event['id']}"):
        public = ok(client.get(url))
        public = public["events"][0] if "events" in public else public
        assert public["venue"] in ([], {}, None), public["venue"]
        assert public["organizer"] in ([], None), public["organizer"]
        seen = ok(client.get(url, headers=editor))
        seen = seen["events"][0] if "events" in seen else seen
        assert seen["venue"]["id"] == venue_id
        assert [o["id"] for o in seen["organizer"]] == [org_id]
    assert client.get(f"{NS}/venues/{venue_id}").status_code in (401, 403, 404)
    assert ok(get(client, f"{NS}/venues"))["total"] == 0
    assert ok(get(client, f"{NS}/organizers"))["total"] == 0


def test_private_venue_of_one_author_not_shown_to_another(client, as_role, make_event):
    alice, bob = as_role("author", "alice"), as_role("author", "bob")
    mine = client.post(f"{NS}/venues", json={"venue": "Secret", "status": "private"}, headers=alice)
    assert mine.status_code == 201, mine.get_json()
    venue_id = mine.get_json()["id"]
    event = make_event(headers=alice, venue=venue_id)
    assert event["venue"]["id"] == venue_id
    assert ok(get(client, f"{NS}/events/{event['id']}", alice))["venue"]["id"] == venue_id
    for headers in ({}, bob):
        body = ok(get(client, f"{NS}/events/{event['id']}", headers))
        assert body["venue"] in ([], {}, None), body["venue"]
        assert "Secret" not in get(client, f"{NS}/events", headers).get_data(as_text=True)


def test_organizer_reorder_and_relink_show_at_once(client, admin, make_event):
    event = make_event(organizer=[{"organizer": "A"}, {"organizer": "B"}, {"organizer": "C"}])
    a, b, c = (o["id"] for o in event["organizer"])
    url = f"{NS}/events/{event['id']}"
    assert [o["id"] for o in ok(client.get(url))["organizer"]] == [a, b, c]
    r = client.post(url, json={"organizer": [c, a, b]}, headers=admin)
    assert [o["id"] for o in r.get_json()["organizer"]] == [c, a, b]
    assert [o["id"] for o in ok(client.get(url))["organizer"]] == [c, a, b]
    assert [o["id"] for o in ok(client.get(f"{NS}/events"))["events"][0]["organizer"]] == [c, a, b]
    client.post(url, json={"organizer": [b]}, headers=admin)
    assert [o["id"] for o in ok(client.get(url))["organizer"]] == [b]


def test_categories_and_tags_order_with_equal_positions(client, admin, make_event):
    event = make_event(categories="Zeta,Alpha,Mid", tags="t2,t1")
    cats = [t["name"] for t in event["categories"]]
    tags = [t["name"] for t in event["tags"]]
    body = ok(get(client, f"{NS}/events/{event['id']}"))
    assert [t["name"] for t in body["categories"]] == cats
    assert [t["name"] for t in body["tags"]] == tags
    listed = ok(get(client, f"{NS}/events"))["events"][0]
    assert [t["name"] for t in listed["categories"]] == cats
    assert [t["name"] for t in listed["tags"]] == tags


def test_category_rename_and_delete_reach_embedding(client, admin, make_event):
    event = make_event(categories="Music")
    term_id = event["categories"][0]["id"]
    url = f"{NS}/events/{event['id']}"
    assert ok(client.get(url))["categories"][0]["name"] == "Music"
    r = client.post(f"{NS}/categories/{term_id}", json={"name": "Jazz"}, headers=admin)
    assert r.status_code == 200, r.get_json()
    assert ok(client.get(url))["categories"][0]["name"] == "Jazz"
    assert ok(client.get(f"{NS}/events"))["events"][0]["categories"][0]["name"] == "Jazz"
    r = client.delete(f"{NS}/categories/{term_id}", headers=admin)
    assert r.status_code == 200, r.get_json()
    assert ok(client.get(url))["categories"] == []


def test_new_venue_with_same_id_after_permanent_delete(client, admin, make_event):
    event = make_event(venue={"venue": "Old"})
    venue_id = event["venue"]["id"]
    assert ok(get(client, f"{NS}/events"))["events"][0]["venue"]["venue"] == "Old"
    r = client.delete(f"{NS}/venues/{venue_id}?force=true", headers=admin)
    assert r.status_code == 200, r.get_json()
    body = ok(get(client, f"{NS}/events"))["events"][0]
    assert body["venue"] in ([], {}, None)


# --- term counts --------------------------------------------------------------------------


def test_counts_follow_draft_trash_restore(client, admin, make_event):
    event = make_event(categories="Music", tags="loud")
    cat, tag = event["categories"][0]["id"], event["tags"][0]["id"]
    url = f"{NS}/events/{event['id']}"
    other = make_event(title="Other", categories=[cat], tags=[tag])
    assert ok(client.get(url))["categories"][0]["count"] == 2
    assert ok(client.get(f"{NS}/tags"))["tags"][0]["count"] == 2
    client.post(f"{NS}/events/{other['id']}", json={"status": "draft"}, headers=admin)
    assert ok(client.get(url))["categories"][0]["count"] == 1
    assert ok(client.get(url))["tags"][0]["count"] == 1
    assert ok(client.get(f"{NS}/categories/{cat}"))["count"] == 1
    assert ok(client.get(f"{NS}/tags"))["tags"][0]["count"] == 1
    client.post(f"{NS}/events/{other['id']}", json={"status": "publish"}, headers=admin)
    assert ok(client.get(url))["categories"][0]["count"] == 2
    assert ok(client.get(f"{NS}/tags/{tag}"))["count"] == 2


def test_scheduled_counts_and_listing_after_clock_moves(client, admin, make_event):
    shown = make_event(title="Shown", categories="Music", tags="loud")
    cat, tag = shown["categories"][0]["id"], shown["tags"][0]["id"]
    make_event(title="Later", status="future", date_utc=soon(2), categories=[cat], tags=[tag])
    make_event(title="Much later", status="future", date_utc=soon(6), categories=[cat])
    single = f"{NS}/events/{shown['id']}"
    assert ok(client.get(single))["categories"][0]["count"] == 1
    assert ok(client.get(f"{NS}/categories/{cat}"))["count"] == 1
    assert ok(client.get(f"{NS}/tags"))["tags"][0]["count"] == 1
    assert ok(client.get(f"{NS}/events"))["total"] == 1
    clock.advance(3)
    assert ok(client.get(single))["categories"][0]["count"] == 2
    assert ok(client.get(single))["tags"][0]["count"] == 2
    assert ok(client.get(f"{NS}/categories/{cat}"))["count"] == 2
    assert ok(client.get(f"{NS}/tags"))["tags"][0]["count"] == 2
    assert ok(client.get(f"{NS}/events"))["total"] == 2
    clock.advance(4)
    assert ok(client.get(single))["categories"][0]["count"] == 3
    assert ok(client.get(f"{NS}/categories/{cat}"))["count"] == 3
    assert ok(client.get(f"{NS}/events"))["total"] == 3
    assert ok(get(client, f"{NS}/events"))["total"] == 3


def test_scheduled_event_rescheduled_earlier(client, admin, make_event):
    later = make_event(title="Later", status="future", date_utc=soon(60), categories="Music")
    cat = later["categories"][0]["id"]
    assert ok(client.get(f"{NS}/events"))["total"] == 0
    r = client.post(f"{NS}/events/{later['id']}", json={"date_utc": soon(2)}, headers=admin)
    assert r.status_code == 200, r.get_json()
    assert ok(client.get(f"{NS}/events"))["total"] == 0
    clock.advance(3)
    assert ok(client.get(f"{NS}/events"))["total"] == 1
    assert ok(client.get(f"{NS}/categories/{cat}"))["count"] == 1
    assert ok(client.get(f"{NS}/events/{later['id']}"))["status"] == "publish"


def test_scheduled_event_not_visible_before_its_date(client, make_event, as_role):
    make_event(title="Early", status="future", date_utc=soon(5), categories="Music")
    make_event(title="Old", status="future", date_utc=soon(2))
    clock.advance(3)  # Old is due, Early not yet
    body = ok(get(client, f"{NS}/events"))
    assert [e["title"] for e in body["events"]] == ["Old"]
    assert ok(get(client, f"{NS}/categories?hide_empty=true"))["total"] == 0


# --- password-protected events -------------------------------------------------------------


def test_password_change_hides_venue_again(client, admin, make_event):
    event = make_event(
        venue={"venue": "Hall", "address": "1 Main St"}, password="pw1", description="<p>x</p>"
    )
    url = f"{NS}/events/{event['id']}"
    opened = client.get(f"{url}?password=pw1")
    assert opened.status_code == 200
    r = client.post(url, json={"password": "pw2"}, headers=admin)
    assert r.status_code == 200, r.get_json()
    again = client.get(f"{url}?password=pw1")
    if again.status_code == 200:
        assert again.get_json()["description"] in ("", None)
    fresh = get(client, f"{url}?password=pw1")
    assert (fresh.status_code, fresh.get_data()) == (again.status_code, again.get_data())


# --- headers ---------------------------------------------------------------------------------


def _multi(response):
    return {name: response.headers.getlist(name) for name in set(response.headers.keys())}


@pytest.mark.parametrize(
    "path", ["/events", "/events/{id}", "/venues", "/categories", "/tags", "/organizers"]
)
def test_cached_and_fresh_answers_have_the_same_headers(client, make_event, path):
    event = make_event(venue={"venue": "Hall"}, categories="Music", tags="t")
    url = NS + path.format(id=event["id"]) + "?x=1"
    first, second = client.get(url), client.get(url)
    assert first.status_code == second.status_code == 200
    a, b = _multi(first), _multi(second)
    for name in set(a) | set(b):
        assert len(a.get(name, [])) <= 1 or name == "Link", (name, a.get(name))
        assert a.get(name) == b.get(name), (name, a.get(name), b.get(name))


def test_cached_and_fresh_headers_with_cors_and_auth(client, app, make_event, admin):
    app.config["CORS_ORIGINS"] = ["https://a.example"]
    make_event()
    for headers in (
        {"Origin": "https://a.example"},
        {"Origin": "https://b.example"},
        {"Origin": "https://a.example", **admin},
        {},
    ):
        url = f"{NS}/events?k={next(_n)}"
        first, second = client.get(url, headers=headers), client.get(url, headers=headers)
        assert _multi(first) == _multi(second), headers
        vary = [v.strip() for v in first.headers["Vary"].split(",")]
        assert sorted(vary) == sorted(set(vary)) and {"Authorization", "Accept", "Origin"} <= set(
            vary
        )
        assert first.headers.getlist("Access-Control-Allow-Origin") == [
            "https://a.example" if headers.get("Origin") == "https://a.example" else "*"
        ]
        if "Authorization" in headers:
            assert first.headers["Cache-Control"] == "private"
            assert second.headers["Cache-Control"] == "private"
        else:
            assert "private" not in first.headers.get("Cache-Control", "")


def test_cached_private_answer_not_public_for_anonymous(client, make_event, admin):
    make_event(status="draft", title="Hidden draft")
    url = f"{NS}/events?status=draft"
    assert ok(client.get(url, headers=admin))["total"] == 1
    anon = client.get(url)
    assert b"Hidden draft" not in anon.get_data()
    assert "private" not in anon.headers.get("Cache-Control", "")


def test_not_modified_headers_same_fresh_or_cached(client, admin, make_event):
    """A 304 carries the Vary, CORS and security headers its 200 would: the first answer
    to an If-None-Match after a write (made fresh, then found equal) and a later one (from
    the cache) must not differ."""
    event = make_event()
    url = f"{NS}/events/{event['id']}"
    etag = client.get(url).headers["ETag"]
    # an unrelated write: the cached entry is dropped; the event renders the same
    r = client.post(f"{NS}/venues", json={"venue": "Elsewhere"}, headers=admin)
    assert r.status_code == 201
    fresh = client.get(url, headers={"If-None-Match": etag})
    cached = client.get(url, headers={"If-None-Match": etag})
    assert fresh.status_code == cached.status_code == 304
    assert _multi(fresh) == _multi(cached)
    assert "Authorization" in fresh.headers.get("Vary", "")


def test_options_headers_not_duplicated(client, make_event):
    event = make_event()
    for path in ("/events", f"/events/{event['id']}", "/venues"):
        r = client.options(NS + path)
        for name in set(r.headers.keys()):
            assert len(r.headers.getlist(name)) == 1, (path, name, r.headers.getlist(name))
        vary = [v.strip() for v in r.headers.get("Vary", "").split(",")]
        assert len(vary) == len(set(vary)), vary


def test_error_answers_have_single_headers(client, make_event):
    for path in ("/events/999999", "/events?page=99", "/events?per_page=abc", "/nothing"):
        r = client.get(NS + path)
        assert r.status_code >= 400
        for name in set(r.headers.keys()):
            assert len(r.headers.getlist(name)) == 1, (path, name, r.headers.getlist(name))


def test_ical_cached_and_fresh_headers(client, make_event):
    make_event()
    url = f"{NS}/events?ical=1"
    headers = {"Accept": "text/calendar"}
    first, second = client.get(url, headers=headers), client.get(url, headers=headers)
    assert first.status_code == second.status_code
    assert _multi(first) == _multi(second)


# --- query strings ------------------------------------------------------------------------


def test_category_list_forms_agree(client, make_event):
    a = make_event(title="A", categories="One")
    b = make_event(title="B", categories="Two")
    make_event(title="C", categories="Three")
    one, two = a["categories"][0]["id"], b["categories"][0]["id"]
    want = sorted([a["id"], b["id"]])
    for query in (
        f"categories={one},{two}",
        f"categories[]={one}&categories[]={two}",
        f"categories={one}&categories={two}",
        f"categories={one}&categories[]={two}",
        f"categories[]={one},{two}",
    ):
        body = ok(get(client, f"{NS}/events?{query}"))
        assert sorted(e["id"] for e in body["events"]) == want, query


def test_repeated_scalar_params_take_the_last(client, make_event):
    """A name given twice holds its last value, as PHP reads a query (app/forms.py)."""
    for n in range(3):
        make_event(title=f"E{n}")
    body = ok(get(client, f"{NS}/events?per_page=1&per_page=2"))
    assert len(body["events"]) == 2
    body = ok(get(client, f"{NS}/events?per_page[]=2&per_page=1"))
    assert len(body["events"]) in (1, 2)


def test_search_array_forms_rejected(client, make_event):
    make_event(title="Findme")
    for query in ("search[]=Findme", "search=Findme&search[]=x"):
        r = get(client, f"{NS}/events?{query}")
        assert r.status_code == 400, (query, r.status_code)
    # Given twice, a search is its last value (a string), as PHP reads it.
    assert ok(get(client, f"{NS}/events?search=Findme&search=x"))["total"] == 0
    assert ok(get(client, f"{NS}/events?search=x&search=Findme"))["total"] == 1
    assert ok(get(client, f"{NS}/events?search=Findme"))["total"] == 1
    for path in ("/venues", "/organizers", "/categories", "/tags"):
        r = get(client, f"{NS}{path}?search[]=x")
        assert r.status_code in (200, 400), (path, r.status_code)


def test_unknown_and_odd_params_do_not_break(client, make_event, admin):
    make_event(categories="Music")
    for query in (
        "foo=1",
        "foo[]=1&foo[]=2",
        "[]=1",
        "categories[]=",
        "categories=",
        "status[]=publish&status[]=draft",
        "status=publish,draft",
        "page[]=1",
        "per_page[]=1",
        "start_date[]=2020-01-01",
        "featured[]=true",
        "venue[]=1&venue[]=2",
        "organizer=1,2",
        "tags[]=x",
        "include[]=1",
        "search=%00",
        "password[]=x",
    ):
        for headers in ({}, admin):
            r = get(client, f"{NS}/events?{query}", headers)
            assert r.status_code < 500, (query, r.status_code, r.get_data()[:300])
    for path in ("/venues", "/organizers", "/categories", "/tags"):
        for query in ("include[]=1", "status[]=draft", "per_page[]=1", "orderby[]=name", "x[]="):
            r = get(client, f"{NS}{path}?{query}", admin)
            assert r.status_code < 500, (path, query, r.status_code)


def test_status_list_forms_agree_for_editor(client, make_event, as_role):
    editor = as_role("editor")
    make_event(title="P")
    make_event(title="D", status="draft")
    make_event(title="X", status="pending")
    totals = {
        query: ok(get(client, f"{NS}/events?{query}", editor))["total"]
        for query in (
            "status=draft,pending",
            "status[]=draft&status[]=pending",
            "status=draft&status=pending",
        )
    }
    assert set(totals.values()) == {2}, totals


def test_anonymous_cannot_list_drafts_by_any_form(client, make_event, admin):
    make_event(title="Secret draft", status="draft")
    make_event(title="Secret pending", status="pending")
    make_event(title="Secret private", status="private")
    trashed = make_event(title="Secret trash")
    client.delete(f"{NS}/events/{trashed['id']}", headers=admin)
    for query in (
        "status=draft",
        "status[]=draft",
        "status=publish&status=draft",
        "status=publish,draft,pending,private,trash",
        "status[]=private",
        "status=any",
        "status[]=trash",
        "include=1,2,3,4",
        "include[]=1&include[]=2&include[]=3&include[]=4",
        "search=Secret",
    ):
        r = get(client, f"{NS}/events?{query}")
        if r.status_code == 200:
            assert [e["title"] for e in r.get_json()["events"]] == [], query
        else:
            assert b"Secret" not in r.get_data(), query


# --- batch 2 ----------------------------------------------------------------------------------


def test_scheduled_venue_appears_in_embedding_when_due(client, admin, make_event):
    r = client.post(
        f"{NS}/venues",
        json={"venue": "Soon Hall", "status": "future", "date_utc": soon(2)},
        headers=admin,
    )
    assert r.status_code == 201, r.get_json()
    venue = r.get_json()
    event = make_event(venue=venue["id"])
    url = f"{NS}/events/{event['id']}"
    assert ok(client.get(url))["venue"] in ([], {}, None)
    assert ok(client.get(f"{NS}/events"))["events"][0]["venue"] in ([], {}, None)
    clock.advance(3)
    assert ok(client.get(url))["venue"]["id"] == venue["id"]
    assert ok(client.get(f"{NS}/events"))["events"][0]["venue"]["id"] == venue["id"]
    assert ok(get(client, url))["venue"]["status"] == "publish"


def test_other_language_embedding_follows_rename(client, admin, make_event):
    event = make_event(venue={"venue": "Hall"}, categories="Music")
    venue_id, cat = event["venue"]["id"], event["categories"][0]["id"]
    fr = f"/fr{NS}/events/{event['id']}"
    assert ok(client.get(fr))["venue"]["venue"] == "Hall"
    assert ok(client.get(f"{NS}/events/{event['id']}"))["venue"]["venue"] == "Hall"
    client.post(f"{NS}/venues/{venue_id}", json={"venue": "Salle"}, headers=admin)
    client.post(f"{NS}/categories/{cat}", json={"name": "Musique"}, headers=admin)
    body = ok(client.get(fr))
    assert body["venue"]["venue"] == "Salle" and body["categories"][0]["name"] == "Musique"
    assert body["venue"]["url"] == ok(client.get(f"{NS}/events/{event['id']}"))["venue"]["url"]


def test_venue_relink_and_page_two(client, admin, make_event):
    a = client.post(f"{NS}/venues", json={"venue": "A"}, headers=admin).get_json()["id"]
    b = client.post(f"{NS}/venues", json={"venue": "B"}, headers=admin).get_json()["id"]
    events = [make_event(title=f"E{n}", venue=a) for n in range(3)]
    page = f"{NS}/events?per_page=2&page=2"
    assert ok(client.get(page))["events"][0]["venue"]["id"] == a
    client.post(f"{NS}/events/{events[2]['id']}", json={"venue": b}, headers=admin)
    assert ok(client.get(page))["events"][0]["venue"]["id"] == b
    client.post(f"{NS}/events/{events[2]['id']}", json={"venue": ""}, headers=admin)
    assert ok(client.get(page))["events"][0]["venue"] in ([], {}, None)


def test_protected_venue_masked_unless_password(client, admin, make_event):
    event = make_event(venue={"venue": "Hall", "address": "1 Main St", "password": "vpw"})
    url = f"{NS}/events/{event['id']}"
    assert ok(client.get(url))["venue"]["address"] == ""
    assert ok(client.get(f"{url}?password=vpw"))["venue"]["address"] == "1 Main St"
    assert ok(client.get(f"{NS}/events?password=vpw"))["events"][0]["venue"]["address"] == (
        "1 Main St"
    )
    assert ok(client.get(f"{NS}/events?password=nope"))["events"][0]["venue"]["address"] == ""
    assert ok(client.get(url))["venue"]["address"] == ""
    vid = event["venue"]["id"]
    client.post(f"{NS}/venues/{vid}", json={"password": "other"}, headers=admin)
    assert ok(client.get(f"{url}?password=vpw"))["venue"]["address"] == ""


def test_recurring_series_term_counts(client, admin, make_event):
    series = make_event(
        title="Weekly",
        categories="Class",
        start_date="2031-01-06 10:00:00",
        end_date="2031-01-06 11:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=3"],
    )
    cat = series["categories"][0]["id"]
    base = ok(client.get(f"{NS}/categories/{cat}"))["count"]
    assert base >= 1
    emb = ok(get(client, f"{NS}/events?start_date=2031-01-01&end_date=2031-02-01"))
    assert {e["categories"][0]["count"] for e in emb["events"]} == {base}
    client.delete(f"{NS}/events/{series['id']}", headers=admin)
    assert ok(client.get(f"{NS}/categories/{cat}"))["count"] == 0
    emb = ok(get(client, f"{NS}/events?start_date=2031-01-01&end_date=2031-02-01"))
    assert emb["total"] == 0


def test_options_and_errors_with_cors(client, app, make_event):
    app.config["CORS_ORIGINS"] = ["https://a.example"]
    event = make_event()
    for method, path in (
        ("options", "/events"),
        ("options", f"/events/{event['id']}"),
        ("get", "/events/99999"),
        ("get", "/nothing"),
        ("post", "/events"),
    ):
        r = getattr(client, method)(NS + path, headers={"Origin": "https://a.example"})
        for name in set(r.headers.keys()):
            assert len(r.headers.getlist(name)) == 1, (path, name, r.headers.getlist(name))
        vary = [v.strip() for v in r.headers.get("Vary", "").split(",")]
        assert "Origin" in vary and len(vary) == len(set(vary)), (path, vary)
        assert r.headers["Access-Control-Allow-Origin"] == "https://a.example"


def test_future_event_with_past_date_counts_consistently(client, admin, make_event):
    r = client.post(
        f"{NS}/events",
        json={
            "title": "Past future",
            "status": "future",
            "date_utc": "2001-01-01 00:00:00",
            "start_date": "tomorrow 10am",
            "end_date": "tomorrow 11am",
            "categories": "Odd",
        },
        headers=admin,
    )
    assert r.status_code in (201, 400), r.get_json()
    if r.status_code == 201:
        body = r.get_json()
        cat = body["categories"][0]["id"]
        shown = ok(get(client, f"{NS}/events"))["total"]
        count = ok(get(client, f"{NS}/categories/{cat}"))["count"]
        emb = ok(get(client, f"{NS}/events/{body['id']}"))["categories"][0]["count"]
        assert shown == count == emb, (body["status"], shown, count, emb)


# --- a random walk of writes and clock moves: cached, fresh and cold answers agree ------------


@pytest.fixture
def frozen_time():
    """The real clock stands still (only ``clock.advance`` moves it): the cached, fresh
    and cold answers of one step are asked at the same instant."""
    clock.freeze()
    yield
    clock.reset()


# Walks run (MEMO_WALKS, default 5): `make test-postgres` runs 3 of them (the memo is the
# same code on either engine; the CI run must stay under 15 minutes on two cores).
WALKS = int(os.environ.get("MEMO_WALKS", "5"))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, WALKS + 1))
def test_random_walk_cached_fresh_and_cold_agree(
    app, client, admin, as_role, make_event, seed, frozen_time
):
    import random

    rnd = random.Random(seed)
    app.config["AUTH_FAILURE_LIMIT"] = 10**9  # wrong ?password= guesses are throttled
    viewers = {"anon": {}, "editor": as_role("editor"), "author": as_role("author")}
    author = viewers["author"]
    venues = [
        client.post(
            f"{NS}/venues", json={"venue": f"V{n}", "address": f"{n} St"}, headers=admin
        ).get_json()["id"]
        for n in range(3)
    ]
    venues.append(
        client.post(
            f"{NS}/venues", json={"venue": "Mine", "status": "private"}, headers=author
        ).get_json()["id"]
    )
    orgs = [
        client.post(f"{NS}/organizers", json={"organizer": f"O{n}"}, headers=admin).get_json()["id"]
        for n in range(3)
    ]
    events = [
        make_event(
            title=f"E{n}",
            venue=venues[n % 3],
            organizer=orgs[: n % 3 + 1],
            categories=f"C{n % 2}",
            tags=f"T{n % 3}",
        )
        for n in range(4)
    ]
    events.append(make_event(headers=author, title="By author", venue=venues[3]))
    cats = sorted({c["id"] for e in events for c in e["categories"]})
    tags = sorted({t["id"] for e in events for t in e["tags"]})
    statuses = ["publish", "draft", "pending", "private", "trash"]

    def act():
        kind = rnd.randrange(11)
        if kind == 0:
            v = rnd.choice(venues[:3])
            client.post(f"{NS}/venues/{v}", json={"venue": f"V{rnd.randrange(99)}"}, headers=admin)
        elif kind == 1:
            v = rnd.choice(venues + orgs)
            path = "venues" if v in venues else "organizers"
            client.post(
                f"{NS}/{path}/{v}", json={"status": rnd.choice(statuses[:4])}, headers=admin
            )
        elif kind == 2:
            v = rnd.choice(venues[:3] + orgs)
            path = "venues" if v in venues else "organizers"
            client.delete(f"{NS}/{path}/{v}", headers=admin)
        elif kind == 3:
            e = rnd.choice(events)
            client.post(
                f"{NS}/events/{e['id']}",
                json={
                    "venue": rnd.choice(venues[:3]),
                    "organizer": rnd.sample(orgs, rnd.randint(0, 3)),
                },
                headers=admin,
            )
        elif kind == 4:
            e = rnd.choice(events)
            client.post(
                f"{NS}/events/{e['id']}", json={"status": rnd.choice(statuses[:4])}, headers=admin
            )
        elif kind == 5:
            e = rnd.choice(events)
            client.post(
                f"{NS}/events/{e['id']}",
                json={"status": "future", "date_utc": soon(rnd.randint(1, 5))},
                headers=admin,
            )
        elif kind == 6:
            clock.advance(rnd.randint(1, 4))
        elif kind == 7:
            t = rnd.choice(cats + tags)
            path = "categories" if t in cats else "tags"
            client.post(f"{NS}/{path}/{t}", json={"name": f"N{rnd.randrange(999)}"}, headers=admin)
        elif kind == 8:
            e = rnd.choice(events)
            client.post(
                f"{NS}/events/{e['id']}",
                json={
                    "categories": rnd.sample(cats, rnd.randint(0, len(cats))),
                    "tags": rnd.sample(tags, rnd.randint(0, len(tags))),
                },
                headers=admin,
            )
        elif kind == 9:
            e = rnd.choice(events)
            client.post(
                f"{NS}/events/{e['id']}", json={"password": rnd.choice(["", "pw"])}, headers=admin
            )
        else:
            e = rnd.choice(events)
            client.delete(f"{NS}/events/{e['id']}", headers=admin)
        return kind

    urls = [
        f"{NS}/events?per_page=3",
        f"{NS}/events?per_page=2&page=2",
        f"{NS}/events?password=pw",
        f"{NS}/venues",
        f"{NS}/organizers",
        f"{NS}/categories?hide_empty=false",
        f"{NS}/tags",
        *[f"{NS}/events/{e['id']}" for e in events[:3]],
        f"{NS}/categories/{cats[0]}",
    ]
    history = []
    for step in range(25):
        history.append(act())
        for name, headers in viewers.items():
            for url in urls:
                cached = client.get(url, headers=headers)
                sep = "&" if "?" in url else "?"
                fresh = client.get(f"{url}{sep}_={next(_n)}", headers=headers)
                forget_all(app)
                cold = client.get(f"{url}{sep}_={next(_n)}", headers=headers)
                where = (step, repr(history), name, url)
                assert cached.status_code == fresh.status_code == cold.status_code, where
                if cold.status_code == 200:
                    c, f, k = (strip_page_urls(r.get_json()) for r in (cached, fresh, cold))
                    assert f == k, (where, [x for x in (f, k)])
                    assert c == k, where


def test_not_modified_for_a_user_stays_private(client, admin, make_event):
    """An authenticated 304 made fresh (after an unrelated write) must say what its 200
    says: Cache-Control private and Vary Authorization."""
    event = make_event(status="draft")
    url = f"{NS}/events/{event['id']}"
    first = client.get(url, headers=admin)
    assert first.headers["Cache-Control"] == "private"
    client.post(f"{NS}/organizers", json={"organizer": "Unrelated"}, headers=admin)
    again = client.get(url, headers={**admin, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert again.headers.get("Cache-Control") == "private"
    assert "Authorization" in again.headers.get("Vary", "")


def test_if_none_match_star_reveals_nothing_hidden(client, admin, make_event):
    draft = make_event(status="draft", title="Hidden")
    shown = make_event(title="Shown")
    assert client.get(f"{NS}/events/{draft['id']}", headers=admin).status_code == 200
    for event_id in (draft["id"], 999999):
        r = client.get(f"{NS}/events/{event_id}", headers={"If-None-Match": "*"})
        assert r.status_code in (401, 403, 404), (event_id, r.status_code)
    etag = client.get(f"{NS}/events/{draft['id']}", headers=admin).headers["ETag"]
    r = client.get(f"{NS}/events/{draft['id']}", headers={"If-None-Match": etag})
    assert r.status_code in (401, 403, 404)
    r = client.get(f"{NS}/events/{shown['id']}", headers={"If-None-Match": "*"})
    assert r.status_code == 304
