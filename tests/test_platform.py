"""The platform: roots, languages, errors, headers, authentication, CLI."""

import os

import pytest
from flask import request

from rules import clock
from store.db import database
from store.users import create_user
from tests.conftest import NS, basic, event_form, saved_id
from tests.databases import ON_POSTGRES, query
from tests.helpers import (
    INFORMAL,
    LINK_TABLES,
    Server,
    flask_cli,
    link_counts,
    old_cli,
    old_release,
)


def test_healthz_answers_without_database(client, app):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_rest_index_lists_namespace(client):
    body = client.get("/wp-json").get_json()
    # Ours first; the plugin's alias of it and WordPress's core routes too (SPEC §17).
    assert body["namespaces"] == ["calendar/events/v1", "tribe/events/v1", "wp/v2"]
    for key in ("name", "description", "url", "home"):
        assert key in body


@pytest.mark.parametrize(
    "root", ["/wp-json", "/en/wp-json", "/fr/wp-json", "/de/wp-json", "/es/wp-json"]
)
def test_every_language_root_serves_the_api(client, root):
    assert client.get(root).status_code == 200
    response = client.get(f"{root}/calendar/events/v1/events")
    assert response.status_code == 200
    assert response.get_json()["rest_url"].startswith(
        f"http://localhost{root}/calendar/events/v1/events/"
    )


def test_unknown_language_segment_is_no_route(client):
    response = client.get("/xx/wp-json/calendar/events/v1/events")
    assert response.status_code == 404
    assert response.get_json()["code"] == "rest_no_route"


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("path", [f"/it{NS}/events", "/it/wp-json", f"/it{NS}/doc"])
def test_an_unknown_language_segment_is_no_route_for_a_browser_too(client, path):
    """SPEC §1, §6: a browser opening /it/wp-json/... got the public "Page not found"
    page (HTML, lang="en") instead of the API's rest_no_route (chk16i)."""
    answer = client.get(path, headers={"Accept": BROWSER_ACCEPT})
    assert answer.status_code == 404
    assert answer.mimetype == "application/json", answer.mimetype
    assert answer.get_json()["code"] == "rest_no_route"


def test_error_messages_are_translated(client):
    english = client.get("/wp-json/nothing").get_json()["message"]
    french = client.get("/fr/wp-json/nothing").get_json()["message"]
    german = client.get("/de/wp-json/nothing").get_json()["message"]
    spanish = client.get("/es/wp-json/nothing").get_json()["message"]
    assert english == "No route was found matching the URL and request method."
    assert len({english, french, german, spanish}) == 4


def test_trailing_slash_is_accepted(client):
    assert client.get(f"{NS}/events/").status_code == 200
    assert client.get(f"{NS}/events/by-slug/").status_code == 404


def test_unknown_route_and_method_are_json_404(client):
    for response in (client.get(f"{NS}/nothing"), client.put(f"{NS}/events")):
        assert response.status_code == 404
        assert response.is_json
        body = response.get_json()
        assert body["code"] == "rest_no_route"
        assert body["data"]["status"] == 404


def test_non_numeric_id_is_no_route(client):
    assert client.get(f"{NS}/events/foo").get_json()["code"] == "rest_no_route"


def test_malformed_json_is_rest_invalid_json(client, admin):
    response = client.post(
        f"{NS}/events", data="{not json", content_type="application/json", headers=admin
    )
    assert response.status_code == 400
    assert response.get_json()["code"] == "rest_invalid_json"


def test_json_that_is_not_an_object_is_rejected(client, admin):
    response = client.post(f"{NS}/events", json=[1, 2], headers=admin)
    assert response.status_code == 400
    assert response.get_json()["code"] == "rest_invalid_json"


def test_oversized_body_is_413(client, admin, app):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    response = client.post(f"{NS}/events", json={"title": "x" * 5000}, headers=admin)
    assert response.status_code == 413
    assert response.get_json()["code"] == "rest_payload_too_large"


def test_unexpected_exception_is_json_500_without_trace(fresh_app):
    def boom():
        raise RuntimeError("secret detail")

    fresh_app.add_url_rule("/boom", "boom", boom)
    fresh_app.config["PROPAGATE_EXCEPTIONS"] = False
    response = fresh_app.test_client().get("/boom")
    assert response.status_code == 500
    body = response.get_json()
    assert body["code"] == "internal_server_error"
    assert "secret" not in response.get_data(as_text=True)


def test_a_fault_outside_a_view_is_an_internal_server_error(fresh_app):
    """SPEC §6 (docs15): an exception after the view (in an after_request hook, as a
    CORS_ORIGINS of another type once did) reaches Flask's 500 handler, and answered
    {"code": "http_error", "message": "Internal Server Error"}."""

    @fresh_app.after_request
    def fault(response):
        if request.path == f"{NS}/events":
            raise RuntimeError("secret detail")
        return response

    answer = fresh_app.test_client().get(f"{NS}/events", check_conformance=False)
    assert answer.status_code == 500
    assert answer.get_json()["code"] == "internal_server_error"
    assert "secret" not in answer.get_data(as_text=True)


