"""Checker chk19b: the public views and the editor as a visitor and a volunteer use them
(SPEC §15, §16). Each test fails on the code as found for the defect it names."""

import re

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
    assert answer.status_code == 303, re.findall(r'class="error"[^>]*>([^<]*)', answer.get_data(as_text=True))
    event = saved_id(answer)
    page = editor.get(f"/manage/events/{event}").get_data(as_text=True)
    assert "FREQ=WEEKLY" in page
