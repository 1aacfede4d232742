"""chk20e: an outside check of the editor (SPEC §16) from a volunteer's session."""

import html
import re

from tests.conftest import FORM_DAY, NS


def _stored(client, admin, event_id: int) -> dict:
    """The event as the API lists it to an administrator, whatever its status (a trashed
    event's own address answers that it is no longer available)."""
    listed = client.get(
        f"{NS}/events?status=publish,pending,draft,future,private,trash&per_page=50"
        "&start_date=2000-01-01&end_date=2100-01-01",
        headers=admin,
    ).get_json()["events"]
    return next(event for event in listed if event["id"] == event_id)


WHEN = {"start_date": f"{FORM_DAY}T19:00", "end_date": f"{FORM_DAY}T21:00", "timezone": "UTC"}


def _hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    return html.unescape(found.group(1)) if found else ""


def test_a_new_event_form_sent_again_does_not_take_its_event_out_of_the_trash(
    client, sign_in, as_role
):
    """A new event's form is saved (with its form id, as the page gives it), the event is then
    moved to the trash (another tab, another editor), and the old form is sent again (Back
    then Save with JavaScript, or the browser resending it). The edit form of a trashed
    event refuses a save ("In the trash ... Restore it to edit it", 409), but the resent new
    form wrote into the trashed event, took it out of the trash and published it, unseen."""
    admin = as_role("administrator", "boss")
    editor = sign_in("editor", "ella")
    form = editor.get("/manage/events/new").get_data(as_text=True)
    data = {"csrf_token": editor.token, "title": "Trashed later", "status": "publish", **WHEN}
    data["form_id"] = _hidden(form, "form_id")
    made = editor.post("/manage/events/new", data=data)
    assert made.status_code == 303
    event_id = int(made.headers["Location"].split("?")[0].rstrip("/").split("/")[-1])
    trashed = editor.post(f"/manage/events/{event_id}/trash", data={"csrf_token": editor.token})
    assert trashed.status_code in (200, 303)
    assert _stored(client, admin, event_id)["status"] == "trash"

    editor.post("/manage/events/new", data={**data, "title": "Sent again"})

    stored = _stored(client, admin, event_id)
    assert stored["status"] == "trash"
    assert stored["title"] == "Trashed later"
    assert client.get(f"{NS}/events/{event_id}").status_code != 200


def test_a_contributors_resent_new_form_does_not_undo_an_editors_trash(client, sign_in, as_role):
    """A contributor submits an event (pending review); an editor moves it to the trash; the
    contributor's new-event form sent again (Back then Save, a resend) put the event back in
    the review queue with the new title: the editor's trash undone without a Restore."""
    admin = as_role("administrator", "boss")
    contributor = sign_in("contributor", "cora")
    editor = sign_in("editor", "ella")
    form = contributor.get("/manage/events/new").get_data(as_text=True)
    data = {"csrf_token": contributor.token, "title": "Submitted", "status": "publish", **WHEN}
    data["form_id"] = _hidden(form, "form_id")
    made = contributor.post("/manage/events/new", data=data)
    assert made.status_code == 303
    event_id = int(made.headers["Location"].split("?")[0].rstrip("/").split("/")[-1])
    assert _stored(client, admin, event_id)["status"] == "pending"
    editor.post(f"/manage/events/{event_id}/trash", data={"csrf_token": editor.token})
    assert _stored(client, admin, event_id)["status"] == "trash"

    contributor.post("/manage/events/new", data={**data, "title": "Submitted again"})

    stored = _stored(client, admin, event_id)
    assert (stored["status"], stored["title"]) == ("trash", "Submitted")


