"""chk17e: an outside checker's findings on the editor (SPEC §16), each a test that fails
on the code as it was found and passes once the defect is fixed."""

from datetime import date, timedelta

import pytest

from tests.conftest import NS, event_form
from tests.test_editor_browser import browser, signed_in, site  # noqa: F401 (fixtures)

START = date.today() + timedelta(days=30)


def test_repeat_builder_refuses_both_until_and_count(client, sign_in, admin):
    """The builder offers "Until" and "Or a number of times"; a user who fills both must be
    told to choose one (the API refuses COUNT with UNTIL), not have the date silently
    dropped."""
    editor = sign_in("editor")
    before = client.get(f"{NS}/events?status=publish,draft&per_page=1", headers=admin).headers[
        "X-WP-Total"
    ]
    answer = editor.post(
        "/manage/events/new",
        data=event_form(editor, repeat_freq="WEEKLY", repeat_count="3", repeat_until="2099-03-01"),
    )
    assert answer.status_code == 400, answer.headers.get("Location")
    after = client.get(f"{NS}/events?status=publish,draft&per_page=1", headers=admin).headers[
        "X-WP-Total"
    ]
    assert before == after


def test_ending_a_series_does_not_claim_its_edited_date_was_deleted(client, sign_in, admin):
    """SPEC §12: ending the recurrence deletes the occurrences "except individually edited
    ones, which become ordinary events". The API keeps the edited date (post_parent 0);
    the editor's confirmation must not tell the user it was deleted."""
    from tests.test_editor import untouched

    editor = sign_in("editor")
    series = client.post(
        f"{NS}/events",
        json={
            "title": "Weekly class",
            "start_date": f"{START} 10:00",
            "end_date": f"{START} 11:00",
            "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=4"],
        },
        headers=admin,
    ).get_json()
    dates = client.get(f"{NS}/events?post_parent={series['id']}&start_date={START}", headers=admin)
    third = dates.get_json()["events"][1]["id"]
    assert (
        client.post(
            f"{NS}/events/{third}", json={"title": "Class moved"}, headers=admin
        ).status_code
        == 200
    )

    path = f"/manage/events/{series['id']}"
    answer = editor.post(path, data=untouched(editor, path, repeat_freq="", recurrence=""))
    assert answer.status_code == 303
    page = editor.get(answer.headers["Location"]).get_data(as_text=True)

    kept = client.get(f"{NS}/events/{third}", headers=admin)
    assert kept.status_code == 200 and kept.get_json()["post_parent"] == 0  # as SPEC §12 says
    assert "Class moved" not in page or "deleted" not in page, page[page.find("<main") :][:1500]


def test_two_venues_of_one_name_can_be_told_apart_in_the_event_form(client, sign_in, admin):
    """SPEC §16: the event form lets the user choose a venue. Two venues named alike
    (a "Town Hall" in two cities; organizers with one name and different emails) are
    offered as identical choices, so the user cannot tell which one they pick."""
    import re

    for city in ("Lyon", "Paris"):
        made = client.post(f"{NS}/venues", json={"venue": "Town Hall", "city": city}, headers=admin)
        assert made.status_code == 201, made.get_json()
    editor = sign_in("editor")
    page = editor.get("/manage/events/new").get_data(as_text=True)
    select = page[page.find('name="venue"') :]
    select = select[: select.find("</select>")]
    labels = [
        text.strip() for value, text in re.findall(r'<option value="(\d+)"[^>]*>([^<]*)', select)
    ]
    town_halls = [label for label in labels if label.startswith("Town Hall")]
    assert len(town_halls) == 2
    assert town_halls[0] != town_halls[1], town_halls


@pytest.mark.browser
@pytest.mark.parametrize("kind", ["venues", "organizers"])
def test_the_name_field_is_found_by_its_label_alone(site, browser, kind):  # noqa: F811
    """SPEC §16: "every field has a visible label". A test (or a screen-reader user's "go to
    field Name") finds the venue's or organizer's name by its label "Name"; the image
    search's label "Search the library: a file name, or the name of what shows it" also
    answers to "Name", so `get_by_label("Name")` meets two fields and cannot fill the form."""
    page = signed_in(site, browser, "edna")
    try:
        page.goto(site["base"] + f"/manage/{kind}/new")
        assert page.get_by_label("Name").count() == 1
        page.get_by_label("Name").fill("Riverside Hall")
        page.get_by_role("button", name="Save").click()
        assert "/new" not in page.url
    finally:
        page.context.close()


def test_remove_the_protection_with_a_new_password_typed_is_not_silently_ignored(
    client, sign_in, admin
):
    """The event form has "Password (empty: unchanged)" and "Remove the protection". A user
    who ticks "Remove the protection" (and left text in the password box) is told "Saved."
    while the event stays protected: the tick is dropped without a word. Either the two
    are refused together (400, nothing changed) or the protection goes."""
    from tests.test_editor import untouched

    editor = sign_in("editor")
    made = client.post(
        f"{NS}/events",
        json={
            "title": "Members night",
            "start_date": f"{START} 19:00",
            "end_date": f"{START} 21:00",
            "password": "first-pass",
        },
        headers=admin,
    ).get_json()
    path = f"/manage/events/{made['id']}"
    answer = editor.post(
        path, data=untouched(editor, path, password="second-pass", clear_password="on")
    )
    anonymous = client.get(f"{NS}/events/{made['id']}")
    if answer.status_code == 400:
        assert client.get(f"{NS}/events/{made['id']}?password=first-pass").status_code == 200
    else:
        assert anonymous.status_code == 200, (answer.status_code, anonymous.get_json())


