"""Outside checks of SPEC §15/§16 (session chk18a): each test fails on the code it was
written against, for the defect its docstring names."""

import re

from tests.conftest import event_form, saved_id


def _button_texts(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", b).strip() for b in re.findall(r"<button[^>]*>(.*?)</button>", html, re.S)]


def test_german_trash_button_says_only_in_den_papierkorb(sign_in):
    """D1: de catalog glues an orphaned string onto "Move to the trash" (messages.po
    lines 1284-1288): the button read "In den PapierkorbEin Bild finden nach dem, …"."""
    editor = sign_in("editor")
    answer = editor.post("/manage/events/new", data=event_form(editor))
    assert answer.status_code == 303
    page = editor.get(f"/de/manage/events/{saved_id(answer)}").get_data(as_text=True)
    buttons = _button_texts(page)
    assert "In den Papierkorb" in buttons, buttons
    assert not any("Ein Bild finden" in b for b in buttons), buttons
