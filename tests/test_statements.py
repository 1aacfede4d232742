"""The compiled statements of store/sql.py compile from the models as they are (a renamed
column fails here), and give the rows the equivalent Peewee query gives."""

import inspect

import pytest
from peewee import IntegrityError

from store import events, posts, terms, users
from store.db import database
from store.sql import Statement
from tests.conftest import NS
from tests.databases import ON_POSTGRES


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


def test_statements_met_at_once_by_many_threads_never_share_a_prepared_name(monkeypatch):
    """PostgreSQL prepares each statement on a connection under a name: two statements
    named alike ran one with the other's parameters (a 500 under concurrent reads, when two
    threads counted the statements named so far at once). A name comes from the
    statement's text alone: whatever a process met before, and in whatever order its
    threads meet them."""
    import sys
    import threading

    from store import db

    texts = [f"SELECT {n} AS a, %s AS b FROM event WHERE id = %s -- {n}" for n in range(400)]
    named: dict[str, str] = {}
    start = threading.Barrier(8)

    def name_them(share):
        start.wait()
        for sql in share:
            named[sql] = db._prepared_form(sql)[0]

    threads = [threading.Thread(target=name_them, args=(texts[k::8],)) for k in range(8)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads interleave as a busy worker's do
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert len(set(named.values())) == len(texts)
    assert all(len(name) <= 63 for name in named.values())  # PostgreSQL's longest name
    # Another process (or the same after its forms were dropped) meeting them in another
    # order names each alike.
    monkeypatch.setattr(db, "_PREPARED_FORMS", {})
    assert all(db._prepared_form(sql)[0] == named[sql] for sql in reversed(texts))


@pytest.mark.skipif(not ON_POSTGRES, reason="server-side prepared statements: PostgreSQL")
def test_a_writes_statements_are_prepared_and_a_refused_one_leaves_the_write_usable(app):
    """Statements met inside a write are prepared too (they were planned anew at every
    write); one the server cannot prepare runs plainly, and the write goes on."""
    from store import db

    seen = "SELECT COUNT(*) FROM event WHERE id > %s"
    untyped = "SELECT %s IS NULL"  # a parameter whose type the server cannot infer
    with database.connection_context():
        with db.write_transaction():
            assert db.execute_prepared(seen, (0,)).fetchone()[0] == 0
            assert db.execute_prepared(untyped, (None,)).fetchone()[0] is True
            assert db.execute_prepared(seen, (0,)).fetchone()[0] == 0  # still usable
        assert db._prepared_form(seen)[0] in db._PREPARED[database.connection()]
        assert untyped in db._UNPREPARABLE


def test_a_shapes_constants_are_written_into_the_statement_postgresql_plans(client, make_event):
    """A shape's literals (store/sql.py ``Shaped``) reach PostgreSQL as literals of the
    prepared text, so its plans know them (a generic plan took the status "future" for
    any status), quoted as the driver quotes a plain query's values (a quote, a percent
    sign); its values stay parameters. SQLite runs the compiled text as it is."""
    from store.models import Event
    from store.sql import Shaped

    odd = make_event(title="It's 100% jazz")
    make_event(title="Plain")
    shaped = Shaped()

    def build(ref):
        return Event.select(Event.id).where(
            (Event.title == "It's 100% jazz") & (Event.id > ref("id"))
        )

    with database.connection_context():
        for low in (0, 0, odd["id"]):
            rows = shaped.execute(("odd title",), build, {"id": low}).fetchall()
            assert [row[0] for row in rows] == ([] if low else [odd["id"]])
        if not ON_POSTGRES:
            return
        prepared = database.execute_sql(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s",
            ("%It''s 100%%",),
        ).fetchall()
    assert len(prepared) == 1, prepared
    assert "= 'It''s 100% jazz'" in prepared[0][0] and "> $1" in prepared[0][0], prepared


def _recording_round_trips(monkeypatch) -> list:
    """The texts the database's cursors are given from now on: on PostgreSQL each a round
    trip to the server."""
    sent = []
    engine = database.obj
    cursor = engine.cursor

    class Recording:
        def __init__(self, real):
            self.real = real

        def execute(self, sql, params=None):
            sent.append(sql.decode() if isinstance(sql, bytes) else sql)
            return self.real.execute(sql, params)

        def __iter__(self):
            return iter(self.real)

        def __getattr__(self, name):
            return getattr(self.real, name)

    monkeypatch.setattr(engine, "cursor", lambda *a, **k: Recording(cursor(*a, **k)))
    return sent


@pytest.mark.skipif(not ON_POSTGRES, reason="round trips to a server: PostgreSQL")
def test_a_write_reads_the_data_version_with_its_begin_and_bumps_it_with_its_commit(
    app, monkeypatch
):
    """The writer lock is held one round trip less: the version is read in the ``BEGIN``
    that takes the lock, and its bump goes with the ``COMMIT``; the version the write
    reports is the one stored, and a write that fails bumps nothing."""
    from store import db

    def stored_version():
        return int(database.execute_sql(db.READ_VERSION).fetchone()[0])

    with database.connection_context():
        before = stored_version()
        sent = _recording_round_trips(monkeypatch)
        with db.write_transaction():
            database.execute_sql("SELECT 1")
        monkeypatch.undo()
        assert len(sent) == 3
        assert sent[0].startswith("BEGIN;") and sent[0].endswith(db.READ_VERSION)
        # The bump and the write's time (app/cache.py dates feeds by it), sent with COMMIT.
        assert sent[2].startswith(f"{db.BUMP_VERSION}; {db._WRITTEN_BEFORE}; INSERT")
        assert sent[2].endswith("ON CONFLICT (key) DO UPDATE SET value = excluded.value; COMMIT")
        assert stored_version() == before + 1 == db._lease[1]
        with pytest.raises(LookupError), db.write_transaction():
            database.execute_sql("UPDATE setting SET value = value WHERE key = 'data_version'")
            raise LookupError("the write fails")
        assert stored_version() == before + 1
        with db.write_transaction(changes_data=False):
            pass
        with db.write_transaction():
            pass
        assert stored_version() == before + 2 == db._lease[1]


@pytest.mark.skipif(not ON_POSTGRES, reason="round trips to a server: PostgreSQL")
def test_a_new_event_holds_the_writer_lock_for_five_round_trips(client, admin, monkeypatch):
    """``POST /events`` with a category: the lock with its ``BEGIN``, the insert (which
    says whether its slug was free), the texts' events (the links' insert with them), their
    links, and the texts' update with the version's bump and the ``COMMIT``. No savepoint,
    the lock asked once (store/db.py::write_decided, send_later); it was eleven round trips.
    A slug another event holds costs more (its look-up, the insert again), and gets its
    ``-2``."""
    body = {"title": "Trip", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"}
    body["categories"] = ["Music"]
    assert client.post(f"{NS}/events", json=body, headers=admin).status_code == 201
    sent = _recording_round_trips(monkeypatch)
    body["title"] = "Trip two"
    created = client.post(f"{NS}/events", json=body, headers=admin)
    assert created.status_code == 201
    assert not [sql for sql in sent if "SAVEPOINT" in sql]
    assert sum(sql.count("pg_advisory_xact_lock") for sql in sent) == 1
    begin = next(n for n, sql in enumerate(sent) if sql.startswith("BEGIN"))
    commit = next(n for n, sql in enumerate(sent) if sql.endswith("COMMIT"))
    assert commit - begin + 1 <= 5
    assert [c["name"] for c in created.get_json()["categories"]] == ["Music"]
    assert client.get(f"{NS}/events?categories=music").get_json()["total"] == 2
    again = client.post(f"{NS}/events", json=body, headers=admin).get_json()
    assert again["slug"] == "trip-two-2"


def test_a_statement_sent_later_is_seen_by_the_next_and_undone_with_its_transaction(app):
    """``send_later``: in order with the statements that follow it; undone by a rollback
    like any statement of its transaction; a failed one fails the transaction, of which
    nothing is kept."""
    from store import db

    def kept(key):
        rows = db.run_sql("SELECT value FROM setting WHERE key = ?", (key,)).fetchall()
        return [value for (value,) in rows]

    insert = db._engine_form("INSERT INTO setting (key, value) VALUES (?, ?)")
    with database.connection_context():
        with db.write_transaction(changes_data=False):
            db.send_later(insert, ("later:one", "1%"))
            assert kept("later:one") == ["1%"]
            db.send_later(insert, ("later:two", "2"))
        assert kept("later:two") == ["2"]
        with pytest.raises(LookupError), db.write_transaction(changes_data=False):
            db.send_later(insert, ("later:three", "3"))
            raise LookupError("the write fails")
        with pytest.raises(IntegrityError), db.write_transaction(changes_data=False):
            db.send_later(insert, ("later:four", "4"))
            db.send_later(insert, ("later:one", "again"))  # its key is taken
        assert kept("later:three") == kept("later:four") == []
        assert kept("later:one") == ["1%"]


def test_a_filter_naming_many_venues_is_checked_in_the_statements_one_takes(
    client, admin, make_event, monkeypatch
):
    """``?venue=`` with a dozen ids checks them together: a visitor's search of the list
    page that names forty venues ran two statements per venue before its listing. An id of
    another kind (an organizer) is still refused, by its own id."""
    venues = [
        client.post(f"{NS}/venues", json={"venue": f"Hall {n}"}, headers=admin).get_json()["id"]
        for n in range(12)
    ]
    event = make_event(venue=venues[0], organizer=[{"organizer": "Ann"}])
    run = []
    real = database.obj.execute_sql
    monkeypatch.setattr(database.obj, "execute_sql", lambda *a, **k: run.append(1) or real(*a, **k))

    def statements(path):
        run.clear()
        assert client.get(path).status_code == 200
        return len(run)

    one = statements(f"{NS}/events?venue={venues[0]}&_=1")
    assert statements(f"{NS}/events?venue={','.join(map(str, venues))}&_=2") <= one
    organizer = event["organizer"][0]["id"]
    refused = client.get(f"{NS}/events?venue={venues[0]},{organizer}")
    assert refused.status_code == 400
    assert str(organizer) in refused.get_json()["data"]["params"]["venue"]
