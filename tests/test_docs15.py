"""What README.md promises a new operator, checked literally (docs15, 2026-11-28, second
round): each test is a place where the product and the README or SPEC disagree, and fails
until the product does what they say."""

import json
import os
import subprocess
import time

import pytest
from flask import request

from app import ROOT, create_app
from app.config import SettingError, load_settings
from tests.conftest import NS
from tests.helpers import BIN, free_port

sqlite_file = pytest.mark.sqlite_file


def _env(tmp_path, **settings):
    return {
        **os.environ,
        "CALENDAR_DATABASE": str(tmp_path / "calendar.db"),
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        **settings,
    }


def _settings(tmp_path):
    return {"CALENDAR_DATABASE": str(tmp_path / "c.db"), "UPLOAD_FOLDER": str(tmp_path / "up")}


# D1 --------------------------------------------------------------------------------------


@sqlite_file
def test_gunicorn_stops_on_a_database_it_cannot_open(tmp_path):
    """README:117-122: every setting is checked "by the server (before any worker starts)";
    "a database that cannot be opened stops the start with one line naming the setting".
    gunicorn started on a folder as CALENDAR_DATABASE forked workers that each failed on it
    and were forked again, for ever (170 lines in 12 s)."""
    args = [os.path.join(BIN, "gunicorn"), "--config", "gunicorn.conf.py", "--workers", "1"]
    args += ["--bind", f"127.0.0.1:{free_port()}", "wsgi:app"]
    env = _env(tmp_path, CALENDAR_DATABASE=str(tmp_path))
    server = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 20
        while server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        stopped = server.poll() is not None
    finally:
        if server.poll() is None:
            server.kill()
        _, stderr = server.communicate()
    assert stopped, "gunicorn kept running on a database it cannot open"
    assert server.returncode == 1
    assert stderr.count("calendar: CALENDAR_DATABASE: cannot use") == 1
    assert "Booting worker" not in stderr and "Traceback" not in stderr


# D2 --------------------------------------------------------------------------------------


def test_the_openapi_command_prints_the_documents_routes(fresh_app):
    """README:74-75 lists flask-smorest's `openapi` command beside ours: `calendar openapi
    print`, run as an operator runs it (a process that has answered no request), printed a
    document without a single path."""
    result = fresh_app.test_cli_runner().invoke(args=["openapi", "print"])
    assert result.exit_code == 0
    printed = {path.removeprefix(NS) or "/" for path in json.loads(result.output)["paths"]}
    served = fresh_app.test_client().get(f"{NS}/doc").get_json()
    assert printed == set(served["paths"])


# D3 --------------------------------------------------------------------------------------

WRONG_TYPES = [
    ("API_ROOT", "5"),
    ("SITE_URL", "1"),
    ("LANGUAGES", "5"),
    ("UPLOAD_FOLDER", "None"),
    ("CALENDAR_DATABASE", "None"),
    ("FORWARDED_ALLOW_IPS", "5"),
    ("EMBED_ORIGINS", "None"),
    ("CORS_ORIGINS", "5"),
    ("SECRET_KEY", "123"),
]


@sqlite_file
@pytest.mark.parametrize("key, written", WRONG_TYPES)
def test_a_text_setting_of_another_type_in_config_py_stops_the_start(
    tmp_path, monkeypatch, key, written
):
    """README:116-122: settings are Python values in instance/config.py, and every one is
    checked at start, stopping it with one line naming it. These raised a traceback at
    start (the first six) or started a server whose pages or API answered 500 (the last
    three: /events/embed/, any request with an Origin, /manage/signin)."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "config.py").write_text(f"{key} = {written}\n")
    monkeypatch.setenv("CALENDAR_INSTANCE", str(folder))
    for name in ("CALENDAR_DATABASE", "UPLOAD_FOLDER", key):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SettingError) as raised:
        load_settings(ROOT)
    assert str(raised.value).startswith(f"{key}: ")


@sqlite_file
def test_the_cli_says_a_setting_of_another_type_in_one_line(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "config.py").write_text("API_ROOT = 5\n")
    env = _env(tmp_path, CALENDAR_INSTANCE=str(folder))
    done = subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "migrate"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("calendar: API_ROOT: ") and "Traceback" not in done.stderr


# D4 --------------------------------------------------------------------------------------


@sqlite_file
def test_forwarded_allow_ips_that_names_no_address_stops_the_start_naming_it(tmp_path):
    """README:117-122 and 150: `flask migrate` accepted FORWARDED_ALLOW_IPS=not-an-ip, and
    gunicorn stopped with "Error: 'not-an-ip' does not appear to be an IPv4 or IPv6
    network", which names no setting."""
    with pytest.raises(SettingError) as raised:
        create_app({**_settings(tmp_path), "FORWARDED_ALLOW_IPS": "not-an-ip"})
    assert str(raised.value).startswith("FORWARDED_ALLOW_IPS: ")


