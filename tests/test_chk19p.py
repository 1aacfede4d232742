"""Checker chk19p: malformed and odd input to the public pages and the editor (SPEC §6, §10,
§15, §16), through a real gunicorn where the HTTP layer matters."""

import pytest


@pytest.mark.parametrize("path", ["/events/", "/events/month/", "/fr/events/", "/manage/signin"])
def test_options_on_a_page_is_no_json_answer(client, path):
    """D2. SPEC §15/§16: the pages and the editor answer as pages, JSON is the API's alone
    (§6 "(Public pages and the editor, §15–16, answer their errors as HTML pages.)"). An
    OPTIONS at a page's address is answered with the API's JSON body ``{}`` and
    ``Content-Type: application/json`` (the public pages without even an ``Allow``
    header), as if the address were an API route."""
    answer = client.options(path, headers={"Accept": "text/html"})
    assert "application/json" not in answer.headers.get("Content-Type", ""), answer.get_data()
    assert "GET" in answer.headers.get("Allow", "")


def test_a_post_to_an_image_page_is_a_405_not_nothing_here(client, admin, sign_in):
    """D3. SPEC §16 lists `/manage/media/{id}` among the editor's addresses; an image's page
    is there (GET 200, with its Delete form posting to `…/delete`). A POST to the page itself
    answers 404 "Nothing here: there is nothing at this address that you may edit", although
    the image is there, and a PUT's 405 says `Allow: GET, HEAD, OPTIONS, POST`: the POST it
    offers is the one that says nothing is there. A method the address does not take is a
    405 page (as PUT gets) with an `Allow` that names only what works."""
    from tests.helpers import image_bytes, uploaded

    image = uploaded(client, admin, image_bytes(size=(40, 30)))
    editor = sign_in("administrator", "boss")
    path = f"/manage/media/{image['id']}"
    assert editor.get(path).status_code == 200
    posted = editor.post(path, data={"csrf_token": editor.token})
    assert posted.status_code == 405, posted.status_code
    put = editor.put(path, data={"csrf_token": editor.token})
    assert "POST" not in put.headers.get("Allow", ""), put.headers.get("Allow")


@pytest.mark.parametrize("taxonomy", ["categories", "tags"])
def test_a_term_whose_slug_is_digits_has_a_real_page(client, admin, make_event, taxonomy):
    """D4. SPEC §15: "Every item's `url` (§2) is a real page" and `/events/category/{slug}/`,
    `/events/tag/{slug}/` show the term's list. A term named "18+" (an age limit) or "2" gets
    an all-digit slug ("18", "2"); when a term with that id exists, the term page looks the
    address up as an id first, finds the other term, and answers 404, while the API, the
    event page's term links and /sitemap.xml all give that address. (Events, venues and
    organizers with all-digit slugs have working pages.)"""
    from tests.conftest import NS

    other = client.post(f"{NS}/{taxonomy}", json={"name": "Jazz"}, headers=admin).get_json()
    made = client.post(f"{NS}/{taxonomy}", json={"name": f"{other['id']}+"}, headers=admin)
    assert made.status_code == 201, made.get_json()
    term = made.get_json()
    assert term["slug"] == str(other["id"])
    make_event(title="Adults only", **{taxonomy: [term["id"]]})
    path = term["url"].split("://", 1)[1].split("/", 1)[1]
    page = client.get("/" + path, headers={"Accept": "text/html"})
    assert page.status_code == 200, (path, page.status_code)
    assert "Adults only" in page.get_data(as_text=True)
