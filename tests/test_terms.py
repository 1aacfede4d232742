"""Categories and tags."""

from urllib.parse import parse_qs, urlsplit

from tests.conftest import NS


def test_create_read_update_delete_category(client, as_role, make_event):
    editor = as_role("editor")
    parent = client.post(f"{NS}/categories", json={"name": "Music"}, headers=editor)
    assert parent.status_code == 201
    parent = parent.get_json()
    child = client.post(
        f"{NS}/categories",
        json={"name": "Jazz", "parent": parent["id"], "description": "d"},
        headers=editor,
    ).get_json()
    assert child["parent"] == parent["id"]
    assert child["urls"]["up"].endswith(f"/categories/{parent['id']}")
    assert child["taxonomy"] == "tribe_events_cat" and child["meta"] == []
    assert child["url"] == "http://localhost/events/category/jazz/"
    make_event(categories=[child["id"]])
    assert client.get(f"{NS}/categories/{child['id']}").get_json()["count"] == 1
    updated = client.post(f"{NS}/categories/{child['id']}", json={"name": "Jazz!"}, headers=editor)
    assert updated.status_code == 200 and updated.get_json()["name"] == "Jazz!"
    loop = client.post(
        f"{NS}/categories/{parent['id']}", json={"parent": child["id"]}, headers=editor
    )
    assert loop.status_code == 400
    deleted = client.delete(f"{NS}/categories/{child['id']}", headers=editor)
    assert deleted.status_code == 200 and deleted.get_json()["id"] == child["id"]
    assert client.get(f"{NS}/categories/{child['id']}").status_code == 400


def test_term_permissions_and_validation(client, as_role):
    for role in ("subscriber", "contributor", "author"):
        assert (
            client.post(f"{NS}/categories", json={"name": "x"}, headers=as_role(role)).status_code
            == 403
        )
    assert client.post(f"{NS}/categories", json={"name": "x"}).status_code == 401
    editor = as_role("editor")
    assert client.post(f"{NS}/categories", json={"name": ""}, headers=editor).status_code == 400
    assert (
        client.post(
            f"{NS}/categories", json={"name": "x", "parent": 2389}, headers=editor
        ).status_code
        == 400
    )
    first = client.post(f"{NS}/tags", json={"name": "dup"}, headers=editor).get_json()
    again = client.post(f"{NS}/tags", json={"name": "dup"}, headers=editor)
    assert again.status_code == 400
    assert again.get_json()["code"] == "term_exists"
    assert again.get_json()["data"]["term_id"] == first["id"]
    slug = client.post(f"{NS}/tags", json={"name": "other", "slug": "dup"}, headers=editor)
    assert slug.status_code == 400
    parent = client.post(f"{NS}/tags", json={"name": "t", "parent": 1}, headers=editor)
    assert parent.get_json()["code"] == "rest_taxonomy_not_hierarchical"


