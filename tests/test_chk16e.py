"""chk16e: SPEC §16 (the editor) read clause by clause by an outside checker. Each test
fails on the code it was written against, for the reason its docstring gives."""

import re
from datetime import date, timedelta

from tests.conftest import NS

DAY = date.today() + timedelta(days=6)


def _selected(page: str, select_id: str) -> list[str]:
    select = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', page, re.S).group(1)
    return re.findall(r'<option value="([^"]*)" selected', select)


def test_d3_a_page_past_the_end_does_not_point_to_another_empty_page(client, admin, sign_in):
    """Lists have paging (SPEC §16). /manage/venues/?page=99 of a 2-page list shows
    "Nothing here" and a "Previous page" link to page 98, just as empty (and so on)."""
    for number in range(25):
        client.post(f"{NS}/venues", json={"venue": f"Hall {number:02d}"}, headers=admin)
    editor = sign_in("editor", "vic")
    answer = editor.get("/manage/venues/?page=99", follow_redirects=True)
    page = answer.get_data(as_text=True)
    assert "page=98" not in page
    assert "page=2" in page or "page=1" in page  # a way back to the list's pages


def test_d11_only_the_organizer_field_is_labelled_organizer(sign_in):
    """SPEC §16 "every field has a visible label". Playwright's get_by_label("Organizer")
    (a case-insensitive substring of the label) finds two fields: the organizers' select and
    the image search box ("Find an image by what shows it (event, venue, organizer) …"),
    so a label-driven test cannot pick the organizer."""
    editor = sign_in("editor", "ora")
    page = editor.get("/manage/events/new").get_data(as_text=True)
    labels = re.findall(r'<label for="([^"]+)">(.*?)</label>', page, re.S)
    matching = [
        target for target, text in labels if "organizer" in re.sub("<[^>]+>", "", text).lower()
    ]
    assert matching == ["organizer"], matching
