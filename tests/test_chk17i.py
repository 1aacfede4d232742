"""chk17i: languages and accessibility of the session's additions (outside check)."""
import re

import pytest

from tests.conftest import NS, event_form

HTML = {"Accept": "text/html"}


def _main_text(html: str) -> str:
    main = re.search(r"<main.*?</main>", html, re.S).group(0)
    main = re.sub(r"<script.*?</script>", "", main, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))


@pytest.mark.parametrize(
    "lang,message",
    [
        ("fr", "Choisissez l’un des choix proposés."),
        ("de", "Wählen Sie eine der angebotenen Möglichkeiten."),
        ("es", "Elija una de las opciones ofrecidas."),
    ],
)
def test_d1_a_refused_monthly_choice_is_shown_beside_its_field_not_by_code_name(sign_in, lang, message):
    editor = sign_in("administrator")
    answer = editor.post(
        f"/{lang}/manage/events/new",
        data=event_form(editor, repeat_freq="MONTHLY", repeat_monthly="zzz"),
    )
    assert answer.status_code == 400
    html = answer.get_data(as_text=True)
    assert message in html
    assert "repeat_monthly:" not in _main_text(html)  # a code name, not the field's label
    select = re.search(r'<select id="repeat_monthly"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in select and "aria-describedby" in select
