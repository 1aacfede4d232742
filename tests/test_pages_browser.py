"""SPEC §15 in a real browser: Debian's Chromium driven by Playwright (never downloaded:
``executable_path``), against a real gunicorn. axe-core on every view in two languages, a
title built to run script never runs, the widget fills a page of another origin, no console
error, no sideways scroll on a phone, and the month view works with JavaScript off."""

import contextlib
import functools
import http.server
import threading
from datetime import date, timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.conftest import NS, basic
from tests.databases import drop_database, fresh_database
from tests.helpers import Server, chromium, flask_cli, free_port

# The faces are the same on every engine: make test-postgres leaves these out (Makefile).
pytestmark = pytest.mark.browser
DAY = date.today() + timedelta(days=2)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server with a small calendar: a venue, an organizer, terms, a series, a protected
    event and a title with markup in it."""
    database = fresh_database(tmp_path_factory.mktemp("browser"))
    flask_cli(database, "migrate")
    password = flask_cli(database, "users", "create", "boss", "--role", "administrator")
    headers = basic("boss", password.strip().splitlines()[-1])
    server = Server(database, workers=1)
    venue = server.request(
        "POST",
        f"{NS}/venues",
        {"venue": "Town Hall", "city": "Lyon", "geo_lat": 45.7, "geo_lng": 4.8},
        headers,
    )[1]
    organizer = server.request("POST", f"{NS}/organizers", {"organizer": "Arts Club"}, headers)[1]
    when = {"start_date": f"{DAY} 19:00:00", "end_date": f"{DAY} 21:00:00"}
    made = {}
    for title, extra in (
        ("Jazz evening", {"categories": ["Music"], "tags": ["jazz"], "cost": "12"}),
        ('Tricky "><img src=x onerror=alert(1)> <svg onload=alert(2)>', {}),
        ("Weekly choir", {"recurrence": ["RRULE:FREQ=WEEKLY;COUNT=3"]}),
        ("Members only", {"password": "letmein"}),
    ):
        body = {
            "title": title,
            **when,
            "venue": venue["id"],
            "organizer": [organizer["id"]],
            **extra,
        }
        status, event = server.request("POST", f"{NS}/events", body, headers)
        assert status == 201, event
        made[title.split()[0]] = event
    # A description with what made a phone scroll sideways (a table of long words) and an
    # image without alt (axe-core: critical), at a venue whose address has no spaces.
    far = server.request(
        "POST",
        f"{NS}/venues",
        {"venue": "Warehouse", "address": "Unit-7/Block-C/" * 8, "city": "Lyon"},
        headers,
    )[1]
    wide = (
        "<table><tr><td>https://example.org/" + "a-very-long-path-segment/" * 6 + "</td>"
        "<td>" + "x" * 120 + "</td></tr></table>"
        f'<p>{"Antidisestablishmentarianism" * 6}</p><p><img src="/robots.txt"></p>'
    )
    later = DAY + timedelta(days=1)
    status, event = server.request(
        "POST",
        f"{NS}/events",
        {
            "title": "Wide description",
            "description": wide,
            "start_date": f"{later} 10:00:00",
            "end_date": f"{later} 11:00:00",
            "venue": far["id"],
        },
        headers,
    )
    assert status == 201, event
    made["Wide"] = event
    _velo_events(server, headers)
    yield {
        "server": server,
        "base": server.base,
        "events": made,
        "venue": venue,
        "far": far,
        "described": _described(server, headers),
    }
    server.stop()
    drop_database(database)


def _velo_events(server, headers) -> None:
    """A daily series in a category beside two single events of it, one on the series'
    second day (the widget lists every occurrence, as the API's listing and the list view)."""
    for title, day, extra in (
        ("Velo ride", DAY, {"recurrence": ["RRULE:FREQ=DAILY;COUNT=12"]}),
        ("Velo repair", DAY + timedelta(days=1), {}),
        ("Velo swap", DAY + timedelta(days=13), {}),
    ):
        body = {"title": title, "start_date": f"{day} 08:00:00", "end_date": f"{day} 09:00:00"}
        status, event = server.request(
            "POST", f"{NS}/events", {**body, "categories": ["Velo"], **extra}, headers
        )
        assert status == 201, event


def _described(server, headers) -> list[str]:
    """The pages of descriptions as WordPress and pasted text bring them (chk19i D4, D5): a
    schedule as preformatted text with a long line, at an event and a venue; a table of 40
    cells (a seating plan), wider than a phone; an image "linked to its file" without
    alt. Their paths."""
    line = (
        "10:00  Begrüßung durch die Vorsitzende des Vereins und Vorstellung aller Mitwirkenden,"
        " danach Kaffee und Kuchen im Foyer der Probebühne am Hauptbahnhof"
    )
    day = DAY + timedelta(days=2)
    paths = []
    for title, description in (
        ("Programmheft", f"<p>Ablauf:</p><pre>{line}</pre>"),
        ("Sitzplan", "<table><tr>" + "".join(f"<td>{n}</td>" for n in range(40)) + "</tr></table>"),
        ("Plakat", '<p><a href="/robots.txt"><img src="/robots.txt" width="300"></a></p>'),
    ):
        body = {"title": title, "description": description}
        when = {"start_date": f"{day} 10:00:00", "end_date": f"{day} 12:00:00"}
        status, event = server.request("POST", f"{NS}/events", {**body, **when}, headers)
        assert status == 201, event
        paths.append(f"/event/{event['slug']}/")
    body = {"venue": "Probebühne", "description": f"<pre>Anfahrt: {line}</pre>"}
    status, venue = server.request("POST", f"{NS}/venues", body, headers)
    assert status == 201, venue
    return [*paths, f"/venue/{venue['slug']}/"]


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def open_page(browser, url, width=1280, javascript=True, timezone=None, warnings=None):
    """The page at ``url``, once loaded (its styles, scripts and images: the public pages
    fetch nothing afterwards; a page that does, the widget's host, is waited on for what it
    draws), and the console's errors and the page's; its console warnings go to
    ``warnings`` when a list is given."""
    context = browser.new_context(
        viewport={"width": width, "height": 900},
        java_script_enabled=javascript,
        **({"timezone_id": timezone} if timezone else {}),
    )
    page = context.new_page()
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    if warnings is not None:
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss())
    )
    page.goto(url)  # waits for the load event
    return page, problems


