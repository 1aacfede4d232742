"""chk16a: docs/architecture.md read against the code (layer boundaries, references)."""

import os
import pathlib
import subprocess
import sys
import time
import urllib.error
import urllib.request

from app.config import SettingError, check_settings
from tests.conftest import NS
from tests.helpers import BIN, free_port, image_bytes

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


# README "Settings": "Every setting is checked at start ...: a value that cannot work (... a
# number above 10^15 (or a setting's own bound) ...) stops the start with one line naming
# the setting". Values below 10^15 that the start accepts must then work.


def test_a_read_timeout_the_start_accepts_serves_requests(tmp_path):
    """GUNICORN_READ_TIMEOUT=1e12 (below 10^15) starts, then every request, /healthz too, is a
    500: app/arrival.py's sock.settimeout raises OverflowError (time_t) past ~9.2e9 s."""
    port = free_port()
    env = {
        **os.environ,
        "CALENDAR_DATABASE": str(tmp_path / "c.db"),
        "UPLOAD_FOLDER": str(tmp_path / "up"),
        "GUNICORN_WARM_UP": "0",
        "GUNICORN_READ_TIMEOUT": "1e12",
    }
    args = [os.path.join(BIN, "gunicorn"), "--config", "gunicorn.conf.py"]
    args += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "wsgi:app"]
    process = subprocess.Popen(
        args,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
    )
    try:
        status = None
        deadline = time.time() + 30
        while time.time() < deadline and status is None:
            if process.poll() is not None:  # refused at start: it must name the setting
                err = process.stderr.read()
                assert process.returncode == 1 and "GUNICORN_READ_TIMEOUT" in err, err
                return
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    status = r.status
            except urllib.error.HTTPError as error:
                status = error.code
            except OSError:
                time.sleep(0.2)
        assert status == 200, status
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 15)
            process.wait(timeout=15)


def test_an_upload_limit_the_start_accepts_takes_a_small_image(app, client, admin):
    """MAX_UPLOAD_BYTES=10^14 passes check_settings; a 1 kB upload is then a 500 (MemoryError:
    app/routes/media.py::uploaded_bytes reads stream.read(limit + 1), allocating the limit)."""
    app.config["MAX_UPLOAD_BYTES"] = 10**14
    try:
        check_settings(app.config)
    except SettingError as error:  # refused at start instead: fine
        assert str(error).startswith("MAX_UPLOAD_BYTES"), error
        return
    headers = {
        **admin,
        "Content-Type": "image/png",
        "Content-Disposition": 'attachment; filename="tiny.png"',
    }
    answer = client.post(f"{NS}/media", data=image_bytes("PNG", (8, 8)), headers=headers)
    assert answer.status_code == 201, (answer.status_code, answer.get_data()[:200])


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
