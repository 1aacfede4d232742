"""Events as JSON text, kept per data version and way of seeing them
(app/reading/texts.py::event_texts): a page or a read that shows an event again reuses its
text, never one made for another viewer, password, host, kind of read or moment.

Every request has a URL of its own (``_=N``), so the response cache never answers: what
comes back is the kept text, or a new one."""

import itertools

import pytest

from rules import clock
from tests.conftest import NS
from tests.helpers import soon

_n = itertools.count(90000)


def get(client, path, headers=None):
    sep = "&" if "?" in path else "?"
    response = client.get(f"{path}{sep}_={next(_n)}", headers=headers or {})
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_json()


@pytest.fixture(autouse=True)
def _clock_back():
    yield
    clock.reset()


def listed(client, event_id, headers=None, query=""):
    body = get(client, f"{NS}/events?per_page=50{query}", headers)
    return next(e for e in body["events"] if e["id"] == event_id)


def test_a_kept_text_is_the_text_made_afresh(client, make_event):
    event = make_event(title="Kept", venue={"venue": "Hall"}, categories="Music", tags="jazz")
    first = listed(client, event["id"])  # made
    again = listed(client, event["id"])  # kept
    assert first == again
    assert first["title"] == "Kept" and first["venue"]["venue"] == "Hall"
    assert first["categories"][0]["count"] == 1 and first["tags"][0]["name"] == "jazz"
    # The listing's text and the single read's are not the same text: only a single read
    # has json_ld, whichever was asked first.
    single = get(client, f"{NS}/events/{event['id']}")
    assert "json_ld" in single and "json_ld" not in listed(client, event["id"])
    assert "json_ld" in get(client, f"{NS}/events/{event['id']}")
    # (A single read also shows its venue in full, as the reference does.)
    same = {k: v for k, v in single.items() if k not in ("json_ld", "venue")}
    assert same == {k: v for k, v in first.items() if k != "venue"}


def test_masked_text_never_reaches_a_caller_with_the_password_or_back(client, make_event, as_role):
    event = make_event(
        title="Secret", description="<p>inside</p>", venue={"venue": "Hall"}, password="pw"
    )
    editor = as_role("editor")
    for _ in range(2):  # made, then kept: each view stays its own
        assert listed(client, event["id"])["description"] == ""
        assert listed(client, event["id"])["venue"] == []
        assert listed(client, event["id"], query="&password=pw")["description"] == "<p>inside</p>"
        assert listed(client, event["id"], query="&password=no")["description"] == ""
        assert listed(client, event["id"], editor)["description"] == "<p>inside</p>"
        assert listed(client, event["id"])["description"] == ""
        single = f"{NS}/events/{event['id']}"
        assert get(client, f"{single}?password=pw")["venue"]["venue"] == "Hall"
        assert get(client, single, editor)["description"] == "<p>inside</p>"
        response = client.get(f"{single}?_={next(_n)}")
        assert response.status_code == 403  # anonymous, no password: refused, as before


def test_each_host_gets_its_own_urls(client, make_event):
    event = make_event(title="Hosted")
    a = listed(client, event["id"], {"Host": "a.example"})
    b = listed(client, event["id"], {"Host": "b.example"})
    assert a["url"].startswith("http://a.example/") and b["url"].startswith("http://b.example/")
    assert a["global_id"].startswith("a.example?id=")
    assert listed(client, event["id"], {"Host": "a.example"})["url"] == a["url"]
    single = get(client, f"{NS}/events/{event['id']}", {"Host": "b.example"})
    assert single["rest_url"].startswith("http://b.example/")


def test_a_write_anywhere_renews_every_kept_text(client, admin, make_event):
    event = make_event(title="Before", categories="Music")
    other = make_event(title="Other")
    assert listed(client, event["id"])["title"] == "Before"
    assert get(client, f"{NS}/events/{event['id']}")["title"] == "Before"
    client.post(f"{NS}/events/{event['id']}", json={"title": "After"}, headers=admin)
    assert listed(client, event["id"])["title"] == "After"
    assert get(client, f"{NS}/events/{event['id']}")["title"] == "After"
    # Another event joining the category changes the count shown inside this one.
    client.post(f"{NS}/events/{other['id']}", json={"categories": ["Music"]}, headers=admin)
    assert listed(client, event["id"])["categories"][0]["count"] == 2
    assert get(client, f"{NS}/events/{event['id']}")["categories"][0]["count"] == 2


def test_a_scheduled_organizer_appears_when_its_date_passes(client, admin, make_event):
    response = client.post(
        f"{NS}/organizers",
        json={"organizer": "Soon Org", "status": "future", "date_utc": soon(2)},
        headers=admin,
    )
    assert response.status_code == 201, response.get_json()
    organizer = response.get_json()
    event = make_event(title="With org", organizer=[organizer["id"]])
    assert listed(client, event["id"])["organizer"] == []
    assert get(client, f"{NS}/events/{event['id']}")["organizer"] == []
    clock.advance(3)  # no write: only the clock moved
    assert [o["id"] for o in listed(client, event["id"])["organizer"]] == [organizer["id"]]
    single = get(client, f"{NS}/events/{event['id']}")
    assert [o["id"] for o in single["organizer"]] == [organizer["id"]]


def test_a_scheduled_event_counts_inside_others_when_its_date_passes(client, admin, make_event):
    shown = make_event(title="Shown", categories="Talks")
    make_event(title="Later", categories="Talks", status="future", date_utc=soon(2))
    assert listed(client, shown["id"])["categories"][0]["count"] == 1
    clock.advance(3)
    assert listed(client, shown["id"])["categories"][0]["count"] == 2
    assert get(client, f"{NS}/events/{shown['id']}")["categories"][0]["count"] == 2


def test_each_user_gets_the_text_made_for_them(client, as_role, make_event):
    author = as_role("author", "ann")
    venue = client.post(
        f"{NS}/venues", json={"venue": "Ann's room", "status": "private"}, headers=author
    ).get_json()
    event = make_event(headers=author, title="Open", venue=venue["id"])
    other = as_role("author", "bob")
    for _ in range(2):
        assert listed(client, event["id"], author)["venue"]["venue"] == "Ann's room"
        assert listed(client, event["id"], other)["venue"] == []
        assert listed(client, event["id"])["venue"] == []
