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


def test_d6_the_not_featured_list_says_what_it_holds(client, make_event):
    from datetime import date, timedelta

    day = date.today() + timedelta(days=9)
    when = {"start_date": f"{day} 10:00", "end_date": f"{day} 11:00"}
    make_event(title="Star turn", featured=True, **when)
    make_event(title="Plain turn", **when)
    h1 = lambda html: re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1)  # noqa: E731
    others = client.get("/fr/events/?featured=0", headers=HTML).text
    assert "Plain turn" in others and "Star turn" not in others
    assert h1(others) != h1(client.get("/fr/events/", headers=HTML).text)


def test_d6_a_terms_featured_list_says_what_it_holds(client, make_event):
    from datetime import date, timedelta

    day = date.today() + timedelta(days=9)
    when = {"start_date": f"{day} 10:00", "end_date": f"{day} 11:00"}
    make_event(title="Star mural", featured=True, categories=["Arts"], **when)
    make_event(title="Plain mural", categories=["Arts"], **when)
    moved = client.get("/fr/events/category/arts/featured/", headers=HTML)
    assert moved.headers["Location"] == "/fr/events/category/arts/?featured=1"
    h1 = lambda html: re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1)  # noqa: E731
    starred = client.get("/fr/events/category/arts/?featured=1", headers=HTML).text
    assert "Star mural" in starred and "Plain mural" not in starred
    assert h1(starred) != h1(client.get("/fr/events/category/arts/", headers=HTML).text)
