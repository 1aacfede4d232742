"""chk18z: the editor's roles and its forms other than the event form (SPEC §16)."""

import re

from tests.conftest import saved_id


def _main_text(answer) -> str:
    page = answer.get_data(as_text=True)
    found = re.search(r"<main.*?</main>", page, re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(0) if found else page))


def test_a_new_venue_named_as_an_existing_one_does_not_end_on_a_refusal(sign_in):
    """A contributor (or author) saves the new-venue form with the name of an editor's
    published venue: the API's de-duplication answers with the editor's venue, and the
    form's 303 leads to that venue's edit page, which the user may not open: the user
    pressed Save on a new venue and is shown "Not allowed", not told that the venue
    exists (SPEC §16: a form answers with a redirect to the saved item's edit page, or
    with the form again and its errors)."""
    editor = sign_in("editor")
    made = editor.post(
        "/manage/venues/new",
        data={"csrf_token": editor.token, "venue": "Town Hall", "status": "publish"},
    )
    assert made.status_code == 303
    contributor = sign_in("contributor")
    answer = contributor.post(
        "/manage/venues/new",
        data={"csrf_token": contributor.token, "venue": "Town Hall", "status": "pending"},
        follow_redirects=True,
    )
    # Where the user ends up after pressing Save is a page they may use, naming the venue.
    assert answer.status_code in (200, 400), (answer.status_code, _main_text(answer)[:300])
    assert "Town Hall" in _main_text(answer)
    assert "Not allowed" not in _main_text(answer)
