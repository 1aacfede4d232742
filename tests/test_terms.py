"""Categories and tags."""

import re
import unicodedata
from urllib.parse import parse_qs, urlsplit

import pytest

from store.models import Term
from tests.conftest import NS, event_form
from tests.databases import ON_POSTGRES
from tests.helpers import store_older_slug


def test_create_read_update_delete_category(client, as_role, make_event):
    editor = as_role("editor")
    parent = client.post(f"{NS}/categories", json={"name": "Music"}, headers=editor)
    assert parent.status_code == 201
    parent = parent.get_json()
    child = client.post(
        f"{NS}/categories",
        json={"name": "Jazz", "parent": parent["id"], "description": "d"},
        headers=editor,
    ).get_json()
    assert child["parent"] == parent["id"]
    assert child["urls"]["up"].endswith(f"/categories/{parent['id']}")
    assert child["taxonomy"] == "tribe_events_cat" and child["meta"] == []
    assert child["url"] == "http://localhost/events/category/jazz/"
    make_event(categories=[child["id"]])
    assert client.get(f"{NS}/categories/{child['id']}").get_json()["count"] == 1
    updated = client.post(f"{NS}/categories/{child['id']}", json={"name": "Jazz!"}, headers=editor)
    assert updated.status_code == 200 and updated.get_json()["name"] == "Jazz!"
    loop = client.post(
        f"{NS}/categories/{parent['id']}", json={"parent": child["id"]}, headers=editor
    )
    assert loop.status_code == 400
    deleted = client.delete(f"{NS}/categories/{child['id']}", headers=editor)
    assert deleted.status_code == 200 and deleted.get_json()["id"] == child["id"]
    assert client.get(f"{NS}/categories/{child['id']}").status_code == 400


def test_term_permissions_and_validation(client, as_role):
    for role in ("subscriber", "contributor", "author"):
        assert (
            client.post(f"{NS}/categories", json={"name": "x"}, headers=as_role(role)).status_code
            == 403
        )
    assert client.post(f"{NS}/categories", json={"name": "x"}).status_code == 401
    editor = as_role("editor")
    assert client.post(f"{NS}/categories", json={"name": ""}, headers=editor).status_code == 400
    assert (
        client.post(
            f"{NS}/categories", json={"name": "x", "parent": 2389}, headers=editor
        ).status_code
        == 400
    )
    first = client.post(f"{NS}/tags", json={"name": "dup"}, headers=editor).get_json()
    again = client.post(f"{NS}/tags", json={"name": "dup"}, headers=editor)
    assert again.status_code == 400
    assert again.get_json()["code"] == "term_exists"
    assert again.get_json()["data"]["term_id"] == first["id"]
    slug = client.post(f"{NS}/tags", json={"name": "other", "slug": "dup"}, headers=editor)
    assert slug.status_code == 400
    # SPEC §4: a duplicate slug is the same error as a duplicate name, naming the term.
    assert slug.get_json()["code"] == "term_exists"
    assert slug.get_json()["data"]["term_id"] == first["id"]
    renamed = client.post(f"{NS}/tags", json={"name": "third"}, headers=editor).get_json()
    update = client.post(f"{NS}/tags/{renamed['id']}", json={"slug": "dup"}, headers=editor)
    assert (update.status_code, update.get_json()["code"]) == (400, "term_exists")
    assert update.get_json()["data"]["term_id"] == first["id"]
    parent = client.post(f"{NS}/tags", json={"name": "t", "parent": 1}, headers=editor)
    assert parent.get_json()["code"] == "rest_taxonomy_not_hierarchical"


def test_term_listing(client, as_role, make_event):
    editor = as_role("editor")
    ids = [
        client.post(f"{NS}/categories", json={"name": n}, headers=editor).get_json()["id"]
        for n in ("b", "A", "C", "Foo", "foo-bar")
    ]
    assert client.get(f"{NS}/categories").get_json()["total"] == 0  # hide_empty by default
    everything = client.get(f"{NS}/categories?hide_empty=false").get_json()
    assert [t["name"] for t in everything["categories"]] == ["A", "b", "C", "Foo", "foo-bar"]
    assert everything["rest_url"] == f"http://localhost{NS}/categories/"
    paged = client.get(f"{NS}/categories?hide_empty=false&per_page=2&page=2").get_json()
    next_url, previous_url = urlsplit(paged["next_rest_url"]), urlsplit(paged["previous_rest_url"])
    assert next_url.path == previous_url.path == f"{NS}/categories/"
    assert parse_qs(next_url.query) == {"hide_empty": ["0"], "per_page": ["2"], "page": ["3"]}
    assert parse_qs(previous_url.query) == {"hide_empty": ["0"], "per_page": ["2"]}
    assert client.get(f"{NS}/categories?hide_empty=false&search=foo").get_json()["total"] == 2
    desc = client.get(f"{NS}/categories?hide_empty=false&orderby=id&order=desc").get_json()
    assert [t["id"] for t in desc["categories"]] == sorted(ids, reverse=True)
    assert client.get(f"{NS}/categories?order=").status_code == 400
    assert client.get(f"{NS}/categories?include=2389").status_code == 400
    assert client.get(f"{NS}/categories?hide_empty=false&exclude={ids[0]}").get_json()["total"] == 4
    event = make_event(categories=[ids[0], ids[1]])
    assert client.get(f"{NS}/categories?event={event['id']}").get_json()["total"] == 2
    assert client.get(f"{NS}/categories?post=23").status_code == 400
    assert (
        client.get(f"{NS}/categories?hide_empty=false&slug=nothing").get_json()["categories"] == []
    )
    first = client.get(f"{NS}/categories?hide_empty=false&per_page=2").get_json()
    assert "previous_rest_url" not in first
    plain = client.get(f"{NS}/tags?page=1").get_json()
    assert plain["rest_url"] == f"http://localhost{NS}/tags/" and "next_rest_url" not in plain
    past_end = client.get(f"{NS}/categories?hide_empty=false&page=9")
    assert past_end.status_code == 200 and past_end.get_json()["categories"] == []


def test_a_page_short_of_its_size_gives_the_total_without_a_count(client, as_role, monkeypatch):
    """The last page (short of ``per_page``) gives the listing's total itself; the count is
    asked only for a full page or one past the end, and every total is the same. On
    PostgreSQL every page with terms carries the total (one round trip): only a page past
    the end is counted."""
    from store import terms

    editor, asked = as_role("editor"), []
    for name in ("a", "b", "c", "d", "e"):
        client.post(f"{NS}/categories", json={"name": name}, headers=editor)
    execute = terms._TERMS.execute
    monkeypatch.setattr(
        terms._TERMS,
        "execute",
        lambda shape, build, values, **how: (
            asked.append(build.__name__) or execute(shape, build, values, **how)
        ),
    )
    for query, counted, total, names in (
        ("per_page=10", False, 5, "abcde"),
        ("per_page=2", not ON_POSTGRES, 5, "ab"),
        ("per_page=2&page=2", not ON_POSTGRES, 5, "cd"),
        ("per_page=2&page=3", False, 5, "e"),
        ("per_page=5", not ON_POSTGRES, 5, "abcde"),
        ("per_page=3&page=4", True, 5, ""),
        ("search=zzz", False, 0, ""),
        ("search=zzz&page=2", True, 0, ""),
    ):
        asked.clear()
        body = client.get(f"{NS}/categories?hide_empty=0&{query}").get_json()
        assert ("build_count" in asked) is counted, query
        assert body["total"] == total, query
        assert "".join(t["name"] for t in body["categories"]) == names, query


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's prepared statements")
def test_the_terms_listing_runs_by_its_generic_plan_on_postgresql(client, as_role):
    """Cold ``GET /categories`` was planned anew at every run: the status "future" of its
    due counts was a parameter, and the generic plan, taking it for any status, looked
    costlier than a plan made for the values. Written into the statement (a shape's
    constant, store/db.py::constants_written), PostgreSQL keeps the generic plan after
    its first five runs, and the listing stays right."""
    from store.db import database

    def plans():
        with database.connection_context():
            rows = database.execute_sql(
                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            ).fetchall()
        return {text: (g, c) for text, g, c in rows}

    editor = as_role("editor")
    for name in ("a", "b", "c"):
        client.post(f"{NS}/categories", json={"name": name}, headers=editor)
    before = plans()
    for serial in range(8):  # one thread: each request takes the pool's one connection
        body = client.get(f"{NS}/categories?hide_empty=0&_={serial}").get_json()
        assert [term["name"] for term in body["categories"]] == ["a", "b", "c"]
    rows = plans()
    ran = {  # the runs of each statement during the requests: (generic, custom)
        text: (g - before.get(text, (0, 0))[0], c - before.get(text, (0, 0))[1])
        for text, (g, c) in rows.items()
    }
    listing = [(g, c) for text, (g, c) in ran.items() if g + c == 8 and '"due"' in text]
    assert listing and all(g >= 3 and c <= 5 for g, c in listing), ran
    assert all("'future'" in text for text in rows if '"due"' in text), rows