def views(site):
    events = site["events"]
    return [
        "/events/",
        f"/events/month/{DAY:%Y-%m}/",
        f"/events/{DAY:%Y-%m-%d}/",
        f"/event/{events['Jazz']['slug']}/",
        f"/event/{events['Weekly']['slug']}/",
        f"/event/{events['Members']['slug']}/",
        f"/venue/{site['venue']['slug']}/",
        f"/event/{events['Wide']['slug']}/",
        f"/venue/{site['far']['slug']}/",
        "/events/category/music/",
        "/events/2026-99-99/",
    ]


@pytest.mark.parametrize("lang", ["", "/fr"])
def test_axe_finds_nothing_serious_on_any_view(site, browser, lang):
    axe = Axe()
    for path in views(site):
        page, problems = open_page(browser, site["base"] + lang + path)
        results = axe.run(page)
        serious = [
            (v["id"], v["impact"], v["nodes"][0]["html"][:120])
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], (path, serious)
        assert [p for p in problems if "400" not in p] == [], (path, problems)
        page.context.close()


def test_markup_in_a_title_never_runs(site, browser):
    for path in (
        "/events/",
        f"/event/{site['events']['Tricky']['slug']}/",
        f"/events/{DAY:%Y-%m-%d}/",
    ):
        page, problems = open_page(browser, site["base"] + path)
        assert not any(p.startswith("dialog") for p in problems), problems
        assert page.locator("img[src='x']").count() == 0 and page.locator("svg").count() == 0
        page.context.close()


def test_no_sideways_scroll_on_a_phone(site, browser):
    for path in views(site):
        page, _problems = open_page(browser, site["base"] + path, width=360)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, path
        page.context.close()


def test_the_month_view_works_without_javascript(site, browser):
    page, _problems = open_page(
        browser, site["base"] + f"/events/month/{DAY:%Y-%m}/", javascript=False
    )
    assert page.locator("table.month").count() == 1
    assert page.get_by_text("Jazz evening").count() >= 1
    page.get_by_role("link", name="Next month").click()
    following = (DAY.replace(day=28) + timedelta(days=4)).strftime("%Y-%m")
    assert page.url.endswith(f"/events/month/{following}/")
    page.get_by_role("link", name="Previous month").click()
    page.get_by_label("Search").fill("jazz")
    page.get_by_role("button", name="Find events").click()
    # The click returns once the answer's address is committed; its page may still be read.
    page.wait_for_load_state()
    assert "search=jazz" in page.url and page.get_by_text("Jazz evening").count() >= 1
    page.context.close()


def test_a_password_opens_a_protected_event(site, browser):
    page, _problems = open_page(
        browser, site["base"] + f"/event/{site['events']['Members']['slug']}/"
    )
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Show the event").click()
    assert page.get_by_role("alert").count() == 1
    page.get_by_label("Password").fill("letmein")
    page.get_by_role("button", name="Show the event").click()
    assert page.get_by_role("heading", name="Add to calendar").count() == 1
    page.context.close()


