"""Found by attacking the cold paths (issue 13): listing queries compiled once per shape,
venues, organizers and media made once per data version, totals summed per status. Every
request has a URL of its own (``_=N``), so the per-URL response cache cannot hide an answer
that one of those would have got wrong. Each test starts with no compiled shape, so none
depends on what an earlier test compiled."""

import io
import itertools

import pytest
from PIL import Image

from rules import clock
from store.sql import Shaped
from tests.conftest import NS

_n = itertools.count(1000)


@pytest.fixture(autouse=True)
def _fresh_shapes():
    from store.events import _LISTINGS

    _LISTINGS.compiled.clear()
    yield


def get(client, path, headers=None):
    sep = "&" if "?" in path else "?"
    return client.get(f"{path}{sep}_={next(_n)}", headers=headers or {})


def ids(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    return sorted(e["id"] for e in response.get_json()["events"])


def total(response):
    return response.get_json()["total"]


# --- 1. Shaped ---------------------------------------------------------------------------


@pytest.mark.parametrize("check", [True, False])
def test_empty_password_then_real_password_same_shape(client, make_event, monkeypatch, check):
    monkeypatch.setattr(Shaped, "CHECK", check)
    secret = make_event(title="Secret featured", featured=True, password="pw-1")
    # ?password= (empty) and ?password=pw-1 share one shape, but build different SQL.
    first = get(client, f"{NS}/events?featured=true&password=")
    assert first.status_code == 200, first.get_data(as_text=True)
    assert ids(first) == []
    second = get(client, f"{NS}/events?featured=true&password=pw-1")
    assert second.status_code == 200, second.get_data(as_text=True)[:300]
    assert ids(second) == [secret["id"]]


@pytest.mark.parametrize("check", [True, False])
def test_real_password_then_empty_password_same_shape(client, make_event, monkeypatch, check):
    monkeypatch.setattr(Shaped, "CHECK", check)
    secret = make_event(title="Secret featured", featured=True, password="pw-1")
    assert ids(get(client, f"{NS}/events?featured=true&password=pw-1")) == [secret["id"]]
    second = get(client, f"{NS}/events?featured=true&password=")
    assert second.status_code == 200, second.get_data(as_text=True)[:300]
    assert ids(second) == []


def test_two_authors_same_draft_shape(client, as_role, make_event):
    a, b = as_role("author", "alice"), as_role("author", "bob")
    ea = make_event(headers=a, title="Alice draft", status="draft")
    eb = make_event(headers=b, title="Bob draft", status="draft")
    for _ in range(2):
        assert ids(get(client, f"{NS}/events?status=draft", a)) == [ea["id"]]
        assert ids(get(client, f"{NS}/events?status=draft", b)) == [eb["id"]]
        assert ids(get(client, f"{NS}/events", a)) == [ea["id"]]
        assert ids(get(client, f"{NS}/events", b)) == [eb["id"]]
        assert ids(get(client, f"{NS}/events?per_page=1&page=1&status=draft,publish", a)) == [
            ea["id"]
        ]


def test_two_contributors_see_their_own_pending(client, as_role, admin, make_event):
    a, b = as_role("contributor", "c1"), as_role("contributor", "c2")
    ea = make_event(headers=a, title="c1 pending", status="pending")
    eb = make_event(headers=b, title="c2 pending", status="pending")
    assert ids(get(client, f"{NS}/events?status=pending", a)) == [ea["id"]]
    assert ids(get(client, f"{NS}/events?status=pending", b)) == [eb["id"]]


def test_password_filters_anon_then_password_then_anon(client, admin, make_event):
    cat = client.post(f"{NS}/categories", json={"name": "Music"}, headers=admin).get_json()
    venue = client.post(f"{NS}/venues", json={"venue": "Hall"}, headers=admin).get_json()
    org = client.post(f"{NS}/organizers", json={"organizer": "Org"}, headers=admin).get_json()
    linked = {"categories": [cat["id"]], "venue": venue["id"], "organizer": [org["id"]]}
    prot = make_event(title="Protected thing", featured=True, password="pw-9", **linked)
    pub = make_event(title="Public thing", featured=True, **linked)
    for q in (
        f"categories={cat['id']}",
        f"venue={venue['id']}",
        f"organizer={org['id']}",
        "featured=true",
        "search=thing",
    ):
        assert ids(get(client, f"{NS}/events?{q}")) == [pub["id"]], q
        assert ids(get(client, f"{NS}/events?{q}&password=pw-9")) == sorted(
            [pub["id"], prot["id"]]
        ), q
        assert ids(get(client, f"{NS}/events?{q}&password=wrong")) == [pub["id"]], q
        assert ids(get(client, f"{NS}/events?{q}")) == [pub["id"]], q
        body = get(client, f"{NS}/events?{q}&password=wrong").get_data(as_text=True)
        assert "Protected thing" not in body, q


def test_include_lists_and_offsets(client, admin, make_event):
    evs = [
        make_event(
            title=f"E{n}", start_date=f"tomorrow {n + 1}am", end_date=f"tomorrow {n + 1}:30am"
        )
        for n in range(5)
    ]
    i = [e["id"] for e in evs]
    assert ids(get(client, f"{NS}/events?include={i[0]}")) == [i[0]]
    assert ids(get(client, f"{NS}/events?include={i[1]}")) == [i[1]]
    assert ids(get(client, f"{NS}/events?include={i[2]},{i[3]}")) == [i[2], i[3]]
    assert ids(get(client, f"{NS}/events?include={i[0]},{i[4]}")) == [i[0], i[4]]
    for page in (1, 2, 3, 4, 5):
        r = get(client, f"{NS}/events?per_page=1&page={page}")
        assert ids(r) == [i[page - 1]] and total(r) == 5
    r = get(client, f"{NS}/events?per_page=2&page=2&include={i[0]},{i[1]},{i[2]}")
    assert ids(r) == [i[2]] and total(r) == 3


def test_totals_exact_for_every_role(client, as_role, admin, make_event):
    author = as_role("author", "au")
    made = {}
    for status in ("publish", "draft", "pending", "private"):
        for n in range(2):
            made.setdefault(status, []).append(
                make_event(title=f"{status}{n}", status=status)["id"]
            )
    make_event(headers=author, title="mine", status="draft")
    trashed = make_event(title="trashed")["id"]
    assert client.delete(f"{NS}/events/{trashed}", headers=admin).status_code == 200
    r = get(client, f"{NS}/events?per_page=1", admin)
    assert total(r) == 9
    r = get(client, f"{NS}/events?per_page=1")
    assert total(r) == 2
    r = get(client, f"{NS}/events?per_page=1", author)
    assert total(r) == 3
    r = get(client, f"{NS}/events?per_page=1&status=trash", admin)
    assert r.status_code == 200 and total(r) == 1
    r = get(client, f"{NS}/events?per_page=1&status=any", admin)
    assert total(r) == 9
    r = get(client, f"{NS}/events?per_page=1&status=draft,draft", admin)
    assert total(r) == 3


def test_scheduled_event_clock(client, admin, make_event):
    from datetime import UTC, datetime, timedelta

    soon = (datetime.now(UTC) + timedelta(seconds=60)).strftime("%Y-%m-%d %H:%M:%S")
    ev = make_event(title="Later", status="future", date_utc=soon)
    pub = make_event(title="Now")
    r = get(client, f"{NS}/events?per_page=1")
    assert ids(r) == [pub["id"]] or ids(r) == [ev["id"]]
    assert total(get(client, f"{NS}/events?per_page=1")) == 1
    assert ids(get(client, f"{NS}/events")) == [pub["id"]]
    clock.advance(120)
    assert ids(get(client, f"{NS}/events")) == sorted([pub["id"], ev["id"]])
    assert total(get(client, f"{NS}/events?per_page=1")) == 2


def test_empty_search(client, make_event):
    make_event(title="x")
    for q in ("search=%20", "search=", "search=%22%22", "search=ab", "search=ab%20abc"):
        r = get(client, f"{NS}/events?{q}")
        assert r.status_code in (200, 400), (q, r.get_data(as_text=True)[:300])


# --- 2. VersionMemo ----------------------------------------------------------------------


def test_protected_venue_editor_then_anon(client, admin, make_event):
    v = client.post(
        f"{NS}/venues",
        json={"venue": "Hidden", "address": "1 Secret Rd", "password": "vpw"},
        headers=admin,
    ).get_json()
    o = client.post(
        f"{NS}/organizers",
        json={"organizer": "Hid", "email": "s@x.org", "password": "opw"},
        headers=admin,
    ).get_json()
    make_event(title="E", venue=v["id"], organizer=[o["id"]])
    assert "Secret" in get(client, f"{NS}/events", admin).get_data(as_text=True)
    for path in (f"{NS}/events", f"/fr{NS}/events", f"{NS}/events?password=wrong"):
        body = get(client, path).get_data(as_text=True)
        assert "Secret" not in body and "s@x.org" not in body, path
    e = get(client, f"{NS}/events?password=vpw").get_json()["events"][0]
    assert e["venue"]["address"] == "1 Secret Rd"
    assert e["organizer"][0].get("email", "") == ""
    body = get(client, f"{NS}/events").get_data(as_text=True)
    assert "Secret" not in body


@pytest.mark.parametrize("status", ["draft", "private", "pending"])
def test_hidden_venue_editor_then_anon(client, admin, as_role, make_event, status):
    v = client.post(
        f"{NS}/venues", json={"venue": "HiddenVenue", "status": status}, headers=admin
    ).get_json()
    make_event(title="E", venue=v["id"])
    assert "HiddenVenue" in get(client, f"{NS}/events", admin).get_data(as_text=True)
    assert "HiddenVenue" not in get(client, f"{NS}/events").get_data(as_text=True)
    sub = as_role("subscriber", "s1")
    assert "HiddenVenue" not in get(client, f"{NS}/events", sub).get_data(as_text=True)


def test_scheduled_venue(client, admin, make_event):
    from datetime import UTC, datetime, timedelta

    soon = (datetime.now(UTC) + timedelta(seconds=60)).strftime("%Y-%m-%d %H:%M:%S")
    r = client.post(
        f"{NS}/venues",
        json={"venue": "SoonVenue", "status": "future", "date_utc": soon},
        headers=admin,
    )
    assert r.status_code == 201, r.get_json()
    v = r.get_json()
    make_event(title="E", venue=v["id"])
    ed = get(client, f"{NS}/events", admin).get_json()["events"][0]
    assert ed["venue"]["status"] == "future"
    assert "SoonVenue" not in get(client, f"{NS}/events").get_data(as_text=True)
    clock.advance(120)
    anon = get(client, f"{NS}/events").get_json()["events"][0]
    assert anon["venue"]["venue"] == "SoonVenue" and anon["venue"]["status"] == "publish"
    ed = get(client, f"{NS}/events", admin).get_json()["events"][0]
    assert ed["venue"]["status"] == "publish"


def test_venue_writes_between_reads(client, admin, make_event):
    v = client.post(
        f"{NS}/venues", json={"venue": "Old", "address": "Addr"}, headers=admin
    ).get_json()
    make_event(title="E", venue=v["id"])
    assert get(client, f"{NS}/events").get_json()["events"][0]["venue"]["venue"] == "Old"
    assert (
        client.post(f"{NS}/venues/{v['id']}", json={"venue": "New"}, headers=admin).status_code
        == 200
    )
    assert get(client, f"{NS}/events").get_json()["events"][0]["venue"]["venue"] == "New"
    client.post(f"{NS}/venues/{v['id']}", json={"password": "zz"}, headers=admin)
    assert get(client, f"{NS}/events").get_json()["events"][0]["venue"].get("address", "") == ""
    assert client.delete(f"{NS}/venues/{v['id']}", headers=admin).status_code == 200
    assert get(client, f"{NS}/events").get_json()["events"][0]["venue"] == []


def test_media_deleted_between_reads(client, admin, make_event):
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (1, 2, 3)).save(out, "PNG")
    m = client.post(
        f"{NS}/media", data={"file": (io.BytesIO(out.getvalue()), "a.png")}, headers=admin
    ).get_json()
    v = client.post(f"{NS}/venues", json={"venue": "V", "image": m["id"]}, headers=admin)
    assert v.status_code == 201, v.get_json()
    make_event(title="E", venue=v.get_json()["id"], image=m["id"])
    e = get(client, f"{NS}/events").get_json()["events"][0]
    assert e["image"] and e["venue"]["image"]
    assert client.delete(f"{NS}/media/{m['id']}?force=true", headers=admin).status_code == 200
    e = get(client, f"{NS}/events").get_json()["events"][0]
    assert e["image"] is False and e["venue"].get("image", False) is False


