"""chk16g: names and searches in any case and Unicode form, the same on SQLite and PostgreSQL
(SPEC §14: "search semantics ... the same as on SQLite"). Run with TEST_DATABASE_URL for PostgreSQL."""

import unicodedata

from tests.conftest import NS


def nfd(text):
    return unicodedata.normalize("NFD", text)


def _titles(client, admin, query):
    body = client.get(f"{NS}/events?{query}", headers=admin).get_json()
    return sorted(e["title"] for e in body["events"])


GREEK = "ΘΕΑΤΡΟ ΚΗΠΟΣ"  # capital sigma at a word's end: Python lowers it to ς, PostgreSQL to σ


def _event(client, admin, **fields):
    body = {"title": "An event", "start_date": "tomorrow 10am", "end_date": "tomorrow 12pm"}
    body.update(fields)
    response = client.post(f"{NS}/events", json=body, headers=admin)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_terms_of_one_name_are_offered_in_the_same_order_on_either_engine(client, admin):
    """Two categories may share a name under different parents (SPEC §4 forbids it under the
    same parent only). The pages' category menu lists them by name; SQLite breaks the tie by
    id (the order they were made), PostgreSQL left it to the plan (seen: import-ete-19,
    import-ete-40, import-ete-39, ... on a copied calendar)."""
    parents = []
    for n in range(6):
        made = client.post(
            f"{NS}/categories", json={"name": f"Parent {n}"}, headers=admin
        ).get_json()
        parents.append(made["id"])
    slugs, ids = [], []
    for parent in parents:
        made = client.post(
            f"{NS}/categories", json={"name": "Rock", "parent": parent}, headers=admin
        )
        assert made.status_code in (200, 201), made.get_json()
        slugs.append(made.get_json()["slug"])
        _event(client, admin, title=f"Show {parent}", categories=[made.get_json()["id"]])
        ids.append(made.get_json()["id"])
    for rounds in range(3):  # an editor describes them, the last made first, and again
        for term in reversed(ids[: len(ids) - rounds]):
            edited = client.post(
                f"{NS}/categories/{term}", json={"description": f"Loud {rounds}"}, headers=admin
            )
            assert edited.status_code == 200, edited.get_json()
    page = client.get("/events/list/").get_data(as_text=True)
    offered = [s for s in __import__("re").findall(r'<option value="([^"]+)">Rock</option>', page)]
    assert offered == slugs
    listed = client.get(f"{NS}/categories?search=rock&per_page=50", headers=admin).get_json()[
        "categories"
    ]
    assert [c["slug"] for c in listed] == slugs


def test_search_venues_finds_a_venue_name_typed_decomposed(client, admin, make_event):
    """A venue named on macOS (NFD "CAFÉ") is found by "café" typed elsewhere: SQLite finds
    it (store/db.py folds to NFC), PostgreSQL's plain ILIKE did not."""
    make_event(title="Delta", venue={"venue": nfd("CAFÉ ZOË"), "city": "Gent"})
    assert _titles(client, admin, "search=café&search_venues=1") == ["Delta"]
    assert _titles(client, admin, "search=zoë&search_venues=1") == ["Delta"]
    page = client.get("/events/list/?search=café").get_data(as_text=True)
    assert "Delta" in page


def test_venue_search_in_either_unicode_form(client, admin, make_event):
    """/venues?search=café (NFC) and the same word decomposed (NFD) find both venues."""
    make_event(title="Gamma", venue={"venue": "Café Zoë", "city": "Zürich"})
    make_event(title="Delta", venue={"venue": nfd("CAFÉ ZOË"), "city": "Gent"})
    for query in ("café", nfd("CAFÉ"), "zoë", nfd("zoë")):
        body = client.get(f"{NS}/venues?search={query}", headers=admin).get_json()
        assert body["total"] == 2, (ascii(query), body["total"])


