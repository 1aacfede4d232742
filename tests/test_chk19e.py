"""chk19e: the editor's event form as a volunteer uses it (SPEC §16), through Flask's
test client: what a form that comes back keeps, and what the form offers to choose."""

import io
import re
from html.parser import HTMLParser

from PIL import Image
from werkzeug.datastructures import MultiDict

from tests.conftest import NS, event_form, saved_id


def png(colour="purple") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(out, "PNG")
    return out.getvalue()


class _Fields(HTMLParser):
    """The fields a browser sends for the page's event form, as it shows them (inputs,
    checked boxes and radios, selected options, textareas; no file)."""

    def __init__(self):
        super().__init__()
        self.fields, self._select, self._textarea, self._in_form = [], None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and "event-form" in (a.get("class") or ""):
            self._in_form = True
        if not self._in_form:
            return
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("file", "submit", "button"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((name, a.get("value", "on")))
            else:
                self.fields.append((name, a.get("value", "")))
        elif tag == "select":
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.fields.append((self._select, a.get("value", "")))
        elif tag == "textarea" and name:
            self._textarea = len(self.fields)
            self.fields.append((name, ""))

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "form":
            self._in_form = False

    def handle_data(self, data):
        if self._textarea is not None:
            name, value = self.fields[self._textarea]
            self.fields[self._textarea] = (name, value + data)


def form_fields(html: str) -> list[tuple[str, str]]:
    parser = _Fields()
    parser.feed(html)
    return parser.fields


def test_an_uploaded_image_is_kept_when_the_form_comes_back_with_an_error(client, admin, sign_in):
    """A volunteer chooses a poster, makes a mistake in the dates (400), corrects it and
    saves: the event has the poster. The brief (and SPEC §16: "with what the user typed
    kept") asks that the form that comes back keep the image choice; today it says "The
    chosen image file was not kept ... choose it again" and the event is saved without it."""
    editor = sign_in("editor")
    data = event_form(editor, title="Poster kept")
    data["end_date"] = data["start_date"].replace("T19:00", "T18:00")  # before the start
    data["image"] = (io.BytesIO(png()), "poster.png")
    back = editor.post("/manage/events/new", data=data, content_type="multipart/form-data")
    assert back.status_code == 400
    fields = [(k, v) for k, v in form_fields(back.get_data(as_text=True)) if k != "end_date"]
    fields.append(("end_date", data["start_date"].replace("T19:00", "T21:00")))
    saved = editor.post(
        "/manage/events/new", data=MultiDict(fields)
    )  # the file input is empty again
    assert saved.status_code == 303, saved.get_data(as_text=True)[:2000]
    event = client.get(f"{NS}/events/{saved_id(saved)}", headers=admin).get_json()
    assert event["image"] is not False, "the poster chosen before the error was dropped"


def test_an_uploaded_image_is_kept_through_the_description_preview(client, admin, sign_in):
    """Preview is a round trip to the server: the file chosen before it is lost, and the
    event saved after the preview has no image."""
    editor = sign_in("editor")
    data = event_form(editor, title="Preview then save", description="<p>Hi</p>", preview="1")
    data["image"] = (io.BytesIO(png("green")), "poster.png")
    shown = editor.post("/manage/events/new", data=data, content_type="multipart/form-data")
    assert shown.status_code == 200
    fields = form_fields(shown.get_data(as_text=True))
    saved = editor.post("/manage/events/new", data=MultiDict(fields))
    assert saved.status_code == 303, saved.get_data(as_text=True)[:2000]
    event = client.get(f"{NS}/events/{saved_id(saved)}", headers=admin).get_json()
    assert event["image"] is not False, "the poster chosen before the preview was dropped"


def _offered(html: str, field: str) -> set[str]:
    """The values the form offers for ``field``: a select's options, or the options of the
    datalist its input names (list=...)."""
    select = re.search(rf'<select[^>]*name="{field}"[^>]*>(.*?)</select>', html, re.S)
    if select:
        return set(re.findall(r'<option[^>]*value="([^"]*)"[^>]*>', select.group(1))) | set(
            o.strip() for o in re.findall(r"<option[^>]*>([^<]*)</option>", select.group(1))
        )
    tag = re.search(rf'<input[^>]*name="{field}"[^>]*>', html)
    assert tag, field
    listed = re.search(r'list="([^"]+)"', tag.group(0))
    if not listed:
        return set()
    datalist = re.search(rf'<datalist[^>]*id="{listed.group(1)}"[^>]*>(.*?)</datalist>', html, re.S)
    return set(re.findall(r'<option[^>]*value="([^"]*)"', datalist.group(1))) if datalist else set()


def test_the_event_form_offers_the_existing_categories_and_tags(client, admin, sign_in):
    """SPEC §16's event form has "organizers, categories, tags" to choose; organizers and
    venues are offered, but categories and tags are bare text inputs: a volunteer cannot
    see which exist, so "Concerts" typed where "Concert" exists makes a second category."""
    for kind, name in (("categories", "Concert"), ("tags", "Family")):
        made = client.post(f"{NS}/{kind}", json={"name": name}, headers=admin)
        assert made.status_code == 201
    page = sign_in("editor").get("/manage/events/new").get_data(as_text=True)
    assert "Concert" in _offered(page, "categories")
    assert "Family" in _offered(page, "tags")


def test_the_event_form_offers_timezones_to_choose(sign_in):
    """The timezone is a bare text input: nothing offers Europe/Paris or the other names
    the field accepts ("europe/paris" is refused), so the volunteer must know the exact
    IANA spelling."""
    page = sign_in("editor").get("/manage/events/new").get_data(as_text=True)
    assert "Europe/Paris" in _offered(page, "timezone")


def test_a_series_edit_page_says_it_changes_every_date_and_leads_to_each_one(
    client, admin, sign_in
):
    """Editing one occurrence vs. the whole series (SPEC §12, §16): an occurrence's page says
    "This event is one date of a series ... Edit the series", but the series' own page says
    nothing: a volunteer who opens it to change one date (it is the first date in the
    list) changes every date, and the page offers no way to reach a single date."""
    editor = sign_in("editor")
    saved = editor.post(
        "/manage/events/new",
        data=event_form(editor, title="Weekly choir", repeat_freq="WEEKLY", repeat_count="3"),
    )
    assert saved.status_code == 303
    series = saved_id(saved)
    occurrences = client.get(
        f"{NS}/events", query_string={"post_parent": series}, headers=admin
    ).get_json()["events"]
    assert len(occurrences) == 2
    page = editor.get(f"/manage/events/{series}").get_data(as_text=True)
    for occurrence in occurrences:
        assert f'href="/manage/events/{occurrence["id"]}"' in page


# --- in the real browser (Chromium, a real gunicorn) -----------------------------------


def test_a_trashed_events_page_has_no_serious_axe_violation(database, admin_auth, tmp_path):
    """SPEC §16 "Accessible ... as §15": a trashed event's page shows its form read-only (a
    disabled fieldset), and with a library of a few dozen images the picker is a scrolling
    list whose radios are disabled: axe reports `scrollable-region-focusable` (serious), a
    keyboard user cannot scroll it. The same form, not trashed, has no violation."""
    import requests
    from axe_playwright_python.sync_playwright import Axe

    from tests.helpers import Server, chromium, flask_cli

    server = Server(database, workers=1, UPLOAD_FOLDER=str(tmp_path / "uploads"))
    try:
        for n in range(30):
            made = requests.post(
                f"{server.base}{NS}/media",
                files={"file": (f"p{n}.png", png((n * 8, 90, 160)), "image/png")},
                headers=admin_auth,
            )
            assert made.status_code == 201, made.text
        event = requests.post(
            f"{server.base}{NS}/events",
            json={"title": "Gone", "start_date": "tomorrow 7pm", "end_date": "tomorrow 9pm"},
            headers=admin_auth,
        ).json()
        assert requests.delete(f"{server.base}{NS}/events/{event['id']}", headers=admin_auth).ok
        link = flask_cli(database, "users", "login-link", "admin").strip().splitlines()[-1]
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(server.base + "/" + link.split("://", 1)[1].split("/", 1)[1])
            page.get_by_label("New password").fill("a long enough password")
            page.get_by_label("The same password again").fill("a long enough password")
            page.get_by_role("button", name="Set the password").click()
            page.goto(f"{server.base}/manage/events/{event['id']}")
            violations = [
                (v["id"], v["nodes"][0]["html"][:80])
                for v in Axe().run(page).response["violations"]
                if v["impact"] in ("serious", "critical")
            ]
            assert violations == []
    finally:
        server.stop()


def test_an_edited_date_is_not_deleted_for_good_when_the_rule_drops_it(client, admin, sign_in):
    """A volunteer edits one date of a weekly Wednesday+Friday series (a guest on that
    Friday), later unticks Friday on the series: the edited date vanishes for good (404
    rest-event-not-found), not even in the trash. SPEC §12 keeps edited occurrences "when
    their date still occurs" and, when the recurrence ends, makes them ordinary events; one
    whose date no longer occurs deserves at least the trash, not silent permanent loss."""
    editor = sign_in("editor")
    start = "2027-05-05"  # a Wednesday
    saved = editor.post(
        "/manage/events/new",
        data=event_form(
            editor,
            title="Rehearsal",
            start_date=f"{start}T18:30",
            end_date=f"{start}T20:00",
            repeat_freq="WEEKLY",
            repeat_days=["WE", "FR"],
            repeat_count="4",
        ),
    )
    assert saved.status_code == 303
    series = saved_id(saved)
    listing = client.get(
        f"{NS}/events",
        query_string={"post_parent": series, "start_date": "2027-01-01", "end_date": "2027-12-31"},
        headers=admin,
    ).get_json()["events"]
    friday = next(e for e in listing if e["start_date"].startswith("2027-05-07"))
    page = editor.get(f"/manage/events/{friday['id']}").get_data(as_text=True)
    fields = [(k, v) for k, v in form_fields(page) if k != "title"] + [("title", "Guest night")]
    assert editor.post(f"/manage/events/{friday['id']}", data=MultiDict(fields)).status_code == 303
    page = editor.get(f"/manage/events/{series}").get_data(as_text=True)
    fields = [(k, v) for k, v in form_fields(page) if not (k == "repeat_days" and v == "FR")]
    assert editor.post(f"/manage/events/{series}", data=MultiDict(fields)).status_code == 303
    rule = client.get(f"{NS}/events/{series}", headers=admin).get_json()["recurrence"]
    assert rule == ["RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=4"]
    answer = client.get(f"{NS}/events/{friday['id']}", headers=admin)
    assert answer.status_code != 404, "the edited date was deleted for good"
