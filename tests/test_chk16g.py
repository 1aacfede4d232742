"""chk16g: names and searches in any case and Unicode form, the same on SQLite and PostgreSQL
(SPEC §14: "search semantics ... the same as on SQLite"). Run with TEST_DATABASE_URL for PostgreSQL."""

import unicodedata

from tests.conftest import NS


def nfd(text):
    return unicodedata.normalize("NFD", text)


def _titles(client, admin, query):
    body = client.get(f"{NS}/events?{query}", headers=admin).get_json()
    return sorted(e["title"] for e in body["events"])


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