def test_term_listing(client, as_role, make_event):
    editor = as_role("editor")
    ids = [
        client.post(f"{NS}/categories", json={"name": n}, headers=editor).get_json()["id"]
        for n in ("b", "A", "C", "Foo", "foo-bar")
    ]
    assert client.get(f"{NS}/categories").get_json()["total"] == 0  # hide_empty by default
    everything = client.get(f"{NS}/categories?hide_empty=false").get_json()
    assert [t["name"] for t in everything["categories"]] == ["A", "b", "C", "Foo", "foo-bar"]
    assert everything["rest_url"] == f"http://localhost{NS}/categories/"
    paged = client.get(f"{NS}/categories?hide_empty=false&per_page=2&page=2").get_json()
    next_url, previous_url = urlsplit(paged["next_rest_url"]), urlsplit(paged["previous_rest_url"])
    assert next_url.path == previous_url.path == f"{NS}/categories/"
    assert parse_qs(next_url.query) == {"hide_empty": ["0"], "per_page": ["2"], "page": ["3"]}
    assert parse_qs(previous_url.query) == {"hide_empty": ["0"], "per_page": ["2"]}
    assert client.get(f"{NS}/categories?hide_empty=false&search=foo").get_json()["total"] == 2
    desc = client.get(f"{NS}/categories?hide_empty=false&orderby=id&order=desc").get_json()
    assert [t["id"] for t in desc["categories"]] == sorted(ids, reverse=True)
    assert client.get(f"{NS}/categories?order=").status_code == 400
    assert client.get(f"{NS}/categories?include=2389").status_code == 400
    assert client.get(f"{NS}/categories?hide_empty=false&exclude={ids[0]}").get_json()["total"] == 4
    event = make_event(categories=[ids[0], ids[1]])
    assert client.get(f"{NS}/categories?event={event['id']}").get_json()["total"] == 2
    assert client.get(f"{NS}/categories?post=23").status_code == 400
    assert (
        client.get(f"{NS}/categories?hide_empty=false&slug=nothing").get_json()["categories"] == []
    )
    first = client.get(f"{NS}/categories?hide_empty=false&per_page=2").get_json()
    assert "previous_rest_url" not in first
    plain = client.get(f"{NS}/tags?page=1").get_json()
    assert plain["rest_url"] == f"http://localhost{NS}/tags/" and "next_rest_url" not in plain
    past_end = client.get(f"{NS}/categories?hide_empty=false&page=9")
    assert past_end.status_code == 200 and past_end.get_json()["categories"] == []


def test_counts_follow_status_changes(client, admin, make_event):
    live = make_event(categories="Music")
    term_id = live["categories"][0]["id"]
    make_event(categories="Music", status="draft")
    make_event(categories="Music", status="future", date="2099-01-01 00:00:00")
    make_event(categories="Music", status="future", date="2001-01-01 00:00:00")

    def count():
        return client.get(f"{NS}/categories/{term_id}").get_json()["count"]

    assert count() == 2
    client.post(f"{NS}/events/{live['id']}", json={"status": "draft"}, headers=admin)
    assert count() == 1
    client.post(f"{NS}/events/{live['id']}", json={"status": "publish"}, headers=admin)
    assert count() == 2
    client.delete(f"{NS}/events/{live['id']}?force=true", headers=admin)
    assert count() == 1
    listed = client.get(f"{NS}/categories").get_json()["categories"]
    assert [(t["name"], t["count"]) for t in listed] == [("Music", 1)]


def test_stored_counts_equal_a_recount_after_every_kind_of_write(client, admin, make_event):
    from store.db import database
    from store.models import LIVE_PUBLISHED, EventTerm, Term

    first = make_event(categories="Music,Arts", tags="free")
    second = make_event(categories="Music", tags="free,kids", status="draft")
    music = first["categories"][0]["id"]
    client.post(f"{NS}/events/{second['id']}", json={"status": "publish"}, headers=admin)
    client.post(f"{NS}/events/{first['id']}", json={"categories": ["Arts"]}, headers=admin)
    client.delete(f"{NS}/events/{second['id']}", headers=admin)  # trash
    make_event(categories="Music", tags="kids")
    client.delete(f"{NS}/events/{first['id']}?force=true", headers=admin)  # cascade
    client.delete(f"{NS}/categories/{music}?force=true", headers=admin)
    with database.connection_context():
        stored = {t.id: t.published for t in Term.select()}
        recount = {t_id: 0 for t_id in stored}
        for link in EventTerm.select().where(EventTerm.live == LIVE_PUBLISHED):
            recount[link.term_id] += 1
    assert stored == recount and sum(stored.values()) > 0


def test_seeded_calendar_counts_equal_a_recount(app):
    from store.db import database
    from store.models import LIVE_PUBLISHED, EventTerm, Term
    from store.seed import seed

    with database.connection_context():
        seed(120)
        stored = {t.id: t.published for t in Term.select()}
        recount = {t_id: 0 for t_id in stored}
        for link in EventTerm.select().where(EventTerm.live == LIVE_PUBLISHED):
            recount[link.term_id] += 1
    assert stored == recount and sum(stored.values()) > 100
