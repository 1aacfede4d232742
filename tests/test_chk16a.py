"""chk16a: docs/architecture.md read against the code (layer boundaries, references)."""

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_users_create_refuses_a_login_that_differs_only_in_case(app, client):
    """README "Users and authentication": HTTP Basic (and the editor's sign-in) takes "a user name
    (or the account's e-mail address, in any case)". `users create CHKADMIN` while `chkadmin`
    exists succeeds, after which "ChkAdmin" names neither (store/users.py::user_named: "None
    when ... several"), and both users share one failure counter (app/auth.py::SignInAttempt keys
    by casefold), so one's wrong passwords lock the other out. WordPress refuses such a login
    (username_exists under MySQL's case-insensitive collation)."""
    runner = app.test_cli_runner()
    first = runner.invoke(args=["users", "create", "carla", "--role", "author"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(args=["users", "create", "CARLA", "--role", "author"])
    assert second.exit_code != 0 and "Error:" in second.output, second.output
