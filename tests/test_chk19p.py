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
