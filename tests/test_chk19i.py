"""chk19i: a French, German and Spanish visitor and volunteer in Chromium (SPEC §15 "Look and
feel", "Accessible"; §16 "Accessible and translated as §15"). Each test fails on the code it
was written against for the defect it names (/tmp/w/chk19i.md)."""

import functools
import http.server
import threading
from datetime import date, timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.conftest import NS, basic, event_form, saved_id
from tests.databases import drop_database, fresh_database
from tests.helpers import Server, chromium, flask_cli, free_port, page_text

DAY = date.today() + timedelta(days=3)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    database = fresh_database(tmp_path_factory.mktemp("chk19i"))
    flask_cli(database, "migrate")
    password = flask_cli(database, "users", "create", "boss", "--role", "administrator")
    headers = basic("boss", password.strip().splitlines()[-1])
    server = Server(database, workers=1)
    for title in ("Jazz evening", "Choir night"):
        status, event = server.request(
            "POST",
            f"{NS}/events",
            {"title": title, "start_date": f"{DAY} 19:00:00", "end_date": f"{DAY} 21:00:00"},
            headers,
        )
        assert status == 201, event
    yield {"server": server, "base": server.base, "headers": headers}
    server.stop()
    drop_database(database)


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def _serve(folder):
    port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    return other, port


def _serious(page):
    return [
        (v["id"], v["impact"], v["nodes"][0]["html"][:120])
        for v in Axe().run(page).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_widget_links_readable_on_a_dark_host_page(site, browser, tmp_path, lang):
    """SPEC §15: the widget's styles are kept apart in a shadow root (the host page cannot
    reach its links), and axe-core finds no serious violation: on a dark host page, the
    event titles must stay readable (not the browser's default #0000EE on a dark ground)."""
    (tmp_path / "index.html").write_text(
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>Club</title>"
        "<link rel='icon' href='data:,'>"
        "<style>@media (prefers-color-scheme: dark) { body { background: #111; color: #eee }"
        " a { color: #9cf } }</style></head>"
        "<body><main><h1>Club</h1>"
        f'<div data-calendar-events data-limit="5" data-lang="{lang}"></div>'
        f'</main><script src="{site["base"]}/widget.js"></script></body></html>'
    )
    other, port = _serve(tmp_path)
    context = browser.new_context(viewport={"width": 360, "height": 800}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_function(
            "document.querySelector('[data-calendar-events]').shadowRoot"
            " && document.querySelector('[data-calendar-events]').shadowRoot.querySelectorAll('li a').length === 2"
        )
        assert _serious(page) == []
    finally:
        context.close()
        other.shutdown()