def test_a_term_named_with_a_final_capital_sigma_is_found_again_by_name(client, admin):
    """Terms by name are matched case-insensitively (SPEC §4): the same name sent twice
    must reuse the term, and creating it again is a 400 term_exists. On PostgreSQL,
    NORMALIZE(LOWER(name)) (σ) never equals Python's fold of the name sent (ς)."""
    first = _event(client, admin, categories=[GREEK], tags=["İstanbul"])
    second = _event(client, admin, categories=[GREEK], tags=["İstanbul"])
    assert second["categories"][0]["id"] == first["categories"][0]["id"]
    assert second["tags"][0]["id"] == first["tags"][0]["id"]
    again = client.post(f"{NS}/categories", json={"name": GREEK}, headers=admin)
    assert again.status_code == 400 and again.get_json()["code"] == "term_exists"
    names = [
        c["name"] for c in client.get(f"{NS}/categories", headers=admin).get_json()["categories"]
    ]
    assert names == [GREEK]


def test_inline_venue_and_organizer_with_a_final_capital_sigma_are_deduplicated(client, admin):
    first = _event(client, admin, venue={"venue": GREEK}, organizer=[{"organizer": GREEK}])
    second = _event(client, admin, venue={"venue": GREEK}, organizer=[{"organizer": GREEK}])
    assert second["venue"]["id"] == first["venue"]["id"]
    assert second["organizer"][0]["id"] == first["organizer"][0]["id"]
    assert client.get(f"{NS}/venues", headers=admin).get_json()["total"] == 1


def test_search_in_lower_case_finds_a_greek_name_in_capitals(client, admin):
    """ "θεατρο κηπος" is "ΘΕΑΤΡΟ ΚΗΠΟΣ" in lower case: SQLite finds it, PostgreSQL's ILIKE
    (σ against ς) did not."""
    _event(client, admin, title="Play", venue={"venue": GREEK})
    lower = GREEK.lower()
    assert client.get(f"{NS}/venues?search={lower}", headers=admin).get_json()["total"] == 1
    assert _titles(client, admin, f"search={lower}&search_venues=1") == ["Play"]


def test_a_greek_login_signs_in_in_lower_case(app, client):
    """Basic credentials name the user by login "in any case" (store/users.py names_user,
    as WordPress's collation): "νικος" for "ΝΙΚΟΣ" works on SQLite; PostgreSQL's LOWER gives
    "νικοσ", which never equals the name folded in Python."""
    from store.db import database
    from store.users import create_user
    from tests.conftest import basic

    with database.connection_context():
        _user, password = create_user("ΝΙΚΟΣ", "editor")
    assert (
        client.get(f"{NS}/events?status=draft", headers=basic("ΝΙΚΟΣ", password)).status_code == 200
    )
    answer = client.get(f"{NS}/events?status=draft", headers=basic("νικος", password))
    assert answer.status_code == 200, answer.get_json()


def test_event_search_reads_a_decomposed_word_as_its_composed_form(client, admin):
    """ "crème" typed decomposed (NFD: e + U+0300, as macOS may send it) finds "Crème brûlée
    night" as the composed "crème" does (store/db.py fold: NFC on both sides)."""
    _event(client, admin, title="Crème brûlée night")
    assert _titles(client, admin, "search=crème") == ["Crème brûlée night"]
    assert _titles(client, admin, "search=CRÈME") == ["Crème brûlée night"]
    assert _titles(client, admin, "search=" + nfd("crème")) == ["Crème brûlée night"]


def test_a_term_slug_filter_is_read_as_wordpress_sanitizes_it(client, admin):
    """WP_Term_Query passes each `slug` through sanitize_title (lower case, accents removed):
    /categories?slug=JAZZ and ?slug=été-musique find "jazz" and "ete-musique" on the
    reference; both found nothing here (SQLite and PostgreSQL alike)."""
    _event(client, admin, categories=["Jazz", "Été Musique"])
    for asked, slug in (("JAZZ", "jazz"), ("été-musique", "ete-musique")):
        body = client.get(f"{NS}/categories?slug={asked}", headers=admin).get_json()
        assert [c["slug"] for c in body["categories"]] == [slug], asked
        wp = client.get(f"/wp-json/wp/v2/tribe_events_cat?slug={asked}", headers=admin).get_json()
        assert [c["slug"] for c in wp] == [slug], asked


