"""Attacks on the term counts that leave out password-protected events (SPEC §10): every
role, series, imports, scheduled events and concurrent writes, against an independent
recount from the events table."""

from tests.conftest import NS


def _http_counts(client, taxonomy="categories", headers=None):
    body = client.get(
        f"{NS}/{taxonomy}", query_string={"hide_empty": 0, "per_page": 100}, headers=headers or {}
    ).get_json()
    return {term["name"]: term["count"] for term in body[taxonomy]}


def _oracle(taxonomy="category"):
    """Per term name: the events a caller without any password or login may read in full
    (published, or scheduled and due; no password)."""
    from rules import clock, dates
    from store.db import database
    from store.models import Event, EventTerm, Term

    now = dates.fmt(clock.utcnow().replace(tzinfo=None))
    with database.connection_context():
        out = {t.name: 0 for t in Term.select().where(Term.taxonomy == taxonomy)}
        rows = (
            EventTerm.select(Term.name, Event.status, Event.password, Event.date_utc)
            .join(Term, on=(EventTerm.term == Term.id))
            .switch(EventTerm)
            .join(Event, on=(EventTerm.event == Event.id))
            .where(Term.taxonomy == taxonomy)
            .tuples()
        )
        for name, status, password, date_utc in rows:
            if password:
                continue
            if status == "publish" or (status == "future" and date_utc <= now):
                out[name] += 1
    return out


def _occurrences(series_id):
    from store.db import database
    from store.models import Event

    with database.connection_context():
        return [
            e.id
            for e in Event.select(Event.id)
            .where((Event.post_parent == series_id) & (Event.occurrence != ""))
            .order_by(Event.id)
        ]


def _written_meanwhile(app, monkeypatch, event_id, body, headers):
    """Makes ``body`` land as another request's write of the event, after the next write
    request has read the event and before its save (from another thread, to the end)."""
    import threading

    import app.event_input as routes  # the write pipeline's home

    real = routes.plan_occurrences
    done = []

    def racing(values, existing):
        if not done:
            done.append(True)

            def other():
                with app.test_client() as other_client:
                    r = other_client.post(f"{NS}/events/{event_id}", json=body, headers=headers)
                    done.append(r.status_code)

            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
        return real(values, existing)

    monkeypatch.setattr(routes, "plan_occurrences", racing)
    return done


def _check(client):
    from tests.test_terms import _recounted

    assert _http_counts(client) == _oracle("category")
    assert _http_counts(client, "tags") == _oracle("tag")
    assert _recounted() == (True, 0)


def test_counts_follow_password_and_status_writes_by_every_role(client, admin, as_role, make_event):
    contributor, author, editor = as_role("contributor"), as_role("author"), as_role("editor")
    a = make_event(headers=contributor, title="C", categories="Music", password="x")
    _check(client)
    b = make_event(headers=author, title="A", categories="Music,Art", tags="t1", password="y")
    _check(client)
    c = make_event(headers=editor, title="E", categories="Art", tags="t1")
    _check(client)
    r = client.post(f"{NS}/events/{a['id']}", json={"status": "publish"}, headers=editor)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(f"{NS}/events/{a['id']}", json={"password": ""}, headers=editor)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{b['id']}", json={"password": "", "status": "draft"}, headers=author
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{b['id']}", json={"password": "z", "status": "publish"}, headers=author
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{b['id']}",
        json={"password": "", "categories": "Music,New", "tags": "t2"},
        headers=author,
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(
        f"{NS}/events/{c['id']}", json={"password": "q", "categories": "New"}, headers=admin
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    # trash and restore
    for ev in (a, b, c):
        r = client.delete(f"{NS}/events/{ev['id']}", headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
    for ev in (a, b, c):
        r = client.post(f"{NS}/events/{ev['id']}", json={"status": "publish"}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
    r = client.delete(f"{NS}/events/{c['id']}?force=true", headers=admin)
    assert r.status_code == 200
    _check(client)
    # contributor edits own pending protected
    d = make_event(headers=contributor, title="D", categories="Music", password="x")
    r = client.post(f"{NS}/events/{d['id']}", json={"password": ""}, headers=contributor)
    _check(client)
    r = client.post(f"{NS}/events/{d['id']}", json={"status": "publish"}, headers=admin)
    _check(client)


def test_counts_follow_a_password_on_a_series_then_on_one_occurrence(client, admin, make_event):
    series = make_event(
        title="Weekly",
        categories="Class",
        tags="w",
        start_date="2031-01-06 10:00:00",
        end_date="2031-01-06 11:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"],
        password="pw",
    )
    _check(client)
    occ_ids = _occurrences(series["id"])
    assert len(occ_ids) == 3
    o1, o2, o3 = occ_ids
    r = client.post(f"{NS}/events/{o1}", json={"password": ""}, headers=admin)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
    assert r.status_code == 200
    _check(client)
    r = client.post(f"{NS}/events/{o2}", json={"password": "own"}, headers=admin)
    _check(client)
    r = client.post(
        f"{NS}/events/{series['id']}", json={"categories": "Class,Other"}, headers=admin
    )
    _check(client)
    r = client.post(
        f"{NS}/events/{series['id']}", json={"password": "p2", "status": "draft"}, headers=admin
    )
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"status": "publish"}, headers=admin)
    _check(client)
    r = client.post(
        f"{NS}/events/{series['id']}",
        json={"password": "", "categories": "Other", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=6"]},
        headers=admin,
    )
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.delete(f"{NS}/events/{o3}", headers=admin)
    _check(client)
    r = client.delete(f"{NS}/events/{series['id']}", headers=admin)
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"status": "publish"}, headers=admin)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"password": "again"}, headers=admin)
    _check(client)
    r = client.post(f"{NS}/events/{series['id']}", json={"recurrence": []}, headers=admin)
    assert r.status_code == 200, r.get_json()
    _check(client)
    r = client.delete(f"{NS}/events/{series['id']}?force=true", headers=admin)
    _check(client)


