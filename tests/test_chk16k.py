"""Outside check chk16k: keyboard and screen-reader use of the public pages and the editor
(SPEC §15 "Accessible", §16 "Accessible and translated", read as WCAG 2.2 AA), in Debian's
Chromium through Playwright against a real gunicorn. Each test is one defect."""

import os
from datetime import date, timedelta

import pytest

from tests.conftest import NS, basic
from tests.databases import drop_database, fresh_database
from tests.helpers import Server, chromium, flask_cli

pytestmark = pytest.mark.browser
DAY = date.today() + timedelta(days=10)
# Events the tests make go to LATER, off the two busy days the month test counts.
LATER = DAY + timedelta(days=5)
PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chk16k")
    database = fresh_database(folder)
    os.environ["UPLOAD_FOLDER"] = str(folder / "uploads")
    flask_cli(database, "migrate")
    output = flask_cli(database, "users", "create", "boss", "--role", "administrator")
    headers = basic("boss", output.strip().splitlines()[-1])
    server = Server(database, workers=1)
    made = {}
    # Two days of one month (after today) with 8 events each: 3 shown, "5 more" on both.
    for offset in (0, 1):
        day = DAY.replace(day=min(DAY.day, 27)) + timedelta(days=offset)
        for n in range(8):
            body = {
                "title": f"Busy {offset}-{n}",
                "start_date": f"{day} 0{n}:00:00",
                "end_date": f"{day} 0{n}:30:00",
            }
            status, event = server.request("POST", f"{NS}/events", body, headers)
            assert status == 201, event
    body = {
        "title": "Members only",
        "start_date": f"{LATER} 19:00:00",
        "end_date": f"{LATER} 21:00:00",
        "password": "letmein",
    }
    status, made["protected"] = server.request("POST", f"{NS}/events", body, headers)
    assert status == 201
    yield {"server": server, "base": server.base, "database": database, "made": made}
    server.stop()
    os.environ.pop("UPLOAD_FOLDER", None)
    drop_database(database)


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def signed_state(site, browser):
    """The storage state of a browser signed in as the administrator."""
    output = flask_cli(site["database"], "users", "login-link", "boss")
    link = output.strip().splitlines()[-1]
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    context = browser.new_context()
    page = context.new_page()
    page.goto(site["base"] + path)
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("The same password again").fill(PASSWORD)
    page.get_by_role("button", name="Set the password").click()
    assert page.url.endswith("/manage/")
    state = context.storage_state()
    context.close()
    return state


def editor_page(browser, signed_state, **options):
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, storage_state=signed_state, **options
    )
    return context.new_page()


def active(page) -> str:
    return page.evaluate("document.activeElement.tagName + '#' + document.activeElement.id")


def test_focus_goes_to_the_errors_after_a_form_comes_back(site, browser, signed_state):
    """D1: a 400 form leaves focus on <body>: a keyboard user starts again at the top, a
    screen-reader user is not taken to what went wrong."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Title").fill("No dates")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_label("Title").press("Enter")
    page.wait_for_load_state()
    assert answer.value.status == 400
    assert page.locator("[aria-invalid=true]").count() >= 1
    focused = page.evaluate(
        """() => { const e = document.activeElement;
        return e !== document.body && (e.getAttribute('aria-invalid') === 'true'
          || !!e.closest('.error,[role=alert]') || e.classList.contains('error')); }"""
    )
    assert focused, f"focus after the 400 form is on {active(page)}"
    page.context.close()


def test_the_title_says_a_form_had_errors(site, browser, signed_state):
    """D2: the title of a form sent back with errors is the blank form's."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/venues/new")
    blank = page.title()
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    assert answer.value.status == 400
    assert page.title() != blank and "error" in page.title().lower(), page.title()
    page.context.close()


