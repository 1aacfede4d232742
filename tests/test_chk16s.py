"""chk16s: black-box acceptance checks of SPEC §1-§10 against a real gunicorn server."""

import base64
import threading

import requests

from tests.helpers import Server, flask_cli

NS = "/wp-json/calendar/events/v1"


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


def test_post_parent_cannot_make_two_events_each_others_parent(client, admin):
    """SPEC §2: ``post_parent`` is the "id of another event"; the product refuses an event as
    its own parent and a category as its own ancestor, and WordPress (the reference)
    never stores a parent loop (``wp_check_post_hierarchy_for_loops``). Making A the parent
    of B and then B the parent of A must not leave both pointing at each other."""
    body = {"title": "Loop", "start_date": "2030-03-01 10:00", "end_date": "2030-03-01 11:00"}
    first = client.post(f"{NS}/events", json=body, headers=admin).get_json()
    second = client.post(
        f"{NS}/events", json={**body, "post_parent": first["id"]}, headers=admin
    ).get_json()
    assert second["post_parent"] == first["id"]
    answer = client.post(
        f"{NS}/events/{first['id']}", json={"post_parent": second["id"]}, headers=admin
    )
    assert answer.status_code in (200, 400), answer.get_json()
    a = client.get(f"{NS}/events/{first['id']}").get_json()["post_parent"]
    b = client.get(f"{NS}/events/{second['id']}").get_json()["post_parent"]
    assert not (a == second["id"] and b == first["id"]), "a post_parent loop was stored"


def test_search_in_quotes_finds_the_phrase(client, make_event):
    """SPEC §3: listings filter "as reference-behaviour.md §3": `search` is WordPress's
    keyword search (WP_Query::parse_search), where a quoted phrase is looked for as one
    string, quotes removed ("alpha gamma" finds a title holding "Alpha gamma"). A user who
    puts a phrase, or one word, in quotes must not get an empty list."""
    make_event(title="Alpha gamma night")
    make_event(title="Only gamma here")
    phrase = client.get(f"{NS}/events", query_string={"search": '"alpha gamma"'}).get_json()
    assert [e["title"] for e in phrase["events"]] == ["Alpha gamma night"], phrase
    word = client.get(f"{NS}/events", query_string={"search": '"alpha"'}).get_json()
    assert [e["title"] for e in word["events"]] == ["Alpha gamma night"], word


def test_a_venue_s_coordinates_can_be_removed_through_the_api(client, admin):
    """SPEC §2: "Venues carry writable geo_lat and geo_lng (numbers, both or neither)"; §4:
    an update changes what it sends, and the reference clears a venue's optional fields sent
    empty. A venue geocoded by mistake must be able to go back to "neither" through the API
    (the editor can: an emptied number becomes None there). Today "" is a 400 "Must be a
    number." and null (read as "not sent") answers 200 and keeps the coordinates, so no API
    request removes them. Either form may be the one that clears."""
    venue = client.post(
        f"{NS}/venues",
        json={"venue": "Misplaced", "geo_lat": 48.85, "geo_lng": 2.35},
        headers=admin,
    ).get_json()
    assert venue["geo_lat"] == 48.85
    cleared = None
    for empty in ("", None):
        answer = client.post(
            f"{NS}/venues/{venue['id']}", json={"geo_lat": empty, "geo_lng": empty}, headers=admin
        )
        assert answer.status_code in (200, 400), answer.get_json()
        if answer.status_code == 200 and "geo_lat" not in answer.get_json():
            cleared = empty
            break
    stored = client.get(f"{NS}/venues/{venue['id']}").get_json()
    assert cleared is not None and "geo_lat" not in stored and "geo_lng" not in stored, stored


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
