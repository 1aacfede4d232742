"""SPEC §16: what an editor reviews in the editor: the list of events by status, upcoming
first or past, and the venues' by status."""

import re
from datetime import date, timedelta

from tests.conftest import NS

DAY = date.today() + timedelta(days=5)


def test_the_events_list_filters_by_status_upcoming_first_then_past(
    client, as_role, sign_in, make_event
):
    editor_headers = as_role("editor", "ella")
    make_event(
        editor_headers,
        title="Long ago",
        start_date="2020-01-01 10:00:00",
        end_date="2020-01-01 11:00:00",
    )
    make_event(
        editor_headers,
        title="Last month",
        start_date=f"{DAY - timedelta(days=40)}",
        end_date=f"{DAY - timedelta(days=40)}",
    )
    make_event(
        editor_headers,
        title="Later",
        start_date=f"{DAY + timedelta(days=9)} 10:00:00",
        end_date=f"{DAY + timedelta(days=9)} 11:00:00",
    )
    make_event(
        editor_headers,
        title="Sooner",
        start_date=f"{DAY} 10:00:00",
        end_date=f"{DAY} 11:00:00",
        status="pending",
    )
    make_event(editor_headers, title="Drafted", status="draft")
    scheduled = (date.today() + timedelta(days=2)).isoformat()
    make_event(editor_headers, title="Scheduled one", status="future", date=scheduled)
    trashed = make_event(editor_headers, title="Binned")
    client.delete(f"{NS}/events/{trashed['id']}", headers=editor_headers)
    editor = sign_in("editor", "ella")

    def titles(query: str) -> list[str]:
        page = editor.get(f"/manage/events/{query}")
        assert page.status_code == 200
        return re.findall(r'/manage/events/\d+">([^<]+)</a>', page.get_data(as_text=True))

    upcoming = titles("")
    assert "Long ago" not in upcoming and "Last month" not in upcoming
    assert upcoming.index("Sooner") < upcoming.index("Later")  # soonest first
    assert "Binned" not in upcoming
    assert titles("?past=1") == ["Last month", "Long ago"]  # latest first
    assert titles("?status=pending") == ["Sooner"]
    assert titles("?status=draft") == ["Drafted"]
    assert titles("?status=future") == ["Scheduled one"]
    assert titles("?status=trash") == ["Binned"]
    assert titles("?status=nonsense") == upcoming
    page = editor.get("/manage/events/?status=pending").get_data(as_text=True)
    for status in ("pending", "draft", "future", "trash"):
        assert f'href="/manage/events/?status={status}"' in page
    assert 'aria-current="page">Pending review' in page
    assert 'href="/manage/events/?status=pending&amp;past=1"' in page
    assert 'name="status" value="pending"' in page  # a search keeps the filter


def test_the_venue_list_filters_by_status(client, as_role, sign_in):
    client.post(f"{NS}/venues", json={"venue": "Open hall"}, headers=as_role("editor", "eve"))
    client.post(
        f"{NS}/venues",
        json={"venue": "Awaiting hall", "status": "publish"},
        headers=as_role("contributor", "cy"),
    )
    editor = sign_in("editor", "eve")
    pending = editor.get("/manage/venues/?status=pending").get_data(as_text=True)
    assert "Awaiting hall" in pending and "Open hall" not in pending
    every = editor.get("/manage/venues/").get_data(as_text=True)
    assert "Awaiting hall" in every and "Open hall" in every