def test_a_contributors_resent_new_form_after_approval_says_nothing_was_saved(
    client, sign_in, as_role
):
    """A contributor submits an event through the new-event form; an editor approves it;
    the contributor's form, changed after Back and sent again, answered a 303 to the
    dashboard with no word: the change was dropped unseen. The edit form in the same case
    says "You may no longer edit this event ... Nothing was saved. What you typed is below"
    (409), and README: "A contributor whose event an editor approved meanwhile is told so,
    with what they typed"."""
    admin = as_role("administrator", "boss")
    contributor = sign_in("contributor", "cora")
    editor = sign_in("editor", "ella")
    form = contributor.get("/manage/events/new").get_data(as_text=True)
    data = {"csrf_token": contributor.token, "title": "Choir night", "status": "publish", **WHEN}
    data["form_id"] = _hidden(form, "form_id")
    made = contributor.post("/manage/events/new", data=data)
    assert made.status_code == 303
    event_id = int(made.headers["Location"].split("?")[0].rstrip("/").split("/")[-1])
    approved = editor.post(f"/manage/events/{event_id}/approve", data={"csrf_token": editor.token})
    assert approved.status_code in (200, 303)
    assert _stored(client, admin, event_id)["status"] == "publish"

    again = contributor.post(
        "/manage/events/new", data={**data, "title": "Choir night, new hall"}, follow_redirects=True
    )

    assert _stored(client, admin, event_id)["title"] == "Choir night"
    page = again.get_data(as_text=True)
    assert again.status_code >= 400, "a dashboard that says nothing, the change dropped"
    assert "Choir night, new hall" in page  # what was typed, kept


def test_a_new_event_form_resent_after_its_event_was_deleted_keeps_what_was_typed(
    client, sign_in, as_role
):
    """An editor's new-event form made an event, which was then deleted for good; the form,
    changed after Back and sent again, led to the dashboard with no word and nothing saved:
    what was typed was lost. SPEC §16: a form posted answers with a redirect to the saved
    item's edit page (303) or with the form again and its errors."""
    admin = as_role("administrator", "boss")
    editor = sign_in("editor", "ella")
    form = editor.get("/manage/events/new").get_data(as_text=True)
    data = {"csrf_token": editor.token, "title": "Soon gone", "status": "publish", **WHEN}
    data["form_id"] = _hidden(form, "form_id")
    made = editor.post("/manage/events/new", data=data, follow_redirects=True)
    event_id = int(made.request.path.rstrip("/").split("/")[-1])
    editor.post(f"/manage/events/{event_id}/trash", data={"csrf_token": editor.token})
    editor.post(
        f"/manage/events/{event_id}/delete",
        data={"csrf_token": editor.token, "confirmed": "1"},
        follow_redirects=True,
    )

    again = editor.post(
        "/manage/events/new", data={**data, "title": "Typed after Back"}, follow_redirects=True
    )

    page = again.get_data(as_text=True)
    listed = client.get(f"{NS}/events?search=Typed after Back&status=publish,draft", headers=admin)
    assert listed.get_json()["total"] == 1 or "Typed after Back" in page


# The fields a browser sends with the new-event form, each empty when left so.
BLANK = {
    "description": "", "cost": "", "website": "", "categories": "", "tags": "", "password": "",
    "recurrence": "", "repeat_freq": "", "repeat_count": "", "repeat_until": "", "date": "",
    "venue": "", "organizer": "", "repeat_monthly": "day",
}  # fmt: skip


def test_a_new_event_form_sent_again_after_back_does_not_undo_another_editors_save(
    client, sign_in, as_role
):
    """Ella saves a new event; Eddie opens it and adds a description and a cost; Ella goes
    Back (with JavaScript the form keeps its id), corrects the title and saves. The save
    went on the event it made, as README says, but as a whole form: Eddie's description and
    cost were blanked, unseen ("Saved."). Seen in Chromium too. The edit form in the same
    case merges (each sends only what its user changed) or refuses with a 409; a form
    opened before another save must not undo it silently (SPEC §16, one rule for every
    form)."""
    admin = as_role("administrator", "boss")
    ella = sign_in("editor", "ella")
    eddie = sign_in("editor", "eddie")
    form = ella.get("/manage/events/new").get_data(as_text=True)
    data = {"csrf_token": ella.token, "title": "Back story", "status": "publish", **WHEN, **BLANK}
    data["form_id"] = _hidden(form, "form_id")
    made = ella.post("/manage/events/new", data=data)
    assert made.status_code == 303
    event_id = int(made.headers["Location"].split("?")[0].rstrip("/").split("/")[-1])

    page = eddie.get(f"/manage/events/{event_id}").get_data(as_text=True)
    edit = {**data, "csrf_token": eddie.token, "form_id": "", "shown": _hidden(page, "shown")}
    edit.update(description="<p>Directions: side door</p>", cost="15")
    assert eddie.post(f"/manage/events/{event_id}", data=edit).status_code == 303

    ella.post("/manage/events/new", data={**data, "title": "Back story, corrected"})

    stored = _stored(client, admin, event_id)
    assert "side door" in stored["description"]
    assert stored["cost"] == "$15"


