"""Checker chk19b: the public views and the editor as a visitor and a volunteer use them
(SPEC §15, §16). Each test fails on the code as found for the defect it names."""

import re
from datetime import date, timedelta

from tests.conftest import event_form, saved_id


def _new_form(editor, prefix=""):
    """The new-event form as a browser has it: its hidden fields (form_id) and the
    defaults a browser sends (the "Monthly on" select's selected option)."""
    html = editor.get(f"{prefix}/manage/events/new").get_data(as_text=True)
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))
    return html, hidden


def test_a_new_event_with_raw_recurrence_lines_only_is_saved(sign_in):
    """SPEC §16: "`recurrence` takes the raw lines". The "Repeats" select left at its
    default, "Does not repeat (or the lines below)", and a rule typed in the lines: the
    form answered 400 "“Repeats” and the lines below say different things"."""
    editor = sign_in("administrator", "chief")
    _html, hidden = _new_form(editor)
    data = event_form(
        editor,
        **hidden,
        repeat_freq="",
        repeat_monthly="day",
        repeat_until="",
        repeat_count="",
        recurrence="RRULE:FREQ=WEEKLY;COUNT=3",
    )
    answer = editor.post("/manage/events/new", data=data)
    assert answer.status_code == 303, re.findall(
        r'class="error"[^>]*>([^<]*)', answer.get_data(as_text=True)
    )
    event = saved_id(answer)
    page = editor.get(f"/manage/events/{event}").get_data(as_text=True)
    assert "FREQ=WEEKLY" in page


def test_a_library_image_picked_after_the_form_came_back_is_the_one_saved(client, admin, sign_in):
    """A volunteer uploads a poster, the form comes back for a mistake ("Kept: a.png"),
    then, changing their mind, clicks a picture of the library and saves: the kept file
    was saved and linked instead, the explicit later choice silently ignored (and the
    library gained one more image). A pick made after the form came back is the user's
    latest choice; the kept file should give way to it (or the form say why not)."""
    import io

    from tests.helpers import image_bytes, uploaded
    from tests.test_editor import untouched

    library = uploaded(client, admin, image_bytes(colour=(10, 200, 10)), name="green.jpg")
    editor = sign_in("editor", "pia")
    back = editor.post(
        "/manage/events/new",
        data={
            **event_form(editor, title=""),
            "image": (io.BytesIO(image_bytes(colour=(200, 10, 10))), "a.jpg"),
        },
        content_type="multipart/form-data",
    )
    assert back.status_code == 400 and 'id="image-kept-note"' in back.get_data(as_text=True)
    data = untouched(
        editor, "/manage/events/new", page=back, title="Poster", image_library=str(library["id"])
    )
    saved = editor.post("/manage/events/new", data=data)
    assert saved.status_code == 303, saved.get_data(as_text=True)[:300]
    event = client.get(
        f"/wp-json/tribe/events/v1/events/{saved_id(saved)}", headers=admin
    ).get_json()
    assert event["image"]["id"] == library["id"]


def test_an_image_kept_on_one_host_is_saved_through_another(database, tmp_path):
    """SPEC §14: several hosts share one database, and docs/deploy.md "Several hosts" gives
    them a shared UPLOAD_FOLDER, each its own instance folder. The editor keeps an image
    file chosen on a form that comes back (its error) in the instance folder
    (``instance/kept-images``, app/editor/kept_images.py): when the corrected form reaches
    the other host behind the load balancer, it answered 400 "The image file kept from
    before is no longer there: choose it again" and the volunteer's poster was lost."""
    import io

    import requests

    from tests.helpers import Server, flask_cli, image_bytes

    shared = tmp_path / "uploads"
    shared.mkdir()
    folders = [tmp_path / "host-a", tmp_path / "host-b"]
    for folder in folders:
        folder.mkdir()
    flask_cli(database, "users", "create", "vol", "--role", "editor")
    hosts = [
        Server(database, workers=1, CALENDAR_INSTANCE=folder, UPLOAD_FOLDER=shared)
        for folder in folders
    ]
    try:
        first, second = hosts
        link = flask_cli(database, "users", "login-link", "vol").strip().splitlines()[-1]
        path = "/manage/" + link.split("/manage/", 1)[1]
        session = requests.Session()
        form = session.get(first.base + path).text
        token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
        password = "correct horse battery"
        done = session.post(
            first.base + path,
            data={"csrf_token": token, "password": password, "password_again": password},
            allow_redirects=False,
        )
        assert done.status_code == 303
        page = session.get(first.base + "/manage/events/new").text
        hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
        day = date.today() + timedelta(days=5)
        fields = {
            **hidden,
            "title": "Poster on two hosts",
            "start_date": f"{day}T19:00",
            "end_date": f"{day}T18:00",  # a mistake: the form comes back
            "timezone": "UTC",
            "status": "publish",
        }
        back = session.post(
            first.base + "/manage/events/new",
            data=fields,
            files={"image": ("poster.jpg", io.BytesIO(image_bytes()), "image/jpeg")},
            allow_redirects=False,
        )
        assert back.status_code == 400 and 'id="image-kept-note"' in back.text
        again = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', back.text))
        fixed = {**fields, **again, "end_date": f"{day}T21:00"}
        saved = session.post(second.base + "/manage/events/new", data=fixed, allow_redirects=False)
        assert saved.status_code == 303, re.findall(r'class="error"[^>]*>([^<]*)', saved.text)
    finally:
        for host in hosts:
            host.stop()


def test_a_bad_image_file_does_not_hide_the_date_mistake(sign_in):
    """SPEC §16: "field errors … shown next to the field". A form with a file that is no
    image and an end before its start came back naming the image alone; fixed, it came
    back again for the dates (a bad image beside a bad website names both)."""
    import io

    editor = sign_in("administrator", "chief")
    answer = editor.post(
        "/manage/events/new",
        data={
            **event_form(editor, end_date=f"{date.today() + timedelta(days=4)}T10:00"),
            "image": (io.BytesIO(b"not an image"), "a.png"),
        },
        content_type="multipart/form-data",
    )
    errors = re.findall(r'class="error"[^>]*>([^<]*)', answer.get_data(as_text=True))
    assert answer.status_code == 400
    assert any("image" in e for e in errors), errors
    assert any("end date" in e for e in errors), errors
