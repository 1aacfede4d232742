"""Events' own members stored at write time (store/texts.py) and spliced into listings
(app/render.py::stored_event_text): a listing made from stored texts is, byte for byte,
the listing rendered afresh; a stored text never outlives a write to its event, its links
or the settings and code it was made with; writes, ``flask migrate``, ``flask seed`` and
``flask copy-database`` leave every event's text made.

Every request has a URL of its own (``_=N``), so the response cache never answers."""

import itertools

from store.db import database, write_transaction
from store.models import Event, EventText
from tests.conftest import NS, forget_all
from tests.helpers import (
    body_without_echo,
    texts,
    unstore,
)

_n = itertools.count(880000)
WINDOW = "start_date=2000-01-01&end_date=2200-01-01"
WIDE = f"{WINDOW}&per_page=50"


def listing(client, query=WIDE, headers=None):
    response = client.get(f"{NS}/events?{query}&_={next(_n)}", headers=headers or {})
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response


def test_a_listing_of_stored_texts_is_the_listing_rendered_afresh(app, client, admin, calendar):
    stored = texts(app)
    published = [e["id"] for e in calendar if e["status"] == "publish" and e["title"] != "Secret"]
    assert all(stored[i] for i in published)  # made by the writes themselves
    assert stored[calendar[4]["id"]] == "" and stored[calendar[5]["id"]] == ""  # draft, secret
    queries = [
        WIDE,
        f"{WINDOW}&per_page=3&page=2",
        f"{WIDE}&categories={calendar[1]['categories'][0]['id']}",
    ]
    for headers in ({}, admin):
        forget_all(app)
        spliced = [listing(client, q, headers) for q in queries]
        unstore(app)
        afresh = [listing(client, q, headers) for q in queries]
        for one, other in zip(spliced, afresh, strict=True):
            assert body_without_echo(one) == body_without_echo(other)
            # The same bytes, event by event, in the same key order.
            assert [list(e) for e in one.get_json()["events"]] == [
                list(e) for e in other.get_json()["events"]
            ]
        with app.app_context(), database.connection_context(), write_transaction():
            EventText.update(body=None).execute()  # made again at this commit
        assert all(texts(app)[i] for i in published)
    series = [e for e in listing(client).get_json()["events"] if e["title"] == "Series"]
    assert len(series) == 4 and all(e["recurrence"] for e in series)


def test_a_write_to_the_event_or_anything_it_shows_reaches_the_listing(
    app, client, admin, calendar
):
    event = calendar[1]
    venue_id = event["venue"][0]["id"]
    category = event["categories"][0]

    def shown():
        return next(e for e in listing(client).get_json()["events"] if e["id"] == event["id"])

    client.post(f"{NS}/events/{event['id']}", json={"title": "Renamed"}, headers=admin)
    assert shown()["title"] == "Renamed"
    client.post(f"{NS}/venues/{venue_id}", json={"venue": "Salle Z"}, headers=admin)
    assert [v["venue"] for v in shown()["venue"]] == ["Salle Z", "Salle A"]
    client.post(f"{NS}/categories/{category['id']}", json={"name": "Zzz"}, headers=admin)
    assert [c["name"] for c in shown()["categories"]] == ["Mid", "Zeta", "Zzz"]
    client.delete(f"{NS}/venues/{venue_id}", headers=admin)  # trashed: left out
    assert shown()["venue"]["venue"] == "Salle A"
    client.post(f"{NS}/events/{event['id']}", json={"cost": "7"}, headers=admin)
    assert shown()["cost"] == "$7"
    client.post(f"{NS}/events/{event['id']}", json={"password": "pw"}, headers=admin)
    assert shown()["description"] == ""  # masked for the anonymous reader
    assert texts(app)[event["id"]] == ""
    client.post(
        f"{NS}/events/{event['id']}", json={"status": "draft", "password": ""}, headers=admin
    )
    assert event["id"] not in [e["id"] for e in listing(client).get_json()["events"]]


def test_a_draft_series_hides_its_lines_from_its_published_occurrences(
    app, client, admin, make_event
):
    series = make_event(title="Weekly", recurrence="RRULE:FREQ=WEEKLY;COUNT=3")
    occurrence = next(
        e for e in listing(client).get_json()["events"] if e["post_parent"] == series["id"]
    )
    assert occurrence["recurrence"]
    client.post(
        f"{NS}/events/{occurrence['id']}", json={"title": "On its own"}, headers=admin
    )  # edited on its own: it stays published when the series becomes a draft
    client.post(f"{NS}/events/{series['id']}", json={"status": "draft"}, headers=admin)
    shown = [e for e in listing(client).get_json()["events"] if e["id"] == occurrence["id"]]
    assert shown and shown[0]["recurrence"] == []


