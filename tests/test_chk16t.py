"""chk16t: SPEC §11-§13 checked from outside (iCalendar feeds and import, recurring events,
images). Each test fails on the code of the branch point for the reason its docstring names."""

from tests.conftest import NS

GOOGLE_WITH_HTML = (
    "BEGIN:VCALENDAR\r\n"
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN\r\n"
    "VERSION:2.0\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n"
    "X-WR-CALNAME:Club\r\nX-WR-TIMEZONE:Europe/Paris\r\n"
    "BEGIN:VEVENT\r\n"
    "DTSTART:20280901T170000Z\r\nDTEND:20280901T190000Z\r\nDTSTAMP:20261101T000000Z\r\n"
    "UID:ghtml1@google.com\r\n"
    "DESCRIPTION:Join us!<br><br>Agenda:<ul><li>Intro</li><li>Talks</li></ul><a hr\r\n"
    ' ef="https://example.org/talks">Programme</a>\r\n'
    "SEQUENCE:0\r\nSTATUS:CONFIRMED\r\nSUMMARY:Meetup\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_google_calendar_html_description_is_not_shown_as_raw_tags(client, admin):
    """D1: Google Calendar exports the description written in its editor as HTML in
    DESCRIPTION. SPEC §11 reads files as Google writes them, and descriptions are sanitised
    HTML (§2): the visitor must see a list and a link, not the text "<ul><li>…"."""
    answer = client.post(
        f"{NS}/events/import",
        data=GOOGLE_WITH_HTML,
        headers={**admin, "Content-Type": "text/calendar"},
    )
    assert answer.status_code == 200, answer.get_json()
    event_id = answer.get_json()["created"][0]["id"]
    event = client.get(f"{NS}/events/{event_id}").get_json()
    assert "&lt;" not in event["description"], event["description"]
    assert "<li>Intro</li>" in event["description"]
    assert 'href="https://example.org/talks"' in event["description"]
    page = client.get(f"/event/{event['slug']}/").get_data(as_text=True)
    assert "&lt;ul&gt;" not in page and "&lt;br&gt;" not in page, "the page shows the raw tags"


def test_api_accepts_an_rdate_period_line_as_the_import_does(client, admin):
    """D2: RDATE;VALUE=PERIOD is an RFC 5545 RDATE line (§3.8.5.2); SPEC §12 accepts RDATE lines
    and refuses only invalid ones. The import already reads it (the period's own duration);
    the API answered 400 "Must be RFC 5545 lines"."""
    body = {
        "title": "Periods",
        "start_date": "2029-04-02 19:00",
        "end_date": "2029-04-02 20:00",
        "timezone": "Europe/Paris",
        "recurrence": ["RDATE;VALUE=PERIOD:20290410T100000Z/PT3H"],
    }
    answer = client.post(f"{NS}/events", json=body, headers=admin)
    assert answer.status_code == 201, answer.get_json()
    series = answer.get_json()
    listing = client.get(
        f"{NS}/events",
        query_string={
            "post_parent": series["id"],
            "start_date": "2029-01-01",
            "end_date": "2029-12-31",
        },
    ).get_json()
    assert [(e["utc_start_date"], e["utc_end_date"]) for e in listing["events"]] == [
        ("2029-04-10 10:00:00", "2029-04-10 13:00:00")
    ]


def _recurrence_message(client, admin, lines):
    body = {
        "title": "Msg",
        "start_date": "2029-04-02 19:00",
        "end_date": "2029-04-02 20:00",
        "recurrence": lines,
    }
    answer = client.post(f"{NS}/events", json=body, headers=admin)
    assert answer.status_code == 400, answer.get_json()
    return answer.get_json()["data"]["params"]["recurrence"]


def test_a_refused_recurrence_says_what_is_wrong(client, admin):
    """D3: SPEC §6, data.params gives "a message saying what is wrong". An unknown zone in an
    EXDATE, and a valid rule that never occurs, both got "Must be RFC 5545 lines: RRULE, RDATE
    or EXDATE." (the second is an RFC 5545 line); neither names the problem."""
    zone = _recurrence_message(
        client, admin, ["RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Mars/Olympus:20290403T190000"]
    )
    assert "Mars/Olympus" in zone, zone
    never = _recurrence_message(client, admin, ["RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"])
    assert never != "Must be RFC 5545 lines: RRULE, RDATE or EXDATE.", never
    assert never != zone


OUTLOOK_ALL_DAY = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
    "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN\r\n"
    "BEGIN:VEVENT\r\nUID:olad@x\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=W. Europe Standard Time:20290111T000000\r\n"
    "DTEND;TZID=W. Europe Standard Time:20290113T000000\r\n"
    "X-MICROSOFT-CDO-ALLDAYEVENT:TRUE\r\n"
    "SUMMARY:Conference (all day)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_outlook_all_day_flag_makes_an_all_day_event(client, admin):
    """D4: Exchange/Outlook write an all-day event as midnight to midnight with
    X-MICROSOFT-CDO-ALLDAYEVENT:TRUE; SPEC §11 reads Outlook's all-day events. It became a
    timed 48-hour event (00:00 to 00:00)."""
    answer = client.post(
        f"{NS}/events/import",
        data=OUTLOOK_ALL_DAY,
        headers={**admin, "Content-Type": "text/calendar"},
    )
    assert answer.status_code == 200, answer.get_json()
    event = client.get(f"{NS}/events/{answer.get_json()['created'][0]['id']}").get_json()
    assert event["all_day"] is True, event
    assert event["start_date"][:10] == "2029-01-11"
    assert event["end_date"][:10] == "2029-01-12"


def test_an_occurrence_restored_from_the_trash_follows_the_series_changes(client, admin):
    """D5: SPEC §12 "Updating the series changes every occurrence that was not edited on its
    own". An occurrence that was only trashed (never edited) and then restored (SPEC §4:
    restoring is an update with a new status) came back with the title and excerpt the series
    had before it was renamed, and the feed writes it as an edited occurrence (RECURRENCE-ID)
    with the stale title, while its date did follow the series."""
    body = {
        "title": "Yoga",
        "start_date": "2029-10-01 18:00",
        "end_date": "2029-10-01 19:00",
        "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=3"],
    }
    series = client.post(f"{NS}/events", json=body, headers=admin).get_json()
    window = {"post_parent": series["id"], "start_date": "2029-01-01", "end_date": "2029-12-31"}
    second = client.get(f"{NS}/events", query_string=window).get_json()["events"][0]
    assert client.delete(f"{NS}/events/{second['id']}", headers=admin).status_code == 200
    renamed = client.post(
        f"{NS}/events/{series['id']}",
        json={"title": "Yoga (advanced)", "excerpt": "Bring a mat"},
        headers=admin,
    )
    assert renamed.status_code == 200, renamed.get_json()
    restored = client.post(f"{NS}/events/{second['id']}", json={"status": "publish"}, headers=admin)
    assert restored.status_code == 200, restored.get_json()
    occurrence = client.get(f"{NS}/events/{second['id']}").get_json()
    assert occurrence["title"] == "Yoga (advanced)", occurrence["title"]
    assert occurrence["excerpt"] == "Bring a mat"
    feed = client.get(f"{NS}/events/{series['id']}", query_string={"ical": "1"}).get_data(
        as_text=True
    )
    assert "SUMMARY:Yoga\r\n" not in feed, feed


