"""chk20s: an outside check of the twentieth session's changes (title keys, slugs ending
in "-", import-tec's post_parent, the past list from a picked day, the repeats builder)."""

import re

import pytest
import requests

from store.models import Event, Term, Venue
from tests.conftest import NS
from tests.databases import drop_database, fresh_database
from tests.helpers import Server, chromium, flask_cli, store_older_slug

HTML = {"Accept": "text/html"}
WP = "/wp-json/wp/v2"


def _heading(answer) -> str:
    found = re.search(r"<h1[^>]*>(.*?)</h1>", answer.get_data(as_text=True), re.S)
    return found.group(1).strip() if found else ""


def _followed(client, path: str):
    answer = client.get(path, headers=HTML)
    for _ in range(3):
        if answer.status_code not in (301, 302, 303, 307, 308):
            break
        answer = client.get(
            answer.headers["Location"].replace("http://localhost", ""), headers=HTML
        )
    return answer


# D1 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/events/?eventDisplay=past&eventDate=2025-01-01",
        "/events/list/?eventDisplay=past&eventDate=2025-01-01",
        "/?post_type=tribe_events&eventDisplay=past&eventDate=2025-01-01",
    ],
)
def test_the_past_list_from_an_event_date_is_the_list_before_that_day(client, make_event, path):
    """SPEC §14: ``?past=1`` (or ``eventDisplay=past``) lists past events; this session made
    the past list from a picked day ("Events before <day>") and ``/events/?past=1&eventDate=DAY``
    reaches it (301 to ``tribe-bar-date``). The plugin's own spelling of the same question,
    ``eventDisplay=past&eventDate=DAY``, and the embed/term views with ``eventDate``, drop the
    day: they answer the past list as of now (an event of 2026-06 listed as before 2025)."""
    make_event(
        title="Before the day", start_date="2020-03-10 10:00", end_date="2020-03-10 11:00",
        categories=["Music"],
    )  # fmt: skip
    make_event(
        title="After the day", start_date="2025-06-10 10:00", end_date="2025-06-10 11:00",
        categories=["Music"],
    )  # fmt: skip
    same = _followed(client, "/events/?past=1&eventDate=2025-01-01")
    assert same.status_code == 200 and "January 1, 2025" in _heading(same)
    answer = _followed(client, path)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200, answer.status_code
    assert "January 1, 2025" in _heading(answer), _heading(answer)
    assert "Before the day" in body
    assert "After the day" not in body


@pytest.mark.parametrize(
    "path",
    [
        "/events/embed/?past=1&eventDate=2025-01-01",
        "/events/category/music/?past=1&eventDate=2025-01-01",
    ],
)
def test_the_embedded_and_term_past_lists_read_an_event_date_as_the_list_does(
    client, make_event, path
):
    """D1b: the list view reads ``?past=1&eventDate=DAY`` as the past list before DAY (301 to
    ``tribe-bar-date``); the embed (SPEC §14: "the list view without the site's frame") and
    a term's list drop the day and answer the past list as of now."""
    for title, day in (("Before the day", "2020-03-10"), ("After the day", "2025-06-10")):
        make_event(
            title=title, start_date=f"{day} 10:00", end_date=f"{day} 11:00", categories=["Music"]
        )
    answer = _followed(client, path)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200, answer.status_code
    assert "January 1, 2025" in _heading(answer), _heading(answer)
    assert "Before the day" in body and "After the day" not in body


def test_a_bad_event_date_on_the_embedded_past_list_is_a_400_page(client):
    """The list view refuses ``?past=1&eventDate=bad`` (301, then a 400 page); the embed
    view answers 200 with the past list as of now: the same address query, read two ways."""
    assert _followed(client, "/events/?past=1&eventDate=bad").status_code == 400
    answer = client.get("/events/embed/?past=1&eventDate=bad", headers=HTML)
    assert answer.status_code == 400, answer.status_code


# D2 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("root", [f"{NS}/categories", f"{WP}/tribe_events_cat"])
def test_a_slug_filter_ending_in_a_dash_names_one_term_not_two(app, client, admin, root):
    """store/posts.py::term_slugs_asked now asks ``kay-`` AND ``kay`` for ``?slug=kay-``: the
    term listing widens to two terms, where the same address's other readers (the term's
    page ``/events/category/kay-/``, ``?categories=kay-``, by-slug) name the one stored as
    ``kay-`` alone, and before this session the listing named ``kay`` alone."""
    kay = client.post(f"{NS}/categories", json={"name": "Kay"}, headers=admin).get_json()
    old = client.post(f"{NS}/categories", json={"name": "Kay old"}, headers=admin).get_json()
    store_older_slug(app, Term, old["id"], "kay-")
    answer = client.get(root, query_string={"slug": "kay-", "hide_empty": "false"})
    assert answer.status_code == 200
    body = answer.get_json()
    terms = body["categories"] if isinstance(body, dict) else body
    assert [t["id"] for t in terms] == [old["id"]], [(t["id"], t["slug"]) for t in terms]
    assert kay["id"] != old["id"]


# D3 -------------------------------------------------------------------------------------


