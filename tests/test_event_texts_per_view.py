"""Attacks on the events kept as JSON text (app/reading/texts.py::event_texts, the
``EVENT_TEXTS`` memo of app/render.py): a text made for one viewer, password, host, language
root or kind of read reaching another; a text outliving a write or a clock move; a listing
that shows what its own query did not select; a warm answer unlike a cold one.

Every request has a URL of its own (``_=N``), so the response cache never answers: what
comes back is the kept text, or a new one."""

import itertools
import threading
from datetime import timedelta

import pytest

from rules import clock, dates
from store.db import database, write_transaction
from store.models import Event
from tests.conftest import NS, forget_all, strip_page_urls

_n = itertools.count(770000)


def fetch(client, path, headers=None, **kw):
    sep = "&" if "?" in path else "?"
    return client.get(f"{path}{sep}_={next(_n)}", headers=headers or {}, **kw)


def get(client, path, headers=None, **kw):
    response = fetch(client, path, headers, **kw)
    assert response.status_code == 200, (path, response.get_data(as_text=True)[:500])
    return response.get_json()


def soon(seconds=2):
    return dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=seconds))


WIDE = "&start_date=2000-01-01&end_date=2200-01-01"


def listed(client, event_id, headers=None, query="", root=""):
    body = get(client, f"{root}{NS}/events?per_page=50{WIDE}{query}", headers)
    found = [e for e in body["events"] if e["id"] == event_id]
    return found[0] if found else None


def single(client, event_id, headers=None, query="", root=""):
    return get(client, f"{root}{NS}/events/{event_id}?x=1{query}", headers)


def agree(app, client, url, headers=None, **kw):
    """The answer made now (memo as it is), again (memo warm) and cold agree."""
    first = fetch(client, url, headers, **kw)
    again = fetch(client, url, headers, **kw)
    forget_all(app)
    fresh = fetch(client, url, headers, **kw)
    where = (url, headers)
    assert first.status_code == again.status_code == fresh.status_code, where
    if fresh.status_code == 200:
        a, b, c = (strip_page_urls(r.get_json()) for r in (first, again, fresh))
        assert a == c, (where, a, c)
        assert b == c, (where, b, c)
    return fresh


@pytest.fixture(autouse=True)
def _clock_back(app):
    app.config["AUTH_FAILURE_LIMIT"] = 10**9  # wrong ?password= guesses are throttled
    yield
    clock.reset()


@pytest.fixture
def frozen():
    clock.freeze()
    yield
    clock.reset()


def in_other_thread(work):
    """``work()`` on a connection of its own, as another worker thread would run it."""
    errors = []

    def run():
        try:
            with database.connection_context():
                work()
        except Exception as error:  # pragma: no cover - shown by the assert below
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not errors, errors


# --- ways of seeing: viewer, role, user, password, host, scheme, root, kind of read -----------


def test_each_role_and_user_gets_its_own_text_whoever_asks_first(client, as_role, make_event):
    author = as_role("author", "ann")
    other = as_role("author", "bob")
    contributor = as_role("contributor")
    subscriber = as_role("subscriber")
    editor = as_role("editor")
    venue = client.post(
        f"{NS}/venues", json={"venue": "Ann's private room", "status": "private"}, headers=author
    ).get_json()
    organizer = client.post(
        f"{NS}/organizers", json={"organizer": "Draft org", "status": "draft"}, headers=editor
    ).get_json()
    event = make_event(headers=author, title="Open", venue=venue["id"])
    linked = client.post(
        f"{NS}/events/{event['id']}", json={"organizer": [organizer["id"]]}, headers=editor
    )
    assert linked.status_code == 200, linked.get_json()
    expected = {
        "ann": ("Ann's private room", []),
        "bob": ([], []),
        "contributor": ([], []),
        "subscriber": ([], []),
        "editor": ("Ann's private room", [organizer["id"]]),
        "public": ([], []),
    }
    heads = {
        "ann": author,
        "bob": other,
        "contributor": contributor,
        "subscriber": subscriber,
        "editor": editor,
        "public": {},
    }
    # The most privileged first, so that a text kept for it would reach the others.
    for order in (["editor", "ann", "bob", "contributor", "subscriber", "public"], ["public"]):
        for name in order:
            for body in (
                listed(client, event["id"], heads[name]),
                single(client, event["id"], heads[name]),
            ):
                venue_seen = body["venue"]["venue"] if body["venue"] else []
                assert venue_seen == expected[name][0], name
                assert [o["id"] for o in body["organizer"]] == expected[name][1], name