def _no_method_file(stamp: str, summary: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Simple exporter//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:nover@x\r\nDTSTAMP:{stamp}\r\n"
        "DTSTART:20290701T100000Z\r\nDTEND:20290701T110000Z\r\n"
        f"SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def test_a_later_dtstamp_without_method_is_a_later_version(client, admin):
    """D6: RFC 5545 §3.8.7.2 — without METHOD, DTSTAMP is the LAST-MODIFIED; SPEC §11 updates
    an event whose LAST-MODIFIED is later. The second import was reported "unchanged" and the
    event kept its old title."""
    headers = {**admin, "Content-Type": "text/calendar"}
    first = client.post(
        f"{NS}/events/import", data=_no_method_file("20260101T000000Z", "First"), headers=headers
    )
    event_id = first.get_json()["created"][0]["id"]
    again = client.post(
        f"{NS}/events/import",
        data=_no_method_file("20260201T000000Z", "Second (moved)"),
        headers=headers,
    ).get_json()
    assert [entry["id"] for entry in again["updated"]] == [event_id], again
    assert client.get(f"{NS}/events/{event_id}").get_json()["title"] == "Second (moved)"


def _uid_file(sequence: int, summary: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nMETHOD:PUBLISH\r\n"
        f"BEGIN:VEVENT\r\nUID:trashre@x\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:{sequence}\r\n"
        "DTSTART:20290701T100000Z\r\nDTEND:20290701T110000Z\r\n"
        f"SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def test_a_newer_import_updates_the_live_event_of_its_uid_not_a_trashed_copy(client, as_role):
    """D7: the editor's own trashed copy of a UID took the update while the published event
    of that UID (re-imported by an author after the trashing) kept the old version."""
    editor, author = as_role("editor"), as_role("author")
    calendar = {"Content-Type": "text/calendar"}
    first = client.post(
        f"{NS}/events/import", data=_uid_file(0, "Old title"), headers={**editor, **calendar}
    )
    trashed_id = first.get_json()["created"][0]["id"]
    assert client.delete(f"{NS}/events/{trashed_id}", headers=editor).status_code == 200
    again = client.post(
        f"{NS}/events/import", data=_uid_file(0, "Old title"), headers={**author, **calendar}
    )
    live_id = again.get_json()["created"][0]["id"]
    newer = client.post(
        f"{NS}/events/import", data=_uid_file(5, "New title"), headers={**editor, **calendar}
    )
    assert newer.status_code == 200, newer.get_json()
    assert client.get(f"{NS}/events/{live_id}").get_json()["title"] == "New title", newer.get_json()


def _jpeg(color=(3, 100, 7), size=(800, 600)) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "JPEG")
    return buffer.getvalue()


def test_an_image_url_of_our_own_upload_is_that_image(client, admin):
    """D8: the reference reuses an attachment whose URL is sent as ``image``; here the URL of
    our own upload was kept as an outside URL, so the event lost the sizes, and after the
    image was deleted (SPEC §13: its files removed, its events cleared) the event still
    showed the dead URL."""
    import io

    media = client.post(
        f"{NS}/media", data={"file": (io.BytesIO(_jpeg()), "p.jpg", "image/jpeg")}, headers=admin
    ).get_json()
    body = {
        "title": "Own URL",
        "start_date": "2027-12-24 10:00",
        "end_date": "2027-12-24 11:00",
        "image": media["url"],
    }
    event = client.post(f"{NS}/events", json=body, headers=admin).get_json()
    assert event["image"].get("id") == media["id"], event["image"]
    assert client.delete(f"{NS}/media/{media['id']}", headers=admin).status_code in (200, 204)
    assert client.get(f"{NS}/events/{event['id']}").get_json()["image"] is False
