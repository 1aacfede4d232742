"""Reliability against a real gunicorn with several workers on one database (a SQLite
file, or PostgreSQL under ``make test-postgres``): concurrent writers lose nothing, a
SIGKILL loses no acknowledged write, online backups are consistent, and the login throttle
holds across workers."""

import base64
import http.client
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
import requests

from tests.databases import drop_database, fresh_database, integrity, query
from tests.helpers import (  # noqa: F401 (used here)
    BIN,
    ROOT,
    Server,
    event_body,
    flask_cli,
    free_port,
    ics,
    migrated_database,
    new_admin,
    signed_in_by_link,
    stored_event_ids,
)

NS = "/wp-json/calendar/events/v1"


def test_concurrent_writers_and_readers_lose_nothing(database, admin_auth):
    server = Server(database, workers=4)
    try:

        def write(n):
            return server.request("POST", f"{NS}/events", event_body(n), admin_auth)

        def read(_n):
            return server.request("GET", f"{NS}/events?per_page=20")

        with ThreadPoolExecutor(max_workers=12) as pool:
            writes = list(pool.map(write, range(240)))
            reads = list(pool.map(read, range(120)))
    finally:
        server.stop()
    statuses = [status for status, _body in writes]
    assert statuses.count(201) == 240, {s: statuses.count(s) for s in set(statuses)}
    assert all(status == 200 for status, _body in reads)
    acknowledged = {body["id"] for status, body in writes if status == 201}
    assert acknowledged <= stored_event_ids(database)
    assert len(acknowledged) == 240
    assert integrity(database) == "ok"


def _racing_file(stamp: str, day: datetime) -> tuple[bytes, list[str]]:
    """A file of a daily series, a lone event and a series of RDATEs whose second date one
    VEVENT edits (RECURRENCE-ID), with UIDs of their own (``stamp``), and those UIDs."""
    first, second, third = (f"{day + timedelta(days=n):%Y%m%d}" for n in range(3))
    uids = [f"{kind}-{stamp}@example.org" for kind in ("rule", "lone", "rdates")]
    data = ics(
        f"UID:{uids[0]}\nDTSTART:{first}T150000Z\nDTEND:{first}T160000Z\n"
        "SUMMARY:Race\nRRULE:FREQ=DAILY;COUNT=3",
        f"UID:{uids[1]}\nDTSTART:{first}T090000Z\nDTEND:{first}T100000Z\nSUMMARY:Race alone",
        f"UID:{uids[2]}\nDTSTART:{first}T180000Z\nDTEND:{first}T190000Z\n"
        f"SUMMARY:Race dates\nRDATE:{second}T180000Z,{third}T180000Z",
        f"UID:{uids[2]}\nRECURRENCE-ID:{second}T180000Z\nDTSTART:{second}T200000Z\n"
        f"DTEND:{second}T210000Z\nSUMMARY:Race dates, moved",
    )
    return data, uids


def test_concurrent_imports_of_one_file_make_each_event_once(database, admin_auth):
    """SPEC §11 (import idempotent by UID) with the imports at once, in several workers:
    each UID's event or series is created by one of them and found by the others, which
    answer it unchanged. A series took long enough to write for a UID looked up before
    the writer lock to be missed: the same file sent 8 times at once made one series 2
    or 3 times on SQLite, up to 8 on PostgreSQL."""
    server = Server(database, workers=2)
    day = datetime.now(UTC).replace(tzinfo=None) + timedelta(days=12)
    try:
        for round_ in range(4):
            data, uids = _racing_file(f"{round_}-{time.time()}", day)

            def send(_n, data=data):
                answer = requests.post(
                    f"{server.base}{NS}/events/import",
                    data=data,
                    headers={**admin_auth, "Content-Type": "text/calendar", "Connection": "close"},
                    timeout=60,
                )
                assert answer.status_code == 200, answer.text
                return answer.json()

            with ThreadPoolExecutor(8) as pool:
                reports = list(pool.map(send, range(8)))
            assert all(not report["rejected"] for report in reports), reports
            created = [entry for report in reports for entry in report["created"]]
            assert sorted(entry["uid"] for entry in created) == sorted(uids), created
            made = {entry["uid"]: entry["id"] for entry in created}
            unchanged = [e for r in reports for e in r["unchanged"] if "recurrence_id" not in e]
            assert len(unchanged) == 7 * len(uids)
            assert all(entry["id"] == made[entry["uid"]] for entry in unchanged), unchanged
            # The edit of an occurrence is written once too, by whichever import came first.
            edits = [(outcome, e) for r in reports for outcome in r for e in r[outcome]]
            edits = [outcome for outcome, entry in edits if "recurrence_id" in entry]
            assert sorted(edits) == ["unchanged"] * 7 + ["updated"], edits
            # Each UID one event (or series, with its occurrences), none made of the edit alone.
            rows = query(
                database,
                "SELECT ical_uid, occurrence, ical_recurrence_id FROM event "
                f"WHERE ical_uid IN ('{uids[0]}', '{uids[1]}', '{uids[2]}')",
            )
            per_uid = {uid: [row for row in rows if row[0] == uid] for uid in uids}
            assert [len(per_uid[uid]) for uid in uids] == [3, 1, 3], rows
            assert all(row[2] == "" for row in rows), rows
            assert all(sum(row[1] == "" for row in per_uid[uid]) == 1 for uid in uids), rows
    finally:
        server.stop()


