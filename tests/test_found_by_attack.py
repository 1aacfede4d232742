"""Regressions for what an outside attack on the iCalendar and image features found
(each failed before its fix): 500s, an image of a hidden event, line ends in feeds."""

from tests.conftest import NS
from tests.helpers import do_import, ics, image_bytes, imported, uploaded
from tests.ical_helpers import feed, vevents


def test_an_all_day_event_on_the_last_day_of_9999_is_in_the_feed(client, make_event):
    made = make_event(all_day=True, start_date="2026-11-25", end_date="9999-12-31")
    calendar = feed(client, starts_after="2026-01-01")
    assert [str(e["UID"]).split("@")[0] for e in vevents(calendar)] == [str(made["id"])]
    assert feed(client, f"/events/{made['id']}")


def test_images_of_hidden_items_are_as_hidden_as_the_items(client, admin, as_role, make_event):
    unattached = uploaded(client, admin, image_bytes())
    assert client.get(f"{NS}/media/{unattached['id']}").status_code == 200  # like WordPress
    draft_image = uploaded(client, admin, image_bytes())
    make_event(title="Secret", status="draft", image=draft_image["id"])
    protected_image = uploaded(client, admin, image_bytes())
    make_event(title="Locked", password="pw", image=protected_image["id"])
    for media in (draft_image, protected_image):
        assert client.get(f"{NS}/media/{media['id']}").status_code == 404
        subscriber = as_role("subscriber")
        assert client.get(f"{NS}/media/{media['id']}", headers=subscriber).status_code == 404
        assert client.get(f"{NS}/media/{media['id']}", headers=admin).status_code == 200
    make_event(title="Public", image=draft_image["id"])  # now shown by a public event too
    assert client.get(f"{NS}/media/{draft_image['id']}").status_code == 200


def test_upload_names_with_a_trailing_newline_are_no_route(client, admin):
    image = uploaded(client, admin, image_bytes())
    name = image["url"].rsplit("/", 1)[1]
    response = client.get(f"/wp-content/uploads/{name}%0A")
    assert response.status_code == 404
    assert response.get_json()["code"] == "rest_no_route"


def test_an_absurd_sequence_is_imported_not_a_500(client, admin):
    body = ics(
        "UID:a@x\nDTSTART:20261220T100000Z\nSUMMARY:A",
        "UID:b@x\nDTSTART:20261220T100000Z\nSUMMARY:B\nSEQUENCE:9223372036854775808",
    )
    report = imported(client, admin, body)
    assert sorted(entry["uid"] for entry in report["created"]) == ["a@x", "b@x"]
    again = do_import(client, admin, body)
    assert again.status_code == 200
    assert len(again.get_json()["unchanged"]) == 2


def test_unicode_line_separators_cannot_start_a_property(client, make_event):
    made = make_event(title="D\u2028SUMMARY:INJ\u2029X\x85SUMMARY:INJ2")
    text = client.get(f"{NS}/events/{made['id']}?ical=1").get_data(as_text=True)
    assert "\u2028" not in text and "\u2029" not in text and "\x85" not in text
    assert not any(line.startswith("SUMMARY:INJ") for line in text.splitlines())


def test_deleting_an_image_cannot_change_other_authors_items(client, as_role, make_event):
    contributor, author = as_role("contributor"), as_role("author")
    image = uploaded(client, contributor, image_bytes())
    shown = make_event(headers=author, title="Theirs", image=image["id"])
    assert client.delete(f"{NS}/media/{image['id']}", headers=contributor).status_code == 403
    assert client.get(f"{NS}/events/{shown['id']}").get_json()["image"]["id"] == image["id"]
    own = uploaded(client, contributor, image_bytes())
    assert client.delete(f"{NS}/media/{own['id']}", headers=contributor).status_code == 200


def _series(client, admin, *lines):
    return client.post(
        f"{NS}/events",
        json={
            "title": "Series",
            "start_date": "2027-01-01 10:00",
            "end_date": "2027-01-01 11:00",
            "recurrence": list(lines),
        },
        headers=admin,
    )


def test_recurrences_that_break_the_calendar_or_never_occur_are_400(client, admin):
    for lines in (
        ["RDATE:99991231T235959Z"],  # its end would fall after the year 9999
        ["RRULE:FREQ=MONTHLY;BYDAY=99999999999MO;COUNT=2"],  # absurd ordinal
        ["RRULE:FREQ=MONTHLY;BYMONTHDAY=0;COUNT=2"],  # RFC 5545: never 0
        ["RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31"],  # no such day, ever
        ["RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1"],
    ):
        response = _series(client, admin, *lines)
        assert response.status_code == 400, (lines, response.get_json())
        assert "recurrence" in response.get_json()["data"]["params"]
    assert client.get(f"{NS}/events", headers=admin).get_json()["total"] == 0
    assert (
        _series(client, admin, "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=2").status_code
        == 201
    )


def test_an_occurrence_published_alone_does_not_show_its_draft_series_lines(client, as_role):
    author = as_role("author")
    series = client.post(
        f"{NS}/events",
        json={
            "title": "Plans",
            "status": "draft",
            "start_date": "2027-01-01 10:00",
            "end_date": "2027-01-01 11:00",
            "recurrence": ["RRULE:FREQ=DAILY;COUNT=3", "RDATE:20271224T100000Z"],
        },
        headers=author,
    ).get_json()
    occurrences = client.get(
        f"{NS}/events",
        query_string={"post_parent": series["id"], "status": "draft"},
        headers=author,
    ).get_json()["events"]
    one = occurrences[0]["id"]
    assert (
        client.post(f"{NS}/events/{one}", json={"status": "publish"}, headers=author).status_code
        == 200
    )
    public = client.get(f"{NS}/events/{one}").get_json()
    assert public["recurrence"] == []
    assert client.get(f"{NS}/events/{one}", headers=author).get_json()["recurrence"]
