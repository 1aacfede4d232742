"""Issue 28, finding 4: a write whose item is removed by a concurrent request between the
request's read and its own write (a forced delete, or a series re-creating its
occurrences) answers as a read after the removal does (404 for events, the id's 400 for
venues, organizers and terms), never a 500, and writes nothing."""

import pytest

from app import event_input as event_routes  # the write pipeline's home
from app.routes import taxonomy as taxonomy_routes
from app.routes import venue_organizer as linked_routes
from store.db import database
from store.models import Event, Term, Venue
from tests.conftest import NS


def removed_first(monkeypatch, module, name: str, model, row_id: int):
    """``module.name`` runs after the row ``row_id`` of ``model`` is deleted, as by a
    concurrent request between the view's read and its write."""
    original = getattr(module, name)

    def racing(*args, **kwargs):
        with database.atomic():
            model.delete().where(model.id == row_id).execute()
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, racing)


def test_an_update_racing_a_delete_of_the_event_is_a_404(client, admin, make_event, monkeypatch):
    made = make_event(title="Going")
    removed_first(monkeypatch, event_routes, "plan_occurrences", Event, made["id"])
    response = client.patch(f"{NS}/events/{made['id']}", json={"title": "Gone"}, headers=admin)
    assert response.status_code == 404
    assert response.get_json()["code"] == "rest-event-not-found"
    assert Event.get_or_none(Event.id == made["id"]) is None


def test_an_occurrence_re_created_under_an_update_is_a_404(client, admin, make_event, monkeypatch):
    series = make_event(title="Weekly", recurrence=["RRULE:FREQ=WEEKLY;COUNT=3"])
    listing = client.get(
        f"{NS}/events", query_string={"post_parent": series["id"]}, headers=admin
    ).get_json()
    occurrence = listing["events"][0]["id"]
    removed_first(monkeypatch, event_routes, "plan_occurrences", Event, occurrence)
    response = client.patch(f"{NS}/events/{occurrence}", json={"title": "Mine"}, headers=admin)
    assert response.status_code == 404
    titles = {
        e["title"]
        for e in client.get(f"{NS}/events", query_string={"search": "Mine"}).get_json()["events"]
    }
    assert titles == set()


@pytest.mark.parametrize("method", ["patch", "delete"])
def test_a_venue_removed_under_an_update_or_trash_is_its_unknown_id(
    client, admin, monkeypatch, method
):
    venue = client.post(f"{NS}/venues", json={"venue": "Hall"}, headers=admin).get_json()
    # The last step before the store's write: the write rules, or the trash itself.
    step = "apply_write_rules" if method == "patch" else "trash_linked"
    removed_first(monkeypatch, linked_routes, step, Venue, venue["id"])
    call = getattr(client, method)
    kwargs = {"json": {"venue": "Renamed"}} if method == "patch" else {}
    response = call(f"{NS}/venues/{venue['id']}", headers=admin, **kwargs)
    assert response.status_code == 400
    assert response.get_json()["code"] == "rest_invalid_param"
    assert "id" in response.get_json()["data"]["params"]


def test_a_term_removed_under_an_update_is_its_unknown_id(client, admin, monkeypatch):
    term = client.post(f"{NS}/categories", json={"name": "Jazz"}, headers=admin).get_json()
    # The last step before the write transaction (the store's save runs inside it, where
    # no concurrent request can come in between): the permission.
    removed_first(monkeypatch, taxonomy_routes, "require", Term, term["id"])
    response = client.post(f"{NS}/categories/{term['id']}", json={"name": "Blues"}, headers=admin)
    assert response.status_code == 400
    assert "id" in response.get_json()["data"]["params"]
    assert Term.get_or_none(Term.id == term["id"]) is None