def test_counts_follow_status_changes(client, admin, make_event):
    live = make_event(categories="Music")
    term_id = live["categories"][0]["id"]
    make_event(categories="Music", status="draft")
    make_event(categories="Music", status="future", date="2099-01-01 00:00:00")
    make_event(categories="Music", status="future", date="2001-01-01 00:00:00")

    def count():
        return client.get(f"{NS}/categories/{term_id}").get_json()["count"]

    assert count() == 2
    client.post(f"{NS}/events/{live['id']}", json={"status": "draft"}, headers=admin)
    assert count() == 1
    client.post(f"{NS}/events/{live['id']}", json={"status": "publish"}, headers=admin)
    assert count() == 2
    client.delete(f"{NS}/events/{live['id']}?force=true", headers=admin)
    assert count() == 1
    listed = client.get(f"{NS}/categories").get_json()["categories"]
    assert [(t["name"], t["count"]) for t in listed] == [("Music", 1)]


def test_stored_counts_equal_a_recount_after_every_kind_of_write(client, admin, make_event):
    from store.db import database
    from store.models import LIVE_PUBLISHED, EventTerm, Term

    first = make_event(categories="Music,Arts", tags="free")
    second = make_event(categories="Music", tags="free,kids", status="draft")
    music = first["categories"][0]["id"]
    client.post(f"{NS}/events/{second['id']}", json={"status": "publish"}, headers=admin)
    client.post(f"{NS}/events/{first['id']}", json={"categories": ["Arts"]}, headers=admin)
    client.delete(f"{NS}/events/{second['id']}", headers=admin)  # trash
    make_event(categories="Music", tags="kids")
    client.delete(f"{NS}/events/{first['id']}?force=true", headers=admin)  # cascade
    client.delete(f"{NS}/categories/{music}?force=true", headers=admin)
    with database.connection_context():
        stored = {t.id: t.published for t in Term.select()}
        recount = {t_id: 0 for t_id in stored}
        for link in EventTerm.select().where(EventTerm.live == LIVE_PUBLISHED):
            recount[link.term_id] += 1
    assert stored == recount and sum(stored.values()) > 0


def test_seeded_calendar_counts_equal_a_recount(app):
    from store.db import database
    from store.models import LIVE_PUBLISHED, EventTerm, Term
    from store.seed import seed

    with database.connection_context():
        seed(120)
        stored = {t.id: t.published for t in Term.select()}
        recount = {t_id: 0 for t_id in stored}
        for link in EventTerm.select().where(EventTerm.live == LIVE_PUBLISHED):
            recount[link.term_id] += 1
    assert stored == recount and sum(stored.values()) > 100


# --- password-protected events count for none of their terms (SPEC §10) --------------------


def _counts(client, taxonomy="categories", headers=None, **query):
    body = client.get(f"{NS}/{taxonomy}", query_string=query, headers=headers or {}).get_json()
    return {term["name"]: term["count"] for term in body[taxonomy]}


def _recounted():
    """Stored counts against a recount of the links, and the protected events' links that
    would count."""
    from store.db import database
    from store.models import LIVE_PUBLISHED, Event, EventTerm, Term

    with database.connection_context():
        stored = {t.id: t.published for t in Term.select()}
        recount = dict.fromkeys(stored, 0)
        for link in EventTerm.select().where(EventTerm.live == LIVE_PUBLISHED):
            recount[link.term_id] += 1
        protected_live = (
            EventTerm.select()
            .join(Event, on=(EventTerm.event == Event.id))
            .where((Event.password != "") & (EventTerm.live != 0))
            .count()
        )
    return stored == recount, protected_live


def test_a_protected_event_counts_for_none_of_its_terms(client, admin, as_role, make_event):
    """Its terms are masked to whoever lacks the password; a count that included it would
    tell them (the only event of "Hidden": its category, by elimination). WordPress counts
    it; here no count does, for any caller, as none counts a private event."""
    secret = make_event(title="Secret", categories="Hidden,Shared", tags="quiet", password="pw-1")
    hidden, shared = (term["id"] for term in secret["categories"])
    editor = as_role("editor")
    for headers in ({}, editor, admin):
        assert "Hidden" not in _counts(client, headers=headers)  # hide_empty by default
        assert _counts(client, headers=headers, hide_empty=0) == {"Hidden": 0, "Shared": 0}
        assert _counts(client, "tags", headers=headers, hide_empty=0) == {"quiet": 0}
        single = client.get(f"{NS}/categories/{hidden}", headers=headers).get_json()
        assert single["count"] == 0
    # Inside an event that shows the term, the same count.
    public = make_event(title="Public", categories=[shared])
    assert public["categories"][0]["count"] == 1
    listed = client.get(f"{NS}/events").get_json()
    assert {e["title"]: [c["count"] for c in e["categories"]] for e in listed["events"]} == {
        "Public": [1],
        "Secret": [],  # masked
    }
    unlocked = client.get(f"{NS}/events/{secret['id']}?password=pw-1").get_json()
    assert [(c["name"], c["count"]) for c in unlocked["categories"]] == [
        ("Hidden", 0),
        ("Shared", 1),
    ]
    # The count agrees with what a caller without the password can list in the term.
    for term_id, count in ((hidden, 0), (shared, 1)):
        assert client.get(f"{NS}/events?categories={term_id}").get_json().get("total", 0) == count
    # Without its password the event counts; with one again it does not.
    response = client.post(f"{NS}/events/{secret['id']}", json={"password": ""}, headers=admin)
    assert response.status_code == 200
    assert _counts(client, hide_empty=0) == {"Hidden": 1, "Shared": 2}
    assert _counts(client, "tags") == {"quiet": 1}
    response = client.post(f"{NS}/events/{secret['id']}", json={"password": "pw-2"}, headers=admin)
    assert response.status_code == 200
    assert _counts(client, hide_empty=0) == {"Hidden": 0, "Shared": 1}
    # A password and new terms in one write; a status change of a protected event.
    response = client.post(
        f"{NS}/events/{secret['id']}",
        json={"categories": [hidden], "status": "draft"},
        headers=admin,
    )
    assert response.status_code == 200
    response = client.post(f"{NS}/events/{secret['id']}", json={"status": "publish"}, headers=admin)
    assert response.status_code == 200
    assert _counts(client, hide_empty=0) == {"Hidden": 0, "Shared": 1}
    assert _recounted() == (True, 0)


def test_a_protected_scheduled_event_counts_for_none_when_its_date_passes(
    client, admin, make_event
):
    from datetime import timedelta

    from rules import clock, dates

    later = dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=2))
    make_event(title="Open", categories="Music")
    make_event(title="Due", status="future", date_utc=later, categories="Music", password="pw")
    make_event(title="Due too", status="future", date_utc=later, categories="Music")
    try:
        clock.freeze()
        clock.advance(3)
        assert _counts(client) == {"Music": 2}
        listed = client.get(f"{NS}/events").get_json()
        assert listed["total"] == 3
        shown = {e["title"]: [c["count"] for c in e["categories"]] for e in listed["events"]}
        assert shown == {"Open": [2], "Due": [], "Due too": [2]}
    finally:
        clock.reset()