def test_the_widget_fills_a_page_of_another_origin(site, browser, tmp_path):
    (tmp_path / "index.html").write_text(
        "<!doctype html><html lang='en'><head><title>Club</title><link rel='icon' href='data:,'></head>"
        "<body>"
        "<style>li { color: red }</style><h1>Our club</h1>"
        '<div data-calendar-events data-limit="5" data-categories="music"></div>'
        '<div id="all" data-calendar-events data-limit="2" data-lang="fr"></div>'
        '<div id="us" data-calendar-events data-limit="1" data-lang="en-US"></div>'
        '<div id="pt" data-calendar-events data-limit="1" data-lang="pt-BR"></div>'
        f'<script src="{site["base"]}/widget.js" async></script></body></html>'
    )
    port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        # A visitor far from the events' zone reads their times as the pages write them.
        warnings = []
        page, problems = open_page(
            browser, f"http://127.0.0.1:{port}/", timezone="Asia/Tokyo", warnings=warnings
        )
        first = page.locator("[data-calendar-events]").first
        page.wait_for_function(
            "document.querySelector('[data-calendar-events]').shadowRoot"
            " && document.querySelector('[data-calendar-events]').shadowRoot.querySelector('li a')"
        )
        links = first.locator("li a")
        assert links.count() == 1 and links.first.inner_text() == "Jazz evening"
        when = first.locator("li .when").first.inner_text()
        assert when.endswith("7:00 PM UTC"), when
        assert links.first.get_attribute("href").startswith(site["base"] + "/event/")
        # Our styles stay in the shadow root; the host page's stay out of it.
        color = links.first.evaluate("a => getComputedStyle(a.closest('li')).color")
        assert color != "rgb(255, 0, 0)"
        page.wait_for_function(
            "document.getElementById('all').shadowRoot"
            " && document.getElementById('all').shadowRoot.querySelectorAll('li').length === 2"
        )
        assert page.locator("#all li img").count() == 0  # titles inserted as text
        # A language the site has under its base (en-US: en), or lacks (pt-BR: the root).
        for ident in ("us", "pt"):
            page.wait_for_function(
                f"document.getElementById('{ident}').shadowRoot"
                f" && document.getElementById('{ident}').shadowRoot.querySelector('li a')"
            )
            href = page.locator(f"#{ident} li a").first.get_attribute("href")
            assert href.startswith(site["base"] + ("/en/event/" if ident == "us" else "/event/"))
        assert problems == [] and warnings == []
        page.context.close()
    finally:
        other.shutdown()


def test_print_leaves_out_the_search_form_and_date_picker(site, browser):
    for path in ("/events/", f"/events/month/{DAY:%Y-%m}/", f"/events/{DAY:%Y-%m-%d}/"):
        page, _problems = open_page(browser, site["base"] + path)
        assert page.locator("#f-search").is_visible() and page.locator("#f-date").is_visible()
        page.emulate_media(media="print")
        assert not page.locator("#f-search").is_visible(), path
        assert not page.locator("#f-date").is_visible(), path
        assert page.locator("h1").is_visible()
        page.context.close()


@contextlib.contextmanager
def another_origin(tmp_path, html: str):
    """``html`` served as index.html from another origin (another port): its address."""
    (tmp_path / "index.html").write_text(html)
    port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        other.shutdown()


def _widget_items(page, ident: str, count: int) -> list[str]:
    """The texts of the entries the widget of ``ident`` drew, once it drew ``count``."""
    page.wait_for_function(
        f"document.getElementById('{ident}').shadowRoot"
        f" && document.getElementById('{ident}').shadowRoot.querySelectorAll('li').length"
        f" === {count}"
    )
    return page.locator(f"#{ident} li").all_inner_texts()