# D5 --------------------------------------------------------------------------------------


@sqlite_file
@pytest.mark.parametrize(
    "setting, page, status, shows",
    [
        ({"API_ROOT": "/manage"}, "/manage/", 303, "/manage/signin"),
        ({"API_ROOT": "/events"}, "/events/", 200, "text/html"),
        ({"LANGUAGES": "en,manage"}, "/manage/signin", 200, "text/html"),
    ],
)
def test_a_root_that_would_hide_the_sites_pages_is_refused_or_leaves_them(
    tmp_path, setting, page, status, shows
):
    """API_ROOT=/events made `GET /events/` the REST index instead of the list view;
    API_ROOT=/manage made the editor's dashboard the REST index, and LANGUAGES=en,manage
    its sign-in page a 404. Either the start refuses such a value (README:117-122: a value
    that cannot work stops the start), or the page still answers as the README says."""
    try:
        app = create_app({**_settings(tmp_path), **setting})
    except SettingError as error:
        assert str(error).startswith(f"{next(iter(setting))}: ")
        return
    answer = app.test_client().get(page, headers={"Accept": "text/html"})
    assert answer.status_code == status
    assert shows in (answer.headers.get("Location", "") if status == 303 else answer.mimetype)


# D6 --------------------------------------------------------------------------------------


@sqlite_file
def test_a_language_without_a_catalog_is_refused(tmp_path):
    """SPEC §1: one catalog per language, complete. LANGUAGES=en,xx started and served
    English pages as `<html lang="xx">`."""
    with pytest.raises(SettingError) as raised:
        create_app({**_settings(tmp_path), "LANGUAGES": "en,xx"})
    assert str(raised.value).startswith("LANGUAGES: ")


# D7 --------------------------------------------------------------------------------------


@sqlite_file
def test_embed_origins_cannot_write_other_csp_directives(tmp_path):
    """README:164: EMBED_ORIGINS lists origins. '*;script-src *' was accepted and written
    as it is into the embed page's policy, adding a directive of its own."""
    try:
        app = create_app({**_settings(tmp_path), "EMBED_ORIGINS": "*;script-src *"})
    except SettingError as error:
        assert str(error).startswith("EMBED_ORIGINS: ")
        return
    policy = app.test_client().get("/events/embed/").headers["Content-Security-Policy"]
    directives = [part.split()[0] for part in policy.split(";") if part.strip()]
    assert directives.count("script-src") == 1
    assert "script-src *" not in policy


# D8 --------------------------------------------------------------------------------------


def test_the_openapi_document_describes_the_namespace_index(client):
    """SPEC §7: /doc describes every route; `GET {ns}` (the namespace index, the first of
    its own `routes`) was missing while `/doc` itself is there."""
    paths = client.get(f"{NS}/doc").get_json()["paths"]
    assert "/" in paths and "get" in paths["/"]


# D9 --------------------------------------------------------------------------------------


def test_a_fault_outside_a_view_is_an_internal_server_error(fresh_app):
    """SPEC §6: a 500 is `internal_server_error`. An exception raised after the view (in an
    after_request hook, as a CORS_ORIGINS of another type did) answered
    {"code": "http_error", "message": "Internal Server Error"}."""

    @fresh_app.after_request
    def fault(response):
        if request.path == f"{NS}/events":
            raise RuntimeError("a fault after the view")
        return response

    answer = fresh_app.test_client().get(f"{NS}/events", check_conformance=False)
    assert answer.status_code == 500
    assert answer.get_json()["code"] == "internal_server_error"