def test_a_protected_series_counts_for_none_of_its_terms(client, admin, make_event):
    series = make_event(
        title="Weekly",
        categories="Class",
        start_date="2031-01-06 10:00:00",
        end_date="2031-01-06 11:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=3"],
        password="pw",
    )
    assert _counts(client, hide_empty=0) == {"Class": 0}
    response = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
    assert response.status_code == 200
    assert _counts(client) == {"Class": 3}  # the series and its two occurrences
    response = client.post(f"{NS}/events/{series['id']}", json={"password": "pw"}, headers=admin)
    assert response.status_code == 200
    assert _counts(client, hide_empty=0) == {"Class": 0}
    # New occurrences take the series' links as they are.
    response = client.post(
        f"{NS}/events/{series['id']}",
        json={"recurrence": ["RRULE:FREQ=WEEKLY;COUNT=5"]},
        headers=admin,
    )
    assert response.status_code == 200
    assert _counts(client, hide_empty=0) == {"Class": 0}
    assert _recounted() == (True, 0)


def test_the_migration_takes_protected_events_off_the_counts(app, client, make_event):
    from store.db import database
    from store.models import Setting
    from store.schema import MIGRATIONS, _v14_protected_events_count_for_no_term, migrate

    make_event(title="Secret", categories="Hidden", password="pw")
    make_event(title="Open", categories="Hidden")
    with database.connection_context():
        # As a database written before: the protected event's link counted.
        database.execute_sql("UPDATE event_term SET live = 2")
        assert _recounted() == (True, 1)
        before = MIGRATIONS.index(_v14_protected_events_count_for_no_term)
        Setting.update(value=str(before)).where(Setting.key == "schema_version").execute()
        assert migrate() == len(MIGRATIONS)
    assert _recounted() == (True, 0)
    from tests.conftest import forget_all

    forget_all(app)
    assert _counts(client) == {"Hidden": 1}


def test_hide_empty_keeps_the_ancestors_of_categories_with_events(client, admin, as_role):
    """As WordPress's hierarchical term query: under ``hide_empty`` (the default) an empty
    category stays when a descendant, at any depth, has events, so a client building the
    tree finds every parent; its own count stays 0. Events no caller may count (a private
    one) keep nobody shown, and tags, flat, are not concerned."""
    editor = as_role("editor")

    def category(name, parent=0):
        body = {"name": name, "parent": parent}
        return client.post(f"{NS}/categories", json=body, headers=editor).get_json()["id"]

    root = category("Root")
    middle = category("Middle", root)
    leaf = category("Leaf", middle)
    lonely = category("Lonely")
    hidden = category("Hidden child", lonely)
    client.post(
        f"{NS}/events",
        json={
            "title": "Open",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "categories": [leaf],
            "tags": ["used"],
        },
        headers=admin,
    )
    client.post(
        f"{NS}/events",
        json={
            "title": "Closed",
            "start_date": "tomorrow 9am",
            "end_date": "tomorrow 10am",
            "categories": [hidden],
            "status": "private",
        },
        headers=admin,
    )
    client.post(f"{NS}/tags", json={"name": "unused"}, headers=editor)
    body = client.get(f"{NS}/categories").get_json()
    assert {c["name"]: c["count"] for c in body["categories"]} == {
        "Root": 0,
        "Middle": 0,
        "Leaf": 1,
    }
    assert body["total"] == 3
    assert [t["name"] for t in client.get(f"{NS}/tags").get_json()["tags"]] == ["used"]
    everything = client.get(f"{NS}/categories?hide_empty=false").get_json()
    assert everything["total"] == 5


def test_a_parent_shows_when_its_childs_scheduled_event_is_published(client, as_role, make_event):
    """The kept parents follow the counts as the clock moves, with no write in between: a
    child whose only event is scheduled brings its parent when the date passes."""
    from datetime import timedelta

    from rules import clock, dates

    editor = as_role("editor")
    parent = client.post(f"{NS}/categories", json={"name": "Season"}, headers=editor).get_json()
    child = client.post(
        f"{NS}/categories", json={"name": "Premiere", "parent": parent["id"]}, headers=editor
    ).get_json()
    later = dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=5))
    make_event(status="future", date_utc=later, categories=[child["id"]])
    try:
        clock.freeze()
        assert client.get(f"{NS}/categories").get_json()["categories"] == []
        clock.advance(6)
        shown = client.get(f"{NS}/categories").get_json()["categories"]
        assert [(c["name"], c["count"]) for c in shown] == [("Premiere", 1), ("Season", 0)]
    finally:
        clock.reset()


def test_listing_filters_by_terms_follow_every_write_to_the_terms(client, admin, make_event):
    """The filters read ids, slugs and children from the terms as kept per data version:
    a new child, a moved child, a changed slug and a deleted term show at the next listing."""

    def titles(query):
        response = client.get(f"{NS}/events?{query}&start_date=2000-01-01")
        if response.status_code != 200:
            return response.status_code
        return sorted(e["title"] for e in response.get_json()["events"])

    def category(name, parent=0, slug=None):
        body = {"name": name, "parent": parent, **({"slug": slug} if slug else {})}
        return client.post(f"{NS}/categories", json=body, headers=admin).get_json()

    music = category("Music")
    make_event(title="Concert", categories=[music["id"]])
    assert titles(f"categories={music['slug']}") == ["Concert"]
    jazz = category("Jazz", parent=music["id"])
    make_event(title="Jam", categories=[jazz["id"]])
    assert titles(f"categories={music['id']}") == ["Concert", "Jam"]
    bebop = category("Bebop", parent=jazz["id"])
    make_event(title="Bop", categories=[bebop["id"]])
    assert titles(f"categories={music['slug']}") == ["Bop", "Concert", "Jam"]
    client.post(f"{NS}/categories/{jazz['id']}", json={"parent": 0}, headers=admin)
    assert titles(f"categories={music['slug']}") == ["Concert"]
    assert titles(f"categories={jazz['slug']}") == ["Bop", "Jam"]
    client.post(
        f"{NS}/categories/{jazz['id']}", json={"slug": "swing", "name": "Era"}, headers=admin
    )
    assert titles("categories=swing") == ["Bop", "Jam"]
    assert titles(f"categories={jazz['slug']}") == 400
    # A slug made of digits names the term of that id first, as find_term reads it.
    numeric = category("Year", slug=str(music["id"]))
    make_event(title="Yearly", categories=[numeric["id"]])
    assert titles(f"categories={music['id']}") == ["Concert"]
    assert titles("categories=music,swing") == ["Bop", "Concert", "Jam"]
    assert titles("categories=Music") == ["Concert"]  # by name, case-insensitive
    client.delete(f"{NS}/categories/{bebop['id']}?force=true", headers=admin)
    assert titles(f"categories={bebop['id']}") == 400
    assert titles("categories=swing") == ["Jam"]


# ----------------------------------------------------------------------------------------
# The term counts that leave out password-protected events (SPEC §10), checked for every
# role, series, imports, scheduled events and concurrent writes, against an independent
# recount from the events table.


def _http_counts(client, taxonomy="categories", headers=None):
    body = client.get(
        f"{NS}/{taxonomy}", query_string={"hide_empty": 0, "per_page": 100}, headers=headers or {}
    ).get_json()
    return {term["name"]: term["count"] for term in body[taxonomy]}


def _oracle(taxonomy="category"):
    """Per term name: the events a caller without any password or login may read in full
    (published, or scheduled and due; no password)."""
    from rules import clock, dates
    from store.db import database
    from store.models import Event, EventTerm, Term

    now = dates.fmt(clock.utcnow().replace(tzinfo=None))
    with database.connection_context():
        out = {t.name: 0 for t in Term.select().where(Term.taxonomy == taxonomy)}
        rows = (
            EventTerm.select(Term.name, Event.status, Event.password, Event.date_utc)
            .join(Term, on=(EventTerm.term == Term.id))
            .switch(EventTerm)
            .join(Event, on=(EventTerm.event == Event.id))
            .where(Term.taxonomy == taxonomy)
            .tuples()
        )
        for name, status, password, date_utc in rows:
            if password:
                continue
            if status == "publish" or (status == "future" and date_utc <= now):
                out[name] += 1
    return out