def test_sigkill_during_writes_loses_no_acknowledged_write(database, admin_auth):
    server = Server(database, workers=3)
    acknowledged, stop = set(), threading.Event()

    def writer(offset):
        n = offset
        while not stop.is_set():
            try:
                status, body = server.request("POST", f"{NS}/events", event_body(n), admin_auth)
            except (OSError, http.client.HTTPException):
                return  # the server died under us: this write was never acknowledged
            if status == 201:
                acknowledged.add(body["id"])
            n += 100000

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    server.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert len(acknowledged) > 20
    restarted = Server(database, workers=2)
    try:
        for event_id in sorted(acknowledged)[:: max(1, len(acknowledged) // 25)]:
            status, body = restarted.request("GET", f"{NS}/events/{event_id}")
            assert status == 200 and body["id"] == event_id
    finally:
        restarted.stop()
    assert acknowledged <= stored_event_ids(database)
    assert integrity(database) == "ok"


def restore(backup, tmp_path):
    """The database setting of a new database that ``flask restore`` put ``backup`` in."""
    target = fresh_database(tmp_path / "restored")
    flask_cli(target, "restore", str(backup), UPLOAD_FOLDER=tmp_path / "restored-uploads")
    return target


@pytest.mark.slow
def test_online_backup_is_consistent_and_restorable(database, admin_auth, tmp_path):
    server = Server(database, workers=2)
    try:
        for n in range(30):
            assert server.request("POST", f"{NS}/events", event_body(n), admin_auth)[0] == 201
        copy = tmp_path / "backup.tar.gz"
        readers = ThreadPoolExecutor(max_workers=4)
        pending = [readers.submit(server.request, "GET", f"{NS}/events") for _ in range(40)]
        flask_cli(database, "backup", str(copy))
        assert all(f.result()[0] == 200 for f in pending)
        readers.shutdown()
        live_at_backup = stored_event_ids(database)
        for n in range(30, 40):
            assert server.request("POST", f"{NS}/events", event_body(n), admin_auth)[0] == 201
    finally:
        server.stop()
    copy = restore(copy, tmp_path)
    try:
        assert integrity(copy) == "ok"
        assert stored_event_ids(copy) == live_at_backup
        restored = Server(copy, workers=1)
        try:
            status, body = restored.request("GET", f"{NS}/events?per_page=50")
            assert status == 200 and body["total"] == 30
        finally:
            restored.stop()
    finally:
        drop_database(str(copy))


def test_login_throttle_holds_across_workers(database, admin_auth):
    server = Server(database, workers=4, AUTH_FAILURE_LIMIT=5)
    bad = {"Authorization": "Basic " + base64.b64encode(b"admin:wrong").decode()}
    try:
        codes = [server.request("GET", f"{NS}/events", headers=bad)[0] for _ in range(5)]
        assert codes == [401] * 5
        status, body = server.request("GET", f"{NS}/events", headers=admin_auth)
        assert status == 429 and body["code"] == "too_many_attempts"  # the same account
    finally:
        server.stop()


def test_a_write_after_another_process_changed_the_schema(app, client, admin):
    """``flask seed`` run against the live database re-creates the text index's trigger (a
    schema change) while a worker's connection holds the schema it read before. SQLite
    3.40 fails a ``DELETE FROM event`` that is the first statement of a write on such a
    connection (one that has not used the text index yet) with "no such table: event";
    every write transaction now reads the schema first."""
    from store.db import bind_database, database, open_database, write_transaction
    from store.models import Event

    made = [
        client.post(f"{NS}/events", json=event_body(n), headers=admin).get_json()["id"]
        for n in range(2)
    ]
    worker = open_database(app.config["CALENDAR_DATABASE"])  # another worker's connections
    bind_database(worker)
    try:
        with database.connection_context():
            assert Event.select().count() == 2  # the schema as it was
        flask_cli(app.config["CALENDAR_DATABASE"], "seed", "--events", "3", "--force")
        with database.connection_context(), write_transaction():
            Event.delete().where(Event.id == made[0]).execute()
    finally:
        bind_database(app.extensions["calendar.db"])
        worker.close_all()
    assert client.get(f"{NS}/events/{made[0]}").status_code == 404
    response = client.delete(f"{NS}/events/{made[1]}?force=true", headers=admin)
    assert response.status_code == 200, response.get_data(as_text=True)
    with database.connection_context():
        assert not Event.select().where(Event.id.in_(made)).exists()
        assert Event.select().count() == 3  # the seeded ones


@pytest.mark.parametrize(
    "fault, status",
    [
        (lambda: __import__("psycopg2").OperationalError("server closed the connection"), 503),
        (lambda: sqlite3.OperationalError("database is locked"), 503),
        (lambda: sqlite3.OperationalError("no such table: event"), 500),
    ],
)
def test_a_database_that_cannot_answer_now_is_a_503_to_retry(
    app, client, monkeypatch, fault, status
):
    """A database server down or restarting (or SQLite's lock held past the busy timeout)
    is a 503 ``database_unavailable`` with ``Retry-After``: the request may succeed later.
    A fault of a query stays a 500, which invites no retry. Nothing is leaked either way,
    and the next request, the database back, is answered."""
    db = app.extensions["calendar.db"]
    db.close_all()  # the next request opens a connection

    def refuse(*args, **kwargs):
        raise fault()

    monkeypatch.setattr(db, "_connect", refuse)
    response = client.get(f"{NS}/events?fault=1", check_conformance=False)
    body = response.get_json()
    assert response.status_code == status, body
    assert set(body) == {"code", "message", "data"} and body["data"] == {"status": status}
    if status == 503:
        assert body["code"] == "database_unavailable" and response.headers["Retry-After"] == "5"
    else:
        assert body["code"] == "internal_server_error" and "Retry-After" not in response.headers
    monkeypatch.undo()
    assert client.get(f"{NS}/events?fault=2").status_code == 200


# Writes racing on one item: each decided from the item as it is when written
# (store/db.py::write_decided), never from a read before another write committed.


def test_contended_writes_decide_under_the_writer_lock_only(app):
    """A write that finds another committed between its first decision and the writer lock
    decides again under it; the process's next write then decides under the lock only (no
    decision made twice), until one finds no other write in between (store/db.py::
    write_decided)."""
    from store import db

    inside = []

    def decide(interrupted=False):
        inside.append(db.database.in_transaction())
        if interrupted and len(inside) == 1:
            with db.write_transaction():  # another write, committed in between
                pass
        return len(inside)

    with db.database.connection_context():
        assert db.write_decided(lambda: decide(interrupted=True), lambda made: made) == 2
        assert inside == [False, True]
        inside.clear()
        assert db.write_decided(decide, lambda made: made) == 1
        assert inside == [True]  # under the lock only: and no write came in between
        inside.clear()
        assert db.write_decided(decide, lambda made: made) == 1
        assert inside == [False]  # first, outside the transaction, again


def _race_schedule_fields(server, admin_auth, other: dict, rounds: int = 20) -> list:
    """Events whose end_date write, sent at the same moment as three writes of ``other``
    only, did not survive: (id, stored end_date) for each."""
    headers = {**admin_auth, "Content-Type": "application/json"}
    lost = []
    for n in range(rounds):
        created = requests.post(
            server.base + f"{NS}/events",
            json={
                "title": f"Race {n}",
                "start_date": "2033-02-10 10:00",
                "end_date": "2033-02-10 12:00",
            },
            headers=headers,
            timeout=30,
        )
        assert created.status_code == 201, created.text
        event_id = created.json()["id"]
        barrier = threading.Barrier(4)
        answers = []

        def patch(body, event_id=event_id, barrier=barrier, answers=answers):
            session = requests.Session()
            barrier.wait()
            answers.append(
                session.patch(
                    server.base + f"{NS}/events/{event_id}", json=body, headers=headers, timeout=30
                ).status_code
            )

        threads = [threading.Thread(target=patch, args=({"end_date": "2033-02-10 13:00"},))]
        threads += [threading.Thread(target=patch, args=(other,)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == [200] * 4, answers
        stored = requests.get(server.base + f"{NS}/events/{event_id}", timeout=30).json()
        if stored["end_date"] != "2033-02-10 13:00:00":
            lost.append((event_id, stored["end_date"]))
    return lost


def test_concurrent_all_day_write_does_not_undo_an_end_date_write(database, admin_auth):
    """SPEC §10: "A write changes only the fields it sends, even under concurrent writes to
    the same item (no lost update)." A PATCH that sends only ``all_day: false`` (a value the
    event already has) must not put back the end_date it read before a concurrent PATCH of
    ``end_date`` was committed."""
    server = Server(database, workers=2)
    try:
        lost = _race_schedule_fields(server, admin_auth, {"all_day": False})
    finally:
        server.stop()
    assert lost == [], f"end_date writes lost (event id, stored end_date): {lost}"


def test_concurrent_timezone_write_does_not_undo_an_end_date_write(database, admin_auth):
    """SPEC §4: changing the timezone without sending dates keeps the local wall-clock
    times; §10: no lost update. Whichever of the two PATCHes (``end_date`` / ``timezone``)
    lands first, the event must end at 13:00 local in Europe/Berlin."""
    server = Server(database, workers=2)
    try:
        lost = _race_schedule_fields(server, admin_auth, {"timezone": "Europe/Berlin"})
    finally:
        server.stop()
    assert lost == [], f"end_date writes lost (event id, stored end_date): {lost}"


def test_concurrent_venue_address_writes_leave_a_consistent_stateprovince(database, admin_auth):
    """SPEC §10 (no lost update): a venue in the US, state CA; one client moves it to Canada
    (``country``), another sets ``province`` Ontario, at the same moment. In either order
    the result is country Canada, province Ontario and (the reference's rule, which the
    product applies when stateprovince is not sent) stateprovince "Ontario". A race must
    not leave stateprovince "CA", which no order of the two writes gives."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    wrong = []
    try:
        for n in range(20):
            venue = requests.post(
                server.base + f"{NS}/venues",
                json={"venue": f"Moving {n}", "country": "US", "state": "CA"},
                headers=headers,
                timeout=30,
            ).json()
            barrier = threading.Barrier(2)

            def patch(body, venue_id=venue["id"], barrier=barrier):
                session = requests.Session()
                barrier.wait()
                answer = session.patch(
                    server.base + f"{NS}/venues/{venue_id}", json=body, headers=headers, timeout=30
                )
                assert answer.status_code == 200, answer.text

            threads = [
                threading.Thread(target=patch, args=(body,))
                for body in ({"country": "Canada"}, {"province": "Ontario"})
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            stored = requests.get(server.base + f"{NS}/venues/{venue['id']}", timeout=30).json()
            assert (stored["country"], stored["province"]) == ("Canada", "Ontario")
            if stored.get("stateprovince") != "Ontario":
                wrong.append((venue["id"], stored.get("stateprovince")))
    finally:
        server.stop()
    assert wrong == [], f"stateprovince left from a stale read: {wrong}"


def test_concurrent_parent_writes_cannot_make_a_category_loop(database, admin_auth):
    """The product refuses a category as its own ancestor ("A category cannot be its own
    ancestor."), and WordPress never stores a term loop. Two editors who at the same moment
    make A the parent of B and B the parent of A must not both succeed: the categories would
    then have no root (neither is listed under ``parent=0``)."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    loops = []
    try:
        for n in range(15):
            a, b = (
                requests.post(
                    server.base + f"{NS}/categories",
                    json={"name": f"Loop {side} {n}"},
                    headers=headers,
                    timeout=30,
                ).json()["id"]
                for side in ("A", "B")
            )
            barrier = threading.Barrier(2)

            def patch(child, parent, barrier=barrier):
                session = requests.Session()
                barrier.wait()
                session.patch(
                    server.base + f"{NS}/categories/{child}",
                    json={"parent": parent},
                    headers=headers,
                    timeout=30,
                )

            threads = [
                threading.Thread(target=patch, args=(a, b)),
                threading.Thread(target=patch, args=(b, a)),
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            parents = [
                requests.get(server.base + f"{NS}/categories/{term}", timeout=30).json()["parent"]
                for term in (a, b)
            ]
            if parents == [b, a]:
                loops.append((a, b))
    finally:
        server.stop()
    assert loops == [], f"category parent loops stored: {loops}"


def test_concurrent_date_writes_cannot_store_an_end_before_the_start(database, admin_auth):
    """SPEC §4: "An end_date before start_date is a 400 ... with nothing stored". An event of
    10:00-12:00; one client moves the start to 11:30, another the end to 11:00, at the same
    moment. Each is valid alone against what it read, but in either order the second one
    is a 400. Both must not succeed and leave an event that ends before it starts (its
    iCalendar then has DTEND before DTSTART, which RFC 5545 forbids)."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    inverted = []
    try:
        for n in range(15):
            event = requests.post(
                server.base + f"{NS}/events",
                json={
                    "title": f"Inv {n}",
                    "start_date": "2030-03-01 10:00",
                    "end_date": "2030-03-01 12:00",
                },
                headers=headers,
                timeout=30,
            ).json()
            barrier = threading.Barrier(2)

            def patch(body, event_id=event["id"], barrier=barrier):
                session = requests.Session()
                barrier.wait()
                session.patch(
                    server.base + f"{NS}/events/{event_id}", json=body, headers=headers, timeout=30
                )

            threads = [
                threading.Thread(target=patch, args=(body,))
                for body in ({"start_date": "2030-03-01 11:30"}, {"end_date": "2030-03-01 11:00"})
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            stored = requests.get(server.base + f"{NS}/events/{event['id']}", timeout=30).json()
            if stored["end_date"] < stored["start_date"]:
                inverted.append((event["id"], stored["start_date"], stored["end_date"]))
    finally:
        server.stop()
    assert inverted == [], f"events stored ending before they start: {inverted}"


def test_an_event_write_racing_the_deletion_of_its_tag_is_never_a_500(database, admin_auth):
    """SPEC §6/§9: no input yields a 5xx; §4: an unknown term id is a 400 naming it. An event
    created with ``tags: [id]`` while an editor deletes that tag must answer 201 (linked
    before the deletion, then unlinked by it) or 400 (the tag is gone), never the 500 that
    the foreign key failure of the link insert gives today."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    answers = []
    try:
        for n in range(30):
            tag = requests.post(
                server.base + f"{NS}/tags", json={"name": f"Going {n}"}, headers=headers, timeout=30
            ).json()["id"]
            barrier = threading.Barrier(5)

            def remove(tag=tag, barrier=barrier):
                session = requests.Session()
                barrier.wait()
                session.delete(server.base + f"{NS}/tags/{tag}", headers=headers, timeout=30)

            def create(tag=tag, barrier=barrier):
                session = requests.Session()
                barrier.wait()
                answer = session.post(
                    server.base + f"{NS}/events",
                    json={
                        "title": "Tagged",
                        "start_date": "2030-04-01",
                        "end_date": "2030-04-01",
                        "tags": [tag],
                    },
                    headers=headers,
                    timeout=30,
                )
                answers.append((answer.status_code, answer.text[:200]))

            threads = [threading.Thread(target=remove)]
            threads += [threading.Thread(target=create) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        server.stop()
    errors = [answer for answer in answers if answer[0] >= 500]
    assert errors == [], errors


def test_an_event_write_racing_the_deletion_of_its_venue_is_never_a_500(database, admin_auth):
    """As above for linked posts: an event created with ``venue: id`` (or ``organizer: [id]``)
    while an editor deletes that venue (``force=true``) must answer 201 or 400 ("is not the id
    of an existing venue"), never a 500 from the link insert's foreign key."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    answers = []
    try:
        for n in range(12):
            for kind, name in (("venues", "venue"), ("organizers", "organizer")):
                item = requests.post(
                    server.base + f"{NS}/{kind}",
                    json={name: f"Gone {n}"},
                    headers=headers,
                    timeout=30,
                ).json()["id"]
                link = {"venue": item} if name == "venue" else {"organizer": [item]}
                barrier = threading.Barrier(5)

                def remove(path=f"{NS}/{kind}/{item}", barrier=barrier):
                    session = requests.Session()
                    barrier.wait()
                    session.delete(
                        server.base + path, params={"force": "true"}, headers=headers, timeout=30
                    )

                def create(link=link, barrier=barrier, name=name):
                    session = requests.Session()
                    barrier.wait()
                    body = {"title": "Linked", "start_date": "2030-04-01", "end_date": "2030-04-01"}
                    answer = session.post(
                        server.base + f"{NS}/events",
                        json={**body, **link},
                        headers=headers,
                        timeout=30,
                    )
                    answers.append((name, answer.status_code, answer.text[:120]))

                threads = [threading.Thread(target=remove)]
                threads += [threading.Thread(target=create) for _ in range(4)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
    finally:
        server.stop()
    errors = [answer for answer in answers if answer[1] >= 500]
    assert errors == [], errors


def test_a_category_made_under_a_parent_being_deleted_is_not_orphaned(database, admin_auth):
    """Deleting a category moves its children to its own parent (as WordPress does; the
    product does so for a sequential delete). A child created (or moved) under P at the
    moment P is deleted must end under an existing category or at the root, never under the
    deleted id: there its ``urls.up`` is a dead link, it is under no root (``parent=0`` does
    not list it) and sending its own ``parent`` back is a 400."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    made = []
    try:
        for n in range(12):
            parent = requests.post(
                server.base + f"{NS}/categories",
                json={"name": f"Parent {n}"},
                headers=headers,
                timeout=30,
            ).json()["id"]
            barrier = threading.Barrier(5)

            def remove(parent=parent, barrier=barrier):
                session = requests.Session()
                barrier.wait()
                session.delete(
                    server.base + f"{NS}/categories/{parent}", headers=headers, timeout=30
                )

            def create(k, parent=parent, barrier=barrier, n=n):
                session = requests.Session()
                barrier.wait()
                answer = session.post(
                    server.base + f"{NS}/categories",
                    json={"name": f"Child {n} {k}", "parent": parent},
                    headers=headers,
                    timeout=30,
                )
                if answer.status_code == 201:
                    made.append(answer.json()["id"])

            threads = [threading.Thread(target=remove)]
            threads += [threading.Thread(target=create, args=(k,)) for k in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        orphans = []
        for term in made:
            parent = requests.get(server.base + f"{NS}/categories/{term}", timeout=30).json()[
                "parent"
            ]
            if (
                parent
                and requests.get(server.base + f"{NS}/categories/{parent}", timeout=30).status_code
                != 200
            ):
                orphans.append((term, parent))
    finally:
        server.stop()
    assert orphans == [], f"categories left under a deleted parent: {orphans}"


def _user(database, name: str, role: str) -> dict:
    password = flask_cli(database, "users", "create", name, "--role", role).split()[-1]
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def test_a_contributor_edit_racing_an_approval_never_undoes_it(database):
    """SPEC §5 (WordPress's capability rules: a contributor edits only their own unpublished
    items, and their publish becomes pending) and §10 (no lost update). A contributor's
    pending event; at the same moment an editor approves it (status publish) and the
    contributor saves it again (status publish, scaled to pending). In one order the
    contributor's save comes first and the approval stands; in the other the contributor
    may no longer edit the published event (403). Both answering 200 and the event ending
    ``pending`` is possible in neither order: the approval was undone by a write the
    contributor was not allowed to make."""
    editor = {**_user(database, "ed", "editor"), "Content-Type": "application/json"}
    contributor = {**_user(database, "co", "contributor"), "Content-Type": "application/json"}
    server = Server(database, workers=2)
    undone = []
    try:
        for n in range(20):
            event = requests.post(
                server.base + f"{NS}/events",
                json={
                    "title": f"Submitted {n}",
                    "start_date": "2033-09-01",
                    "end_date": "2033-09-01",
                    "status": "pending",
                },
                headers=contributor,
                timeout=30,
            ).json()
            assert event["status"] == "pending"
            barrier = threading.Barrier(2)
            answers = {}

            def patch(who, headers, body, event_id=event["id"], barrier=barrier, answers=answers):
                session = requests.Session()
                barrier.wait()
                answers[who] = session.patch(
                    server.base + f"{NS}/events/{event_id}", json=body, headers=headers, timeout=30
                ).status_code

            threads = [
                threading.Thread(target=patch, args=("editor", editor, {"status": "publish"})),
                threading.Thread(
                    target=patch,
                    args=(
                        "contributor",
                        contributor,
                        {"status": "publish", "title": f"Edited {n}"},
                    ),
                ),
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            stored = requests.get(
                server.base + f"{NS}/events/{event['id']}", headers=editor, timeout=30
            ).json()
            if answers == {"editor": 200, "contributor": 200} and stored["status"] != "publish":
                undone.append((event["id"], stored["status"]))
    finally:
        server.stop()
    assert undone == [], f"approvals undone by a contributor's concurrent save: {undone}"


def _at_once(functions):
    barrier = threading.Barrier(len(functions))
    answers = [None] * len(functions)

    def run(k):
        session = requests.Session()
        barrier.wait()
        answers[k] = functions[k](session)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(functions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def _event_made(server, headers: dict, body: dict) -> dict:
    """An event made through a live server's API (201), as the race tests begin."""
    made = requests.post(server.base + f"{NS}/events", json=body, headers=headers, timeout=30)
    assert made.status_code == 201, made.text
    return made.json()


def test_concurrent_deletes_of_one_event_trash_it_once(database, admin_auth):
    """reference-behaviour §8: DELETE trashes, a second delete is 410 ``event-is-in-trash``.
    Three DELETEs sent at once must give one 200 and two 410s, and the trashed event keeps
    the status it came from (``trashed_from``), not "trash"."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    failures = []
    try:
        for n in range(12):
            event_id = _event_made(
                server,
                headers,
                {
                    "title": f"D{n}",
                    "start_date": "2031-07-01 10:00",
                    "end_date": "2031-07-01 11:00",
                },
            )["id"]
            url = server.base + f"{NS}/events/{event_id}"
            answers = _at_once(
                [lambda s, url=url: s.delete(url, headers=headers, timeout=30).status_code] * 3
            )
            stored = query(str(database), f"SELECT trashed_from FROM event WHERE id = {event_id}")
            if sorted(answers) != [200, 410, 410] or stored[0][0] != "publish":
                failures.append((event_id, answers, stored))
    finally:
        server.stop()
    assert not failures, failures


def test_contributor_delete_racing_publish_never_trashes_a_published_event(database, admin_auth):
    """reference-behaviour §5: a contributor deletes their own drafts/pending events, never a
    published one (delete_published_posts is author+). A contributor's DELETE sent at the
    same moment as an editor's publish must either come first (the publish then wins) or be
    refused: the event must never end trashed from "publish" by the contributor."""
    contributor = _user(database, "co", "contributor")
    server = Server(database, workers=2)
    bad = []
    try:
        for n in range(40):
            event_id = _event_made(
                server,
                {**contributor, "Content-Type": "application/json"},
                {
                    "title": f"C{n}",
                    "start_date": "2031-07-02 10:00",
                    "end_date": "2031-07-02 11:00",
                },
            )["id"]
            url = server.base + f"{NS}/events/{event_id}"
            answers = _at_once(
                [
                    lambda s, url=url: (
                        s.patch(
                            url, json={"status": "publish"}, headers=admin_auth, timeout=30
                        ).status_code
                    ),
                    lambda s, url=url: s.delete(url, headers=contributor, timeout=30).status_code,
                ]
            )
            stored = query(
                str(database), f"SELECT status, trashed_from FROM event WHERE id = {event_id}"
            )
            if stored[0] == ("trash", "publish"):
                bad.append((event_id, answers, stored))
    finally:
        server.stop()
    assert not bad, bad


def test_concurrent_deletes_of_a_venue_or_term_succeed_once(database, admin_auth):
    """reference-behaviour §8: a second DELETE of a venue/organizer is 410; of a category/tag
    (deleted for good) a 400 as for any missing term. Three DELETEs sent at once: one 200, and
    the others what they get one after another."""
    server = Server(database, workers=2)
    bad = []
    try:
        for kind, field in (
            ("venues", "venue"),
            ("organizers", "organizer"),
            ("categories", "name"),
            ("tags", "name"),
        ):
            for n in range(12):
                created = requests.post(
                    server.base + f"{NS}/{kind}",
                    json={field: f"Item {kind} {n}"},
                    headers=admin_auth,
                    timeout=30,
                )
                assert created.status_code == 201, created.text
                url = server.base + f"{NS}/{kind}/{created.json()['id']}"
                answers = _at_once(
                    [lambda s, url=url: s.delete(url, headers=admin_auth, timeout=30).status_code]
                    * 3
                )
                again = 410 if kind in ("venues", "organizers") else 400
                if sorted(answers) != [200, again, again]:
                    bad.append((kind, n, answers))
    finally:
        server.stop()
    assert not bad, bad


def test_concurrent_deletes_of_one_occurrence_trash_it_once(database, admin_auth):
    """SPEC §12 / reference §8: trashing an occurrence excludes its date, and a second DELETE
    is 410. Three DELETEs of one occurrence at once: one 200, and the trashed occurrence still
    records that it followed its series and was published (what restoring it puts back;
    store/events.py::trash_event), not "trash" / not-following as a second pass leaves it."""
    server = Server(database, workers=2)
    bad = []
    try:
        for n in range(10):
            series_id = _event_made(
                server,
                admin_auth,
                {
                    "title": f"Series {n}",
                    "start_date": "2031-03-02 10:00",
                    "end_date": "2031-03-02 12:00",
                    "recurrence": "RRULE:FREQ=WEEKLY;COUNT=4",
                },
            )["id"]
            rows = query(
                str(database),
                f"SELECT id FROM event WHERE post_parent = {series_id} ORDER BY id",
            )
            occurrence = rows[1][0]
            url = server.base + f"{NS}/events/{occurrence}"
            answers = _at_once(
                [lambda s, url=url: s.delete(url, headers=admin_auth, timeout=30).status_code] * 3
            )
            stored = query(
                str(database),
                f"SELECT trashed_from, trashed_following FROM event WHERE id = {occurrence}",
            )
            if sorted(answers) != [200, 410, 410] or tuple(stored[0]) not in (
                ("publish", 1),
                ("publish", True),
            ):
                bad.append((occurrence, answers, stored))
    finally:
        server.stop()
    assert not bad, bad


def test_editor_delete_for_good_racing_a_publish_never_deletes_a_published_event(
    database, admin_auth
):
    """SPEC §16: the editor deletes for good only what is in the trash (its delete route
    refuses any other event). An editor's "delete permanently" sent at the same moment as an
    API PATCH that publishes the trashed event must not destroy the event the PATCH has just
    published (answered 200): either the delete comes first (the PATCH is then 404) or it
    is refused."""
    flask_cli(database, "users", "create", "ed", "--role", "editor")
    link = flask_cli(database, "users", "login-link", "ed").split()[-1]
    server = Server(database, workers=2)
    bad = []
    try:
        editor, csrf_token = signed_in_by_link(server, link)
        for n in range(20):
            event_id = _event_made(
                server,
                admin_auth,
                {
                    "title": f"E{n}",
                    "start_date": "2031-04-02 10:00",
                    "end_date": "2031-04-02 12:00",
                },
            )["id"]
            api = server.base + f"{NS}/events/{event_id}"
            assert requests.delete(api, headers=admin_auth, timeout=30).status_code == 200
            answers = _at_once(
                [
                    lambda s, event_id=event_id: (
                        editor.post(
                            server.base + f"/manage/events/{event_id}/delete",
                            data={"csrf_token": csrf_token, "confirmed": "1"},
                            allow_redirects=False,
                            timeout=30,
                        ).status_code
                    ),
                    lambda s, api=api: (
                        s.patch(
                            api, json={"status": "publish"}, headers=admin_auth, timeout=30
                        ).status_code
                    ),
                ]
            )
            after = requests.get(api, headers=admin_auth, timeout=30).status_code
            if answers[1] == 200 and after == 404:
                bad.append((event_id, answers, after))
    finally:
        server.stop()
    assert not bad, bad