@pytest.mark.parametrize("path", ["/manage/venues/new", "/manage/categories/new"])
def test_required_names_are_marked_required(site, browser, signed_state, path):
    """D3: a name the save refuses when empty is not marked required."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + path)
    name = page.get_by_label("Name", exact=True)
    assert (
        name.get_attribute("required") is not None or name.get_attribute("aria-required") == "true"
    ), path
    page.context.close()


def test_event_start_and_end_are_marked_required(site, browser, signed_state):
    """D3: Start and End are refused when empty ("Must not be empty.") but not marked."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/events/new")
    for label in ("Start", "End"):
        field = page.get_by_label(label, exact=True)
        assert (
            field.get_attribute("required") is not None
            or field.get_attribute("aria-required") == "true"
        ), label
    page.context.close()


def test_a_wrong_sign_in_marks_the_fields(site, browser):
    """D4: the sign-in error is not tied to the password field."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(site["base"] + "/manage/signin")
    page.get_by_label("User name").fill("boss")
    page.get_by_label("Password").fill("not the password at all")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    assert page.get_by_role("alert").count() == 1
    field = page.get_by_label("Password")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby")
    context.close()


def test_moving_an_event_to_the_trash_says_so(site, browser, signed_state):
    """D6: every other write says what it did; the trash says nothing."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Title").fill("To be trashed")
    page.get_by_label("Start").fill(f"{LATER}T10:00")
    page.get_by_label("End", exact=True).fill(f"{LATER}T11:00")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url("**/manage/events/*")
    page.get_by_role("button", name="Move to the trash").click()
    page.wait_for_url("**/manage/")
    status = page.get_by_role("status")
    assert status.count() >= 1 and "trash" in status.first.inner_text().lower()
    page.context.close()


def test_the_editor_navigation_marks_the_current_section(site, browser, signed_state):
    """D7: the public views mark the current view (aria-current); the editor's sections
    do not."""
    page = editor_page(browser, signed_state)
    for path, name in (("/manage/events/", "Events"), ("/manage/venues/", "Venues")):
        page.goto(site["base"] + path)
        nav = page.get_by_role("navigation", name="Editor")
        link = nav.get_by_role("link", name=name, exact=True)
        assert link.get_attribute("aria-current") in ("page", "true"), path
    page.context.close()


def test_the_preview_is_focused_after_preview(site, browser, signed_state):
    """D1 (the preview): "Preview the description" reloads the form with focus on <body>
    at the top of the page; the preview, further down, is not reached or announced."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Title").fill("Previewed")
    page.get_by_label("Description (HTML)").fill("<p>Hello</p>")
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.get_by_role("button", name="Preview the description").click()
    page.wait_for_load_state()
    assert page.locator("section.preview").count() == 1
    inside = page.evaluate("!!document.activeElement.closest('section.preview')")
    assert inside, f"focus after the preview is on {active(page)}"
    page.context.close()


@pytest.mark.parametrize("kind", ["venues", "organizers"])
def test_enter_in_a_venue_or_organizer_form_saves_it(site, browser, signed_state, kind):
    """D15: the first submit button of these forms is the image library's "Search": Enter
    in the Name field (the way a keyboard user sends a form) searches images instead,
    and the form comes back (200) with nothing saved and nothing said. The event form
    has a hidden Save first for this; these do not."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + f"/manage/{kind}/new")
    name = page.get_by_label("Name", exact=True)
    name.fill(f"Entered {kind}")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        name.press("Enter")
    page.wait_for_load_state()
    assert answer.value.status == 303, answer.value.status
    page.context.close()


def test_enter_in_the_image_search_searches_without_javascript(site, browser, signed_state):
    """D16: with JavaScript off (SPEC §16: the editor works without it), Enter in the event
    form's image search presses the form's default button, Save: the event is created
    instead of the images being searched."""
    page = editor_page(browser, signed_state, java_script_enabled=False)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Title").fill("Searched by Enter")
    page.get_by_label("Start").fill(f"{LATER}T10:00")
    page.get_by_label("End", exact=True).fill(f"{LATER}T11:00")
    search = page.locator("#image_search")
    search.fill("poster")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        search.press("Enter")
    page.wait_for_load_state()
    assert answer.value.status != 303 and page.url.endswith("/manage/events/new"), page.url
    page.context.close()