def _occurrences(series_id):
    from store.db import database
    from store.models import Event

    with database.connection_context():
        return [
            e.id
            for e in Event.select(Event.id)
            .where((Event.post_parent == series_id) & (Event.occurrence != ""))
            .order_by(Event.id)
        ]


def _written_meanwhile(app, monkeypatch, event_id, body, headers):
    """Makes ``body`` land as another request's write of the event, after the next write
    request has read the event and before its save (from another thread, to the end)."""
    import threading

    import app.event_input as routes  # the write pipeline's home

    real = routes.plan_occurrences
    done = []

    def racing(values, existing):
        if not done:
            done.append(True)

            def other():
                with app.test_client() as other_client:
                    r = other_client.post(f"{NS}/events/{event_id}", json=body, headers=headers)
                    done.append(r.status_code)

            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
        return real(values, existing)

    monkeypatch.setattr(routes, "plan_occurrences", racing)
    return done


def _check(client):
    from tests.test_terms import _recounted

    assert _http_counts(client) == _oracle("category")
    assert _http_counts(client, "tags") == _oracle("tag")
    assert _recounted() == (True, 0)


def test_counts_follow_password_and_status_writes_by_every_role(client, admin, as_role, make_event):
    contributor, author, editor = as_role("contributor"), as_role("author"), as_role("editor")
    a = make_event(headers=contributor, title="C", categories="Music", password="x")
    _check(client)
    b = make_event(headers=author, title="A", categories="Music,Art", tags="t1", password="y")
    _check(client)
    c = make_event(headers=editor, title="E", categories="Art", tags="t1")
    _check(client)
    r = client.post(f"{NS}/events/{a['id']}", json={"status": "publish"}, headers=editor)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(f"{NS}/events/{a['id']}", json={"password": ""}, headers=editor)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{b['id']}", json={"password": "", "status": "draft"}, headers=author
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{b['id']}", json={"password": "z", "status": "publish"}, headers=author
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{b['id']}",
        json={"password": "", "categories": "Music,New", "tags": "t2"},
        headers=author,
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{c['id']}", json={"password": "q", "categories": "New"}, headers=admin
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    # trash and restore
    for ev in (a, b, c):
        r = client.delete(f"{NS}/events/{ev['id']}", headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
    for ev in (a, b, c):
        r = client.post(f"{NS}/events/{ev['id']}", json={"status": "publish"}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
    r = client.delete(f"{NS}/events/{c['id']}?force=true", headers=admin)
    assert r.status_code == 200
    _check(client)
    # contributor edits own pending protected
    d = make_event(headers=contributor, title="D", categories="Music", password="x")
    r = client.post(f"{NS}/events/{d['id']}", json={"password": ""}, headers=contributor)
    _check(client)
    r = client.post(f"{NS}/events/{d['id']}", json={"status": "publish"}, headers=admin)
    _check(client)


def test_counts_follow_a_password_on_a_series_then_on_one_occurrence(client, admin, make_event):
    series = make_event(
        title="Weekly",
        categories="Class",
        tags="w",
        start_date="2031-01-06 10:00:00",
        end_date="2031-01-06 11:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"],
        password="pw",
    )
    _check(client)
    occ_ids = _occurrences(series["id"])
    assert len(occ_ids) == 3
    o1, o2, o3 = occ_ids
    r = client.post(f"{NS}/events/{o1}", json={"password": ""}, headers=admin)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
    assert r.status_code == 200
    _check(client)
    r = client.post(f"{NS}/events/{o2}", json={"password": "own"}, headers=admin)
    _check(client)
    r = client.post(
        f"{NS}/events/{series['id']}", json={"categories": "Class,Other"}, headers=admin
    )
    _check(client)
    r = client.post(
        f"{NS}/events/{series['id']}", json={"password": "p2", "status": "draft"}, headers=admin
    )
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"status": "publish"}, headers=admin)
    _check(client)
    r = client.post(
        f"{NS}/events/{series['id']}",
        json={"password": "", "categories": "Other", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=6"]},
        headers=admin,
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.delete(f"{NS}/events/{o3}", headers=admin)
    _check(client)
    r = client.delete(f"{NS}/events/{series['id']}", headers=admin)
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"status": "publish"}, headers=admin)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"password": "again"}, headers=admin)
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"recurrence": []}, headers=admin)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.delete(f"{NS}/events/{series['id']}?force=true", headers=admin)
    _check(client)