def test_a_contributor_whose_event_was_approved_meanwhile_gets_back_all_they_typed(
    client, sign_in, as_role, admin
):
    """README/SPEC §16: "A contributor whose event an editor approved meanwhile is told so, with
    what they typed." The page shows the title and the description only: a new cost, website,
    tags or dates typed into the form are lost."""
    from tests.test_editor import untouched

    contributor = sign_in("contributor")
    made = client.post(
        f"{NS}/events",
        json={
            "title": "Race day",
            "start_date": f"{START} 10:00",
            "end_date": f"{START} 11:00",
            "status": "pending",
        },
        headers=as_role("contributor"),
    ).get_json()
    path = f"/manage/events/{made['id']}"
    form = untouched(
        contributor, path, cost="77", website="https://mine.example/typed", tags="kids-corner"
    )
    assert (
        client.post(
            f"{NS}/events/{made['id']}", json={"status": "publish"}, headers=admin
        ).status_code
        == 200
    )
    answer = contributor.post(path, data=form)
    page = answer.get_data(as_text=True)
    assert "was published" in page or answer.status_code in (403, 409)
    for typed in ("77", "https://mine.example/typed", "kids-corner"):
        assert typed in page, (typed, page[page.find("<main") :][:800])


@pytest.mark.parametrize("typed", [{"repeat_until": "2099-06-01"}, {"repeat_count": "3"}])
def test_a_repeat_end_typed_without_a_frequency_is_not_silently_dropped(
    client, sign_in, admin, typed
):
    """The builder's "Until" and "Or a number of times" are shown (with and without
    script) while "Repeats" says "Does not repeat". A user who fills them but forgets the
    frequency is told "Saved." and gets an event that does not repeat; the form should say
    what is missing (400) rather than drop what was typed."""
    editor = sign_in("editor")
    answer = editor.post("/manage/events/new", data=event_form(editor, repeat_freq="", **typed))
    if answer.status_code == 303:
        made = client.get(
            f"{NS}/events/{answer.headers['Location'].rstrip('/').split('/')[-1]}", headers=admin
        )
        assert made.get_json()["recurrence"], "the typed repeat was dropped without a word"
    else:
        assert answer.status_code == 400


@pytest.mark.browser
def test_a_small_image_is_not_blown_up_on_the_event_page(site, browser):  # noqa: F811
    """SPEC §15: the event page shows "the image (sized with srcset from the image's sizes)".
    A 400 × 300 upload is given `sizes="… 800px"` with candidates of 300w and 400w, so the
    browser takes the 400w file at density 0.5: the image is drawn twice its pixel size
    (768 px wide on a desktop), blurred, and its naturalWidth reads 800, not the file's 400."""
    import requests

    from tests.helpers import flask_cli, image_bytes

    password = flask_cli(site["database"], "users", "create", "imgadmin", "--role", "administrator")
    auth = ("imgadmin", password.strip().splitlines()[-1])
    base = site["base"]
    media = requests.post(
        f"{base}{NS}/media",
        auth=auth,
        files={"file": ("small.png", image_bytes("PNG", (400, 300)), "image/png")},
    ).json()
    event = requests.post(
        f"{base}{NS}/events",
        auth=auth,
        json={
            "title": "Small picture",
            "start_date": f"{START} 19:00",
            "end_date": f"{START} 20:00",
            "image": media["id"],
        },
    ).json()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(base + "/" + event["url"].split("/", 3)[3])
        image = page.locator("main img").first
        image.wait_for()
        page.wait_for_function("document.querySelector('main img').complete")
        natural, shown = image.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
        assert natural == 400, natural
        assert shown <= 400, shown
    finally:
        context.close()


def test_an_editor_post_that_omits_the_venue_keeps_it(client, sign_in, admin):
    """SPEC §16: the form's fields carry the API's names and go through the same write path;
    SPEC §4: an update is partial, "an omitted field is unchanged". A post to an event's
    edit address with only the field being changed (as a script or a test would send it,
    without the form's hidden `shown` state) keeps the cost, categories and description
    but silently removes the venue and the organizers (and unsets featured / sticky /
    hide_from_listings)."""
    venue = client.post(f"{NS}/venues", json={"venue": "Riverside Hall"}, headers=admin).get_json()[
        "id"
    ]
    organizer = client.post(
        f"{NS}/organizers", json={"organizer": "Friends of Jazz"}, headers=admin
    ).get_json()["id"]
    made = client.post(
        f"{NS}/events",
        json={
            "title": "Quartet",
            "start_date": f"{START} 19:00",
            "end_date": f"{START} 21:00",
            "venue": venue,
            "organizer": [organizer],
            "cost": "5",
        },
        headers=admin,
    ).get_json()
    editor = sign_in("editor")
    answer = editor.post(
        f"/manage/events/{made['id']}", data={"csrf_token": editor.token, "title": "Quartet live"}
    )
    assert answer.status_code == 303
    event = client.get(f"{NS}/events/{made['id']}", headers=admin).get_json()
    assert event["title"] == "Quartet live" and event["cost"] == made["cost"]
    assert isinstance(event["venue"], dict) and event["venue"]["id"] == venue, event["venue"]
    assert [o["id"] for o in event["organizer"]] == [organizer]
