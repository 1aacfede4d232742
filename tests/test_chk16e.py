"""chk16e: SPEC §16 (the editor) read clause by clause by an outside checker. Each test
fails on the code it was written against, for the reason its docstring gives."""

import re
from datetime import date, timedelta

DAY = date.today() + timedelta(days=6)


def _selected(page: str, select_id: str) -> list[str]:
    select = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', page, re.S).group(1)
    return re.findall(r'<option value="([^"]*)" selected', select)


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
