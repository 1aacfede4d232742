"""Outside check chk16r: the JSON API against the reference (samples, reference-behaviour.md,
interface.md) after the recent changes (WordPress globals, strtotime forms, e-mail sign-in,
sanitize_title slugs, search_venues). Each test fails on the current code for its defect."""

from tests.conftest import NS


def _event(client, headers, **fields):
    body = {"title": "E", "start_date": "2026-12-01 10:00:00", "end_date": "2026-12-01 12:00:00"}
    body.update(fields)
    response = client.post(f"{NS}/events", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


# D1 ------------------------------------------------------------------------------------


def test_search_venues_finds_the_events_of_every_venue_named_not_only_fifty(client, admin):
    """search_venues: "also the events at the venues whose name or city contains the
    string" — all of them, and SPEC §3: total honours the search."""
    for n in range(55):
        venue = client.post(
            f"{NS}/venues", json={"venue": f"Place {n}", "city": "Lyon"}, headers=admin
        ).get_json()["id"]
        day = n % 28 + 1
        _event(
            client,
            admin,
            title=f"Show {n}",
            start_date=f"2027-01-{day:02d} 10:00:00",
            end_date=f"2027-01-{day:02d} 12:00:00",
            venue=venue,
        )
    body = client.get(f"{NS}/events?search=lyon&search_venues=1&per_page=50").get_json()
    assert body["total"] == 55
    assert body["total_pages"] == 2


# D2 ------------------------------------------------------------------------------------


# D3 ------------------------------------------------------------------------------------


# D4 ------------------------------------------------------------------------------------


# D5 ------------------------------------------------------------------------------------


# D6 ------------------------------------------------------------------------------------


def _users(app, *args):
    return app.test_cli_runner().invoke(args=["users", *args])


def test_a_second_user_cannot_take_an_e_mail_or_login_that_signs_in_another(app, client):
    """Sign-in reads a name as the login or, failing that, the e-mail address, in any case
    (README, WordPress): WordPress refuses an e-mail already used (email_exists) and a
    login already used in another case (username_exists, MySQL's collation). Accepting
    them makes a name stand for two accounts."""
    assert (
        _users(app, "create", "alice", "--role", "editor", "--email", "Alice@Example.org").exit_code
        == 0
    )
    same_email = _users(app, "create", "bob", "--role", "author", "--email", "alice@example.org")
    assert same_email.exit_code != 0, same_email.output
    same_login = _users(app, "create", "ALICE", "--role", "author")
    assert same_login.exit_code != 0, same_login.output
    login_is_email = _users(app, "create", "alice@example.org", "--role", "author")
    assert login_is_email.exit_code != 0, login_is_email.output


# D7 ------------------------------------------------------------------------------------


# D8 ------------------------------------------------------------------------------------


# D9 ------------------------------------------------------------------------------------


# D10 -----------------------------------------------------------------------------------


# D11 -----------------------------------------------------------------------------------


# D12 -----------------------------------------------------------------------------------


# D13 -----------------------------------------------------------------------------------


# D14 -----------------------------------------------------------------------------------


# D15 -----------------------------------------------------------------------------------