def test_an_event_written_decomposed_is_found_by_the_composed_word(client, admin):
    """A title typed or imported decomposed (NFD, as macOS writes it) is found by "crème"
    typed composed, in the API's search and the list page's; neither engine found it."""
    _event(client, admin, title=nfd("Crème brûlée night"))
    assert len(_titles(client, admin, "search=crème")) == 1
    assert len(_titles(client, admin, "search=brûlée")) == 1
    page = client.get("/events/list/?search=crème").get_data(as_text=True)
    assert nfd("Crème brûlée night") in page or "Crème brûlée night" in page


def test_the_editors_lists_find_a_greek_name_in_lower_case(client, admin, sign_in):
    """/manage/{venues,organizers,categories}/?search=κηπος finds "... ΚΗΠΟΣ" on SQLite,
    nothing on PostgreSQL (as D4: LOWER gives σ, the search ς)."""
    _event(
        client,
        admin,
        venue={"venue": "Café ΚΗΠΟΣ"},
        organizer=[{"organizer": "Ærø ΚΗΠΟΣ"}],
        categories=["Öko ΚΗΠΟΣ"],
    )
    editor = sign_in("editor")
    for plural, name in (
        ("venues", "Café ΚΗΠΟΣ"),
        ("organizers", "Ærø ΚΗΠΟΣ"),
        ("categories", "Öko ΚΗΠΟΣ"),
    ):
        listing = editor.get(f"/manage/{plural}/", query_string={"search": "κηπος"}).get_data(
            as_text=True
        )
        assert name in listing, plural


def test_users_create_refuses_a_login_that_names_a_user_in_another_case(app):
    """`users create νικος` when ΝΙΚΟΣ exists: SQLite refuses ("'νικος' already names user
    'ΝΙΚΟΣ'"), PostgreSQL made a second user whom the same sign-in name then names too."""
    cli = app.test_cli_runner()
    assert cli.invoke(args=["users", "create", "ΝΙΚΟΣ", "--role", "author"]).exit_code == 0
    second = cli.invoke(args=["users", "create", "νικος", "--role", "author"])
    assert second.exit_code != 0 and "already names user" in second.output


def test_event_search_in_lower_case_finds_a_greek_title_in_capitals(client, admin):
    """/events?search=δρομος and the list page's search find "ΑΓΩΝΑΣ ΔΡΟΜΟΣ night" on SQLite,
    nothing on PostgreSQL (seen on live servers of both engines)."""
    _event(client, admin, title="ΑΓΩΝΑΣ ΔΡΟΜΟΣ night")
    assert _titles(client, admin, "search=δρομος") == ["ΑΓΩΝΑΣ ΔΡΟΜΟΣ night"]
    assert "ΑΓΩΝΑΣ ΔΡΟΜΟΣ night" in client.get("/events/list/?search=δρομος").get_data(as_text=True)


def test_istanbul_finds_a_name_spelt_with_a_dotted_capital_i(client, admin):
    """ "istanbul" finds "İstanbul Hall" (the reference's MySQL collation equates İ and i;
    PostgreSQL's LOWER gives i): SQLite's Python fold gives i + U+0307 and missed it in
    /venues?search=, while /categories?search= found the term of the same name."""
    _event(
        client,
        admin,
        title="Bosphorus",
        venue={"venue": "İstanbul Hall"},
        categories=["İstanbul Hall"],
    )
    assert client.get(f"{NS}/categories?search=istanbul", headers=admin).get_json()["total"] == 1
    assert client.get(f"{NS}/venues?search=istanbul", headers=admin).get_json()["total"] == 1
    assert _titles(client, admin, "search=istanbul&search_venues=1") == ["Bosphorus"]