def test_security_and_cors_headers(client, app):
    response = client.get(f"{NS}/events", headers={"Origin": "https://elsewhere.example"})
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "X-TEC-Total" in response.headers["Access-Control-Expose-Headers"]
    assert "Link" in response.headers["Access-Control-Expose-Headers"]
    app.config["CORS_ORIGINS"] = ["https://friend.example"]
    response = client.get(f"{NS}/events", headers={"Origin": "https://friend.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "https://friend.example"
    assert response.headers["Access-Control-Allow-Credentials"] == "true"


def test_another_authorization_scheme_leaves_the_caller_anonymous(client, as_role):
    """WordPress reads HTTP Basic only: a Bearer (or any other) header is no credentials,
    so reads answer as to anyone and writes are 401 rest_forbidden, not incorrect_password."""
    as_role("editor")
    for header in ("Bearer abc.def", "Digest username=editor", "Token x"):
        headers = {"Authorization": header}
        assert client.get(f"{NS}/events", headers=headers).status_code == 200
        body = {"title": "x", "start_date": "tomorrow 9am", "end_date": "tomorrow 10am"}
        write = client.post(f"{NS}/events", json=body, headers=headers)
        assert (write.status_code, write.get_json()["code"]) == (401, "rest_forbidden")
    malformed = client.get(f"{NS}/events", headers={"Authorization": "Basic"})
    assert (malformed.status_code, malformed.get_json()["code"]) == (401, "incorrect_password")


def test_options_preflight_answers_200(client):
    assert client.options(f"{NS}/events").status_code == 200


def test_a_preflight_allows_what_a_raw_upload_sends(client):
    """A browser on another origin uploads a raw image with Content-Disposition (SPEC §13):
    its preflight must allow that header, as WordPress's does (with Content-MD5)."""
    response = client.options(
        f"{NS}/media",
        headers={
            "Origin": "https://elsewhere.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, content-disposition",
        },
    )
    assert response.status_code == 200
    allowed = {h.strip() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert allowed >= {
        "Authorization",
        "X-WP-Nonce",
        "Content-Disposition",
        "Content-MD5",
        "Content-Type",
        "If-None-Match",
    }


@pytest.mark.parametrize(
    "zone, offsets",
    [("UTC", {0}), ("America/New_York", {-5, -4}), ("Asia/Kolkata", {5.5})],
)
def test_rest_index_gmt_offset_follows_the_site_timezone(app, client, zone, offsets):
    """WordPress derives ``gmt_offset`` from ``timezone_string``: hours, as a number."""
    app.config["SITE_TIMEZONE"] = zone
    body = client.get("/wp-json").get_json()
    assert body["timezone_string"] == zone
    assert body["gmt_offset"] in offsets


def test_bad_credentials_are_401_incorrect_password(client, as_role):
    as_role("editor")
    for headers in (
        basic("editor", "wrong"),
        basic("nobody", "wrong"),
        {"Authorization": "Basic !!"},
    ):
        response = client.get(f"{NS}/events", headers=headers)
        assert response.status_code == 401
        assert response.get_json()["code"] == "incorrect_password"
        assert response.headers["WWW-Authenticate"].startswith("Basic")


def test_password_of_another_user_does_not_authenticate(client, as_role, app):
    as_role("editor")
    with app.app_context():
        pass
    from store.db import database
    from store.users import create_user

    with database.connection_context():
        _user, other_password = create_user("other", "subscriber")
    response = client.get(f"{NS}/events", headers=basic("editor", other_password))
    assert response.status_code == 401


def test_repeated_failures_are_throttled(client, app, as_role):
    app.config["AUTH_FAILURE_LIMIT"] = 3
    good = as_role("editor")
    for _ in range(3):
        assert client.get(f"{NS}/events", headers=basic("editor", "bad")).status_code == 401
    response = client.get(f"{NS}/events", headers=good)
    assert response.status_code == 429
    assert response.get_json()["code"] == "too_many_attempts"
    assert "Retry-After" in response.headers
    # Other accounts from the same address are not locked out by one account's failures...
    assert client.get(f"{NS}/events", headers=as_role("author")).status_code == 200


def test_spraying_many_accounts_from_one_address_is_throttled(client, app, as_role):
    app.config["AUTH_FAILURE_LIMIT"] = 2
    good = as_role("editor")
    for n in range(20):
        assert client.get(f"{NS}/events", headers=basic(f"user{n}", "bad")).status_code == 401
    assert client.get(f"{NS}/events", headers=good).status_code == 429


def test_a_successful_login_clears_that_accounts_failures(client, app, as_role):
    app.config["AUTH_FAILURE_LIMIT"] = 3
    good = as_role("editor")
    for _ in range(2):
        client.get(f"{NS}/events", headers=basic("editor", "bad"))
    assert client.get(f"{NS}/events", headers=good).status_code == 200
    for _ in range(2):
        client.get(f"{NS}/events", headers=basic("editor", "bad"))
    assert client.get(f"{NS}/events", headers=good).status_code == 200


def test_anonymous_write_is_401_and_subscriber_403(client, as_role):
    body = {"title": "t", "start_date": "tomorrow", "end_date": "tomorrow"}
    anonymous = client.post(f"{NS}/events", json=body)
    assert anonymous.status_code == 401
    assert anonymous.get_json() == {
        "code": "rest_forbidden",
        "message": "Sorry, you are not allowed to do that.",
        "data": {"status": 401},
    }
    response = client.post(f"{NS}/events", json=body, headers=as_role("subscriber"))
    assert response.status_code == 403
    assert response.get_json()["code"] == "rest_forbidden"


def test_validation_runs_before_authorisation(client):
    response = client.post(f"{NS}/events", json={"title": "t"})
    assert response.status_code == 400
    body = response.get_json()
    assert body["code"] == "rest_missing_callback_param"
    assert body["message"] == "Missing parameter(s): start_date, end_date"
    assert body["data"]["params"] == ["start_date", "end_date"]


def test_invalid_params_name_each_problem(client):
    response = client.get(f"{NS}/events?page=foo&per_page=0")
    body = response.get_json()
    assert response.status_code == 400
    assert body["code"] == "rest_invalid_param"
    assert set(body["data"]["params"]) == {"page", "per_page"}


def test_namespace_index_lists_routes_with_args(client):
    body = client.get(NS).get_json()
    assert body["namespace"] == "calendar/events/v1"
    route = body["routes"]["/calendar/events/v1/events/(?P<id>\\d+)"]
    assert set(route["methods"]) == {"GET", "POST", "PUT", "PATCH", "DELETE"}
    listing = body["routes"]["/calendar/events/v1/events"]
    get = next(e for e in listing["endpoints"] if "GET" in e["methods"])
    assert get["args"]["per_page"] == {
        "type": "integer",
        "required": False,
        "default": 10,
        "description": "Maximum number of items per page (at most 50).",
    }
    post = next(e for e in listing["endpoints"] if "POST" in e["methods"])
    assert post["args"]["title"]["required"] is True
    for path in ("/venues", "/organizers", "/categories", "/tags", "/doc"):
        assert f"/calendar/events/v1{path}" in body["routes"]


def test_namespace_index_bad_context_is_400(client):
    assert client.get(f"{NS}?context=bogus").status_code == 400


def test_openapi_document_servers_follow_language_root(client):
    doc = client.get(f"{NS}/doc").get_json()
    assert doc["openapi"].startswith("3.")
    assert doc["servers"][0]["url"] == f"http://localhost{NS}/"
    assert "/events" in doc["paths"] and "/events/{id}" in doc["paths"]
    french = client.get(f"/fr{NS}/doc").get_json()
    assert french["servers"][0]["url"] == f"http://localhost/fr{NS}/"


def test_site_url_setting_builds_links(database_url):
    from app import create_app

    app = create_app({"CALENDAR_DATABASE": database_url, "SITE_URL": "https://cal.example/"})
    body = app.test_client().get(f"{NS}/events").get_json()
    app.extensions["calendar.db"].close_all()
    assert body["rest_url"].startswith("https://cal.example/wp-json/calendar/events/v1/events/")


def test_cli_users_create_password_list_revoke(app, client):
    runner = app.test_cli_runner()
    result = runner.invoke(
        args=["users", "create", "alice", "--role", "editor", "--email", "a@x.org"]
    )
    assert result.exit_code == 0, result.output
    password = result.output.strip().splitlines()[-1]
    assert len(password) >= 22
    assert client.get(f"{NS}/events", headers=basic("alice", password)).status_code == 200
    result = runner.invoke(args=["users", "password", "alice"])
    second = result.output.strip().splitlines()[-1]
    assert second != password
    assert client.get(f"{NS}/events", headers=basic("alice", second)).status_code == 200
    listing = runner.invoke(args=["users", "list"]).output
    assert "alice" in listing and "editor" in listing
    revoked = runner.invoke(args=["users", "revoke", "alice"])
    assert revoked.exit_code == 0
    assert revoked.output.startswith("Revoked 2 application passwords of alice,")
    assert client.get(f"{NS}/events", headers=basic("alice", second)).status_code == 401
    duplicate = runner.invoke(args=["users", "create", "alice", "--role", "editor"])
    assert duplicate.exit_code != 0


def test_passwords_are_stored_as_digests(app):
    runner = app.test_cli_runner()
    password = runner.invoke(args=["users", "create", "bob", "--role", "author"]).output.split()[-1]
    from store.db import database
    from store.models import AppPassword

    with database.connection_context():
        digests = [row.digest for row in AppPassword.select()]
    assert password not in digests
    assert all(len(d) == 64 for d in digests)


def test_migrate_and_backup_commands(app, tmp_path):
    runner = app.test_cli_runner()
    assert "schema version" in runner.invoke(args=["migrate"]).output
    target = tmp_path / "copy.tar.gz"
    result = runner.invoke(args=["backup", str(target)])
    assert result.exit_code == 0, result.output
    import sqlite3
    import tarfile

    with tarfile.open(target) as archive:  # a SQLite file on either engine
        archive.extract("calendar.db", tmp_path, filter="data")
    with sqlite3.connect(tmp_path / "calendar.db") as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert copy.execute("SELECT value FROM setting WHERE key='schema_version'").fetchone()


@pytest.mark.parametrize(
    "path,body",
    [
        (
            "/events",
            {
                "title": "t",
                "start_date": "tomorrow",
                "end_date": "tomorrow",
                "categories": "99999999999999999999999",
            },
        ),
        (
            "/events",
            {
                "title": "t",
                "start_date": "tomorrow",
                "end_date": "tomorrow",
                "venue": {"venue": None},
            },
        ),
        (
            "/events",
            {
                "title": "t",
                "start_date": "tomorrow",
                "end_date": "tomorrow",
                "organizer": "99999999999999999999999",
            },
        ),
        ("/organizers", {"organizer": None}),
        ("/venues", {"venue": None, "description": -1}),
    ],
)
def test_hostile_bodies_are_400_not_500(client, admin, path, body):
    response = client.post(f"{NS}{path}", json=body, headers=admin)
    assert response.status_code == 400
    assert response.get_json()["code"] in ("rest_invalid_param", "rest_missing_callback_param")


def test_huge_ids_in_filters_are_400(client):
    assert client.get(f"{NS}/events?tags=99999999999999999999").status_code == 400
    assert client.get(f"{NS}/events?categories=99999999999999999999").status_code == 400


def test_seed_counts_say_one_in_the_singular(app, admin):
    """README: "A message that counts something is said with ngettext ... its forms for one
    and for many"; the commands' English lines too: "1 demo event, 1 venue" (chk17o D1)."""
    runner = app.test_cli_runner()
    added = runner.invoke(args=["seed", "--events", "1"])
    assert added.exit_code == 0, added.output
    line = [x for x in added.output.splitlines() if x.startswith("Added")][0]
    assert line.startswith("Added 1 demo event, 1 venue, 1 organizer, "), line
    removed = runner.invoke(args=["seed", "--remove"])
    line = [x for x in removed.output.splitlines() if x.startswith("Removed")][0]
    assert line.startswith("Removed 1 demo event, 1 venue, 1 organizer, "), line


def test_seed_command_fills_a_demo_calendar(app, client):
    runner = app.test_cli_runner()
    made = runner.invoke(args=["users", "create", "owner", "--role", "administrator"])
    owner = basic("owner", made.output.split()[-1])
    result = runner.invoke(args=["seed", "--events", "60"])
    assert result.exit_code == 0, result.output
    assert "Added 60 demo events" in result.output
    editor_view = client.get(f"{NS}/events?per_page=50&starts_after=2000-01-01")
    body = editor_view.get_json()
    assert body["total"] > 0
    event = body["events"][0]
    assert event["author"] == "1"
    assert event["categories"] and event["venue"]
    assert client.get(f"{NS}/venues").get_json()["total"] >= 1
    assert client.get(f"{NS}/categories").get_json()["total"] >= 1
    # A demo venue or organizer is a new one's duplicate (the seed writes the title keys).
    for path, field in (("venues", "venue"), ("organizers", "organizer")):
        item = client.get(f"{NS}/{path}").get_json()[path][0]
        again = client.post(f"{NS}/{path}", json={field: item[field].lower()}, headers=owner)
        assert again.get_json()["id"] == item["id"], path
    assert runner.invoke(args=["seed", "--events", "1", "--author", "ghost"]).exit_code != 0
    assert "owned by owner." in result.output


def test_seed_refuses_a_subscriber_as_the_demos_author(app, as_role):
    """chk18r: a subscriber "may edit nothing" (README), yet owned the demo events."""
    as_role("subscriber", "sam")
    result = app.test_cli_runner().invoke(args=["seed", "--events", "1", "--author", "sam"])
    assert result.exit_code == 1
    assert "Error: --author sam: a subscriber cannot edit items" in result.output
    assert "Added" not in result.output


def test_seed_without_an_administrator_says_who_owns_the_items(app):
    result = app.test_cli_runner().invoke(args=["seed", "--events", "3"])
    assert result.exit_code == 0, result.output
    assert "owned by no user" in result.output
    assert "users create NAME --role administrator" in result.output


def test_seed_refuses_a_calendar_with_events_unless_forced(app, client, make_event):
    mine = make_event(title="Our own concert")
    runner = app.test_cli_runner()
    refused = runner.invoke(args=["seed", "--events", "5"])
    assert refused.exit_code == 1 and "the calendar already holds events" in refused.output
    assert client.get(f"{NS}/events").get_json()["total"] == 1
    forced = runner.invoke(args=["seed", "--events", "5", "--force"])
    assert (
        forced.exit_code == 0 and "`calendar seed --remove` takes them out again" in forced.output
    )
    assert client.get(f"{NS}/events/{mine['id']}").status_code == 200


def test_seed_remove_takes_out_the_demo_and_keeps_the_sites_items(app, client, admin, make_event):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["seed", "--remove"]).output.endswith("nothing was seeded)\n")
    runner.invoke(args=["seed", "--events", "80"])
    demo = client.get(f"{NS}/venues?per_page=50").get_json()["venues"]
    music = client.get(f"{NS}/categories?search=Music").get_json()["categories"][0]
    # The site's own event at a demo venue, in a demo category, with its own new tag.
    mine = make_event(title="Ours", venue=demo[0]["id"], categories=[music["id"]], tags=["own"])
    done = runner.invoke(args=["seed", "--remove"])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("Removed 80 demo events, ")
    assert "Kept 2 demo items your own events use." in done.output
    listing = client.get(f"{NS}/events?start_date=2000-01-01&end_date=2100-01-01").get_json()
    assert [e["title"] for e in listing["events"]] == ["Ours"]
    assert [v["id"] for v in client.get(f"{NS}/venues").get_json()["venues"]] == [demo[0]["id"]]
    names = {t["name"] for t in client.get(f"{NS}/categories?per_page=50").get_json()["categories"]}
    assert names == {"Music"}
    assert [t["name"] for t in client.get(f"{NS}/tags").get_json()["tags"]] == ["own"]
    assert client.get(f"{NS}/events/{mine['id']}").get_json()["venue"]["id"] == demo[0]["id"]
    assert not [p for p in os.listdir(app.config["UPLOAD_FOLDER"]) if demo_image_kept(p, client)]
    again = runner.invoke(args=["seed", "--remove"])
    assert again.exit_code == 1 and "nothing was seeded" in again.output


def test_seed_remove_keeps_demo_events_the_site_edited(app, client, admin):
    runner = app.test_cli_runner()
    runner.invoke(args=["seed", "--events", "20"])
    listing = client.get(f"{NS}/events?start_date=2000-01-01&end_date=2100-01-01&per_page=50")
    plain = next(e for e in listing.get_json()["events"] if not e.get("recurrence"))
    clock.advance(2)  # an edit in a later second than the seed's
    edited = client.post(f"{NS}/events/{plain['id']}", json={"title": "Ours now"}, headers=admin)
    assert edited.status_code == 200
    done = runner.invoke(args=["seed", "--remove"])
    assert "Kept 1 demo event edited since (they are the site's own now)." in done.output
    assert client.get(f"{NS}/events/{plain['id']}").get_json()["title"] == "Ours now"


def test_demo_marks_travel_with_a_backup(app, tmp_path):
    runner = app.test_cli_runner()
    runner.invoke(args=["seed", "--events", "5"])
    archive = tmp_path / "demo.tar.gz"
    assert runner.invoke(args=["backup", str(archive)]).exit_code == 0
    assert runner.invoke(args=["seed", "--remove"]).exit_code == 0
    restored = runner.invoke(args=["restore", "--force", str(archive)])
    assert restored.exit_code == 0, restored.output
    again = runner.invoke(args=["seed", "--remove"])
    assert again.exit_code == 0 and again.output.startswith("Removed 5 demo events"), again.output


def test_seeds_in_several_chunks_keep_their_marks_as_runs(app, client, monkeypatch):
    """A seed keeps no list that grows with each event (chk19k D1: `seed --events N` has a
    maximum a seed reaches within bounded memory): ids are asked and rows inserted a chunk
    at a time, the marks kept as [first, last] runs, merged with an earlier seed's."""
    import orjson

    from store import seed as seeding
    from store.models import Setting

    monkeypatch.setattr(seeding, "CHUNK", 7)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["seed", "--events", "45"]).exit_code == 0
    assert runner.invoke(args=["seed", "--events", "30", "--force"]).exit_code == 0
    with app.app_context():
        marks = orjson.loads(Setting.get(Setting.key == seeding.DEMO_KEY).value)
    assert len(marks["event"]) <= 2 and len(marks["venue"]) <= 2, marks
    assert sum(last - first + 1 for first, last in marks["event"]) == 75
    assert client.get(f"{NS}/venues").get_json()["total"] == 2 + 1  # 45 // 20, 30 // 20
    done = runner.invoke(args=["seed", "--remove"])
    assert done.output.startswith("Removed 75 demo events, 3 venues, 2 organizers"), done.output
    assert client.get(f"{NS}/events?start_date=2000-01-01").get_json()["total"] == 0


def demo_image_kept(name, client) -> bool:
    """Whether an upload file is still served (the demo's are removed with their rows)."""
    return client.get(f"/wp-content/uploads/{name}").status_code == 200


def test_responses_vary_by_authorization(client):
    assert "Authorization" in client.get(f"{NS}/events").headers["Vary"]


def test_dates_at_the_edge_of_the_calendar_are_400(client, admin):
    body = {
        "title": "t",
        "start_date": "9999-12-31 23:00:00",
        "end_date": "9999-12-31 23:30:00",
        "timezone": "UTC-5",
    }
    assert client.post(f"{NS}/events", json=body, headers=admin).status_code == 400
    body = {
        "title": "t",
        "start_date": "0001-01-01 00:00:00",
        "end_date": "0001-01-01 01:00:00",
        "timezone": "UTC+14",
    }
    assert client.post(f"{NS}/events", json=body, headers=admin).status_code == 400
    assert client.get(f"{NS}/events?start_date=0001-01-01T00:00:00%2B14:00").status_code in (
        200,
        400,
    )
    assert client.get(f"{NS}/events?end_date=+9000 years").status_code == 400


def test_nul_characters_in_lookups_find_nothing_on_every_engine(client, make_event):
    """PostgreSQL text cannot hold NUL (SQLite's can): a NUL in a login, a slug, a term or a
    password finds nothing on both engines, never a 500 (store/db.py)."""
    make_event(title="abc")
    expected = {
        "/categories?slug=%00": 200,
        "/events/by-slug/a%00b": 400,
        "/events?password=%00": 400,
        "/events?categories=a%00": 400,
        "/tags/by-slug/a%00": 404,
    }
    assert {path: client.get(NS + path).status_code for path in expected} == expected
    assert client.get(f"{NS}/events", headers=basic("ad\x00min", "pw")).status_code == 401


def test_search_is_the_same_substring_match_on_every_engine(client, make_event, admin):
    """FTS5 trigrams (SQLite) and pg_trgm with ILIKE (PostgreSQL) find the same events:
    case-insensitive substrings, the search's own % _ and \\ taken literally."""
    for title in ("100% Jazz", "100 Jazz", "a_b night", "axb night", "Back\\slash", "Café Olé"):
        make_event(title=title)
    client.post(f"{NS}/venues", json={"venue": "Salle_Pleyel", "city": "Paris"}, headers=admin)
    client.post(f"{NS}/venues", json={"venue": "SalleXPleyel", "city": "Paris"}, headers=admin)

    def titles(query):
        body = client.get(f"{NS}/events", query_string={"search": query}).get_json()
        return sorted(e["title"] for e in body["events"])

    assert titles("100%") == ["100% Jazz"]
    assert titles("0%") == ["100% Jazz"]
    assert titles("JAZZ") == ["100 Jazz", "100% Jazz"]
    assert titles("a_b") == ["a_b night"]
    assert titles("_") == ["a_b night"]
    assert titles("k\\s") == ["Back\\slash"]
    assert titles("café") == ["Café Olé"]
    assert titles("%") == ["100% Jazz"]
    venues = client.get(f"{NS}/venues", query_string={"search": "e_P"}).get_json()["venues"]
    assert [v["venue"] for v in venues] == ["Salle_Pleyel"]


@pytest.mark.skipif(not ON_POSTGRES, reason="a SQLite file has no server to drop connections")
def test_connections_the_server_dropped_are_replaced(app, client, make_event):
    """A pooled connection that the server dropped (a restart, a fail-over) is replaced
    when it is taken from the pool (Peewee's pool checks it), not a failed request."""
    make_event(title="Still here")
    assert client.get(f"{NS}/events").get_json()["total"] == 1
    with database.connection_context():
        pid = database.connection().get_backend_pid()
    query(app.config["CALENDAR_DATABASE"], f"SELECT pg_terminate_backend({pid})")
    assert client.get(f"{NS}/events?per_page=5").get_json()["total"] == 1


@pytest.mark.skipif(not ON_POSTGRES, reason="a SQLite file has no server to drop connections")
def test_a_prepared_statement_survives_its_connection(app, client, make_event):
    """The hot statements run prepared on each connection: one the server dropped is
    replaced, and the statement prepared again on the new one, within the same call."""
    from store.events import get_events

    event = make_event(title="Prepared")
    with app.app_context(), database.connection_context():
        for _ in range(3):
            assert [e.title for e in get_events([event["id"]])] == ["Prepared"]
        pid = database.connection().get_backend_pid()
        query(app.config["CALENDAR_DATABASE"], f"SELECT pg_terminate_backend({pid})")
        assert [e.title for e in get_events([event["id"]])] == ["Prepared"]
        assert database.connection().get_backend_pid() != pid


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's JIT compilation")
def test_postgresql_sessions_run_without_jit_unless_the_url_says_otherwise(app):
    """Every connection starts with JIT compilation off (store/db.py::SESSION_OPTIONS): a
    visitor's search of the list page was compiled at each run, 100 ms of its 110 ms at
    10,000 events. A URL's own ``options`` come after it, and may set it again."""
    from store.db import open_database

    with database.connection_context():
        assert database.execute_sql("SHOW jit").fetchone()[0] == "off"
    setting = app.config["CALENDAR_DATABASE"]
    joiner = "&" if "?" in setting else "?"
    for options, jit, memory in (
        ("-c%20jit%3Don", "on", None),
        ("-c%20work_mem%3D8MB", "off", "8MB"),
    ):
        db = open_database(f"{setting}{joiner}options={options}")
        try:
            with db.connection_context():
                assert db.execute_sql("SHOW jit").fetchone()[0] == jit
                if memory:
                    assert db.execute_sql("SHOW work_mem").fetchone()[0] == memory
        finally:
            db.close_all()


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite's plans are made without statistics")
def test_a_seeded_postgresql_calendar_has_statistics_for_its_plans(app, client):
    """After `flask seed` the planner knows the tables (ANALYZE, not a minute later by
    autovacuum): a listing's page is read along an index in start order and stops after
    the page instead of gathering and sorting the whole window."""
    runner = app.test_cli_runner()
    runner.invoke(args=["users", "create", "owner", "--role", "administrator"])
    assert runner.invoke(args=["seed", "--events", "600"]).exit_code == 0
    setting = app.config["CALENDAR_DATABASE"]
    (tuples,) = query(setting, "SELECT reltuples FROM pg_class WHERE relname = 'event'")[0]
    assert tuples >= 600
    page = client.get(f"{NS}/events?per_page=10&page=3").get_json()
    assert len(page["events"]) == 10
    plan = query(
        setting,
        "EXPLAIN SELECT id FROM event WHERE (status = 'publish') AND utc_start >= '2000-01-01'"
        " ORDER BY utc_start, id LIMIT 10",
    )
    nodes = [row[0].strip().removeprefix("->").strip() for row in plan]
    text = " ".join(nodes)
    # Along a start-ordered index: no Sort of the whole window. An Incremental Sort whose
    # presorted key is the start orders only the events of one start at a time (the ids)
    # and stops after the page too: chosen since the start-order index also holds the
    # days a month grid counts (migration 24), which makes it larger.
    assert not any(node.startswith("Sort  (") for node in nodes), text  # a Sort node
    assert "Incremental Sort" not in text or "Presorted Key: utc_start" in text, text


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's prepared statements")
def test_statements_whose_plan_does_not_depend_on_their_values_are_never_planned_again(
    client, make_event
):
    """An event page's previous/next runs by its generic plan from its first run (PostgreSQL
    planned it anew at every run, judging the generic plan costlier); a listing between
    dates is left to PostgreSQL's own choice (custom plans first), whatever ran before it
    on the connection."""
    events = [make_event(title=f"Planned {n}") for n in range(3)]
    for n, event in enumerate(events):  # one thread: each request takes the pool's one connection
        assert client.get(f"/event/{event['slug']}/").status_code == 200
        assert client.get(f"{NS}/events?start_date=2001-01-0{n + 1}").status_code == 200
    with database.connection_context():
        rows = database.execute_sql(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
        ).fetchall()
    around = [(g, c) for text, g, c in rows if " AS (SELECT * FROM (SELECT 0, " in text]
    listings = [(g, c) for text, g, c in rows if text.startswith("PREPARE") and '"page"' in text]
    assert around and all(c == 0 and g > 0 for g, c in around), rows
    assert listings and all(c > 0 for g, c in listings), rows


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's prepared statements")
def test_a_searchs_statements_are_planned_for_its_words_at_every_run(client, make_event):
    """A search's page, first ids and count are planned for the word at each run: their
    generic plan, which PostgreSQL kept after five runs, cannot see the word's pattern,
    and read a search's first ids in 70–180 ms at 10,000 events where a plan for the word
    took 2.4 ms. A listing without words is left to PostgreSQL's choice."""
    for n in range(3):
        make_event(title=f"Concert {n}")

    def plans():
        with database.connection_context():
            rows = database.execute_sql(
                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            ).fetchall()
        return {text: (g, c) for text, g, c in rows}

    before = plans()
    # Eight words, eight listings of one shape (a listing asked again is kept).
    words = ("conc", "conce", "concer", "concert", "oncert", "ncert", "cert", "once")
    for word in words:  # one thread: each request takes the pool's one connection
        body = client.get(f"{NS}/events?search={word}&per_page=2").get_json()
        assert len(body["events"]) == 2 and body["total"] == 3, word
    rows = plans()
    searched = [  # the runs of each searching statement during the requests
        (g - before.get(text, (0, 0))[0], c - before.get(text, (0, 0))[1])
        for text, (g, c) in rows.items()
        if "event_search(" in text
    ]
    assert searched and all(g == 0 for g, c in searched), rows
    assert any(c == 8 for g, c in searched), rows


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite's plans are made without statistics")
def test_a_seeds_texts_are_made_with_the_loaded_tables_statistics(app, monkeypatch):
    """The seeded events' stored texts (the first ones by the seed's own commit, the rest
    after it) are found, newest first, by plans made from the loaded tables' statistics:
    made before them, PostgreSQL joined the events in a nested loop, minutes for 30,000
    seeded events and hours for 100,000."""
    from store import texts
    from store.db import database

    made, seen = texts.make_pending, []

    def make_pending(*args, **kwargs):
        sql = (  # in the caller's transaction
            "SELECT reltuples, (SELECT COUNT(*) FROM event_text) FROM pg_class"
            " WHERE relname = 'event_text'"
        )
        seen.append(database.execute_sql(sql).fetchone())
        return made(*args, **kwargs)

    monkeypatch.setattr(texts, "make_pending", make_pending)
    assert app.test_cli_runner().invoke(args=["seed", "--events", "300"]).exit_code == 0
    loaded = [known for known, rows in seen if rows >= 300]  # not the images' writes
    assert loaded and min(loaded) >= 300, seen


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's VACUUM and its temporary database")
def test_a_bulk_loads_vacuum_copies_the_file_on_disk_not_in_memory(app, monkeypatch):
    """After a seed or a copy, VACUUM rewrites the file through a temporary database: with
    the connections' temp_store "memory" it held the whole copy in RAM (a seed of
    1,000,000 events passed 3 GB, chk19k D1). It runs with temp_store FILE, then the
    connection has its own setting back."""
    from store import db

    real, said = db.database.obj.execute_sql, []

    def execute_sql(sql, *args, **kwargs):
        said.append((sql, real("PRAGMA temp_store").fetchone()[0]))
        return real(sql, *args, **kwargs)

    monkeypatch.setattr(db.database.obj, "execute_sql", execute_sql)
    with app.app_context(), db.database.connection_context():
        db.after_bulk_load(lambda: None)
        assert real("PRAGMA temp_store").fetchone()[0] == 2  # memory
    assert ("VACUUM", 1) in said, said  # 1: a file


@pytest.mark.parametrize("value", [" ", "\xa0", "\x85"])
def test_an_authorization_header_of_whitespace_is_no_500(client, value):
    """0073c9b (another scheme leaves the caller anonymous) reads the scheme as
    ``header.split(None, 1)[0]``: a header of whitespace only (over HTTP, gunicorn passes
    the bytes A0 or 85 as Latin-1 text, which str.split counts as whitespace) raises
    IndexError, a 500 on every route. SPEC §10: "No input may produce … an unhandled
    exception"."""
    response = client.get(f"{NS}/events", headers={"Authorization": value})
    assert response.status_code in (200, 401), response.get_json()


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's statistics")
def test_a_sqlite_calendar_keeps_no_statistics_gathered_while_it_was_empty(app):
    """Statistics ANALYZE gathered on a new database stayed as it grew: FTS5 then planned
    its inserts into the text index for 2 pages (1.6 ms of CPU more per POST /events at
    11,000 events). A new database has none; an older one loses them."""
    from store.models import Setting
    from store.schema import MIGRATIONS, _v21_no_sqlite_statistics, migrate

    with database.connection_context():
        stats = "SELECT COUNT(*) FROM sqlite_stat1"
        assert database.execute_sql(stats).fetchone()[0] == 0
        database.execute_sql("INSERT INTO sqlite_stat1 VALUES ('event_search_data', NULL, '2')")
        before = MIGRATIONS.index(_v21_no_sqlite_statistics)
        Setting.update(value=str(before)).where(Setting.key == "schema_version").execute()
        assert migrate() == len(MIGRATIONS)
        assert database.execute_sql(stats).fetchone()[0] == 0


def _event_triggers(path):
    import sqlite3

    with sqlite3.connect(path) as con:
        rows = con.execute(
            "SELECT name FROM sqlite_master WHERE type='trigger' AND tbl_name='event'"
        ).fetchall()
    return {name for (name,) in rows}


def _kept_by_the_event_triggers(upgraded, password):
    """A new event is found by ?search=, counted on its days, and its stored text is made
    stale by a write from any path (here raw SQL)."""
    from store.models import EventDay, EventText

    client = upgraded.test_client()
    body = {"title": "Zanzibar night", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"}
    made = client.post(f"{NS}/events", json=body, headers=basic("ann", password))
    assert made.status_code == 201, made.get_json()
    assert client.get(f"{NS}/events?search=Zanzibar").get_json()["total"] == 1
    day = made.json["utc_start_date"][:10]
    with upgraded.app_context(), database.connection_context():
        counted = EventDay.select().where(EventDay.start_day == day, EventDay.status == "publish")
        assert sum(row.n for row in counted) == 1
        database.execute_sql("UPDATE event SET title = 'Mombasa' WHERE id = ?", [made.json["id"]])
        assert EventText.get(EventText.event == made.json["id"]).body is None


@pytest.mark.sqlite_file
def test_migrating_a_schema_21_database_keeps_the_event_triggers(tmp_path):
    """docs/architecture.md ("Pieces we kept"): playhouse.migrate's add_column on SQLite
    rebuilds the table, which drops its triggers; step 22 adds Event.ical_recurrence_id
    through it (store/schema.py::_add_fields), so a calendar deployed at schema 21 lost, on
    upgrade, the event table's search, stored-text and day-count triggers."""
    import sqlite3

    from app import create_app

    path = str(tmp_path / "c.db")
    settings = {"CALENDAR_DATABASE": path, "UPLOAD_FOLDER": str(tmp_path / "up")}
    create_app(settings).extensions["calendar.db"].close_all()
    expected = _event_triggers(path)
    # The database as schema 21 left it: no ical_recurrence_id column (nor its index).
    with sqlite3.connect(path) as con:
        for (name,) in con.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='event'"
            " AND sql LIKE '%ical_recurrence_id%'"
        ).fetchall():
            con.execute(f'DROP INDEX "{name}"')
        con.execute("ALTER TABLE event DROP COLUMN ical_recurrence_id")
        con.execute("UPDATE setting SET value='21' WHERE key='schema_version'")
    upgraded = create_app(settings)  # migrates 21 -> latest
    try:
        assert _event_triggers(path) == expected, sorted(expected - _event_triggers(path))
        with upgraded.app_context(), database.connection_context():
            _user, password = create_user("ann", "administrator")
        _kept_by_the_event_triggers(upgraded, password)
    finally:
        upgraded.extensions["calendar.db"].close_all()


@pytest.mark.sqlite_file
def test_a_calendar_that_lost_its_event_triggers_gets_them_back(tmp_path):
    """A calendar upgraded across step 22 before the fix has no event triggers: step 28
    makes them again, and the search index, stored texts and day counts afresh."""
    import sqlite3

    from app import create_app
    from store.db import matching_ids
    from store.models import Event, EventDay

    path = str(tmp_path / "c.db")
    settings = {"CALENDAR_DATABASE": path, "UPLOAD_FOLDER": str(tmp_path / "up")}
    first = create_app(settings)
    with first.app_context(), database.connection_context():
        _user, password = create_user("ann", "administrator")
    body = {"title": "Lamu", "start_date": "tomorrow 9am", "end_date": "tomorrow 10am"}
    old = first.test_client().post(f"{NS}/events", json=body, headers=basic("ann", password))
    first.extensions["calendar.db"].close_all()
    expected = _event_triggers(path)
    lost = {name for name in expected if not name.startswith("event_event_dates")}
    with sqlite3.connect(path) as con:
        for name in lost:
            con.execute(f'DROP TRIGGER "{name}"')
        # Written while they were missing: in no index, count nor mark.
        con.execute("UPDATE event SET title = 'Lost in Kilwa', hide_from_listings = 1")
        con.execute("UPDATE setting SET value='27' WHERE key='schema_version'")
    upgraded = create_app(settings)
    try:
        assert _event_triggers(path) == expected
        client = upgraded.test_client()
        assert client.get(f"{NS}/events/{old.json['id']}").get_json()["title"] == "Lost in Kilwa"
        with upgraded.app_context(), database.connection_context():
            found = Event.select(Event.id).where(
                Event.id.in_(matching_ids("event_search", ["Kilwa"]))
            )
            assert [row.id for row in found] == [old.json["id"]]
            assert sum(row.n for row in EventDay.select()) == 0  # hidden: counted on no day
        _kept_by_the_event_triggers(upgraded, password)
    finally:
        upgraded.extensions["calendar.db"].close_all()


# --- the engines alike, found on PostgreSQL (fifteenth session) ------------------------


def _category(client, admin, name):
    answer = client.post(f"{NS}/categories", json={"name": name}, headers=admin)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def test_a_second_category_of_the_same_accented_name_is_term_exists(client, admin):
    """SPEC §4: duplicate term name under the same parent: 400 term_exists."""
    first = _category(client, admin, "Été")
    again = client.post(f"{NS}/categories", json={"name": "Été"}, headers=admin)
    assert again.status_code == 400, again.get_json()
    assert again.get_json()["code"] == "term_exists"
    assert again.get_json()["data"]["term_id"] == first["id"]


def test_an_event_names_an_existing_accented_category_and_gets_it(client, admin, make_event):
    """SPEC §4: categories and tags take ids, slugs or names; only an unknown name creates a
    term (README: by name, case-insensitive)."""
    made = _category(client, admin, "Été")
    event = make_event(categories=["Été"], tags=["Ça va"])
    assert [term["id"] for term in event["categories"]] == [made["id"]]
    again = make_event(categories=["ÉTÉ"], tags=["ÇA VA"])
    assert [term["id"] for term in again["categories"]] == [made["id"]]
    assert [term["id"] for term in again["tags"]] == [term["id"] for term in event["tags"]]
    listed = client.get(f"{NS}/categories?hide_empty=false&search=t").get_json()
    assert [term["slug"] for term in listed["categories"]] == ["ete"]


def test_a_listing_filtered_by_an_accented_term_name(client, admin, make_event):
    """find_term reads a name case-insensitively; the listing filter takes it on both engines."""
    event = make_event(tags=["Été"])
    for name in ("Été", "été"):
        answer = client.get(f"{NS}/events", query_string={"tags": name})
        assert answer.status_code == 200, answer.get_json()
        assert [e["id"] for e in answer.get_json()["events"]] == [event["id"]]


def test_term_and_organizer_search_finds_accented_capitals(client, admin):
    """SPEC §14: search semantics are the same on both engines."""
    _category(client, admin, "Été")
    made = client.post(f"{NS}/organizers", json={"organizer": "Ça Va Prod"}, headers=admin)
    assert made.status_code == 201
    for search in ("été", "ÉTÉ"):
        found = client.get(
            f"{NS}/categories", query_string={"search": search, "hide_empty": "false"}
        )
        assert found.get_json()["total"] == 1, search
    for search in ("ça", "Ça", "ÇA"):
        found = client.get(f"{NS}/organizers", query_string={"search": search})
        assert found.get_json()["total"] == 1, search


def test_venue_of_the_same_accented_name_is_not_made_twice(client, admin):
    """README: venue and organizer de-duplication on create compares the name
    (case-insensitive); the same name twice gives the same venue."""
    first = client.post(f"{NS}/venues", json={"venue": "Théâtre Öl"}, headers=admin).get_json()
    for name in ("Théâtre Öl", "THÉÂTRE ÖL"):
        again = client.post(f"{NS}/venues", json={"venue": name}, headers=admin)
        assert again.get_json()["id"] == first["id"], name
    organizer = client.post(f"{NS}/organizers", json={"organizer": "Élise"}, headers=admin)
    again = client.post(f"{NS}/organizers", json={"organizer": "Élise"}, headers=admin)
    assert again.get_json()["id"] == organizer.get_json()["id"]


def test_saving_an_event_in_the_editor_keeps_its_accented_category(client, sign_in):
    """SPEC §16: the form speaks the API's vocabulary; saving the form again must not make
    a new category of the same name at each save."""
    editor = sign_in("editor")
    created = editor.post("/manage/events/new", data=event_form(editor, categories="Été"))
    assert created.status_code == 303
    event_id = saved_id(created)
    first = client.get(f"{NS}/events/{event_id}").get_json()["categories"]
    saved = editor.post(f"/manage/events/{event_id}", data=event_form(editor, categories="Été"))
    assert saved.status_code == 303
    after = client.get(f"{NS}/events/{event_id}").get_json()["categories"]
    assert [term["id"] for term in after] == [term["id"] for term in first]
    listed = client.get(f"{NS}/categories?hide_empty=false").get_json()
    assert [term["name"] for term in listed["categories"]] == ["Été"]


def test_basic_credentials_name_an_accented_login_or_email_in_any_case(app, client):
    """README: HTTP Basic takes a user name or the account's e-mail address, in any case;
    on SQLite an address with a capital É was refused even as written."""
    with database.connection_context():
        _, password = create_user("Zoé", "author", "Éva@Example.org")
    for name in ("Zoé", "ZOÉ", "zoé", "Éva@Example.org", "éva@example.org", "ÉVA@EXAMPLE.ORG"):
        answer = client.get("/wp-json/wp/v2/users/me", headers=basic(name, password))
        assert answer.status_code == 200, name


# --- the messages of each language root (chk16i) ------------------------------------------


@pytest.mark.parametrize("lang", ["de", "es"])
def test_api_messages_address_the_reader_formally_in_german_and_spanish(client, as_role, lang):
    """The API's messages under /de/ and /es/ said "du"/"tú" where every page says Sie and
    usted ("Du bist derzeit nicht angemeldet.", "no tienes permisos")."""
    anonymous = client.post(
        f"/{lang}{NS}/events",
        json={"title": "x", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"},
    )
    assert anonymous.status_code == 401
    contributor = as_role("contributor")
    forbidden = client.post(f"/{lang}{NS}/categories", json={"name": "Neu"}, headers=contributor)
    assert forbidden.status_code == 403
    statuses = client.get(f"/{lang}{NS}/events?status=draft")
    assert statuses.status_code == 400
    messages = [
        anonymous.get_json()["message"],
        forbidden.get_json()["message"],
        str(statuses.get_json()["data"]["params"]),
    ]
    for message in messages:
        assert not INFORMAL[lang].search(message), message


def test_the_spanish_status_error_is_formal(client):
    """Found by an outside check (chk17i D4): a bad ``status`` under /es/ said "que puedas
    leer" (tú), the subjunctive the pattern above did not know; usted's is "pueda"."""
    answer = client.get(f"/es{NS}/events?status=bogus")
    assert answer.status_code == 400
    said = answer.get_json()["data"]["params"]["status"]
    assert "pueda leer" in said and not INFORMAL["es"].search(said), said


@pytest.mark.parametrize("lang", ["fr", "es"])
@pytest.mark.parametrize("kind", ["venue", "organizer"])
def test_an_unknown_venue_or_organizer_is_named_in_a_grammatical_sentence(client, lang, kind):
    """One message per kind: "d’un(e) lieu existant(e)", "de un(a) lugar existente" came
    from a kind pasted into one message."""
    answer = client.get(f"/{lang}{NS}/events?{kind}=99999")
    assert answer.status_code == 400
    message = answer.get_json()["data"]["params"][kind]
    assert "(e)" not in message and "(a)" not in message, message
    expected = {
        ("fr", "venue"): "99999 n’est pas l’identifiant d’un lieu existant.",
        ("fr", "organizer"): "99999 n’est pas l’identifiant d’un organisateur existant.",
        ("es", "venue"): "99999 no es el ID de un lugar existente.",
        ("es", "organizer"): "99999 no es el ID de un organizador existente.",
    }
    assert message == expected[lang, kind]


@pytest.mark.parametrize("lang", ["fr", "es", "de"])
def test_an_inline_venues_mistake_names_the_apis_field(client, admin, lang):
    """SPEC §1/§6: routes and parameters are the same under every root, so a message names
    the field the client sent ("website"), not its label in the root's language ("site
    web", "sitio web"); French keeps its space before the colon."""
    body = {
        "title": "x",
        "start_date": "2027-01-01 10:00",
        "end_date": "2027-01-01 11:00",
        "venue": {"venue": "V", "website": "bad"},
    }
    answer = client.post(f"/{lang}{NS}/events", json=body, headers=admin)
    assert answer.status_code == 400
    message = answer.get_json()["data"]["params"]["venue"]
    assert message.startswith("website\u00a0: " if lang == "fr" else "website: "), message


# Names a fold must meet in any case and Unicode form: a capital sigma at a word's end, a
# dotted capital I and its lower case elsewhere (i and a combining dot), decomposed accents, a
# sharp s, a ligature, Cyrillic.
FOLD_SAMPLES = (
    "ΘΕΑΤΡΟ ΚΗΠΟΣ",
    "θεατρο κηπος",
    "ΑΓΩΝΑΣ ΔΡΟΜΟΣ",
    "İstanbul Hall",
    "istanbul",
    "CAFÉ ZOË",
    "CAFE\u0301 ZOE\u0308",
    "Straße",
    "Ærø Œuvre",
    "МОСКВА",
    "I\u0307stanbul",
    "i\u0307stanbul",
    "İnci i\u0307nci",
    "i\u0301\u0307",
)


def test_the_fold_of_names_is_the_same_in_python_and_in_either_engines_sql(app):
    """SPEC §14: one fold of names (rules/text.py::fold), computed by the engine where it
    reads a column (store/db.py::folded): both give the same text for every sample, so a
    name found on SQLite is found on PostgreSQL."""
    from peewee import Select, Value

    from rules.text import fold
    from store.db import folded

    with database.connection_context():
        for sample in FOLD_SAMPLES:
            (in_sql,) = database.execute(Select(columns=[folded(Value(sample))])).fetchone()
            assert in_sql == fold(sample), (ascii(sample), ascii(in_sql), ascii(fold(sample)))
    assert fold("ΘΕΑΤΡΟ ΚΗΠΟΣ") == fold("θεατρο κηπος")
    assert fold("İstanbul") == fold("I\u0307STANBUL") == "istanbul"
    assert fold("İnci".lower()) == fold("İnci") == "inci"  # i and a combining dot: chk17m D2


# A release of 2026-11-25 (schema version 16): a site that installed it and upgrades now.
SCHEMA_16_RELEASE = "38cf6cb"


@pytest.mark.sqlite_file
def test_upgrade_from_schema_16_keeps_links_and_passwords(tmp_path):
    """README "An upgrade" (docs/deploy.md): git pull, make install, restart (migrate). The
    migration keeps the calendar: the links of events and the users' application passwords
    (steps 18 to 22 rebuild the user, venue, organizer and event tables on SQLite; with
    foreign keys on, each drop of the old table cascaded into the rows referring to it)."""
    import base64

    code = old_release(SCHEMA_16_RELEASE, tmp_path)
    database_file = tmp_path / "site.db"
    env = {
        **os.environ,
        "CALENDAR_DATABASE": str(database_file),
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        "GUNICORN_WARM_UP": "0",
    }
    old_cli(code, env, "migrate")
    password = old_cli(code, env, "users", "create", "olduser", "--role", "administrator")
    password = password.split()[-1]
    old_cli(code, env, "seed", "--events", "5")
    before = link_counts(database_file)
    assert all(before[t] > 0 for t in LINK_TABLES), before

    out = flask_cli(database_file, "migrate", UPLOAD_FOLDER=str(tmp_path / "uploads"))
    assert "Migrated the database from schema version 16" in out
    after = link_counts(database_file)
    assert after == before, f"links lost by the migration: {before} -> {after}"

    server = Server(database_file, workers=1, UPLOAD_FOLDER=str(tmp_path / "uploads"))
    try:
        token = base64.b64encode(f"olduser:{password}".encode()).decode()
        status, me = server.request(
            "GET", "/wp-json/wp/v2/users/me", headers={"Authorization": f"Basic {token}"}
        )
        assert status == 200, me
        status, listing = server.request("GET", f"{NS}/events?per_page=50")
        assert status == 200
        assert any(e.get("venue") for e in listing["events"]), "no event has its venue any more"
        assert any(e["categories"] or e["tags"] for e in listing["events"])
        # A venue written before its title key (migration 33) is a new one's duplicate.
        old_venue = next(e["venue"] for e in listing["events"] if e.get("venue"))
        auth = {"Authorization": f"Basic {token}"}
        body = {"venue": old_venue["venue"].upper()}
        status, again = server.request("POST", f"{NS}/venues", body, headers=auth)
        assert status == 201 and again["id"] == old_venue["id"], again
    finally:
        server.stop()


def test_the_text_indexs_case_table_is_worked_out_apart_and_alike():
    """store/db.py works out which letters SQLite's FTS5 index folds otherwise in a Python
    of its own (its probing's memory stays out of the worker): the same table as the probe
    run here, "İ" among the forms of "i"."""
    from store import fts_case
    from store.db import _fts_misfolds

    _fts_misfolds.cache_clear()
    apart = _fts_misfolds()
    assert apart == fts_case.misfolds()
    assert "İ" in apart["i"]
