"""Two application hosts (two gunicorn instances on different ports) on one database
(SPEC §14): a write through one is read through the other at once, concurrent writers
through both lose nothing and see no deadlock, and a SIGKILL of one host in the middle of
writes loses no acknowledged write. Under ``make test-postgres`` the database is a
PostgreSQL server, as for hosts on different machines; under ``make test`` it is one SQLite
file, which two servers of one machine may share too."""

import base64
import http.client
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.databases import query
from tests.helpers import (
    NS,
    Server,
    event_body,
    stored_event_ids,
)


@pytest.fixture
def hosts(database):
    first, second = Server(database, workers=2), None
    try:
        second = Server(database, workers=2)
        yield first, second
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_a_write_through_one_host_is_read_through_the_other_at_once(hosts, admin_auth):
    first, second = hosts
    # Both hosts have the listing and the event in their caches before the writes.
    assert second.request("GET", f"{NS}/events")[1]["total"] == 0
    status, event = first.request("POST", f"{NS}/events", event_body(1), admin_auth)
    assert status == 201
    path = f"{NS}/events/{event['id']}"
    assert second.request("GET", f"{NS}/events")[1]["total"] == 1
    assert second.request("GET", path)[1]["title"] == "Event 1"
    for n in range(5):
        title = f"Renamed {n}"
        writer, reader = (first, second) if n % 2 else (second, first)
        assert writer.request("PATCH", path, {"title": title}, admin_auth)[0] == 200
        assert reader.request("GET", path)[1]["title"] == title
        listed = reader.request("GET", f"{NS}/events")[1]["events"]
        assert [e["title"] for e in listed] == [title]
    assert first.request("DELETE", path, None, admin_auth)[0] == 200
    assert second.request("GET", f"{NS}/events")[1]["total"] == 0


def test_concurrent_writers_through_both_hosts_lose_nothing(hosts, admin_auth, database):
    def write(n):
        host = hosts[n % 2]
        return host.request("POST", f"{NS}/events", event_body(n), admin_auth)

    with ThreadPoolExecutor(max_workers=12) as pool:
        writes = list(pool.map(write, range(160)))
    statuses = [status for status, _body in writes]
    assert statuses.count(201) == 160, [body for status, body in writes if status != 201][:3]
    acknowledged = {body["id"] for _status, body in writes}
    assert len(acknowledged) == 160
    assert acknowledged <= stored_event_ids(database)
    # The linked records that every write looks up or creates were created once each.
    assert query(str(database), "SELECT COUNT(*) FROM venue")[0][0] == 5
    assert query(str(database), "SELECT COUNT(*) FROM term WHERE name = 'Load'")[0][0] == 1
    for host in hosts:
        assert host.request("GET", f"{NS}/events?per_page=1")[1]["total"] == 160


def test_sigkill_of_one_host_loses_no_acknowledged_write(hosts, admin_auth, database):
    first, second = hosts
    acknowledged, stop = set(), threading.Event()

    def writer(host, offset):
        n = offset
        while not stop.is_set():
            try:
                status, body = host.request("POST", f"{NS}/events", event_body(n), admin_auth)
            except (OSError, http.client.HTTPException):
                if host is first:
                    return  # the host died under us: this write was never acknowledged
                raise
            if status == 201:
                acknowledged.add(body["id"])
            n += 100000

    threads = [threading.Thread(target=writer, args=(host, k)) for k, host in enumerate(hosts * 2)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    first.kill()
    time.sleep(0.5)  # the survivor keeps writing after the other died
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert len(acknowledged) > 20
    assert acknowledged <= stored_event_ids(database)
    total = second.request("GET", f"{NS}/events?per_page=1")[1]["total"]
    assert total == len(stored_event_ids(database))
    for event_id in sorted(acknowledged)[:: max(1, len(acknowledged) // 25)]:
        status, body = second.request("GET", f"{NS}/events/{event_id}")
        assert status == 200 and body["id"] == event_id


def test_login_throttle_counts_across_hosts(database, admin_auth):
    first = Server(database, workers=1, AUTH_FAILURE_LIMIT=4)
    try:
        second = Server(database, workers=1, AUTH_FAILURE_LIMIT=4)
        try:
            bad = {"Authorization": "Basic " + base64.b64encode(b"admin:wrong").decode()}
            codes = [
                (first, second)[n % 2].request("GET", f"{NS}/events", headers=bad)[0]
                for n in range(4)
            ]
            assert codes == [401] * 4
            for host in (first, second):
                status, body = host.request("GET", f"{NS}/events", headers=admin_auth)
                assert status == 429 and body["code"] == "too_many_attempts"
        finally:
            second.stop()
    finally:
        first.stop()