def test_an_edit_form_whose_event_was_deleted_meanwhile_keeps_what_was_typed(sign_in):
    """Ella edits an event's description; meanwhile Eddie deletes the event for good; Ella
    saves: a 404 page "No such event" and her typing is gone. The editor keeps what was
    typed everywhere else (errors, a 409 of a stale form, a trashed item's form, even a
    session ended mid-form): the page should say why nothing was saved and show what was
    typed, to copy."""
    ella = sign_in("editor", "ella")
    eddie = sign_in("editor", "eddie")
    made = ella.post(
        "/manage/events/new",
        data={"csrf_token": ella.token, "title": "Soon deleted", "status": "publish", **WHEN},
    )
    event_id = int(made.headers["Location"].split("?")[0].rstrip("/").split("/")[-1])
    page = ella.get(f"/manage/events/{event_id}").get_data(as_text=True)
    eddie.post(f"/manage/events/{event_id}/trash", data={"csrf_token": eddie.token})
    gone = eddie.post(
        f"/manage/events/{event_id}/delete", data={"csrf_token": eddie.token, "confirmed": "1"}
    )
    assert gone.status_code == 303

    typed = "<p>Three paragraphs of directions typed over ten minutes</p>"
    answer = ella.post(
        f"/manage/events/{event_id}",
        data={"csrf_token": ella.token, "shown": _hidden(page, "shown"), "title": "Soon deleted",
              "status": "publish", "description": typed, "repeat_monthly": "day", **WHEN},
    )  # fmt: skip

    assert "Three paragraphs of directions" in answer.get_data(as_text=True)


def test_a_form_kept_over_a_sign_in_is_not_handed_to_another_user(app, sign_in):
    """Otto (author) types an event, with an event password, on a shared computer; his
    session ends (signed out in another tab, a password change, `users revoke`) and Save
    brings the sign-in page that keeps what he typed. Ella (editor) then signs in there:
    the page said "You are signed in again. What you typed has not been saved yet", held
    Otto's text and event password, and "Send it again" saved it as Ella's event. What was
    kept belongs to the user who typed it."""
    from tests.conftest import PASSWORD, csrf

    otto = sign_in("author", "otto")
    sign_in("editor", "ella")
    otto.post("/manage/signout", data={"csrf_token": otto.token})
    kept_page = otto.post(
        "/manage/events/new",
        data={"csrf_token": otto.token, "title": "Otto's surprise party", "status": "draft",
              "password": "hunter22", **WHEN},
    )  # fmt: skip
    page = kept_page.get_data(as_text=True)
    assert "Otto&#39;s surprise party" in page or "Otto's surprise party" in page
    kept = dict(re.findall(r'name="(kept:[^"]+)" value="([^"]*)"', page))
    action = html.unescape(
        re.search(r'<form[^>]*method="post" action="([^"]*signin[^"]*)"', page).group(1)
    )

    answer = otto.post(
        action,
        data={"csrf_token": csrf(page), "username": "ella", "password": PASSWORD, **kept},
        follow_redirects=True,
    )

    shown = answer.get_data(as_text=True)
    assert "hunter22" not in shown
    assert "surprise party" not in shown
