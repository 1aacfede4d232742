"""chk16a: docs/architecture.md read against the code (layer boundaries, references)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _loaded_after_importing(modules):
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print(' '.join(sorted({k.split('.')[0] for k in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def _modules(package):
    return [
        f"{package}.{p.stem}" if p.stem != "__init__" else package
        for p in sorted((ROOT / package).glob("*.py"))
    ]


def test_schemas_import_no_flask_even_through_an_extension():
    """docs/architecture.md: `schemas` -> `rules` (and store.terms.ORDERBY); tests/test_docs.py:
    "schemas/ never imports the app or Flask". schemas/media.py imports flask_smorest.fields,
    which loads Flask itself."""
    loaded = _loaded_after_importing(_modules("schemas"))
    assert not loaded & {"flask", "flask_smorest", "app"}, sorted(
        loaded & {"flask", "flask_smorest", "app"}
    )


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