def test_a_protected_scheduled_event_never_counts(client, admin, make_event):
    from datetime import timedelta

    from rules import clock, dates

    later = dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=5))
    a = make_event(title="Due", status="future", date_utc=later, categories="Music", password="pw")
    b = make_event(title="Due2", status="future", date_utc=later, categories="Music")
    try:
        clock.freeze()
        _check(client)
        clock.advance(6)
        _check(client)
        r = client.post(f"{NS}/events/{a['id']}", json={"password": ""}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(f"{NS}/events/{b['id']}", json={"password": "n"}, headers=admin)
        _check(client)
        r = client.post(f"{NS}/events/{b['id']}", json={"categories": "Art"}, headers=admin)
        _check(client)
        r = client.delete(f"{NS}/events/{a['id']}", headers=admin)
        _check(client)
        r = client.post(f"{NS}/events/{a['id']}", json={"status": "future"}, headers=admin)
        _check(client)
    finally:
        clock.reset()


def test_a_term_given_twice_counts_once(client, admin, make_event):
    a = make_event(title="A", categories="Music,music,Music", tags="x,X")
    _check(client)
    mid = a["categories"][0]["id"]
    tid = a["tags"][0]["id"]
    r = client.post(
        f"{NS}/events",
        json={
            "title": "B",
            "start_date": "tomorrow 10am",
            "end_date": "tomorrow 11am",
            "categories": [mid, mid, "Music"],
            "tags": [mid, tid],
        },
        headers=admin,
    )
    assert r.status_code == 400  # a category's id is no tag
    _check(client)
    r = client.post(
        f"{NS}/events/{a['id']}", json={"tags": [tid, tid], "password": "p"}, headers=admin
    )
    assert r.status_code == 200
    _check(client)


def test_imported_events_count_as_written(client, admin, as_role):
    from tests.helpers import ics, imported

    author = as_role("author")
    # Authors link categories that exist; only editors and up create them (issue 28).
    for name in ("Music", "Art", "Class", "Film", "Other"):
        assert (
            client.post(f"{NS}/categories", json={"name": name}, headers=admin).status_code == 201
        )
    single = "UID:one@x\nSEQUENCE:0\nDTSTART:20310105T100000Z\nDTEND:20310105T110000Z\nSUMMARY:One\nCATEGORIES:Music,Art"
    series = "UID:ser@x\nSEQUENCE:0\nDTSTART:20310106T100000Z\nDTEND:20310106T110000Z\nSUMMARY:Ser\nRRULE:FREQ=WEEKLY;COUNT=4\nCATEGORIES:Class"
    rep = imported(client, author, ics(single, series))
    ids = {e["uid"]: e["id"] for e in rep["created"]}
    _check(client)
    for uid in ids:
        r = client.post(f"{NS}/events/{ids[uid]}", json={"password": "pw"}, headers=author)
        assert r.status_code == 200, r.get_json()
    _check(client)
    single2 = single.replace("SEQUENCE:0", "SEQUENCE:1").replace("Music,Art", "Music,Film")
    series2 = series.replace("SEQUENCE:0", "SEQUENCE:1").replace("Class", "Class,Film")
    override = "UID:ser@x\nSEQUENCE:1\nRECURRENCE-ID:20310113T100000Z\nDTSTART:20310113T120000Z\nDTEND:20310113T130000Z\nSUMMARY:Ser moved\nCATEGORIES:Other"
    cancel = "UID:ser@x\nSEQUENCE:1\nRECURRENCE-ID:20310120T100000Z\nDTSTART:20310120T100000Z\nDTEND:20310120T110000Z\nSUMMARY:x\nSTATUS:CANCELLED"
    rep = imported(client, author, ics(single2, series2, override, cancel))
    _check(client)
    rep = imported(client, author, ics(single2.replace("SEQUENCE:1", "SEQUENCE:2")), status="draft")
    _check(client)
    for uid in ids:
        r = client.post(
            f"{NS}/events/{ids[uid]}", json={"password": "", "status": "publish"}, headers=author
        )
        assert r.status_code == 200, r.get_json()
    _check(client)
    assert _http_counts(client) == {"Art": 0, "Class": 2, "Film": 3, "Music": 1, "Other": 0}


def test_a_password_set_back_while_another_write_cleared_it_keeps_the_event_off_the_counts(
    app, client, admin, make_event, monkeypatch
):
    """Two writes of one event's password race: A read the event while it had password "x"
    and sets "x" again; meanwhile B cleared it. A's save used to compare the password it sent with
    the one A read (equal), so it left the links as B left them (counting), and the
    protected event counted for its category: its only category, named by the count."""
    secret = make_event(title="Secret", categories="Hidden", password="x")
    done = _written_meanwhile(app, monkeypatch, secret["id"], {"password": ""}, admin)
    r = client.post(f"{NS}/events/{secret['id']}", json={"password": "x"}, headers=admin)
    assert r.status_code == 200 and done == [True, 200]
    assert client.get(f"{NS}/events/{secret['id']}").status_code == 403  # protected
    assert _http_counts(client) == {"Hidden": 0}
    _check(client)


def test_scheduled_protected_series_as_its_date_passes(client, admin, make_event):
    from datetime import timedelta

    from rules import clock, dates

    later = dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=5))
    series = make_event(
        title="Weekly",
        categories="Class",
        tags="w",
        status="future",
        date_utc=later,
        start_date="2031-01-06 10:00:00",
        end_date="2031-01-06 11:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"],
        password="pw",
    )
    o1, o2, _o3 = _occurrences(series["id"])
    try:
        clock.freeze()
        _check(client)
        r = client.post(f"{NS}/events/{o1}", json={"password": ""}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        clock.advance(6)
        _check(client)
        r = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(
            f"{NS}/events/{o2}", json={"password": "x", "categories": "Other"}, headers=admin
        )
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(
            f"{NS}/events/{series['id']}",
            json={"password": "y", "categories": "Class,Other"},
            headers=admin,
        )
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.delete(f"{NS}/events/{series['id']}", headers=admin)
        _check(client)
        r = client.post(f"{NS}/events/{series['id']}", json={"status": "future"}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
        _check(client)
    finally:
        clock.reset()


def test_a_draft_set_back_while_another_write_published_it_leaves_the_counts(
    app, client, admin, make_event, monkeypatch
):
    """As with the password: A read the event as a draft and sends "draft"; B published it
    meanwhile. A's save saw no change of status, and the draft kept counting."""
    event = make_event(title="Draft", categories="Unannounced", status="draft")
    done = _written_meanwhile(app, monkeypatch, event["id"], {"status": "publish"}, admin)
    r = client.post(f"{NS}/events/{event['id']}", json={"status": "draft"}, headers=admin)
    assert r.status_code == 200 and done == [True, 200]
    assert client.get(f"{NS}/events/{event['id']}").status_code in (401, 403, 404)
    assert _http_counts(client) == {"Unannounced": 0}
    _check(client)


def test_orderby_include_keeps_the_given_order_past_ten_terms(client, as_role):
    """The places are numbers on both engines (a statement compiled once per shape: as
    parameters, PostgreSQL typed them as text and sorted place 10 before place 2)."""
    editor = as_role("editor")
    ids = [
        client.post(f"{NS}/categories", json={"name": f"term {n}"}, headers=editor).get_json()["id"]
        for n in range(12)
    ]
    given = ids[5:] + ids[:5]
    for query in (",".join(map(str, given)), "&".join(f"include[]={i}" for i in given)):
        listed = client.get(
            f"{NS}/categories?hide_empty=0&per_page=50&orderby=include&include={query}"
            if "[]" not in query
            else f"{NS}/categories?hide_empty=0&per_page=50&orderby=include&{query}"
        ).get_json()["categories"]
        assert [term["id"] for term in listed] == given
    backwards = client.get(
        f"{NS}/categories?hide_empty=0&orderby=include&order=desc&include={','.join(map(str, given))}"
    ).get_json()["categories"]
    assert [term["id"] for term in backwards] == list(reversed(given))[:10]


@pytest.mark.parametrize("plural", ["categories", "tags"])
def test_a_deleted_terms_id_is_never_given_to_another_term(client, admin, plural):
    """Found by the twelfth session's audit: on SQLite the newest term's id, once deleted,
    came back to the next term created (of either taxonomy), so a client's `/categories/40`
    or `categories=40` named another term. WordPress never gives a term id twice."""
    first = client.post(f"{NS}/{plural}", json={"name": "Once"}, headers=admin)
    assert first.status_code == 201
    gone = first.get_json()["id"]
    assert client.delete(f"{NS}/{plural}/{gone}", headers=admin).status_code == 200
    for other in ("categories", "tags"):
        made = client.post(f"{NS}/{other}", json={"name": f"After {other}"}, headers=admin)
        assert made.status_code == 201 and made.get_json()["id"] > gone
    assert client.get(f"{NS}/{plural}/{gone}").status_code == 400
    inline = client.post(
        f"{NS}/events",
        json={
            "title": "Tagged",
            "start_date": "2027-01-05 10:00",
            "end_date": "2027-01-05 11:00",
            "tags": ["brand new"],
            "categories": ["Brand new"],
        },
        headers=admin,
    ).get_json()
    assert all(t["id"] > gone for t in inline["tags"] + inline["categories"])


@pytest.mark.parametrize("kind", ["categories", "tags"])
def test_a_term_page_past_the_end_still_links_the_previous_page(client, as_role, kind):
    """Term_Archive_Base::get: ``has_previous = $current_page > 1`` (terms answer 200 and an
    empty list past the end, and still point back)."""
    editor = as_role("editor")
    for name in ("Alpha", "Beta", "Gamma"):
        created = client.post(f"{NS}/{kind}", json={"name": name}, headers=editor)
        assert created.status_code == 201
    query = {"per_page": 1, "page": 5, "hide_empty": "false"}
    response = client.get(f"{NS}/{kind}", query_string=query)
    assert response.status_code == 200
    body = response.get_json()
    assert body[kind] == [] and body["total"] == 3 and body["total_pages"] == 3
    assert "page=4" in body["previous_rest_url"]
    assert 'rel="prev"' in response.headers.get("Link", "")


@pytest.mark.parametrize("key", ["categories", "tags"])
def test_an_event_s_new_term_over_the_name_limit_is_refused_as_post_categories_does(
    client, admin, key
):
    """chk16a: POST /categories refuses a 300-character name ("Is too long."), but an
    event's categories cut it to 200 characters and made the term. A term name has one
    limit (rules/posts.py::TERM_NAME_MAX, WordPress's varchar(200)) and one answer."""
    long = "C" * 300
    direct = client.post(f"{NS}/{key}", json={"name": long}, headers=admin)
    assert direct.status_code == 400
    body = {"title": "Long", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"}
    refused = client.post(f"{NS}/events", json={**body, key: [long]}, headers=admin)
    assert refused.status_code == 400, refused.get_json()
    assert refused.get_json()["data"]["params"] == {
        key: direct.get_json()["data"]["params"]["name"]
    }
    listed = client.get(f"{NS}/{key}", query_string={"hide_empty": 0}).get_json()[key]
    assert listed == []
    kept = client.post(f"{NS}/events", json={**body, key: ["C" * 200]}, headers=admin)
    assert kept.status_code == 201 and kept.get_json()[key][0]["name"] == "C" * 200


# Found by an outside check: an event's categories and tags skipped the term routes' rules
# (NUL, numbers that can be no id, a null named "None").
TERM_DATES = {"start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"}


def _all_terms(client, admin, kind):
    answer = client.get(f"{NS}/{kind}?per_page=50&hide_empty=0", headers=admin)
    return answer.get_json()[kind]


def test_a_category_name_with_nul_is_refused_on_an_event_write_as_on_the_direct_route(
    client, admin
):
    direct = client.post(f"{NS}/categories", json={"name": "c\x00d"}, headers=admin)
    assert direct.status_code == 400
    answer = client.post(
        f"{NS}/events", json={"title": "t", **TERM_DATES, "categories": ["c\x00d"]}, headers=admin
    )
    assert answer.status_code == 400
    assert _all_terms(client, admin, "categories") == []


def test_the_editors_event_form_refuses_a_category_name_the_category_form_refuses(
    client, admin, sign_in
):
    editor = sign_in("administrator")
    name = "N" * 201
    direct = editor.post("/manage/categories/new", data={"csrf_token": editor.token, "name": name})
    assert direct.status_code == 400
    answer = editor.post("/manage/events/new", data=event_form(editor, categories=name))
    assert answer.status_code == 400
    assert _all_terms(client, admin, "categories") == []


def test_a_huge_numeric_category_id_is_refused_as_its_string_form_is(client, admin):
    as_text = client.post(
        f"{NS}/events",
        json={"title": "t", **TERM_DATES, "categories": ["99999999999999999999999"]},
        headers=admin,
    )
    assert as_text.status_code == 400
    as_number = client.post(
        f"{NS}/events",
        data='{"title": "t", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00",'
        ' "categories": [99999999999999999999999]}',
        headers={**admin, "Content-Type": "application/json"},
    )
    assert as_number.status_code == 400, [c["name"] for c in as_number.get_json()["categories"]]
    assert "categories" in as_number.get_json()["data"]["params"]
    assert _all_terms(client, admin, "categories") == []


def test_negative_or_fractional_numbers_are_not_taken_as_tag_names(client, admin):
    for number in (-1, 1.5):
        answer = client.post(
            f"{NS}/events", json={"title": "t", **TERM_DATES, "tags": [number]}, headers=admin
        )
        assert answer.status_code == 400, (number, [t["name"] for t in answer.get_json()["tags"]])
    assert _all_terms(client, admin, "tags") == []


def test_a_null_in_the_categories_list_does_not_create_a_category_named_none(client, admin):
    answer = client.post(
        f"{NS}/events",
        json={"title": "t", **TERM_DATES, "categories": [None], "tags": [None]},
        headers=admin,
    )
    assert answer.status_code in (201, 400)
    names = [
        t["name"]
        for t in _all_terms(client, admin, "categories") + _all_terms(client, admin, "tags")
    ]
    assert "None" not in names, names


def test_a_term_page_past_the_end_links_no_page_that_does_not_exist(client, admin):
    """SPEC §3: a Link header with rel="prev" where that page exists; WordPress's terms
    controller clamps the previous page to the last one."""
    for name in ("Alpha", "Beta", "Gamma"):
        assert (
            client.post(f"{NS}/categories", json={"name": name}, headers=admin).status_code == 201
        )
    response = client.get(f"{NS}/categories?hide_empty=false&per_page=1&page=5")
    assert response.status_code == 200
    assert response.get_json()["total_pages"] == 3
    for target in re.findall(r"<([^>]+)>", response.headers.get("Link", "")):
        page = re.search(r"[?&]page=(\d+)", target)
        assert page is None or int(page.group(1)) <= 3, response.headers["Link"]
    # The page before still names page 4 in the body, as the plugin's Term_Archive_Base.
    assert "page=4" in response.get_json()["previous_rest_url"]
    wordpress = client.get("/wp-json/wp/v2/tribe_events_cat?per_page=1&page=5")
    assert 'page=3>; rel="prev"' in wordpress.headers["Link"]


def test_a_term_slug_made_unique_stays_within_the_slug_limit(client, admin):
    client.post(f"{NS}/categories", json={"name": "a" * 199 + "!"}, headers=admin)
    second = client.post(f"{NS}/categories", json={"name": "a" * 199 + "?"}, headers=admin)
    assert second.status_code == 201
    made = second.get_json()
    assert len(made["slug"]) <= 200, made["slug"][-6:]
    again = client.post(f"{NS}/categories/{made['id']}", json={"slug": made["slug"]}, headers=admin)
    assert again.status_code == 200, again.get_json()


# SPEC §4: canonically equivalent names (NFC "Café", NFD "Cafe" + U+0301 as macOS input gives
# it) are one name, as in the reference's MySQL collation (rules/text.py::fold).
NFC_NAME = "Café"
NFD_NAME = unicodedata.normalize("NFD", NFC_NAME)
ONE_HOUR = {"start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"}


def _term_list(client, admin, kind):
    answer = client.get(f"{NS}/{kind}?per_page=50&hide_empty=0", headers=admin)
    return answer.get_json()[kind]


def test_a_category_named_as_an_existing_one_in_decomposed_form_is_a_duplicate(client, admin):
    assert (
        client.post(f"{NS}/categories", json={"name": NFC_NAME}, headers=admin).status_code == 201
    )
    answer = client.post(f"{NS}/categories", json={"name": NFD_NAME}, headers=admin)
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["code"] == "term_exists"
    assert len(_term_list(client, admin, "categories")) == 1


def test_an_event_write_naming_a_category_in_decomposed_form_links_the_existing_one(client, admin):
    made = client.post(f"{NS}/categories", json={"name": NFC_NAME}, headers=admin).get_json()
    answer = client.post(
        f"{NS}/events", json={"title": "t", **ONE_HOUR, "categories": [NFD_NAME]}, headers=admin
    )
    assert answer.status_code == 201
    assert [c["id"] for c in answer.get_json()["categories"]] == [made["id"]]
    assert len(_term_list(client, admin, "categories")) == 1


def test_term_pages_and_term_slug_filters_find_a_slug_whatever_its_case(client, admin, make_event):
    """A term page and the plugin's term `slug` filter read a slug as WordPress does
    (sanitize_title): `/events/category/MUSIC-X/` is the page of `music-x`, as an event's or
    a venue's page is, so a site moved from WordPress keeps its term pages' addresses (SPEC
    §17)."""
    category = client.post(
        "/wp-json/tribe/events/v1/categories", json={"name": "Music X"}, headers=admin
    ).get_json()
    tag = client.post(
        "/wp-json/tribe/events/v1/tags", json={"name": "Jazz"}, headers=admin
    ).get_json()
    make_event(title="E", categories=[category["id"]], tags=[tag["id"]])
    html = {"Accept": "text/html"}
    assert client.get("/events/category/MUSIC-X/", headers=html).status_code == 200
    assert client.get("/events/tag/JAZZ/", headers=html).status_code == 200
    listed = client.get(
        "/wp-json/tribe/events/v1/categories", query_string={"slug": "MUSIC-X"}
    ).get_json()
    assert [c["id"] for c in listed["categories"]] == [category["id"]]


@pytest.mark.parametrize("taxonomy", ["category", "tag"])
def test_a_term_whose_stored_slug_ends_in_a_dash_is_found_by_it(
    app, client, admin, make_event, taxonomy
):
    """A slug an older version stored ending in "-" (it cut a long slug after trimming its
    dashes): the term's page (its ``url``, SPEC §15), the slug filters and a listing's
    filter by slug find it, not the term holding the trimmed slug."""
    plural = "categories" if taxonomy == "category" else "tags"
    old, new = (
        client.post(f"{NS}/{plural}", json={"name": name}, headers=admin).get_json()
        for name in ("Old cut", "Newer")
    )
    store_older_slug(app, Term, old["id"], "old-cut-")
    renamed = client.post(f"{NS}/{plural}/{new['id']}", json={"slug": "old-cut"}, headers=admin)
    assert renamed.get_json()["slug"] == "old-cut"
    make_event(title="Filed", **{plural: [old["id"]]})
    assert client.get(f"{NS}/{plural}/{old['id']}").get_json()["url"].endswith("/old-cut-/")
    page = client.get(f"/events/{taxonomy}/old-cut-/", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "Filed" in page.get_data(as_text=True)
    # The filter names the one stored slug the address names, as the term's page does: the
    # dashed one where a term has it (not both: one slug asked, one term; chk20s D2).
    for asked, terms in (("old-cut-", [old]), ("old-cut", [new])):
        listed = client.get(f"{NS}/{plural}", query_string={"slug": asked, "hide_empty": "false"})
        assert {t["id"] for t in listed.get_json()[plural]} == {t["id"] for t in terms}, asked
    events = client.get(f"{NS}/events", query_string={plural: "old-cut-"}).get_json()
    assert [e["title"] for e in events["events"]] == ["Filed"]


@pytest.mark.parametrize("root", [f"{NS}/categories", "/wp-json/wp/v2/tribe_events_cat"])
def test_a_slug_filter_ending_in_a_dash_names_one_term_not_two(app, client, admin, root):
    """Found by an outside check (chk20s D2): ``?slug=kay-`` asked the stored ``kay-`` AND
    ``kay``, so the listing widened to two terms, where the term's page, ``?categories=``
    and by-slug name the one stored as ``kay-``. Without a term of that slug, the trimmed
    one is named, as before slugs ending in "-" were read."""
    kay = client.post(f"{NS}/categories", json={"name": "Kay"}, headers=admin).get_json()
    old = client.post(f"{NS}/categories", json={"name": "Kay old"}, headers=admin).get_json()
    store_older_slug(app, Term, old["id"], "kay-")

    def listed(slug):
        answer = client.get(root, query_string={"slug": slug, "hide_empty": "false"})
        assert answer.status_code == 200
        body = answer.get_json()
        return [term["id"] for term in (body["categories"] if isinstance(body, dict) else body)]

    assert listed("kay-") == [old["id"]]
    assert listed("kay") == [kay["id"]]
    zed = client.post(f"{NS}/categories", json={"name": "Zed"}, headers=admin).get_json()
    assert listed("zed-") == [zed["id"]]  # no term stored as ``zed-``: the trimmed slug
    assert listed("kay--") == [old["id"]]
    assert listed("kay-old-") == listed("kay-old") == []  # its name's slug is not stored
    assert listed("other-") == []


@pytest.mark.parametrize("name", ["\u0661", "\u00b2", "\u2460"])
def test_a_category_named_with_a_non_ascii_digit_is_a_name_not_an_id(client, admin, name):
    """reference-behaviour §8: each item "numeric -> existing term id; string -> existing term
    by slug or name, otherwise created". PHP's is_numeric() is ASCII-only, so "١", "²", "①"
    are names and the term is created; here they are taken as ids and refused."""
    answer = client.post(
        "/wp-json/tribe/events/v1/events",
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


def test_terms_of_one_name_are_offered_in_the_same_order_on_either_engine(client, admin):
    """Found by an outside check. Two categories may share a name under different parents (SPEC §4 forbids it under the
    same parent only). The pages' category menu lists them by name; SQLite breaks the tie by
    id (the order they were made), PostgreSQL left it to the plan (seen: import-ete-19,
    import-ete-40, import-ete-39, ... on a copied calendar)."""
    parents = []
    for n in range(6):
        made = client.post(
            f"{NS}/categories", json={"name": f"Parent {n}"}, headers=admin
        ).get_json()
        parents.append(made["id"])
    slugs, ids = [], []
    for parent in parents:
        made = client.post(
            f"{NS}/categories", json={"name": "Rock", "parent": parent}, headers=admin
        )
        assert made.status_code in (200, 201), made.get_json()
        slugs.append(made.get_json()["slug"])
        client.post(
            f"{NS}/events",
            json={"title": f"Show {parent}", "start_date": "tomorrow 10am",
                  "end_date": "tomorrow 12pm", "categories": [made.get_json()["id"]]},
            headers=admin,
        )  # fmt: skip
        ids.append(made.get_json()["id"])
    for rounds in range(3):  # an editor describes them, the last made first, and again
        for term in reversed(ids[: len(ids) - rounds]):
            edited = client.post(
                f"{NS}/categories/{term}", json={"description": f"Loud {rounds}"}, headers=admin
            )
            assert edited.status_code == 200, edited.get_json()
    page = client.get("/events/list/").get_data(as_text=True)
    offered = [s for s in re.findall(r'<option value="([^"]+)">Rock</option>', page)]
    assert offered == slugs
    listed = client.get(f"{NS}/categories?search=rock&per_page=50", headers=admin).get_json()[
        "categories"
    ]
    assert [c["slug"] for c in listed] == slugs


# --- chk16g: names in any case and Unicode form, the same on either engine (SPEC §14) ---------

GREEK_NAME = "ΘΕΑΤΡΟ ΚΗΠΟΣ"  # a capital sigma at a word's end: Python lowers it ς, PostgreSQL σ


def test_terms_of_one_name_are_offered_in_the_same_order_after_edits(client, admin, make_event):
    """Two categories may share a name under different parents (SPEC §4 forbids it under the
    same parent only). The pages' category menu and ``/categories`` list them by name, the
    tie by id (the order they were made) on either engine, also after updates have moved
    their rows (PostgreSQL left the tie to the plan: import-ete-19, import-ete-40, ...)."""
    parents = [
        client.post(f"{NS}/categories", json={"name": f"Parent {n}"}, headers=admin).get_json()
        for n in range(6)
    ]
    slugs, ids = [], []
    for parent in parents:
        made = client.post(
            f"{NS}/categories", json={"name": "Rock", "parent": parent["id"]}, headers=admin
        )
        assert made.status_code == 201, made.get_json()
        slugs.append(made.get_json()["slug"])
        ids.append(made.get_json()["id"])
        make_event(title=f"Show {parent['id']}", categories=[ids[-1]])
    for rounds in range(3):  # an editor describes them, the last made first, and again
        for term in reversed(ids[: len(ids) - rounds]):
            edited = client.post(
                f"{NS}/categories/{term}", json={"description": f"Loud {rounds}"}, headers=admin
            )
            assert edited.status_code == 200, edited.get_json()
    page = client.get("/events/list/").get_data(as_text=True)
    assert re.findall(r'<option value="([^"]+)">Rock</option>', page) == slugs
    listed = client.get(f"{NS}/categories?search=rock&per_page=50", headers=admin).get_json()
    assert [c["slug"] for c in listed["categories"]] == slugs


def test_a_term_named_with_a_final_capital_sigma_is_found_again_by_name(client, admin, make_event):
    """Terms by name are matched case-insensitively (SPEC §4): the same name sent twice
    reuses the term, and creating it again is a 400 term_exists. On PostgreSQL the name
    folded in SQL (σ, i) never equalled Python's ``lower`` of the name sent (ς, i + U+0307)."""
    first = make_event(categories=[GREEK_NAME], tags=["İstanbul"])
    second = make_event(categories=[GREEK_NAME], tags=["İstanbul"])
    assert second["categories"][0]["id"] == first["categories"][0]["id"]
    assert second["tags"][0]["id"] == first["tags"][0]["id"]
    again = client.post(f"{NS}/categories", json={"name": GREEK_NAME}, headers=admin)
    assert again.status_code == 400 and again.get_json()["code"] == "term_exists"
    assert [c["name"] for c in _term_list(client, admin, "categories")] == [GREEK_NAME]


def test_a_name_in_its_own_lower_case_is_the_same_name(client, admin):
    """README/SPEC: names compared in any case and Unicode form, as the reference's MySQL
    collation, which ignores a combining dot. "İnci" and "inci" were one name here, but the
    lower case of "İnci" elsewhere (Python's, JavaScript's: i + U+0307) made a second
    category (chk17m D2)."""
    assert client.post(f"{NS}/categories", json={"name": "İnci"}, headers=admin).status_code == 201
    assert client.post(f"{NS}/categories", json={"name": "inci"}, headers=admin).status_code == 400
    again = client.post(f"{NS}/categories", json={"name": "İnci".lower()}, headers=admin)
    assert again.status_code == 400
    assert again.get_json()["code"] == "term_exists"


def test_a_tag_search_in_the_lower_case_of_a_dotted_capital_i_finds_it(client, admin):
    """The search of terms folds as their names (chk17m D2): "İstanbul".lower() finds it."""
    client.post("/wp-json/wp/v2/tags", json={"name": "İstanbul"}, headers=admin)
    for search in ("istanbul", "İstanbul".lower()):
        found = client.get("/wp-json/wp/v2/tags", query_string={"search": search}).get_json()
        assert [t["name"] for t in found] == ["İstanbul"], ascii(search)
        asked = {"search": search, "hide_empty": "false"}
        ours = client.get(f"{NS}/tags", query_string=asked).get_json()
        assert [t["name"] for t in ours["tags"]] == ["İstanbul"], ascii(search)


def test_a_term_slug_filter_is_read_as_wordpress_sanitizes_it(client, admin, make_event):
    """WP_Term_Query passes each `slug` through sanitize_title (lower case, accents removed):
    ?slug=JAZZ and ?slug=été-musique find "jazz" and "ete-musique" on the reference, in the
    API's listing, WordPress's route and an event listing's term filter."""
    make_event(title="Summer", categories=["Jazz", "Été Musique"])
    for asked, slug in (("JAZZ", "jazz"), ("été-musique", "ete-musique")):
        body = client.get(f"{NS}/categories?slug={asked}", headers=admin).get_json()
        assert [c["slug"] for c in body["categories"]] == [slug], asked
        wp = client.get(f"/wp-json/wp/v2/tribe_events_cat?slug={asked}", headers=admin).get_json()
        assert [c["slug"] for c in wp] == [slug], asked
        events = client.get(f"{NS}/events?categories={asked}", headers=admin)
        assert [e["title"] for e in events.get_json()["events"]] == ["Summer"], asked


def test_category_bad_parent_named_beside_other_bad_params(client, admin):
    r = client.post(f"{NS}/categories", json={"name": "", "parent": 999}, headers=admin)
    assert r.status_code == 400
    assert set(r.get_json()["data"]["params"]) == {"name", "parent"}, r.get_json()
    r = client.post(
        f"{NS}/categories", json={"name": "B", "slug": "", "parent": 999}, headers=admin
    )
    assert set(r.get_json()["data"]["params"]) == {"slug", "parent"}, r.get_json()


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


def test_term_list_event_and_parent_ids_named_beside_other_bad_params(client):
    # reference-behaviour §3.6: `event`/`post` must be an existing event, `parent` an existing
    # category (else 400): arguments' validators, collected with order's
    cases = [
        ("/categories?post=99999&order=", {"post", "order"}),
        ("/tags?event=99999&order=", {"event", "order"}),
        ("/categories?parent=9999&order=", {"parent", "order"}),
    ]
    for url, names in cases:
        r = client.get(NS + url)
        assert r.status_code == 400
        assert set(r.get_json()["data"]["params"]) == names, (url, r.get_json())


@pytest.mark.parametrize(
    "path",
    [f"{NS}/categories", "/wp-json/tribe/events/v1/categories", "/wp-json/wp/v2/tribe_events_cat"],
)
def test_a_term_write_names_a_missing_parent_beside_an_empty_name(client, admin, path):
    """Outside check chk17m D8 (SPEC §6): alone, a parent that is no term is a 400 naming
    parent; beside an empty name only the name was named (WordPress's route of the
    taxonomy ran none of our routes' checks when its schema refused the body)."""
    alone = client.post(path, json={"name": "X", "parent": 99999}, headers=admin)
    assert alone.status_code == 400
    assert set(alone.get_json()["data"]["params"]) == {"parent"}, alone.get_json()
    both = client.post(path, json={"name": "", "parent": 99999}, headers=admin)
    assert both.status_code == 400
    assert set(both.get_json()["data"]["params"]) == {"name", "parent"}, both.get_json()


def test_a_category_update_names_a_parent_loop_beside_the_schemas_refusals(client, admin, as_role):
    """As an event's end before its stored start (chk17m D1, SPEC §6): a parent that is
    the category's own child is named beside an empty name, to one who may manage terms;
    to anyone else the body alone is answered (the tree is not told, chk17m D6)."""
    arts = client.post(f"{NS}/categories", json={"name": "Arts"}, headers=admin).get_json()
    child = client.post(
        f"{NS}/categories", json={"name": "Theatre", "parent": arts["id"]}, headers=admin
    ).get_json()
    sent = {"name": "", "parent": child["id"]}
    answer = client.patch(f"{NS}/categories/{arts['id']}", json=sent, headers=admin)
    assert answer.status_code == 400
    assert set(answer.get_json()["data"]["params"]) == {"name", "parent"}, answer.get_json()
    for headers in ({}, as_role("subscriber", "sub-loop")):
        refused = client.patch(f"{NS}/categories/{arts['id']}", json=sent, headers=headers)
        assert set(refused.get_json()["data"]["params"]) == {"name"}, refused.get_json()


def test_a_category_whose_transliterated_slug_is_cut_is_found_by_its_slug(client, admin):
    """chk19a D3 for terms: a name of at most 200 characters grows when transliterated ("Æ"
    is "ae"): "Æb Æb … Æb" (197 characters) made the slug "aeb-…-aeb-", whose page answered
    404, GET /events?categories={slug} 400 and GET /categories?slug={slug} nothing."""
    made = client.post(f"{NS}/categories", json={"name": ("Æb " * 66).strip()}, headers=admin)
    assert made.status_code == 201, made.get_json()
    term = made.get_json()
    assert not term["slug"].endswith("-")
    event = client.post(
        f"{NS}/events",
        json={
            "title": "T",
            "start_date": "2030-01-01 10:00",
            "end_date": "2030-01-01 12:00",
            "categories": [term["id"]],
        },
        headers=admin,
    )
    assert event.status_code == 201, event.get_json()
    found = client.get(f"{NS}/events?categories={term['slug']}&start_date=2029-01-01")
    assert found.status_code == 200, found.get_json()
    assert client.get(f"{NS}/categories?slug={term['slug']}").get_json()["total"] == 1
    assert client.get(term["url"].replace("http://localhost", "")).status_code == 200


def test_an_event_naming_many_new_tags_looks_their_names_up_together(
    client, admin, make_event, monkeypatch
):
    """chk19a: each new name was looked up alone, by a statement that folds the name of
    every term of the taxonomy, twice (the body's reading, then the write): a write naming
    8,000 new tags took 28 s with the write lock held. The names are looked up together now
    (``store/terms.py::find_terms``), a statement for 500 names; names told apart by
    their case alone are one new term, and an existing name is that term."""
    from store.db import _FOLD_SQL, database, is_postgres

    make_event(tags="Jazz")
    marker = _FOLD_SQL.split("{}")[0] if is_postgres() else "unicode_fold("
    sent = []
    execute = database.obj.execute_sql

    def spying(sql, params=None, *args, **kwargs):
        sent.append(sql)
        return execute(sql, params, *args, **kwargs)

    monkeypatch.setattr(database.obj, "execute_sql", spying)
    names = [f"Fresh {n}" for n in range(60)] + ["fresh 7", "JAZZ"]
    event = make_event(tags=names)
    monkeypatch.undo()
    by_name = [sql for sql in sent if marker in sql and "term" in sql.lower()]
    assert len(by_name) <= 2, len(by_name)
    tags = [
        tag["name"]
        for page in (1, 2)
        for tag in client.get(f"{NS}/tags?per_page=50&page={page}&hide_empty=0").get_json()["tags"]
    ]
    assert sorted(tags) == sorted(["Jazz", *names[:60]])
    assert len(event["tags"]) == 61
