"""Outside checks of SPEC §15/§16 (session chk18a): each test fails on the code it was
written against, for the defect its docstring names."""

import re
from datetime import date, timedelta

from tests.conftest import event_form, saved_id


# --- in the real browser -------------------------------------------------------------

import os  # noqa: E402

import pytest  # noqa: E402

from tests.databases import drop_database, fresh_database  # noqa: E402
from tests.helpers import Server, chromium, flask_cli  # noqa: E402

DAY = date.today() + timedelta(days=6)
PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chk18a")
    database = fresh_database(folder)
    os.environ["UPLOAD_FOLDER"] = str(folder / "uploads")
    flask_cli(database, "migrate")
    flask_cli(database, "users", "create", "edna", "--role", "editor")
    server = Server(database, workers=1)
    yield {"server": server, "base": server.base, "database": database}
    server.stop()
    os.environ.pop("UPLOAD_FOLDER", None)
    drop_database(database)


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def _signed_in(site, browser, javascript=True):
    link = flask_cli(site["database"], "users", "login-link", "edna").strip().splitlines()[-1]
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, java_script_enabled=javascript
    )
    page = context.new_page()
    page.goto(site["base"] + path)
    for i in range(page.locator("input[type=password]").count()):
        page.locator("input[type=password]").nth(i).fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    assert page.url.endswith("/manage/")
    return page


@pytest.mark.browser
def test_all_day_box_checked_then_unchecked_keeps_the_typed_times(site, browser):
    """D2: editor.js says the all-day box switches the inputs "keeping what was typed", but
    a 19:00-21:00 event whose box is checked and unchecked again comes back 00:00-00:00:
    the times the user typed are lost (and would be saved as midnight)."""
    page = _signed_in(site, browser)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Start").fill(f"{DAY}T19:00")
    page.get_by_label("End", exact=True).fill(f"{DAY}T21:00")
    page.get_by_label("All day").check()
    page.get_by_label("All day").uncheck()
    assert page.get_by_label("Start").input_value() == f"{DAY}T19:00"
    assert page.get_by_label("End", exact=True).input_value() == f"{DAY}T21:00"
    page.context.close()