def test_hosts_in_memo(client, make_event, admin):
    v = client.post(f"{NS}/venues", json={"venue": "V"}, headers=admin).get_json()
    make_event(title="E", venue=v["id"])
    a = client.get(f"{NS}/events?_=h1", headers={"Host": "a.example"}).get_json()["events"][0]
    b = client.get(f"{NS}/events?_=h1", headers={"Host": "b.example"}).get_json()["events"][0]
    assert "a.example" in a["venue"]["url"] and "b.example" in b["venue"]["url"]
    assert "b.example" in b["venue"]["global_id"]


def test_the_memo_never_serves_nor_keeps_an_older_version():
    """A request that began before a write (its data version older) renders for itself:
    it neither reads the newer entries nor winds the memo back to its version, so no
    request can get a venue as it was before a write (e.g. before a password was set)."""
    from store.memo import VersionMemo

    memo = VersionMemo()
    memo.put(("db", 6), "venue", "v6")
    memo.put(("db", 5), "venue", "v5 (before the write)")
    assert memo.lookup(("db", 6), "venue") == (True, "v6")
    assert memo.lookup(("db", 5), "venue") == (False, None)
    assert memo.get(("db", 5), "venue", lambda: "rendered for itself") == "rendered for itself"
    assert memo.lookup(("db", 6), "venue") == (True, "v6")
    memo.put(("db", 7), "venue", "v7")
    assert memo.lookup(("db", 6), "venue") == (False, None)
    memo.put(("other database", 1), "venue", "o1")  # one process, several databases
    assert memo.lookup(("other database", 1), "venue") == (True, "o1")


