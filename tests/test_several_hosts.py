"""Two application hosts (two gunicorn instances on different ports) on one database
(SPEC §14): a write through one is read through the other at once, concurrent writers
through both lose nothing and see no deadlock, and a SIGKILL of one host in the middle of
writes loses no acknowledged write. Under ``make test-postgres`` the database is a
PostgreSQL server, as for hosts on different machines; under ``make test`` it is one SQLite
file, which two servers of one machine may share too."""

import base64
import http.client
import io
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta

import pytest

from tests.databases import query
from tests.helpers import (
    NS,
    Server,
    event_body,
    flask_cli,
    image_bytes,
    signed_in_by_link,
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


def _hidden_fields(page: str) -> dict:
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))


def test_an_image_kept_on_one_host_is_saved_through_another(database, tmp_path):
    """Found by an outside check (chk19b D6): docs/deploy.md "Several hosts" gives the
    hosts a shared UPLOAD_FOLDER and an instance folder each. The editor kept an image file
    chosen on a form that came back in the instance folder: when the corrected form reached
    the other host behind the load balancer, it answered 400 "The image file kept from
    before is no longer there" and the volunteer's poster was lost (SPEC §14, §16). Kept
    in the upload folder, it is saved through either host, and never served by URL."""
    shared = tmp_path / "uploads"
    shared.mkdir()
    folders = [tmp_path / "host-a", tmp_path / "host-b"]
    for folder in folders:
        folder.mkdir()
    flask_cli(database, "users", "create", "vol", "--role", "editor")
    link = flask_cli(database, "users", "login-link", "vol").strip().splitlines()[-1]
    hosts = [
        Server(database, workers=1, CALENDAR_INSTANCE=folder, UPLOAD_FOLDER=shared)
        for folder in folders
    ]
    try:
        first, second = hosts
        session, _token = signed_in_by_link(first, link)
        page = session.get(first.base + "/manage/events/new", timeout=30).text
        day = date.today() + timedelta(days=5)
        fields = {
            **_hidden_fields(page),
            "title": "Poster on two hosts",
            "start_date": f"{day}T19:00",
            "end_date": f"{day}T18:00",  # a mistake: the form comes back
            "timezone": "UTC",
            "status": "publish",
        }
        back = session.post(
            first.base + "/manage/events/new",
            data=fields,
            files={"image": ("poster.jpg", io.BytesIO(image_bytes()), "image/jpeg")},
            allow_redirects=False,
            timeout=30,
        )
        assert back.status_code == 400 and 'id="image-kept-note"' in back.text
        again = _hidden_fields(back.text)
        kept = f"/wp-content/uploads/kept-images/{again['image_kept']}"
        assert session.get(first.base + kept, timeout=30).status_code == 404
        fixed = {**fields, **again, "end_date": f"{day}T21:00"}
        saved = session.post(
            second.base + "/manage/events/new", data=fixed, allow_redirects=False, timeout=30
        )
        assert saved.status_code == 303, re.findall(r'class="error"[^>]*>([^<]*)', saved.text)
        assert not list((shared / "kept-images").iterdir()), "the kept file stays after its save"
    finally:
        for host in hosts:
            host.stop()
