"""chk16w: the write pipeline (store/db.py::write_decided / write_transaction) attacked from
outside with concurrent writes against a real gunicorn (SQLite file, or PostgreSQL under
``make test-postgres``)."""

import threading

import requests

from tests.databases import query
from tests.helpers import Server, flask_cli  # noqa: F401

NS = "/wp-json/calendar/events/v1"


def _race(functions):
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


def test_concurrent_deletes_of_one_event_trash_it_once(database, admin_auth):
    """reference-behaviour §8: DELETE trashes, a second delete is 410 ``event-is-in-trash``.
    Three DELETEs sent at once must give one 200 and two 410s, and the trashed event keeps
    the status it came from (``trashed_from``), not "trash"."""
    server = Server(database, workers=2)
    headers = {**admin_auth, "Content-Type": "application/json"}
    failures = []
    try:
        for n in range(12):
            created = requests.post(
                server.base + f"{NS}/events",
                json={
                    "title": f"D{n}",
                    "start_date": "2031-07-01 10:00",
                    "end_date": "2031-07-01 11:00",
                },
                headers=headers,
                timeout=30,
            )
            assert created.status_code == 201, created.text
            event_id = created.json()["id"]
            url = server.base + f"{NS}/events/{event_id}"
            answers = _race(
                [lambda s, url=url: s.delete(url, headers=headers, timeout=30).status_code] * 3
            )
            stored = query(str(database), f"SELECT trashed_from FROM event WHERE id = {event_id}")
            if sorted(answers) != [200, 410, 410] or stored[0][0] != "publish":
                failures.append((event_id, answers, stored))
    finally:
        server.stop()
    assert not failures, failures


def _basic(database, name, role):
    import base64

    password = flask_cli(database, "users", "create", name, "--role", role).split()[-1]
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def test_contributor_delete_racing_publish_never_trashes_a_published_event(database, admin_auth):
    """reference-behaviour §5: a contributor deletes their own drafts/pending events, never a
    published one (delete_published_posts is author+). A contributor's DELETE sent at the
    same moment as an editor's publish must either come first (the publish then wins) or be
    refused: the event must never end trashed from "publish" by the contributor."""
    contributor = _basic(database, "co", "contributor")
    server = Server(database, workers=2)
    bad = []
    try:
        for n in range(40):
            created = requests.post(
                server.base + f"{NS}/events",
                json={
                    "title": f"C{n}",
                    "start_date": "2031-07-02 10:00",
                    "end_date": "2031-07-02 11:00",
                },
                headers={**contributor, "Content-Type": "application/json"},
                timeout=30,
            )
            assert created.status_code == 201, created.text
            event_id = created.json()["id"]
            url = server.base + f"{NS}/events/{event_id}"
            answers = _race(
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
    (deleted for good) a 400 as for any missing term. Three DELETEs sent at once: one 200."""
    server = Server(database, workers=2)
    bad = []
    try:
        for kind, field in (
            ("venues", "venue"),
            ("organizers", "organizer"),
            ("categories", "name"),
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
                answers = _race(
                    [lambda s, url=url: s.delete(url, headers=admin_auth, timeout=30).status_code]
                    * 3
                )
                if sorted(answers).count(200) != 1:
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
            series = requests.post(
                server.base + f"{NS}/events",
                json={
                    "title": f"Series {n}",
                    "start_date": "2031-03-02 10:00",
                    "end_date": "2031-03-02 12:00",
                    "recurrence": "RRULE:FREQ=WEEKLY;COUNT=4",
                },
                headers=admin_auth,
                timeout=30,
            )
            assert series.status_code == 201, series.text
            series_id = series.json()["id"]
            rows = query(
                str(database),
                f"SELECT id FROM event WHERE post_parent = {series_id} ORDER BY id",
            )
            occurrence = rows[1][0]
            url = server.base + f"{NS}/events/{occurrence}"
            answers = _race(
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
    import re

    flask_cli(database, "users", "create", "ed", "--role", "editor")
    link = flask_cli(database, "users", "login-link", "ed").split()[-1]
    path = "/manage/" + link.split("/manage/", 1)[1]
    server = Server(database, workers=2)
    bad = []
    try:

        def token(html):
            return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)

        editor = requests.Session()
        form = editor.get(server.base + path, timeout=30).text
        secret = "Correct-Horse-Battery-9"
        answer = editor.post(
            server.base + path,
            data={"csrf_token": token(form), "password": secret, "password_again": secret},
            allow_redirects=False,
            timeout=30,
        )
        assert answer.status_code == 303, answer.text
        csrf_token = token(editor.get(server.base + "/manage/", timeout=30).text)
        for n in range(20):
            created = requests.post(
                server.base + f"{NS}/events",
                json={
                    "title": f"E{n}",
                    "start_date": "2031-04-02 10:00",
                    "end_date": "2031-04-02 12:00",
                },
                headers=admin_auth,
                timeout=30,
            )
            assert created.status_code == 201, created.text
            event_id = created.json()["id"]
            api = server.base + f"{NS}/events/{event_id}"
            assert requests.delete(api, headers=admin_auth, timeout=30).status_code == 200
            answers = _race(
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