def test_a_memo_bounded_in_bytes_drops_its_oldest_entries_to_stay_under():
    from store.memo import VersionMemo

    class Texts(VersionMemo):
        MAX_BYTES = 10

        def size_of(self, value):
            return len(value)

    memo = Texts()
    for key, value in (("a", "1234"), ("b", "1234"), ("c", "12")):
        memo.put(("db", 1), key, value)
    assert memo.used == 10 and list(memo.state[1]) == ["a", "b", "c"]
    memo.put(("db", 1), "d", "123")  # past 10: the oldest goes
    assert memo.used == 9 and list(memo.state[1]) == ["b", "c", "d"]
    memo.put(("db", 1), "c", "12345")  # a new value for a key: its old size leaves too
    assert memo.used == 8 and list(memo.state[1]) == ["d", "c"]
    memo.put(("db", 1), "e", "123456789012")  # larger than the bound: kept alone
    assert memo.used == 12 and list(memo.state[1]) == ["e"]
    memo.put(("db", 2), "f", "1")  # a new version starts from nothing
    assert memo.used == 1 and memo.lookup(("db", 2), "f") == (True, "1")
    memo.put(("db", 1), "g", "1")  # an older version keeps nothing
    assert memo.used == 1 and memo.lookup(("db", 1), "g") == (False, None)


