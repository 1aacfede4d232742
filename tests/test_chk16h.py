"""chk16h: SPEC §6 and §10 read across faces (API, editor, import): the same rule answers
the same way everywhere, and bad input gets a clear error that changes nothing."""

from tests.conftest import NS, event_form

DATES = {"start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"}


def _terms(client, admin, kind):
    answer = client.get(f"{NS}/{kind}?per_page=50&hide_empty=0", headers=admin)
    return answer.get_json()[kind]


# --- D1: term names created through an event write skip the term rules ------------------


def test_a_category_name_too_long_for_the_direct_route_is_refused_on_an_event_write(client, admin):
    name = "N" * 201
    direct = client.post(f"{NS}/categories", json={"name": name}, headers=admin)
    assert direct.status_code == 400
    answer = client.post(
        f"{NS}/events", json={"title": "t", **DATES, "categories": [name]}, headers=admin
    )
    assert answer.status_code == 400, [len(c["name"]) for c in answer.get_json()["categories"]]
    assert "categories" in answer.get_json()["data"]["params"]
    assert _terms(client, admin, "categories") == []


def test_a_tag_name_too_long_for_the_direct_route_is_refused_on_an_event_write(client, admin):
    name = "T" * 201
    assert client.post(f"{NS}/tags", json={"name": name}, headers=admin).status_code == 400
    answer = client.post(
        f"{NS}/events", json={"title": "t", **DATES, "tags": [name]}, headers=admin
    )
    assert answer.status_code == 400
    assert "tags" in answer.get_json()["data"]["params"]
    assert _terms(client, admin, "tags") == []


def test_a_category_name_with_nul_is_refused_on_an_event_write_as_on_the_direct_route(
    client, admin
):
    direct = client.post(f"{NS}/categories", json={"name": "c\x00d"}, headers=admin)
    assert direct.status_code == 400
    answer = client.post(
        f"{NS}/events", json={"title": "t", **DATES, "categories": ["c\x00d"]}, headers=admin
    )
    assert answer.status_code == 400
    assert _terms(client, admin, "categories") == []


def test_the_editors_event_form_refuses_a_category_name_the_category_form_refuses(
    client, admin, sign_in
):
    editor = sign_in("administrator")
    name = "N" * 201
    direct = editor.post("/manage/categories/new", data={"csrf_token": editor.token, "name": name})
    assert direct.status_code == 400
    answer = editor.post("/manage/events/new", data=event_form(editor, categories=name))
    assert answer.status_code == 400
    assert _terms(client, admin, "categories") == []


# --- D5: /doc does not state the limits that validation enforces --------------------------


def _doc(client):
    return client.get(f"{NS}/doc").get_json()


def _body_schema(doc, path, method="post"):
    schema = doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].split("/")[-1]]
    return schema["properties"]


def test_the_documented_search_parameter_states_the_length_validation_enforces(client):
    # The API refuses a 201-character search ("Is too long."); the document must say so.
    assert client.get(f"{NS}/events?search=" + "a" * 201).status_code == 400
    doc = _doc(client)
    search = next(p for p in doc["paths"]["/events"]["get"]["parameters"] if p["name"] == "search")
    assert search["schema"].get("maxLength") == 200, search


def test_the_documented_write_fields_state_their_length_limits(client, admin):
    assert (
        client.post(f"{NS}/categories", json={"name": "N" * 201}, headers=admin).status_code == 400
    )
    doc = _doc(client)
    assert _body_schema(doc, "/categories")["name"].get("maxLength") == 200
    assert _body_schema(doc, "/events")["password"].get("maxLength") == 255
    assert _body_schema(doc, "/events")["website"].get("maxLength") == 2000


def test_the_documented_page_parameter_states_its_minimum(client):
    assert client.get(f"{NS}/events?page=0").status_code == 400
    doc = _doc(client)
    page = next(p for p in doc["paths"]["/events"]["get"]["parameters"] if p["name"] == "page")
    assert page["schema"].get("minimum") == 1, page


# --- D7: numbers in categories/tags that are no ids become term names ----------------------


def test_a_huge_numeric_category_id_is_refused_as_its_string_form_is(client, admin):
    as_text = client.post(
        f"{NS}/events",
        json={"title": "t", **DATES, "categories": ["99999999999999999999999"]},
        headers=admin,
    )
    assert as_text.status_code == 400
    as_number = client.post(
        f"{NS}/events",
        data='{"title": "t", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00",'
        ' "categories": [99999999999999999999999]}',
        headers={**admin, "Content-Type": "application/json"},
    )
    assert as_number.status_code == 400, [c["name"] for c in as_number.get_json()["categories"]]
    assert "categories" in as_number.get_json()["data"]["params"]
    assert _terms(client, admin, "categories") == []


def test_negative_or_fractional_numbers_are_not_taken_as_tag_names(client, admin):
    for number in (-1, 1.5):
        answer = client.post(
            f"{NS}/events", json={"title": "t", **DATES, "tags": [number]}, headers=admin
        )
        assert answer.status_code == 400, (number, [t["name"] for t in answer.get_json()["tags"]])
    assert _terms(client, admin, "tags") == []


def test_a_null_in_the_categories_list_does_not_create_a_category_named_none(client, admin):
    answer = client.post(
        f"{NS}/events",
        json={"title": "t", **DATES, "categories": [None], "tags": [None]},
        headers=admin,
    )
    assert answer.status_code in (201, 400)
    names = [t["name"] for t in _terms(client, admin, "categories") + _terms(client, admin, "tags")]
    assert "None" not in names, names


# --- D9: the editor says "no such item" where the API says 403 ----------------------------


def test_an_author_editing_anothers_published_event_in_the_editor_is_forbidden_not_missing(
    client, admin, sign_in, make_event
):
    event = make_event(title="Admin's")
    author = sign_in("author")
    assert client.get(f"/event/{event['slug']}/").status_code == 200  # anyone can see it exists
    answer = author.post(f"/manage/events/{event['id']}", data=event_form(author, title="hack"))
    assert answer.status_code == 403, answer.status_code
    assert client.get(f"{NS}/events/{event['id']}").get_json()["title"] == "Admin's"


def test_an_author_opening_a_category_form_is_forbidden_as_on_the_api(
    client, admin, sign_in, as_role
):
    category = client.post(f"{NS}/categories", json={"name": "Jazz"}, headers=admin).get_json()
    api = client.post(
        f"{NS}/categories/{category['id']}", json={"name": "x"}, headers=as_role("author")
    )
    assert api.status_code == 403
    author = sign_in("author")
    assert author.get(f"/manage/categories/{category['id']}").status_code == 403
