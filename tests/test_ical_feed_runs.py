"""The feeds rendered in runs (``FEED_CHUNK``): what the run size must not change
beyond the wide, unfiltered feed of tests/test_ical_series.py: password-protected events
and ``?password=``, the listing filters, an editor's statuses, the empty feed (dated by
the last write or clock change: chk18s D2) and the one event by id (``?ical=1`` or ``Accept: text/calendar``)."""

from tests.conftest import NS, forget_all
from tests.series_helpers import WIDE, create_series, occurrences, update


def test_feed_runs_change_nothing_for_passwords_filters_and_one_event(
    app, client, admin, as_role, make_event, monkeypatch
):
    from app.reading import feed as feed_module

    plain = make_event(
        title="Tango night",
        categories="Dance",
        start_date="2027-02-01 10:00",
        end_date="2027-02-01 11:00",
    )
    make_event(
        title="Locked",
        password="secret",
        categories="Dance",
        start_date="2027-02-02 10:00",
        end_date="2027-02-02 11:00",
    )
    make_event(
        title="Draft", status="draft", start_date="2027-02-03 10:00", end_date="2027-02-03 11:00"
    )
    locked = create_series(client, admin, title="Locked class", password="secret")
    series = create_series(
        client,
        admin,
        title="Tango class",
        categories="Dance",
        start_date="2027-04-05 19:00:00",
        end_date="2027-04-05 21:00:00",
    )
    others = occurrences(client, series["id"])
    assert (
        update(client, others[0]["id"], admin, title="Gala", categories="Gala").status_code == 200
    )
    assert update(client, others[2]["id"], admin, password="other").status_code == 200
    dance = plain["categories"][0]["id"]
    author = as_role("author")
    queries = [
        WIDE,
        {**WIDE, "password": "secret"},
        {**WIDE, "password": "other"},
        {**WIDE, "categories": dance},
        {**WIDE, "search": "tango"},
        {**WIDE, "start_date": "2027-04-12", "end_date": "2027-04-12"},
        {**WIDE, "status": "draft"},
        {"start_date": "2150-01-01", "end_date": "2150-02-01"},
    ]
    paths = [f"/events/{i}" for i in (plain["id"], locked["id"], series["id"], others[2]["id"])]

    def answers():
        made = []
        for headers in ({}, admin, author):
            for query in queries:
                forget_all(app)
                r = client.get(f"{NS}/events", query_string={"ical": "1", **query}, headers=headers)
                made.append((r.status_code, r.get_data(), r.headers.get("Last-Modified")))
            for path in paths:
                for password in ({}, {"password": "secret"}, {"password": "other"}):
                    forget_all(app)
                    r = client.get(
                        f"{NS}{path}",
                        query_string=password,
                        headers={**headers, "Accept": "text/calendar"},
                    )
                    made.append((r.status_code, r.get_data(), r.headers.get("Last-Modified")))
        return made

    at_once = answers()
    empty = at_once[len(queries) - 1]
    assert empty[0] == 200 and b"BEGIN:VEVENT" not in empty[1] and empty[2] is not None
    assert any(a[0] == 403 and a[1].startswith(b"{") for a in at_once)  # a JSON refusal
    for size in (1, 2, 5):
        monkeypatch.setattr(feed_module, "FEED_CHUNK", size)
        assert answers() == at_once, size