def test_a_text_made_for_another_site_timezone_is_not_used(app, client, make_event):
    event = make_event(title="Zone of the site")
    with app.app_context(), database.connection_context(), write_transaction():
        Event.update(timezone="").execute()  # as a seeded event: the site's zone, whichever
    assert texts(app)[event["id"]]  # made again, for the site's zone of now
    assert listing(client).get_json()["events"][0]["timezone"] == "UTC"
    app.config["SITE_TIMEZONE"] = "Europe/Paris"
    shown = listing(client).get_json()["events"][0]
    assert shown["id"] == event["id"] and shown["timezone"] == "Europe/Paris"


def test_migrate_makes_the_texts_of_a_calendar_stored_before_them(app, client, calendar):
    with app.app_context(), database.connection_context(), write_transaction(False):
        EventText.update(body=None).execute()  # as the migration leaves an older calendar
    assert all(body is None for body in texts(app).values())
    result = app.test_cli_runner().invoke(args=["migrate"])
    assert result.exit_code == 0, result.output
    assert "Made the stored texts of" in result.output
    assert all(body is not None for body in texts(app).values())
    forget_all(app)
    spliced = listing(client)
    unstore(app)
    assert body_without_echo(listing(client)) == body_without_echo(spliced)


def test_seed_makes_every_text(app):
    result = app.test_cli_runner().invoke(args=["seed", "--events", "60"])
    assert result.exit_code == 0, result.output
    stored = texts(app)
    assert len(stored) >= 60 and all(body is not None for body in stored.values())


def test_kept_texts_share_their_venue_and_count_only_their_own_bytes(
    app, client, admin, make_event
):
    """Events spliced from their stored texts keep one copy of a venue's text between them
    (app/render.py::EventTexts); the bound counts each entry's own bytes, and a linked text
    too long to be worth sharing as its own: a venue's long description cannot swell what
    the bound leaves uncounted. The pages read the same either way."""
    from app import render

    def venue(name, description=""):
        body = {"venue": name, "city": "Lyon", "description": description}
        response = client.post(f"{NS}/venues", json=body, headers=admin)
        assert response.status_code == 201, response.get_data(as_text=True)
        return response.get_json()["id"]

    small, long = venue("Small hall"), venue("Long hall", "<p>" + "mot " * 3000 + "</p>")
    at = {n: small if n < 3 else long for n in range(6)}
    made = [
        make_event(
            title=f"At {n}",
            venue=[at[n]],
            start_date=f"2031-05-0{n + 1} 10:00",
            end_date=f"2031-05-0{n + 1} 11:00",
        )
        for n in range(6)
    ]
    forget_all(app)
    page = listing(client)
    assert [e["id"] for e in page.get_json()["events"]] == [e["id"] for e in made]
    _version, kept = render.EVENT_TEXTS.state
    entries = {key[1]: entry for key, entry in kept.items()}
    assert set(entries) == {e["id"] for e in made}
    shown_venues: dict[int, list] = {small: [], long: []}
    for n, event in enumerate(made):
        parts, size = entries[event["id"]]
        own = parts[0]
        assert own.startswith(f'{{"id":{event["id"]},'.encode())
        venue_part = parts[parts.index(b'],"venue":') + 1]
        assert f'{{"id":{at[n]},'.encode() in venue_part[:20]
        shown_venues[at[n]].append(venue_part)
        if at[n] == long:
            assert len(venue_part) > render.SHARED_UP_TO
            assert size > len(own) + len(venue_part)  # the long venue counted as its own
        else:
            assert size < len(own) + len(venue_part)  # shared: not counted in each entry
    for parts_of_venue in shown_venues.values():
        assert all(part is parts_of_venue[0] for part in parts_of_venue)  # one copy
    assert render.EVENT_TEXTS.used == sum(size for _parts, size in kept.values())
    again = listing(client)  # from the kept entries
    unstore(app)
    assert body_without_echo(again) == body_without_echo(page)
    assert body_without_echo(listing(client)) == body_without_echo(page)


def test_own_texts_holding_a_stand_in_are_rendered_afresh(app, client, make_event):
    """A stored text holds the request's host, site and namespace (and some images and
    series' lines) as control characters that orjson never writes raw: an event whose own
    texts hold one, raw or as the escape that stands for it, is not stored but rendered
    afresh, and shows its texts as sent."""
    titles = ["Escaped \\u0002 and \\u0001 text", "Plain"]
    made = [make_event(title=title, description=f"<p>{title}</p>") for title in titles]
    # Raw control characters no longer reach any text (issue 28: plain text is one line,
    # descriptions keep only newline and tab), so a raw stand-in cannot be sent at all.
    raw = make_event(title="Raw \x01\x02\x03\x04\x05 marks", description="<p>\x01\x02</p>")
    assert raw["title"] == "Raw   marks"  # the run of controls made one space
    assert raw["description"] == "<p></p>"
    stored = texts(app)
    assert stored[made[0]["id"]] == "" and stored[made[1]["id"]] and stored[raw["id"]]
    forget_all(app)
    shown = {e["id"]: e for e in listing(client).get_json()["events"]}
    for event in made:
        got = shown[event["id"]]
        assert got["title"] == event["title"] and got["description"] == event["description"]
        assert got["url"] == event["url"] and got["rest_url"] == event["rest_url"]
        assert got["global_id"] == event["global_id"]