def test_an_address_ending_in_a_dash_still_shows_the_published_event_beside_a_draft(
    app, client, make_event
):
    """Before this session ``/event/x-/`` showed the published event ``x`` (the trimmed
    slug, as WordPress reads it). Now a draft whose older slug is ``x-`` is found first and
    the page is a 404 (the API's by-slug a 403 "not accessible": the draft's existence told
    to an anonymous caller). A slug the caller may not read should not hide the one it may."""
    make_event(title="Published x", slug="x")
    draft = make_event(title="Draft x", status="draft")
    store_older_slug(app, Event, draft["id"], "x-")
    before = client.get("/event/x-/", headers=HTML)
    assert before.status_code == 200, before.status_code
    assert "Published x" in before.get_data(as_text=True)
    by_slug = client.get(f"{NS}/events/by-slug/x-")
    assert by_slug.status_code == 200 and by_slug.get_json()["title"] == "Published x"


def test_a_venue_address_ending_in_a_dash_still_shows_the_published_venue_beside_a_draft(
    app, client, admin
):
    """D3 for venues: a draft venue whose older slug is ``hall-`` hides the published venue
    ``hall`` that ``/venue/hall-/`` showed before this session (now a 404 page)."""
    published = client.post(f"{NS}/venues", json={"venue": "Hall"}, headers=admin).get_json()
    draft = client.post(
        f"{NS}/venues", json={"venue": "Hall draft", "status": "draft"}, headers=admin
    ).get_json()
    store_older_slug(app, Venue, draft["id"], "hall-")
    assert published["slug"] == "hall"
    page = client.get("/venue/hall-/", headers=HTML)
    assert page.status_code == 200, page.status_code
    assert "<h1>Hall</h1>" in page.get_data(as_text=True)


# D4 -------------------------------------------------------------------------------------

PASSWORD = "a long enough password"
# A start typed with its own UTC offset: Tuesday 23:30 in New York's winter offset is
# Wednesday 05:30 in Paris, the event's zone, where the API (and the builder without its
# script, event_form.py::start_day) places its day.
OFFSET_START = "2027-03-16T23:30:00-05:00"
OFFSET_END = "2027-03-17T08:00:00+01:00"


@pytest.fixture(scope="module")
def live_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chk20s")
    database = fresh_database(folder)
    flask_cli(database, "migrate")
    flask_cli(database, "users", "create", "edna", "--role", "editor")
    server = Server(database, workers=1)
    yield {"base": server.base, "database": database}
    server.stop()
    drop_database(database)


@pytest.fixture(scope="module")
def chrome():
    with chromium() as launched:
        yield launched


def _editor_page(site, browser):
    output = flask_cli(site["database"], "users", "login-link", "edna")
    link = output.strip().splitlines()[-1]
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(site["base"] + path)
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("The same password again").fill(PASSWORD)
    page.get_by_role("button", name="Set the password").click()
    page.goto(site["base"] + "/manage/events/new")
    # A browser without date inputs (as tests/test_editor_browser.py makes one).
    page.evaluate(
        """() => { for (const id of ["start_date", "end_date"])
            document.getElementById(id).type = "text"; }"""
    )
    return page


@pytest.mark.browser
def test_with_the_script_a_weekly_series_repeats_on_the_starts_weekday_in_its_zone(
    live_site, chrome
):
    """The builder's script reads the start's day from its first ten characters
    (editor.js::startDay), ignoring the offset typed with it and the event's zone: it ticks
    Tuesday for a start the API places on Wednesday in Europe/Paris. Saved: Wednesday
    2027-03-17, then Tuesdays (RRULE BYDAY=TU). Without the script the same form repeats on
    Wednesdays (the server ticks the start's weekday, event_form.py::with_start_weekday)."""
    page = _editor_page(live_site, chrome)
    page.locator("#title").fill("Offset weekly")
    page.locator("#timezone").fill("Europe/Paris")
    page.get_by_label("Repeats", exact=True).select_option("WEEKLY")
    page.locator("#start_date").fill(OFFSET_START)
    page.locator("#end_date").fill(OFFSET_END)
    page.locator("#repeat_count").fill("3")
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    page.context.close()
    listed = requests.get(
        f"{live_site['base']}{NS}/events",
        params={"search": "Offset weekly", "start_date": "2027-01-01"},
        timeout=30,
    ).json()["events"]
    days = [e["start_date"][:10] for e in listed]
    assert days == ["2027-03-17", "2027-03-24", "2027-03-31"], (days, listed[0]["recurrence"])


@pytest.mark.browser
def test_with_the_script_the_monthly_choices_name_the_day_the_event_gets(live_site, chrome):
    """The form shown again (no title) names the start's day as the server reads it (day 17,
    the third Wednesday, in Europe/Paris). Typing the same start again, the script renames
    the choices "day 16" and "the third Tuesday", which is not what saving writes (3WE)."""
    page = _editor_page(live_site, chrome)
    page.evaluate('() => document.getElementById("title").removeAttribute("required")')
    page.locator("#timezone").fill("Europe/Paris")
    page.get_by_label("Repeats", exact=True).select_option("MONTHLY")
    page.locator("#start_date").fill(OFFSET_START)
    page.locator("#end_date").fill(OFFSET_END)
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    options = page.locator("#repeat_monthly option")
    shown = options.all_inner_texts()
    assert "the third Wednesday" in " ".join(shown), shown
    page.locator("#start_date").fill(OFFSET_START)  # the same start, typed again
    again = options.all_inner_texts()
    page.context.close()
    assert again == shown, again