def test_a_protected_scheduled_event_never_counts(client, admin, make_event):
    from datetime import timedelta

    from rules import clock, dates

    later = dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=5))
    a = make_event(title="Due", status="future", date_utc=later, categories="Music", password="pw")
    b = make_event(title="Due2", status="future", date_utc=later, categories="Music")
    try:
        clock.freeze()
        _check(client)
        clock.advance(6)
        _check(client)
        r = client.post(f"{NS}/events/{a['id']}", json={"password": ""}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(f"{NS}/events/{b['id']}", json={"password": "n"}, headers=admin)
        _check(client)
        r = client.post(f"{NS}/events/{b['id']}", json={"categories": "Art"}, headers=admin)
        _check(client)
        r = client.delete(f"{NS}/events/{a['id']}", headers=admin)
        _check(client)
        r = client.post(f"{NS}/events/{a['id']}", json={"status": "future"}, headers=admin)
        _check(client)
    finally:
        clock.reset()


def test_a_term_given_twice_counts_once(client, admin, make_event):
    a = make_event(title="A", categories="Music,music,Music", tags="x,X")
    _check(client)
    mid = a["categories"][0]["id"]
    tid = a["tags"][0]["id"]
    r = client.post(
        f"{NS}/events",
        json={
            "title": "B",
            "start_date": "tomorrow 10am",
            "end_date": "tomorrow 11am",
            "categories": [mid, mid, "Music"],
            "tags": [mid, tid],
        },
        headers=admin,
    )
    assert r.status_code == 400  # a category's id is no tag
    _check(client)
    r = client.post(
        f"{NS}/events/{a['id']}", json={"tags": [tid, tid], "password": "p"}, headers=admin
    )
    assert r.status_code == 200
    _check(client)


def test_imported_events_count_as_written(client, admin, as_role):
    from tests.helpers import ics, imported

    author = as_role("author")
    # Authors link categories that exist; only editors and up create them (issue 28).
    for name in ("Music", "Art", "Class", "Film", "Other"):
        assert (
            client.post(f"{NS}/categories", json={"name": name}, headers=admin).status_code == 201
        )
    single = "UID:one@x\nSEQUENCE:0\nDTSTART:20310105T100000Z\nDTEND:20310105T110000Z\nSUMMARY:One\nCATEGORIES:Music,Art"
    series = "UID:ser@x\nSEQUENCE:0\nDTSTART:20310106T100000Z\nDTEND:20310106T110000Z\nSUMMARY:Ser\nRRULE:FREQ=WEEKLY;COUNT=4\nCATEGORIES:Class"
    rep = imported(client, author, ics(single, series))
    ids = {e["uid"]: e["id"] for e in rep["created"]}
    _check(client)
    for uid in ids:
        r = client.post(f"{NS}/events/{ids[uid]}", json={"password": "pw"}, headers=author)
        assert r.status_code == 200, r.get_json()
    _check(client)
    single2 = single.replace("SEQUENCE:0", "SEQUENCE:1").replace("Music,Art", "Music,Film")
    series2 = series.replace("SEQUENCE:0", "SEQUENCE:1").replace("Class", "Class,Film")
    override = "UID:ser@x\nSEQUENCE:1\nRECURRENCE-ID:20310113T100000Z\nDTSTART:20310113T120000Z\nDTEND:20310113T130000Z\nSUMMARY:Ser moved\nCATEGORIES:Other"
    cancel = "UID:ser@x\nSEQUENCE:1\nRECURRENCE-ID:20310120T100000Z\nDTSTART:20310120T100000Z\nDTEND:20310120T110000Z\nSUMMARY:x\nSTATUS:CANCELLED"
    rep = imported(client, author, ics(single2, series2, override, cancel))
    _check(client)
    rep = imported(client, author, ics(single2.replace("SEQUENCE:1", "SEQUENCE:2")), status="draft")
    _check(client)
    for uid in ids:
        r = client.post(
            f"{NS}/events/{ids[uid]}", json={"password": "", "status": "publish"}, headers=author
        )
        assert r.status_code == 200, r.get_json()
    _check(client)
    assert _http_counts(client) == {"Art": 0, "Class": 2, "Film": 3, "Music": 1, "Other": 0}


def test_a_password_set_back_while_another_write_cleared_it_keeps_the_event_off_the_counts(
    app, client, admin, make_event, monkeypatch
):
    """Two writes of one event's password race: A read the event while it had password "x"
    and sets "x" again; meanwhile B cleared it. A's save used to compare the password it sent with
    the one A read (equal), so it left the links as B left them (counting), and the
    protected event counted for its category: its only category, named by the count."""
    secret = make_event(title="Secret", categories="Hidden", password="x")
    done = _written_meanwhile(app, monkeypatch, secret["id"], {"password": ""}, admin)
    r = client.post(f"{NS}/events/{secret['id']}", json={"password": "x"}, headers=admin)
    assert r.status_code == 200 and done == [True, 200]
    assert client.get(f"{NS}/events/{secret['id']}").status_code == 403  # protected
    assert _http_counts(client) == {"Hidden": 0}
    _check(client)


def test_scheduled_protected_series_as_its_date_passes(client, admin, make_event):
    from datetime import timedelta

    from rules import clock, dates

    later = dates.fmt(clock.utcnow().replace(tzinfo=None) + timedelta(seconds=5))
    series = make_event(
        title="Weekly",
        categories="Class",
        tags="w",
        status="future",
        date_utc=later,
        start_date="2031-01-06 10:00:00",
        end_date="2031-01-06 11:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"],
        password="pw",
    )
    o1, o2, _o3 = _occurrences(series["id"])
    try:
        clock.freeze()
        _check(client)
        r = client.post(f"{NS}/events/{o1}", json={"password": ""}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        clock.advance(6)
        _check(client)
        r = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(
            f"{NS}/events/{o2}", json={"password": "x", "categories": "Other"}, headers=admin
        )
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(
            f"{NS}/events/{series['id']}",
            json={"password": "y", "categories": "Class,Other"},
            headers=admin,
        )
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.delete(f"{NS}/events/{series['id']}", headers=admin)
        _check(client)
        r = client.post(f"{NS}/events/{series['id']}", json={"status": "future"}, headers=admin)
        assert r.status_code == 200, r.get_json()
        _check(client)
        r = client.post(f"{NS}/events/{series['id']}", json={"password": ""}, headers=admin)
        _check(client)
    finally:
        clock.reset()


def test_a_draft_set_back_while_another_write_published_it_leaves_the_counts(
    app, client, admin, make_event, monkeypatch
):
    """As with the password: A read the event as a draft and sends "draft"; B published it
    meanwhile. A's save saw no change of status, and the draft kept counting."""
    event = make_event(title="Draft", categories="Unannounced", status="draft")
    done = _written_meanwhile(app, monkeypatch, event["id"], {"status": "publish"}, admin)
    r = client.post(f"{NS}/events/{event['id']}", json={"status": "draft"}, headers=admin)
    assert r.status_code == 200 and done == [True, 200]
    assert client.get(f"{NS}/events/{event['id']}").status_code in (401, 403, 404)
    assert _http_counts(client) == {"Unannounced": 0}
    _check(client)
