"""chk17i: languages and accessibility of the session's additions (outside check)."""
import re

HTML = {"Accept": "text/html"}


def _main_text(html: str) -> str:
    main = re.search(r"<main.*?</main>", html, re.S).group(0)
    main = re.sub(r"<script.*?</script>", "", main, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))


def test_d3_a_list_page_400_names_every_bad_parameter_at_once(client):
    answer = client.get("/fr/events/?featured=maybe&page=x", headers=HTML)
    assert answer.status_code == 400
    text = _main_text(answer.get_data(as_text=True))
    assert "« featured »" in text
    assert "numéro de page" in text, text