def test_password_text_never_reaches_another_password_or_none(client, admin, make_event):
    event = make_event(title="Secret", description="<p>in</p>", password="pw", cost="10")
    url = f"{NS}/events/{event['id']}"
    assert get(client, f"{url}?password=pw")["description"] == "<p>in</p>"  # single, warm
    assert listed(client, event["id"], query="&password=pw")["cost"] == "$10"
    for query in ("", "&password=", "&password=PW", "&password=pw%20", "&password=p"):
        body = listed(client, event["id"], query=query)
        assert body["description"] == "" and body["cost"] == "", query
        response = fetch(client, f"{url}?x=1{query}")
        assert response.status_code == 403, query
    by_slug = f"{NS}/events/by-slug/{event['slug']}"
    assert get(client, f"{by_slug}?password=pw")["description"] == "<p>in</p>"
    assert fetch(client, f"{by_slug}?password=no").status_code == 403


def test_venue_and_organizer_passwords_are_their_own(client, admin, make_event):
    venue = client.post(
        f"{NS}/venues",
        json={"venue": "Vault", "address": "1 Hidden St", "password": "v"},
        headers=admin,
    ).get_json()
    organizer = client.post(
        f"{NS}/organizers",
        json={"organizer": "Org", "email": "o@x.org", "password": "o"},
        headers=admin,
    ).get_json()
    event = make_event(title="Open", venue=venue["id"], organizer=[organizer["id"]])
    for _ in range(2):
        for query, address, email in (
            ("&password=v", "1 Hidden St", ""),
            ("&password=o", "", "o@x.org"),
            ("", "", ""),
        ):
            for body in (
                listed(client, event["id"], query=query),
                single(client, event["id"], query=query),
            ):
                assert body["venue"].get("address", "") == address, query
                assert body["organizer"][0].get("email", "") == email, query


def test_scheme_host_and_language_root_each_their_own(client, make_event):
    event = make_event(title="Hosted", categories="Music")
    for _ in range(2):
        for base, root in (
            ("http://a.example", ""),
            ("https://a.example", ""),
            ("http://a.example:8080", ""),
            ("http://b.example", "/fr"),
            ("http://b.example", ""),
        ):
            for body in (
                get(client, f"{root}{NS}/events", base_url=base)["events"][0],
                get(client, f"{root}{NS}/events/{event['id']}", base_url=base),
            ):
                assert body["url"].startswith(base + "/event/"), (base, body["url"])
                assert body["rest_url"] == f"{base}{root}{NS}/events/{event['id']}"
                host = base.split("//", 1)[1].split(":")[0]
                assert body["global_id"].startswith(f"{host}?id="), body["global_id"]
                urls = body["categories"][0]["urls"]
                assert urls["self"].startswith(f"{base}{root}{NS}/categories/")


def test_site_url_namespace_and_timezone_settings_changed_at_runtime(app, client, make_event):
    event = make_event(title="Zoned", start_date="2030-01-10 10:00", end_date="2030-01-10 11:00")
    with database.connection_context(), write_transaction():  # a row with no zone of its own
        Event.update(timezone="").where(Event.id == event["id"]).execute()
    assert listed(client, event["id"])["timezone"] == app.config["SITE_TIMEZONE"]
    assert listed(client, event["id"])["url"].startswith("http://localhost/")
    first = single(client, event["id"])
    app.config["SITE_URL"] = "https://cal.example.org/"
    body = listed(client, event["id"])
    assert body["url"].startswith("https://cal.example.org/event/")
    assert body["global_id"].startswith("cal.example.org?id=")
    assert single(client, event["id"])["rest_url"].startswith("https://cal.example.org/")
    app.config["SITE_URL"] = ""
    app.config["SITE_TIMEZONE"] = "Asia/Tokyo"
    # The event was made with the site's zone stored or not: either way the text follows
    # what a cold answer says.
    assert listed(client, event["id"])["timezone"] == "Asia/Tokyo"
    assert single(client, event["id"])["timezone"] == "Asia/Tokyo"
    agree(app, client, f"{NS}/events?per_page=50{WIDE}")
    agree(app, client, f"{NS}/events/{event['id']}")
    assert first["id"] == event["id"]


def test_listing_and_single_texts_never_swap_any_order(client, make_event):
    event = make_event(
        title="Both",
        venue={"venue": "Hall", "address": "1 St"},
        organizer=[{"organizer": "O", "email": "o@x.org"}],
    )
    slug = f"{NS}/events/by-slug/{event['slug']}"
    assert "json_ld" in get(client, slug)  # by slug first
    body = listed(client, event["id"])
    assert "json_ld" not in body and "json_ld" not in body["venue"]
    assert "json_ld" not in body["organizer"][0]
    one = single(client, event["id"])
    assert "json_ld" in one and "json_ld" in one["venue"] and "json_ld" in one["organizer"][0]
    assert "json_ld" not in listed(client, event["id"], query=f"&include={event['id']}")


