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