def test_the_image_library_links_show_their_focus(site, browser, signed_state):
    """D17: the Images page's links are inline <a> around a display:block thumbnail: their
    computed outline is the 3px ring, but Chromium paints none (the inline box is empty):
    a keyboard user tabbing through the library sees no focus at all (WCAG 2.4.7)."""
    import io

    import requests
    from PIL import Image

    output = flask_cli(site["database"], "users", "create", "uploader", "--role", "editor")
    headers = basic("uploader", output.strip().splitlines()[-1])
    picture = io.BytesIO()
    Image.new("RGB", (400, 300), (40, 140, 60)).save(picture, "PNG")
    answer = requests.post(
        site["base"] + f"{NS}/media",
        headers=headers,
        files={"file": ("poster.png", picture.getvalue(), "image/png")},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/media/")
    link = page.locator(f"main a[href$='/manage/media/{answer.json()['id']}']")
    box = link.locator("img").bounding_box()
    clip = {
        "x": box["x"] - 8,
        "y": box["y"] - 8,
        "width": box["width"] + 16,
        "height": box["height"] + 16,
    }
    page.mouse.move(0, 0)
    before = page.screenshot(clip=clip)
    link.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    after = page.screenshot(clip=clip)
    changed = before != after
    assert changed, "no visible change when the image's link takes the focus"
    page.context.close()


def test_an_edit_page_title_names_what_it_edits(site, browser, signed_state):
    """D18: every event's form is titled "Edit event · Editor · Events" and every venue's
    "Edit · venue · Editor · Events" (h1 "Edit · venue", read out with its middle dot):
    two tabs of two venues cannot be told apart, nor the page from its title."""
    output = flask_cli(site["database"], "users", "create", "venuemaker", "--role", "editor")
    headers = basic("venuemaker", output.strip().splitlines()[-1])
    status, venue = site["server"].request(
        "POST", f"{NS}/venues", {"venue": "Riverside Hall"}, headers
    )
    assert status == 201, venue
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + f"/manage/venues/{venue['id']}")
    assert "Riverside Hall" in page.title(), page.title()
    page.goto(site["base"] + "/manage/venues/new")
    heading = page.locator("h1").inner_text()
    assert "·" not in heading, heading
    page.context.close()


def test_a_trashed_events_form_does_not_take_typing_it_then_throws_away(
    site, browser, signed_state
):
    """D19: a trashed event's form has every field editable and its Save button; typing and
    pressing Save answers a 409 page "In the trash" with no form, no Restore button, and
    what was typed lost. Either the form cannot be saved (fields disabled, no Save) or
    the refusal keeps what was typed."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Title").fill("Binned")
    page.get_by_label("Start").fill(f"{LATER}T10:00")
    page.get_by_label("End", exact=True).fill(f"{LATER}T11:00")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url("**/manage/events/*")
    form = page.url
    page.get_by_role("button", name="Move to the trash").click()
    page.wait_for_url("**/manage/")
    page.goto(form)
    title = page.get_by_label("Title")
    save = page.locator("form.event-form button:not([hidden]):not([name])")
    if title.is_editable() and save.count() and save.first.is_enabled():
        title.fill("Binned, renamed")
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            save.first.click()
        page.wait_for_load_state()
        kept = page.locator("#title").count() and page.locator("#title").input_value()
        assert kept == "Binned, renamed", (answer.value.status, page.title())
        assert page.get_by_role("button", name="Restore").count() == 1
    page.context.close()


def test_previewing_the_description_does_not_need_a_title(site, browser, signed_state):
    """D20: "Preview the description" is a submit button of the form whose Title is
    `required`: with no title yet the browser refuses to send it ("Please fill out this
    field", focus thrown to Title) - the preview needs `formnovalidate`."""
    page = editor_page(browser, signed_state)
    page.goto(site["base"] + "/manage/events/new")
    page.get_by_label("Description (HTML)").fill("<p>Draft text</p>")
    posted = []
    page.on("request", lambda r: posted.append(r) if r.method == "POST" else None)
    page.get_by_role("button", name="Preview the description").click()
    page.wait_for_timeout(1500)
    page.wait_for_load_state()
    assert posted and page.locator("section.preview").count() == 1, active(page)
    page.context.close()
