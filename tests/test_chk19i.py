"""chk19i: a French, German and Spanish visitor and volunteer in Chromium (SPEC §15 "Look and
feel", "Accessible"; §16 "Accessible and translated as §15"). Each test fails on the code it
was written against for the defect it names (/tmp/w/chk19i.md)."""

import functools
import http.server
import threading
from datetime import date, timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.conftest import NS, basic
from tests.databases import drop_database, fresh_database
from tests.helpers import Server, chromium, flask_cli, free_port

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
    # A schedule pasted as preformatted text, as descriptions carry them (§15: the
    # description is the stored, sanitised HTML), at an event and at a venue.
    line = (
        "10:00  Begrüßung durch die Vorsitzende des Vereins und Vorstellung aller Mitwirkenden,"
        " danach Kaffee und Kuchen im Foyer der Probebühne am Hauptbahnhof"
    )
    status, event = server.request(
        "POST",
        f"{NS}/events",
        {
            "title": "Programmheft",
            "start_date": f"{DAY} 10:00:00",
            "end_date": f"{DAY} 12:00:00",
            "description": f"<p>Ablauf:</p><pre>{line}</pre>",
        },
        headers,
    )
    assert status == 201, event
    status, venue = server.request(
        "POST",
        f"{NS}/venues",
        {"venue": "Probebühne", "description": f"<pre>Anfahrt: {line}</pre>"},
        headers,
    )
    assert status == 201, venue
    # What WordPress writes for an image inserted "linked to the media file", without alt
    # (the default): TEC imports bring descriptions like this one.
    status, poster = server.request(
        "POST",
        f"{NS}/events",
        {
            "title": "Plakat",
            "start_date": f"{DAY} 11:00:00",
            "end_date": f"{DAY} 12:00:00",
            "description": '<p>Unser Plakat:</p><p><a href="/robots.txt"><img src="/robots.txt"'
            ' width="300"></a></p>',
        },
        headers,
    )
    assert status == 201, poster
    yield {
        "poster": poster["slug"],
        "server": server,
        "base": server.base,
        "headers": headers,
        "schedule": event["slug"],
        "venue": venue["slug"],
        "database": database,
        "line": line,
    }
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
            " && document.querySelector('[data-calendar-events]').shadowRoot.querySelectorAll('li a').length >= 2"
        )
        assert _serious(page) == []
    finally:
        context.close()
        other.shutdown()


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
@pytest.mark.parametrize("width", [1280, 360])
def test_a_description_with_preformatted_text_passes_axe(site, browser, lang, width):
    """§15 "axe-core finds no violation of impact serious or critical on any view": the
    stylesheet makes a description's <pre> scroll sideways (overflow-x: auto), and a
    scrolling box with nothing focusable inside cannot be scrolled from the keyboard
    (axe: scrollable-region-focusable, serious), on the event page and the venue page."""
    for path in (f"/{lang}/event/{site['schedule']}/", f"/{lang}/venue/{site['venue']}/"):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            assert page.goto(site["base"] + path).status == 200
            assert _serious(page) == [], path
        finally:
            context.close()


def test_the_editor_preview_of_preformatted_text_passes_axe(site, browser):
    """§16 "Accessible … as §15": the editor's description preview draws the same <pre> as a
    box that scrolls sideways with nothing focusable in it (scrollable-region-focusable)."""
    link = flask_cli(site["database"], "users", "login-link", "boss").strip().splitlines()[-1]
    token = link.rsplit("/", 1)[-1]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{site['base']}/de/manage/set-password/{token}")
        for box in page.locator("input[type=password]").all():
            box.fill("a-long-password-1")
        page.locator("main form button[type=submit]").last.click()
        page.wait_for_load_state()
        page.goto(f"{site['base']}/de/manage/events/new")
        page.fill("input[name=title]", "Vorschau")
        page.fill("textarea[name=description]", f"<pre>{site['line']}</pre>")
        page.locator("button", has_text="Vorschau").first.click()
        page.wait_for_load_state()
        assert page.locator("section.preview pre").count() == 1
        assert _serious(page) == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_a_linked_image_without_alt_in_a_description_passes_axe(site, browser, lang):
    """§15 axe-core on any view: the sanitiser gives an <img> without alt an empty one
    (rules/text.py::sanitise_html, against image-alt), which leaves a link holding only
    that image with no name at all (axe: link-name, serious): WordPress's "image linked to
    its file" with no alt, as imports bring it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        assert page.goto(f"{site['base']}/{lang}/event/{site['poster']}/").status == 200
        assert page.locator(".description a img").count() == 1
        assert _serious(page) == []
    finally:
        context.close()
