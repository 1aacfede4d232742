"""The compiled statements of store/sql.py compile from the models as they are (a renamed
column fails here), and give the rows the equivalent Peewee query gives."""

import inspect

from store import events, posts, terms, users
from store.db import database
from store.sql import Statement
from tests.conftest import NS


def _statements():
    for module in (events, posts, terms, users):
        for name, value in vars(module).items():
            if isinstance(value, Statement):
                yield f"{module.__name__}.{name}", value
            elif isinstance(value, dict):  # statements per model
                for key, item in value.items():
                    if isinstance(item, Statement):
                        yield f"{module.__name__}.{name}[{key!r}]", item


def test_every_statement_compiles_from_the_models(app):
    found = dict(_statements())
    assert len(found) >= 7
    with database.connection_context():
        for name, statement in found.items():
            arity = len(inspect.signature(statement.build).parameters)
            sql, order = statement._compile((3,) * arity)
            # A read; PostgreSQL's compound queries put each part in parentheses.
            assert sql.lstrip("(").startswith("SELECT"), name
            # Parameters by position only (a statement may have none: the highest id).
            assert all(isinstance(index, int) for index in order), name


def test_relations_of_a_page_match_the_peewee_query(client, admin, make_event):
    event = make_event(
        venue={"venue": "Hall"},
        organizer=[{"organizer": "Ann"}, {"organizer": "Bob"}],
        categories=["Music", "Art"],
    )
    with database.connection_context():
        rows = events.Event.select().where(events.Event.id == event["id"])
        relations = events.load_relations(list(rows))[event["id"]]
    assert [v.title for v in relations.venues] == ["Hall"]
    assert [o.title for o in relations.organizers] == ["Ann", "Bob"]
    assert [t.name for t in relations.categories] == ["Art", "Music"]  # by name
    body = client.get(f"{NS}/events/{event['id']}").get_json()
    assert [c["name"] for c in body["categories"]] == ["Art", "Music"]


def test_listing_rows_match_the_peewee_query(client, make_event):
    """A page's events come from ``store.sql.instances``, which fills Peewee's rows
    directly: the same values, and nothing marked as changed."""
    make_event(title="One", featured=True, cost="10")
    with database.connection_context():
        viewer = events.Viewer()
        rows, total = events.list_events(events.EventFilters(), viewer, 0, 10)
        expected = list(events.Event.select().where(events.Event.id == rows[0].id))
    assert total == 1
    assert rows[0].__data__ == expected[0].__data__
    assert not rows[0]._dirty and rows[0].featured is True
