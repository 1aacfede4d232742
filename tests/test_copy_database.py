"""``flask copy-database SOURCE TARGET`` moves a calendar between engines (SPEC §14): from
the test's database to a SQLite file and from that file to another new database (a
PostgreSQL one under ``make test-postgres``), and every route answers the same on the
copy, which then takes new writes."""

import pytest

from app import create_app
from app.config import SettingError
from tests.conftest import NS
from tests.databases import drop_database, fresh_database
from tests.helpers import flask_cli, image_bytes, link_counts, old_cli, old_release, uploaded

ROUTES = [
    "/events?per_page=50",
    "/events?search=concert",
    "/venues",
    "/organizers",
    "/categories?hide_empty=0",
    "/tags?hide_empty=0",
]


def app_on(app, database: str):
    """The service on ``database`` (a copy), with ``app``'s images."""
    return create_app(
        {
            "CALENDAR_DATABASE": database,
            "UPLOAD_FOLDER": app.config["UPLOAD_FOLDER"],
            "TESTING": True,
        }
    )


def answers(client, headers):
    return {path: client.get(NS + path, headers=headers).get_json() for path in ROUTES}


def test_copy_database_between_engines_keeps_every_answer(
    app, client, admin, as_role, make_event, tmp_path
):
    image = uploaded(client, admin, image_bytes())
    make_event(
        title="Open-air concert",
        venue={"venue": "Park", "city": "Lyon"},
        organizer=[{"organizer": "Ann"}],
        categories=["Music"],
        tags=["outdoor"],
        featured=True,
        image=image["id"],
    )
    make_event(title="Draft talk", status="draft", venue={"venue": "Library"})
    make_event(title="Private", password="secret", all_day=True)
    editor = as_role("editor")
    before = answers(client, admin)
    runner = app.test_cli_runner()

    middle = str(tmp_path / "middle.db")
    result = runner.invoke(args=["copy-database", app.config["CALENDAR_DATABASE"], middle])
    assert result.exit_code == 0, result.output
    assert "3 event" in result.output
    again = runner.invoke(args=["copy-database", app.config["CALENDAR_DATABASE"], middle])
    assert again.exit_code != 0 and "already holds a calendar" in again.output

    final = fresh_database(tmp_path, "final.db", empty=True)
    try:
        result = runner.invoke(args=["copy-database", middle, final])
        assert result.exit_code == 0, result.output
        copy = app_on(app, final)
        try:
            copied = copy.test_client()
            assert answers(copied, admin) == before
            assert copied.get(f"{NS}/events", headers=editor).status_code == 200
            created = copied.post(
                f"{NS}/events",
                json={
                    "title": "After the move",
                    "start_date": "tomorrow 8am",
                    "end_date": "tomorrow 9am",
                    "categories": ["Music", "New"],
                    "venue": {"venue": "PARK", "city": "lyon"},
                },
                headers=admin,
            )
            assert created.status_code == 201, created.get_json()
            # The copied venue is the new event's, by its copied title key (de-duplication).
            park = next(v for v in before["/venues"]["venues"] if v["venue"] == "Park")
            assert created.get_json()["venue"]["id"] == park["id"]
            ids = {e["id"] for e in before["/events?per_page=50"]["events"]}
            assert created.get_json()["id"] > max(ids)
            assert copied.get(f"{NS}/events?search=move").get_json()["total"] == 1
        finally:
            copy.extensions["calendar.db"].close_all()
    finally:
        drop_database(final)


def test_other_database_urls_are_an_error_at_start_not_a_file(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingError, match="CALENDAR_DATABASE: unsupported scheme mysql://"):
        create_app({"CALENDAR_DATABASE": "mysql://u:p@host/db"})
    runner = app.test_cli_runner()
    result = runner.invoke(args=["copy-database", "sqlite://x.db", str(tmp_path / "x.db")])
    assert result.exit_code != 0
    assert "unsupported scheme sqlite://" in result.output
    made = {path.name for path in tmp_path.rglob("*")}
    assert not {"mysql:", "sqlite:", "x.db"} & made, made


def test_copy_database_names_the_target_not_the_setting(app):
    """chk18r D5: a TARGET of another scheme was said as "CALENDAR_DATABASE: unsupported
    scheme mysql://", sending the operator to instance/config.py, which was fine; README: "A
    command given something it cannot do ... says so in one `Error:` line"."""
    runner = app.test_cli_runner()
    source = app.config["CALENDAR_DATABASE"]
    result = runner.invoke(args=["copy-database", source, "mysql://x/y"])
    assert result.exit_code != 0
    assert "CALENDAR_DATABASE" not in result.output, result.output
    assert "cannot copy with mysql://x/y: unsupported scheme mysql://" in result.output


def test_a_copy_never_gives_a_deleted_terms_id_again(app, client, admin, tmp_path):
    """A term's id is never given twice (WordPress never does: an old link or filter would
    name another term), and a copy (`copy-database`, `restore`) carries that on: the copy's
    next term comes after the source's deleted newest one (found by the thirteenth
    session's check of the docs)."""
    made = [
        client.post(f"{NS}/tags", json={"name": name}, headers=admin).get_json()["id"]
        for name in ("kept", "deleted")
    ]
    gone = client.delete(f"{NS}/tags/{made[1]}?force=true", headers=admin)
    assert gone.status_code == 200
    target = fresh_database(tmp_path, "copy.db", empty=True)
    try:
        result = app.test_cli_runner().invoke(
            args=["copy-database", app.config["CALENDAR_DATABASE"], target]
        )
        assert result.exit_code == 0, result.output
        copy = app_on(app, target)
        try:
            answer = copy.test_client().post(f"{NS}/tags", json={"name": "new"}, headers=admin)
            assert answer.status_code == 201, answer.get_json()
            assert answer.get_json()["id"] > made[1]
        finally:
            copy.extensions["calendar.db"].close_all()
    finally:
        drop_database(target)


@pytest.mark.sqlite_file
def test_copy_from_an_older_file_leaves_the_source_as_it_was(tmp_path):
    """copy-database reads its SOURCE: an older release's file (schema 18, 9534ad6) is
    migrated in a scratch copy, never in place, and the target keeps its links."""
    import hashlib
    import os

    code = old_release("9534ad6", tmp_path)
    source = tmp_path / "old.db"
    env = {**os.environ, "CALENDAR_DATABASE": str(source), "UPLOAD_FOLDER": str(tmp_path / "u")}
    old_cli(code, env, "migrate")
    old_cli(code, env, "users", "create", "olduser", "--role", "administrator")
    old_cli(code, env, "seed", "--events", "3")
    before = link_counts(source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()

    target = tmp_path / "new.db"
    flask_cli(tmp_path / "unused.db", "copy-database", str(source), str(target))
    assert hashlib.sha256(source.read_bytes()).hexdigest() == digest, "the source was changed"
    assert link_counts(target) == before
