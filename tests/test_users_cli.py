"""The operator's user commands (README "Users"): ``users role``, ``users delete
[--reassign]``, and what ``users list`` shows. Checked through the API they govern."""

from tests.conftest import NS, basic


def run(app, *args):
    return app.test_cli_runner().invoke(args=["users", *args])


def test_a_role_change_changes_what_the_user_may_do_at_once(app, client, as_role, make_event):
    author = as_role("author", "ann")
    assert make_event(headers=author, title="Ann's")["author"] == str(as_role.user_id("ann"))
    done = run(app, "role", "ann", "subscriber")
    assert done.exit_code == 0 and done.output == "ann: author -> subscriber.\n"
    body = {"title": "Later", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"}
    assert client.post(f"{NS}/events", json=body, headers=author).status_code == 403
    run(app, "role", "ann", "editor")
    assert client.post(f"{NS}/events", json=body, headers=author).status_code == 201
    refused = run(app, "role", "ann", "king")
    assert refused.exit_code == 2 and "'king' is not one of" in refused.output


def test_the_last_administrator_keeps_the_role_and_the_account(app, admin):
    for args in (("role", "administrator", "editor"), ("delete", "administrator")):
        refused = run(app, *args)
        assert refused.exit_code == 1
        assert "administrator is the last administrator; make another one first" in refused.output
    assert run(app, "create", "second", "--role", "administrator").exit_code == 0
    assert run(app, "role", "administrator", "editor").exit_code == 0


def test_deleting_an_author_gives_their_items_to_another_user(
    app, client, as_role, admin, make_event
):
    author = as_role("author", "ann")
    heir = as_role("editor", "bob")
    event = make_event(headers=author, title="Ann's talk", venue={"venue": "Ann's room"})
    refused = run(app, "delete", "ann")
    assert refused.exit_code == 1
    assert "ann is the author of 1 event, 1 venue; --reassign OTHER gives them away" in (
        refused.output
    )
    assert client.get(f"{NS}/events", headers=author).status_code == 200  # still there
    assert run(app, "delete", "ann", "--reassign", "nobody").output.endswith("no user 'nobody'\n")
    done = run(app, "delete", "ann", "--reassign", "bob")
    assert done.exit_code == 0, done.output
    assert done.output == "Deleted ann; 1 event, 1 venue now belong to bob.\n"
    bob = str(as_role.user_id("bob"))
    answer = client.get(f"{NS}/events/{event['id']}").get_json()
    assert answer["author"] == bob and answer["venue"]["author"] == bob
    assert client.get(f"{NS}/events", headers=author).status_code == 401  # gone with her
    changed = client.post(f"{NS}/events/{event['id']}", json={"title": "Bob's"}, headers=heir)
    assert changed.status_code == 200
    listed = run(app, "list").output
    assert "ann" not in listed and "bob" in listed


def test_a_user_without_items_is_deleted_without_an_heir(app, as_role, admin):
    as_role("subscriber", "sam")
    assert run(app, "delete", "sam").output == "Deleted sam.\n"
    assert run(app, "delete", "sam").output.endswith("no user 'sam'\n")


def test_users_list_shows_roles_passwords_and_the_last_sign_in(app, client, as_role):
    headers = as_role("editor", "eve")
    before = run(app, "list").output.splitlines()
    assert before[0].split()[:4] == ["id", "login", "role", "passwords"]
    row = next(line for line in before if " eve " in line)
    assert "editor" in row and " never " in row and " no " in row
    assert client.get(f"{NS}/events", headers=headers).status_code == 200
    row = next(line for line in run(app, "list").output.splitlines() if " eve " in line)
    assert " never " not in row and "20" in row  # a UTC date and time


def test_items_go_only_to_a_user_who_may_edit_them(app, as_role, make_event):
    make_event(headers=as_role("author", "ann"), title="Ann's")
    as_role("subscriber", "sam")
    refused = run(app, "delete", "ann", "--reassign", "sam")
    assert refused.exit_code == 1
    assert "sam is a subscriber, who cannot edit items" in refused.output
    assert "ann" in run(app, "list").output


def test_migrate_says_from_which_version_it_migrated(app, database_url):
    from store.db import database

    with database.connection_context():
        database.execute_sql("UPDATE setting SET value = '18' WHERE key = 'schema_version'")
    from tests.helpers import flask_cli

    said = flask_cli(database_url, "migrate")
    assert said.startswith("Migrated the database from schema version 18 to ")


def test_deleting_a_user_names_their_items_in_the_plural(app, as_role, make_event):
    """Found by an outside check (fourteenth session): "author of 3 event"."""
    author = as_role("author", "cat")
    as_role("editor", "dan")
    for n in range(2):
        make_event(headers=author, title=f"Cat's talk {n}")
    assert "cat is the author of 2 events;" in run(app, "delete", "cat").output
    done = run(app, "delete", "cat", "--reassign", "dan")
    assert done.output == "Deleted cat; 2 events now belong to dan.\n"


def test_users_create_refuses_a_name_another_user_already_answers_to(app, client):
    """README "Users and authentication": Basic and the editor's sign-in take "a user name (or
    the account's e-mail address, in any case)". ``users create CARLA`` beside ``carla`` once
    succeeded, after which "Carla" named neither and both shared one failure counter; as
    WordPress (MySQL's case-insensitive collation), a login or e-mail address that already
    names a user is refused."""
    made = run(app, "create", "carla", "--role", "author", "--email", "carla@example.org")
    assert made.exit_code == 0, made.output
    for args in (
        ("CARLA",),
        ("Carla@Example.org",),  # her e-mail address, as a login
        ("other", "--email", "CARLA@example.ORG"),
    ):
        refused = run(app, "create", *args, "--role", "author")
        assert refused.exit_code != 0 and "Error:" in refused.output, (args, refused.output)
    password = made.output.split()[-1]
    answer = client.get(f"{NS}/events?status=draft", headers=basic("Carla", password))
    assert answer.status_code == 200, answer.get_json()


def test_users_create_refuses_a_login_that_names_a_user_in_another_case(app):
    """`users create νικος` when ΝΙΚΟΣ exists is refused on either engine (chk16g: on
    PostgreSQL the login folded in SQL, νικοσ, never met Python's lower of the name, νικος,
    and a second user was made whom the same sign-in name then named too)."""
    assert run(app, "create", "ΝΙΚΟΣ", "--role", "author").exit_code == 0
    second = run(app, "create", "νικος", "--role", "author")
    assert second.exit_code != 0 and "already names user" in second.output


def test_a_user_name_with_surrounding_spaces_is_trimmed(app, client):
    """As WordPress's sanitize_user: `users create " spaced "` made an account the editor's
    sign-in (which trims what is typed) could never open (chk17o D13)."""
    made = run(app, "create", " spaced ", "--role", "author")
    assert made.exit_code == 0, made.output
    assert "Created author spaced (id" in made.output
    password = made.output.strip().splitlines()[-1]
    answer = client.get("/wp-json/wp/v2/users/me", headers=basic("spaced", password))
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["slug"] == "spaced"


def test_a_user_name_with_a_tab_or_a_control_character_is_refused(app):
    """`users create "$(printf 'a\tb')"` and a name holding \x01 or an escape sequence were
    taken, and `users list` printed them raw to the operator's terminal (chk19k): refused,
    as WordPress's sanitize_user strips them; a space inside a name stays allowed."""
    said = "a user name must not contain tabs, line breaks or other control characters"
    for name in ("a\tb", "a\x01b", "a\x1b[31mred", "a\nb", "a\u202eb", "a\u00a0b"):
        refused = run(app, "create", name, "--role", "editor")
        assert refused.exit_code == 1 and said in refused.output, (name, refused.output)
    listed = run(app, "list").output
    assert "\t" not in listed and "\x01" not in listed and "\x1b" not in listed
    assert run(app, "create", "ann lee", "--role", "editor").exit_code == 0


def test_the_user_commands_name_a_user_as_sign_in_does(app, client, as_role):
    """`users role BOSS …` said "no user" for the "boss" who signs in as BOSS (chk17m D7):
    every command naming a user finds it in any case and Unicode form, trimmed."""
    as_role("author", "Élodie")
    done = run(app, "role", "ÉLODIE", "editor")
    assert done.exit_code == 0, done.output
    decomposed = " e\u0301lodie "
    assert run(app, "role", decomposed, "author").exit_code == 0
    assert "no user 'nobody'" in run(app, "role", "nobody", "author").output
    boss = as_role("editor", "boss")
    assert client.get("/wp-json/wp/v2/users/me", headers=boss).status_code == 200
    assert run(app, "login-link", "BOSS").exit_code == 0
    assert run(app, "revoke", "BOSS").exit_code == 0  # every password and session of boss
    assert client.get("/wp-json/wp/v2/users/me", headers=boss).status_code == 401