def test_the_widget_lists_as_the_api_and_says_when_the_api_refuses(site, browser, tmp_path):
    """A category naming nothing (the API's 400) showed "—": the widget lists the API's
    upcoming listing, every occurrence of a series in its order (SPEC §12, §15, as the
    list view), ``data-limit`` entries; its search is the API's (a venue's name finds
    nothing); a refusal is a short message, written as text, and the API's message a
    console warning."""
    html = (
        "<!doctype html><html lang='en'><head><title>Club</title>"
        "<link rel='icon' href='data:,'></head><body><h1>Our club</h1>"
        '<div id="velo" data-calendar-events data-limit="3" data-categories="velo"></div>'
        '<div id="nope" data-calendar-events data-limit="3" data-categories="nope-nope"></div>'
        '<div id="wh" data-calendar-events data-limit="3" data-search="warehouse"></div>'
        f'<script src="{site["base"]}/widget.js" async></script></body></html>'
    )
    with another_origin(tmp_path, html) as address:
        warnings = []
        page, problems = open_page(browser, address, warnings=warnings)
        titles = [text.split("\n")[0] for text in _widget_items(page, "velo", 3)]
        assert titles == ["Velo ride", "Velo ride", "Velo repair"]
        # The API's search reads events' own text: a venue's name finds nothing.
        assert _widget_items(page, "wh", 1) == ["No upcoming events."]
        assert _widget_items(page, "nope", 1) == ["The events could not be shown."]
        assert page.locator("#nope li").first.evaluate("li => li.children.length") == 0
        refusals = [w for w in warnings if w.startswith("Calendar widget:")]
        assert len(refusals) == 1 and "categories" in refusals[0], warnings
        # The browser's own line for the refused request is the only error.
        assert [p for p in problems if "400" not in p] == [], problems
        page.context.close()


# --- keyboard and screen-reader use (outside check chk16k) --------------------------------


def test_a_wrong_event_password_marks_the_field(site, browser):
    """chk16k D4: the public password form's "That password is not right." was tied to
    nothing: the field is marked invalid and described by the message."""
    page, _problems = open_page(
        browser, site["base"] + f"/event/{site['events']['Members']['slug']}/"
    )
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Show the event").click()
    page.wait_for_load_state()
    assert page.get_by_role("alert").count() == 1
    field = page.get_by_label("Password")
    assert field.get_attribute("aria-invalid") == "true"
    described = (field.get_attribute("aria-describedby") or "").split()
    assert any(page.locator(f"#{i}.error, #{i}[role=alert]").count() for i in described)
    page.context.close()


@pytest.mark.parametrize("forced", ["none", "active"])
def test_today_in_the_month_grid_is_not_shown_by_colour_alone(site, browser, forced):
    """chk16k D8: today's cell differed from the other days by its background colour alone
    (WCAG 1.4.1), which forced-colors mode removes: nothing showed today then."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, forced_colors=forced)
    page = context.new_page()
    page.goto(site["base"] + "/events/month/")
    differs = page.evaluate(
        """() => {
        const today = document.querySelector('td.today');
        const other = [...document.querySelectorAll('td:not(.today):not(.other-month)')][0];
        const look = td => { const s = getComputedStyle(td);
          const n = getComputedStyle(td.querySelector('.day-number'));
          const extra = [...td.querySelectorAll('*')].filter(e => !e.closest('.day-number, ul, a.more')
            && e.getClientRects().length && e.innerText && e.innerText.trim()).length;
          return [s.borderTopWidth, s.borderTopStyle, s.borderLeftWidth, s.outlineStyle, s.outlineWidth,
                  s.boxShadow, n.fontWeight, n.textDecorationLine, n.borderBottomWidth, n.borderTopWidth,
                  n.outlineStyle, n.boxShadow, extra,
                  getComputedStyle(td, '::before').content, getComputedStyle(td, '::after').content,
                  getComputedStyle(td.querySelector('.day-number'), '::before').content,
                  getComputedStyle(td.querySelector('.day-number'), '::after').content,
                  ].join('|'); };
        return { same: look(today) === look(other), a: look(today), b: look(other) };
      }"""
    )
    assert not differs["same"], differs
    # The other months' days are told apart by more than their background too.
    weights = page.evaluate(
        """() => ['td.other-month', 'td:not(.other-month)'].map(cell =>
          getComputedStyle(document.querySelector(cell + ' .day-number')).fontWeight)"""
    )
    assert weights[0] != weights[1], weights
    context.close()


def test_textareas_get_the_sites_focus_ring(site, browser):
    """chk16k D9: the focus rule named a, button, input and select: the editor's textareas
    (description, recurrence lines) got Chromium's thin default ring, barely different
    from their border in dark mode. Read from the stylesheet on a page of both controls."""
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(site["base"] + "/events/")
    page.set_content(
        f'<link rel="stylesheet" href="{site["base"]}/static/calendar.css">'
        '<form class="stacked"><input id="title"><textarea id="description"></textarea></form>'
    )
    ring = "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    page.locator("#title").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "description"
    textarea = page.evaluate(ring, page.locator("#description").element_handle())
    page.keyboard.press("Shift+Tab")
    title = page.evaluate(ring, page.locator("#title").element_handle())
    assert textarea == title and title[0] == "solid", (textarea, title)
    context.close()


def test_the_widget_says_its_language_and_when_it_has_nothing(site, browser, tmp_path):
    """chk16k D12, D13: data-lang="fr" wrote French dates into an English page without
    ``lang`` (a screen reader read them with the English voice, WCAG 3.1.2), and a widget
    with no event showed a bare "—". The list says the language of its dates, and an
    empty one says so in the site's words, marked with their language."""
    html = (
        "<!doctype html><html lang='en'><head><title>Club</title>"
        "<link rel='icon' href='data:,'></head><body><h1>Our club</h1>"
        '<div id="fr" data-calendar-events data-limit="2" data-lang="fr"></div>'
        '<div id="none" data-calendar-events data-limit="2" data-search="zzzqqq"></div>'
        '<div id="rien" data-calendar-events data-lang="fr-CA" data-search="zzzqqq"></div>'
        f'<script src="{site["base"]}/widget.js" async></script></body></html>'
    )
    with another_origin(tmp_path, html) as address:
        page, problems = open_page(browser, address)
        _widget_items(page, "fr", 2)
        assert page.locator("#fr li").first.evaluate("li => li.matches(':lang(fr)')")
        assert _widget_items(page, "none", 1) == ["No upcoming events."]
        assert page.locator("#none li").first.evaluate("li => li.matches(':lang(en)')")
        assert _widget_items(page, "rien", 1) == ["Aucun évènement à venir."]
        assert page.locator("#rien li").first.evaluate("li => li.matches(':lang(fr)')")
        assert problems == []
        page.context.close()