@pytest.mark.slow
def test_cold_warm_and_fresh_agree_over_many_urls_and_viewers(
    app, client, admin, as_role, make_event
):
    author = as_role("author")
    editor = as_role("editor")
    contributor = as_role("contributor")
    venue = client.post(
        f"{NS}/venues", json={"venue": "Hall", "address": "1 St", "password": "v"}, headers=admin
    ).get_json()
    events = [
        make_event(title="Plain", venue=venue["id"], categories="Music", tags="jazz"),
        make_event(title="Locked", password="pw", categories="Music", description="<b>x</b>"),
        make_event(headers=author, title="Mine", status="draft", tags="jazz"),
        make_event(headers=author, title="Private", status="private"),
        make_event(title="Series", recurrence=["RRULE:FREQ=DAILY;COUNT=3"], categories="Talks"),
        make_event(title="Later", status="future", date_utc=soon(3600), categories="Music"),
    ]
    urls = [
        f"{NS}/events?per_page=50",
        f"{NS}/events?per_page=2&page=2",
        f"{NS}/events?categories=music",
        f"{NS}/events?tags=jazz&status=draft,publish",
        f"{NS}/events?search=Series",
        f"{NS}/events?password=pw",
        f"{NS}/events?password=v",
        f"{NS}/events?include={events[0]['id']},{events[1]['id']}",
        f"{NS}/events?post_parent={events[4]['id']}",
        f"/fr{NS}/events?per_page=50",
        *[f"{NS}/events/{e['id']}" for e in events],
        f"{NS}/events/{events[1]['id']}?password=pw",
        f"{NS}/events/by-slug/{events[0]['slug']}",
    ]
    viewers = [{}, admin, author, editor, contributor]
    for headers in viewers:
        for url in urls:
            agree(app, client, url, headers)
    # A write, then every answer again, the memo warm from before the write.
    client.post(f"{NS}/venues/{venue['id']}", json={"venue": "Renamed"}, headers=admin)
    for headers in viewers:
        for url in urls:
            agree(app, client, url, headers)


def test_a_fresh_app_answers_as_the_warm_one(app, client, admin, make_event, fresh_app):
    """The same rows in another app's database (a fresh process): the same texts."""
    body = {
        "title": "Twin",
        "start_date": "2030-05-05 10:00",
        "end_date": "2030-05-05 11:00",
        "venue": {"venue": "Hall", "address": "1 St"},
        "categories": "Music",
        "password": "pw",
    }
    from store.db import bind_database
    from store.users import create_user

    warm = make_event(**body)
    warm_list = strip_page_urls(get(client, f"{NS}/events?password=pw"))
    warm_list = strip_page_urls(get(client, f"{NS}/events?password=pw"))
    warm_single = get(client, f"{NS}/events/{warm['id']}?password=pw")
    bind_database(fresh_app.extensions["calendar.db"])
    try:
        other = fresh_app.test_client()
        with database.connection_context():
            _user, password = create_user("administrator", "administrator")
        import base64

        auth = {
            "Authorization": "Basic "
            + base64.b64encode(f"administrator:{password}".encode()).decode()
        }
        made = other.post(f"{NS}/events", json=body, headers=auth)
        assert made.status_code == 201, made.get_json()
        twin = made.get_json()
        their_list = strip_page_urls(get(other, f"{NS}/events?password=pw"))
        their_single = get(other, f"{NS}/events/{twin['id']}?password=pw")
    finally:
        bind_database(client.application.extensions["calendar.db"])

    def same(a, b):
        skip = {
            "id",
            "global_id",
            "global_id_lineage",
            "rest_url",
            "date",
            "date_utc",
            "modified",
            "modified_utc",
            "author",
            "url",
            "slug",
            "website",
        }
        if isinstance(a, dict):
            return {k: same(v, None) for k, v in a.items() if k not in skip}
        if isinstance(a, list):
            return [same(v, None) for v in a]
        return a

    assert same(warm_single, None) == same(their_single, None)
    assert same(warm_list, None) == same(their_list, None)


# --- writes of every kind ----------------------------------------------------------------------


def _both(client, event_id, headers=None):
    return listed(client, event_id, headers), single(client, event_id, headers)


def test_event_trash_restore_and_force_delete(client, admin, make_event):
    event = make_event(title="Here")
    editor_list = listed(client, event["id"], admin)
    assert editor_list["status"] == "publish"
    assert client.delete(f"{NS}/events/{event['id']}", headers=admin).status_code == 200
    assert listed(client, event["id"]) is None
    assert listed(client, event["id"], admin, query="&status=trash")["status"] == "trash"
    assert fetch(client, f"{NS}/events/{event['id']}").status_code == 403
    restored = client.post(f"{NS}/events/{event['id']}", json={"status": "publish"}, headers=admin)
    assert restored.status_code == 200, restored.get_json()
    for body in _both(client, event["id"]):
        assert body["status"] == "publish"
    response = client.delete(f"{NS}/events/{event['id']}?force=true", headers=admin)
    assert response.status_code == 200
    assert listed(client, event["id"], admin) is None
    assert fetch(client, f"{NS}/events/{event['id']}", admin).status_code == 404


