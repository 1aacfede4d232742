"""Checker chk19p: malformed and odd input to the public pages and the editor (SPEC §6, §10,
§15, §16), through a real gunicorn where the HTTP layer matters."""


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