def test_an_empty_month_on_a_phone_says_there_is_nothing(site, browser):
    """chk16k D14: at 320 px (and 200 % zoom of a 1280 px window: 640 px) the grid becomes a
    list of the days that have events; a month without any showed no word at all, where
    the list and day views say "No events match." / "No events on this day."."""
    empty = (date.today().replace(day=1) + timedelta(days=400)).strftime("%Y-%m")
    for width in (320, 640):
        page, _problems = open_page(browser, site["base"] + f"/events/month/{empty}/", width=width)
        said = page.locator("main .empty, main [role=status]")
        assert said.count() >= 1 and said.first.is_visible(), width
        assert said.first.inner_text() == "No events this month."
        page.context.close()
    busy, _problems = open_page(browser, site["base"] + f"/events/month/{DAY:%Y-%m}/")
    assert busy.locator("main .empty").count() == 0
    busy.context.close()


def _serious(page) -> list[tuple]:
    return [
        (v["id"], v["impact"], v["nodes"][0]["html"][:120])
        for v in Axe().run(page).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
@pytest.mark.parametrize("width", [1280, 360])
def test_descriptions_as_pasted_pass_axe(site, browser, lang, width):
    """Found by an outside check (chk19i D4, D5), §15 "axe-core finds no violation of
    impact serious or critical on any view": a description's <pre> scrolled sideways and a
    40-cell table on a phone, boxes with nothing focusable in them (a keyboard cannot
    scroll them: scrollable-region-focusable); a link holding only an image without alt
    had no name (link-name). Preformatted text now wraps, a table is focusable, and the
    image is named by its file."""
    for path in site["described"]:
        page, _problems = open_page(browser, f"{site['base']}/{lang}{path}", width=width)
        assert _serious(page) == [], path
        assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        page.context.close()


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_the_widgets_links_are_readable_on_a_dark_host_page(site, browser, tmp_path, lang):
    """Found by an outside check (chk19i D1): the host page's styles stop at the widget's
    shadow root, the browser's do not: on a dark page, its titles were the browser's link
    blue (#0000EE on #111, axe-core: color-contrast, serious). They take the host's text
    colour, underlined."""
    html = (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>Club</title>"
        "<link rel='icon' href='data:,'>"
        "<style>@media (prefers-color-scheme: dark) { body { background: #111; color: #eee }"
        " a { color: #9cf } }</style></head>"
        "<body><main><h1>Club</h1>"
        f'<div id="w" data-calendar-events data-limit="5" data-lang="{lang}"></div>'
        f'</main><script src="{site["base"]}/widget.js"></script></body></html>'
    )
    with another_origin(tmp_path, html) as address:
        context = browser.new_context(viewport={"width": 360, "height": 800}, color_scheme="dark")
        page = context.new_page()
        page.goto(address)
        _widget_items(page, "w", 5)
        link = page.locator("#w li a").first
        assert link.evaluate("a => getComputedStyle(a).color") == "rgb(238, 238, 238)"
        assert _serious(page) == []
        context.close()