def test_the_event_texts_count_what_an_entry_takes_beyond_its_text():
    """``EVENT_TEXTS``'s bound in bytes is what its entries take of the worker: the text
    and the entry's own key, tuples and slot (an absent event's entry too)."""
    from app.render import ENTRY_OVERHEAD, EventTexts

    texts = EventTexts()
    texts.MAX_BYTES = 3 * ENTRY_OVERHEAD + 300
    for event_id in range(3):
        texts.put(("db", 1), ("event", event_id), ((b"x" * 100,), 100))
    assert texts.used == 3 * ENTRY_OVERHEAD + 300
    texts.put(("db", 1), ("event", 3), None)  # no such event: its entry counts too
    assert texts.used == 3 * ENTRY_OVERHEAD + 200
    assert list(texts.state[1]) == [("event", 1), ("event", 2), ("event", 3)]


def test_geoloc_two_authors_own_draft_venues(app, client, as_role, make_event):
    app.config["GEOLOCATION"] = True
    a, b = as_role("author", "ga"), as_role("author", "gb")
    va = client.post(
        f"{NS}/venues",
        json={"venue": "VA", "status": "draft", "geo_lat": 1, "geo_lng": 1},
        headers=a,
    ).get_json()
    vb = client.post(
        f"{NS}/venues",
        json={"venue": "VB", "status": "draft", "geo_lat": 2, "geo_lng": 2},
        headers=b,
    ).get_json()
    ea = make_event(headers=a, title="EA", venue=va["id"])
    eb = make_event(headers=b, title="EB", venue=vb["id"])
    assert ids(get(client, f"{NS}/events?geoloc=true", a)) == [ea["id"]]
    assert ids(get(client, f"{NS}/events?geoloc=true", b)) == [eb["id"]]
    assert ids(get(client, f"{NS}/events?geoloc=false", a)) == [eb["id"]]
    assert ids(get(client, f"{NS}/events?geoloc=true")) == []
    assert sorted(ids(get(client, f"{NS}/events?geoloc=false"))) == sorted([ea["id"], eb["id"]])


def test_ical_feed_password(client, make_event):
    make_event(title="ProtFeed", featured=True, password="fp")
    h = {"Accept": "text/calendar"}
    assert "ProtFeed" not in get(client, f"{NS}/events?featured=true&password=", h).get_data(
        as_text=True
    )
    body = get(client, f"{NS}/events?featured=true&password=fp", h).get_data(as_text=True)
    assert "ProtFeed" in body, body[:300]