def test_venue_organizer_edits_reach_kept_texts(client, admin, make_event):
    event = make_event(venue={"venue": "Hall"}, organizer=[{"organizer": "Org"}])
    venue_id, org_id = event["venue"]["id"], event["organizer"][0]["id"]
    _both(client, event["id"])
    client.post(
        f"{NS}/venues/{venue_id}", json={"venue": "Big hall", "password": "v"}, headers=admin
    )
    client.post(f"{NS}/organizers/{org_id}", json={"organizer": "New org"}, headers=admin)
    for body in _both(client, event["id"]):
        assert body["venue"]["venue"] == "Big hall" and body["venue"].get("address", "") == ""
        assert body["organizer"][0]["organizer"] == "New org"
    assert client.delete(f"{NS}/organizers/{org_id}?force=true", headers=admin).status_code == 200
    for body in _both(client, event["id"]):
        assert body["organizer"] == []
    assert client.delete(f"{NS}/venues/{venue_id}", headers=admin).status_code == 200
    for body in _both(client, event["id"]):
        assert body["venue"] == []


def test_term_rename_delete_and_counts_reach_kept_texts(client, admin, make_event):
    event = make_event(categories="Music", tags="jazz")
    other = make_event(title="Other")
    cat, tag = event["categories"][0]["id"], event["tags"][0]["id"]
    _both(client, event["id"])
    client.post(f"{NS}/categories/{cat}", json={"name": "Sound", "slug": "sound"}, headers=admin)
    client.post(f"{NS}/events/{other['id']}", json={"categories": [cat]}, headers=admin)
    for body in _both(client, event["id"]):
        assert body["categories"][0]["name"] == "Sound"
        assert body["categories"][0]["count"] == 2
    client.post(f"{NS}/events/{other['id']}", json={"status": "draft"}, headers=admin)
    for body in _both(client, event["id"]):
        assert body["categories"][0]["count"] == 1
    assert client.delete(f"{NS}/tags/{tag}?force=true", headers=admin).status_code == 200
    assert client.delete(f"{NS}/categories/{cat}?force=true", headers=admin).status_code == 200
    for body in _both(client, event["id"]):
        assert body["tags"] == [] and body["categories"] == []


def test_media_attach_replace_and_delete_reach_kept_texts(client, admin, make_event):
    from tests.helpers import image_bytes, uploaded

    first = uploaded(client, admin, image_bytes())
    second = uploaded(client, admin, image_bytes(colour=(1, 2, 3)), name="b.jpg")
    venue = client.post(
        f"{NS}/venues", json={"venue": "Hall", "image": first["id"]}, headers=admin
    ).get_json()
    event = make_event(image=first["id"], venue=venue["id"])
    for body in _both(client, event["id"]):
        assert body["image"]["id"] == first["id"] and body["venue"]["image"]["id"] == first["id"]
    client.post(f"{NS}/events/{event['id']}", json={"image": second["id"]}, headers=admin)
    for body in _both(client, event["id"]):
        assert body["image"]["id"] == second["id"]
    assert client.delete(f"{NS}/media/{first['id']}?force=true", headers=admin).status_code == 200
    for body in _both(client, event["id"]):
        assert body["image"]["id"] == second["id"]
        assert body["venue"].get("image", False) is False
    assert client.delete(f"{NS}/media/{second['id']}?force=true", headers=admin).status_code == 200
    for body in _both(client, event["id"]):
        assert body["image"] is False


def test_series_and_occurrence_writes_reach_kept_texts(client, admin):
    from tests.test_recurrence import create_series, occurrences

    series = create_series(client, admin, title="Class")
    others = occurrences(client, series["id"])
    one = others[0]["id"]
    assert single(client, one)["recurrence"] == ["RRULE:FREQ=WEEKLY;COUNT=5"]
    assert listed(client, one, query="&start_date=2000-01-01&end_date=2200-01-01")
    client.post(
        f"{NS}/events/{series['id']}",
        json={"title": "Course", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=3"]},
        headers=admin,
    )
    kept = occurrences(client, series["id"])
    assert len(kept) == 2
    for o in kept:
        body = single(client, o["id"])
        assert body["recurrence"] == ["RRULE:FREQ=WEEKLY;COUNT=3"] and body["title"] == "Course"
    edited = kept[0]["id"]
    client.post(f"{NS}/events/{edited}", json={"title": "Only this"}, headers=admin)
    assert single(client, edited)["title"] == "Only this"
    client.post(f"{NS}/events/{series['id']}", json={"recurrence": []}, headers=admin)
    assert single(client, series["id"])["recurrence"] == []
    body = fetch(client, f"{NS}/events/{edited}")
    if body.status_code == 200:
        assert body.get_json()["recurrence"] == []


def test_import_update_reaches_kept_texts(client, admin):
    from tests.test_ical import _meeting, imported

    (created,) = imported(client, admin, _meeting())["created"]
    before = _both(client, created["id"])
    assert all(b["title"] == "Meeting" for b in before)
    imported(client, admin, _meeting(sequence=1, title="Moved", location="Hall B"))
    for body in _both(client, created["id"]):
        assert body["title"] == "Moved" and body["venue"]["venue"] == "Hall B"
        assert body["global_id_lineage"][-1] == "meeting-1@example.org"


def test_new_user_with_next_id_does_not_inherit_a_kept_text(client, as_role, make_event):
    """Texts are per user: a user created later (another id) sees only what is theirs."""
    ann = as_role("author", "ann")
    draft = make_event(headers=ann, title="Ann's draft", status="draft")
    assert listed(client, draft["id"], ann, query="&status=draft")["title"] == "Ann's draft"
    ben = as_role("author", "ben")
    assert listed(client, draft["id"], ben, query="&status=draft") is None
    assert fetch(client, f"{NS}/events/{draft['id']}", ben).status_code == 403


# --- the clock alone ----------------------------------------------------------------------


def test_a_scheduled_event_own_status_follows_the_clock(client, admin, make_event, frozen):
    event = make_event(title="Soon", status="future", date_utc=soon(2))
    for body in _both(client, event["id"], admin):
        assert body["status"] == "future"
    clock.advance(3)
    for body in _both(client, event["id"], admin):
        assert body["status"] == "publish"
    assert single(client, event["id"])["status"] == "publish"  # public now


def test_clock_moving_back_gives_the_earlier_texts_again(app, client, admin, make_event, frozen):
    event = make_event(title="Soon", status="future", date_utc=soon(2), categories="Music")
    shown = make_event(title="Shown", categories="Music")
    url = f"{NS}/events?per_page=50&status=publish,future"
    agree(app, client, url, admin)
    clock.advance(3)
    assert listed(client, event["id"], admin)["status"] == "publish"
    assert listed(client, shown["id"])["categories"][0]["count"] == 2
    clock.advance(-3)  # an NTP step backwards
    assert listed(client, event["id"], admin, query="&status=publish,future")["status"] == "future"
    assert listed(client, shown["id"])["categories"][0]["count"] == 1
    agree(app, client, url, admin)
    agree(app, client, f"{NS}/events/{shown['id']}")


def test_two_scheduled_items_due_at_the_same_second(client, admin, make_event, frozen):
    when = soon(2)
    venue = client.post(
        f"{NS}/venues",
        json={"venue": "Later hall", "status": "future", "date_utc": when},
        headers=admin,
    ).get_json()
    event = make_event(title="Soon", status="future", date_utc=when, venue=venue["id"])
    shown = make_event(title="Shown", venue=venue["id"])
    assert listed(client, shown["id"])["venue"] == []
    clock.advance(2)  # exactly at the date: both published
    assert listed(client, shown["id"])["venue"]["venue"] == "Later hall"
    assert single(client, event["id"])["venue"]["venue"] == "Later hall"


def test_draft_series_with_published_occurrence_then_series_scheduled(
    client, admin, as_role, frozen
):
    author = as_role("author")
    series = client.post(
        f"{NS}/events",
        json={
            "title": "Plans",
            "status": "draft",
            "start_date": "2030-01-01 10:00",
            "end_date": "2030-01-01 11:00",
            "recurrence": ["RRULE:FREQ=DAILY;COUNT=3"],
        },
        headers=author,
    ).get_json()
    occurrences = get(client, f"{NS}/events?post_parent={series['id']}&status=draft{WIDE}", author)[
        "events"
    ]
    one = occurrences[0]["id"]
    response = client.post(f"{NS}/events/{one}", json={"status": "publish"}, headers=author)
    assert response.status_code == 200
    lines = ["RRULE:FREQ=DAILY;COUNT=3"]
    wide = "&start_date=2000-01-01&end_date=2200-01-01"
    for _ in range(2):
        assert single(client, one, author)["recurrence"] == lines
        assert listed(client, one, author, query=wide)["recurrence"] == lines
        assert single(client, one)["recurrence"] == []
        assert listed(client, one, query=wide)["recurrence"] == []
        assert single(client, one, as_role("contributor"))["recurrence"] == []
    # The series protected, then scheduled: lines for its password, then for all at its date.
    response = client.post(
        f"{NS}/events/{series['id']}", json={"password": "s", "status": "publish"}, headers=admin
    )
    assert response.status_code == 200, response.get_json()
    assert single(client, one, author)["recurrence"] == lines
    assert single(client, one)["recurrence"] == []
    assert single(client, one, query="&password=s")["recurrence"] == lines
    assert listed(client, one, query=wide + "&password=s")["recurrence"] == lines
    assert listed(client, one, query=wide)["recurrence"] == []
    client.post(
        f"{NS}/events/{series['id']}",
        json={"password": "", "status": "future", "date_utc": soon(2)},
        headers=admin,
    )
    assert single(client, one)["recurrence"] == []
    assert listed(client, one, query=wide)["recurrence"] == []
    clock.advance(3)
    assert single(client, one)["recurrence"] == lines
    assert listed(client, one, query=wide)["recurrence"] == lines


# --- a listing read in two steps: the page's ids, then the rows -------------------------------


def raced_listing(monkeypatch, client, change, headers=None):
    """``GET /events?per_page=50`` with ``change()`` written, in a transaction of another
    thread, after the listing has its page's ids (and the texts stored for them, read in
    the same statement) and before their rows are read: a write of another worker landing
    between the two queries."""
    from app.reading import texts

    original = texts.list_event_texts

    def write():
        with write_transaction():
            change()

    def listing(*args, **kwargs):
        found = original(*args, **kwargs)
        in_other_thread(write)
        return found

    monkeypatch.setattr(texts, "list_event_texts", listing)
    try:
        response = fetch(client, f"{NS}/events?per_page=50", headers)
    finally:
        monkeypatch.undo()
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response


def test_event_deleted_between_the_page_and_its_rows(app, client, admin, make_event, monkeypatch):
    keep = make_event(title="Keep")
    gone = make_event(title="Gone")

    def delete():
        Event.delete().where(Event.id == gone["id"]).execute()

    response = raced_listing(monkeypatch, client, delete)
    body = response.get_json()
    assert keep["id"] in [e["id"] for e in body["events"]]
    # Shown (as of the page's query) or left out (as of now): either, but the total says
    # what the page shows.
    assert body["total"] == len(body["events"]), (body["total"], body["events"])
    assert [e["id"] for e in get(client, f"{NS}/events?per_page=50")["events"]] == [keep["id"]]


@pytest.mark.parametrize("status", ["private", "draft", "pending", "trash"])
def test_event_hidden_between_the_page_and_its_rows_is_not_shown(
    app, client, admin, make_event, monkeypatch, status
):
    """The listing selected the event while it was public; before its row was read another
    worker made it private (or a draft, pending, trashed) and wrote what it now holds. An
    anonymous caller must not get that content: before the change the page's rows came
    with the query that chose them."""
    event = make_event(title="Public title", description="public")

    def hide():
        Event.update(status=status, title="PRIVATE PLAN", description="secret minutes").where(
            Event.id == event["id"]
        ).execute()

    response = raced_listing(monkeypatch, client, hide)
    text = response.get_data(as_text=True)
    assert "PRIVATE PLAN" not in text and "secret minutes" not in text, text[:400]


def test_venue_hidden_between_the_page_and_its_rows_is_not_shown(
    client, admin, make_event, monkeypatch
):
    from store.models import Venue

    event = make_event(title="Open", venue={"venue": "Hall"})

    def hide():
        Venue.update(status="private", title="Secret hall").where(
            Venue.id == event["venue"]["id"]
        ).execute()

    response = raced_listing(monkeypatch, client, hide)
    assert "Secret hall" not in response.get_data(as_text=True)


def test_event_made_draft_between_page_and_rows_not_shown_to_other_author(
    client, as_role, make_event, monkeypatch
):
    ann = as_role("author", "ann")
    bob = as_role("author", "bob")
    event = make_event(headers=ann, title="Ann public")

    def draft():
        Event.update(status="draft", title="Ann's unpublished rewrite").where(
            Event.id == event["id"]
        ).execute()

    response = raced_listing(monkeypatch, client, draft, bob)
    assert "unpublished rewrite" not in response.get_data(as_text=True)


def test_password_added_between_page_and_rows_masks(client, admin, make_event, monkeypatch):
    event = make_event(title="Open", description="was public")

    def protect():
        Event.update(password="pw", description="now secret").where(
            Event.id == event["id"]
        ).execute()

    response = raced_listing(monkeypatch, client, protect)
    assert "now secret" not in response.get_data(as_text=True)


def test_text_made_during_a_write_is_not_served_after_it(
    app, client, admin, make_event, monkeypatch
):
    """A listing that began before a write and read the rows after it keeps its texts under
    the version it began at: a request after the write must still see the write's result
    for every viewer, and the same as a cold answer."""
    event = make_event(title="Before")

    def rename():
        Event.update(title="After").where(Event.id == event["id"]).execute()

    raced_listing(monkeypatch, client, rename)
    assert listed(client, event["id"])["title"] == "After"
    assert single(client, event["id"])["title"] == "After"
    agree(app, client, f"{NS}/events?per_page=50")


# --- errors, bounds, odd requests --------------------------------------------------------


def test_errors_do_not_poison_kept_texts(client, admin, make_event):
    event = make_event(title="Fine", password="pw")
    assert fetch(client, f"{NS}/events/999999").status_code == 404
    assert fetch(client, f"{NS}/events/{event['id']}").status_code == 403
    assert fetch(client, f"{NS}/events?page=9").status_code == 404
    assert fetch(client, f"{NS}/events?per_page=0").status_code == 400
    assert fetch(client, f"{NS}/events/by-slug/nope").status_code in (400, 404)
    assert single(client, event["id"], query="&password=pw")["title"] == "Fine"
    assert listed(client, event["id"])["title"] == "Fine"


def test_a_small_memo_that_overflows_mid_page(app, client, make_event, monkeypatch):
    from app import render

    monkeypatch.setattr(render.EventTexts, "MAX_ENTRIES", 3)
    made = [
        make_event(
            title=f"E{n}",
            start_date=f"2030-01-{n + 1:02d} 10:00",
            end_date=f"2030-01-{n + 1:02d} 11:00",
        )
        for n in range(7)
    ]
    ids = [e["id"] for e in made]
    for _ in range(3):
        body = get(client, f"{NS}/events?per_page=50{WIDE}")
        assert [e["id"] for e in body["events"]] == ids
        assert [e["title"] for e in body["events"]] == [f"E{n}" for n in range(7)]
        assert [
            e["id"] for e in get(client, f"{NS}/events?per_page=3&page=2{WIDE}")["events"]
        ] == ids[3:6]


def test_kept_texts_are_bounded_in_bytes_whatever_the_descriptions(
    app, client, make_event, monkeypatch
):
    """The kept texts' bound holds in bytes too: events with long descriptions (a body may
    carry up to 1 MB) evict older texts rather than piling up, and pages stay the same."""
    from app import render

    bound = 64 * 1024
    monkeypatch.setattr(render.EventTexts, "MAX_BYTES", bound)
    made = [
        make_event(
            title=f"Long {n}",
            description="<p>" + f"word{n} " * 3000 + "</p>",  # about 20 kB of text each
            start_date=f"2030-02-{n + 1:02d} 10:00",
            end_date=f"2030-02-{n + 1:02d} 11:00",
        )
        for n in range(8)
    ]
    forget_all(app)
    first = get(client, f"{NS}/events?per_page=50{WIDE}")
    assert [e["id"] for e in first["events"]] == [e["id"] for e in made]
    _version, kept = render.EVENT_TEXTS.state
    assert 0 < len(kept) < len(made)  # about three of the eight fit
    assert render.EVENT_TEXTS.used <= bound
    # each entry's own bytes and its slot's (render.ENTRY_OVERHEAD), nothing else
    assert render.EVENT_TEXTS.used == sum(map(render.EVENT_TEXTS.size_of, kept.values()))
    for n in range(3):  # other pages, then the first again: the same events, the same texts
        page = get(client, f"{NS}/events?per_page=2&page={n + 1}{WIDE}")
        assert [e["id"] for e in page["events"]] == [e["id"] for e in made[2 * n : 2 * n + 2]]
        assert render.EVENT_TEXTS.used <= bound
    again = get(client, f"{NS}/events?per_page=50&_=again{WIDE}")
    assert strip_page_urls(again) == strip_page_urls(first)


def test_head_and_conditional_requests_agree_with_get(client, make_event):
    event = make_event(title="Head")
    url = f"{NS}/events/{event['id']}"
    first = fetch(client, url)
    again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    head = client.head(f"{url}?_={next(_n)}")
    assert head.status_code == 200
    assert fetch(client, url).get_json() == first.get_json()


def test_near_listing_reads_ids_and_texts(app, client, admin, make_event):
    app.config["GEOLOCATION"] = True
    venue = client.post(
        f"{NS}/venues", json={"venue": "Geo", "geo_lat": 48.85, "geo_lng": 2.35}, headers=admin
    ).get_json()
    near = make_event(title="Near", venue=venue["id"])
    make_event(title="Far")
    url = f"{NS}/events?geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=10"
    response = agree(app, client, url)
    assert [e["id"] for e in response.get_json()["events"]] == [near["id"]]
    assert listed(client, near["id"])["venue"]["venue"] == "Geo"


@pytest.mark.parametrize(
    "query",
    [
        "?per_page=1&page=2",
        "?per_page=500",
        "?search=E&page=2&per_page=1",
        "?include=1,2,3,99999",
        "?status=draft",
        "?status=trash",
        "?post_parent=1",
        "?categories=nope",
        "?password=",
        "?start_date=2000-01-01&end_date=2200-01-01&per_page=1&page=3",
    ],
)
def test_odd_listings_cold_and_warm_agree(app, client, admin, make_event, query):
    make_event(title="E1", status="draft")
    make_event(title="E2", password="pw")
    make_event(title="E3", recurrence=["RRULE:FREQ=DAILY;COUNT=2"])
    for headers in ({}, admin):
        agree(app, client, f"{NS}/events{query}", headers)


# --- a random walk: writes and clock moves, answers made warm and cold agree --------------------


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_walk_warm_and_cold_texts_agree(app, client, admin, as_role, make_event, seed):
    import random

    clock.freeze()
    rnd = random.Random(seed)
    author, editor = as_role("author"), as_role("editor")
    viewers = [{}, author, editor]
    venues = [
        client.post(
            f"{NS}/venues", json={"venue": f"V{n}", "address": f"{n} St"}, headers=admin
        ).get_json()["id"]
        for n in range(2)
    ]
    orgs = [
        client.post(f"{NS}/organizers", json={"organizer": f"O{n}"}, headers=admin).get_json()["id"]
        for n in range(2)
    ]
    events = [
        make_event(
            title=f"E{n}",
            venue=venues[n % 2],
            organizer=orgs[: n % 2 + 1],
            categories=f"C{n % 2}",
            tags="t",
        )
        for n in range(3)
    ]
    events.append(make_event(headers=author, title="Mine", venue=venues[0]))
    series = make_event(title="S", recurrence=["RRULE:FREQ=DAILY;COUNT=3"])
    members = get(client, f"{NS}/events?post_parent={series['id']}")["events"]
    events += [series, *members]
    statuses = ["publish", "draft", "private", "pending"]

    def act():
        kind = rnd.randrange(9)
        e = rnd.choice(events)["id"]
        if kind == 0:
            client.post(f"{NS}/events/{e}", json={"status": rnd.choice(statuses)}, headers=admin)
        elif kind == 1:
            client.post(
                f"{NS}/events/{e}",
                json={"status": "future", "date_utc": soon(rnd.randint(1, 4))},
                headers=admin,
            )
        elif kind == 2:
            clock.advance(rnd.randint(1, 3))
        elif kind == 3:
            client.post(
                f"{NS}/events/{e}", json={"password": rnd.choice(["", "pw"])}, headers=admin
            )
        elif kind == 4:
            v = rnd.choice(venues + orgs)
            path = "venues" if v in venues else "organizers"
            client.post(
                f"{NS}/{path}/{v}",
                json={
                    "status": rnd.choice(statuses + ["future"]),
                    "date_utc": soon(rnd.randint(1, 4)),
                    "password": rnd.choice(["", "pw"]),
                },
                headers=admin,
            )
        elif kind == 5:
            client.post(f"{NS}/events/{e}", json={"title": f"T{rnd.randrange(99)}"}, headers=admin)
        elif kind == 6:
            client.delete(f"{NS}/events/{e}", headers=admin)
        elif kind == 7:
            client.post(
                f"{NS}/events/{e}",
                json={
                    "venue": rnd.choice(venues),
                    "organizer": rnd.sample(orgs, rnd.randint(0, 2)),
                },
                headers=admin,
            )
        else:
            clock.advance(-rnd.randint(1, 2))

    urls = [
        f"{NS}/events?per_page=50&status=publish,future,draft,private,pending{WIDE}",
        f"{NS}/events?per_page=3{WIDE}",
        f"{NS}/events?password=pw{WIDE}",
        *[f"{NS}/events/{e['id']}" for e in events[:2]],
        f"{NS}/events/{members[0]['id']}?password=pw",
    ]
    for _step in range(12):
        act()
        for headers in viewers:
            for url in urls:
                agree(app, client, url, headers)


def test_a_date_passing_during_the_render_is_not_kept_for_the_moment_before(
    app, client, admin, make_event, monkeypatch, frozen
):
    """The key's publication epoch is read before the rows are rendered; a scheduled date
    passing in between gives a text of the later moment under the earlier epoch. Only a
    clock that steps back (NTP) asks for that epoch again: then the kept text says
    'publish' where a cold answer says 'future'."""
    from app.reading import texts as routes

    event = make_event(title="Soon", status="future", date_utc=soon(1))
    original = routes.render_events
    moved = []

    def slow_render(*args, **kwargs):
        if not moved:
            moved.append(1)
            clock.advance(2)  # the render took until past the date
        return original(*args, **kwargs)

    monkeypatch.setattr(routes, "render_events", slow_render)
    url = f"{NS}/events/{event['id']}"
    assert single(client, event["id"], admin)["status"] == "publish"
    monkeypatch.undo()
    clock.advance(-2)  # the clock steps back to before the date
    assert single(client, event["id"], admin)["status"] == "future"
    agree(app, client, url, admin)
