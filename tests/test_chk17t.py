"""chk17t: black-box checks of SPEC §11-§13 (real-world iCalendar files, series changed by
import, feeds, images). Each test fails on the current code for the defect it names."""

from datetime import UTC, datetime

import icalendar
import recurring_ical_events

from tests.conftest import NS

WINDOW = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC))

BERLIN = """BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE
"""


def ics(body: str, head: str = "") -> bytes:
    text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//chk17t//test//EN\n" + head + BERLIN + body + "END:VCALENDAR\n"
    return text.replace("\n", "\r\n").encode()


def do_import(client, headers, data: bytes) -> dict:
    response = client.post(f"{NS}/events/import", data=data, headers={**headers, "Content-Type": "text/calendar"})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _utc(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return f"{value} (day)"


def expanded(calendar) -> set:
    return {
        (_utc(e["DTSTART"].dt), _utc(e["DTEND"].dt), str(e["SUMMARY"]))
        for e in recurring_ical_events.of(calendar).between(*WINDOW)
    }


def served(client, headers, event_id) -> set:
    response = client.get(f"{NS}/events/{event_id}", query_string={"ical": "1"}, headers=headers)
    assert response.status_code == 200
    return expanded(icalendar.Calendar.from_ical(response.get_data(as_text=True)))


SERIES_V1 = """BEGIN:VEVENT
UID:chg2@chk17t
DTSTAMP:20261101T000000Z
SEQUENCE:0
DTSTART;TZID=Europe/Berlin:20270301T190000
DTEND;TZID=Europe/Berlin:20270301T200000
RRULE:FREQ=DAILY;COUNT=5
SUMMARY:Yoga
END:VEVENT
BEGIN:VEVENT
UID:chg2@chk17t
DTSTAMP:20261101T000000Z
SEQUENCE:0
RECURRENCE-ID;TZID=Europe/Berlin:20270303T190000
DTSTART;TZID=Europe/Berlin:20270303T170000
DTEND;TZID=Europe/Berlin:20270303T180000
SUMMARY:Yoga (early)
END:VEVENT
"""
SERIES_V2 = """BEGIN:VEVENT
UID:chg2@chk17t
DTSTAMP:20261201T000000Z
SEQUENCE:1
DTSTART;TZID=Europe/Berlin:20270301T190000
DTEND;TZID=Europe/Berlin:20270301T200000
RRULE:FREQ=DAILY;COUNT=5
SUMMARY:Yoga (new title)
END:VEVENT
"""


def test_newer_series_without_its_old_override_drops_the_override(client, as_role):
    """D1: SPEC §11 "a changed event (higher SEQUENCE ...) updates it in place": after the
    newer file, the calendar shows what that file says (the exception was reverted)."""
    editor = as_role("editor")
    first = do_import(client, editor, ics(SERIES_V1))
    series_id = next(x["id"] for x in first["created"] if x["uid"] == "chg2@chk17t")
    second = do_import(client, editor, ics(SERIES_V2))
    assert any(x["uid"] == "chg2@chk17t" for x in second["updated"])
    want = expanded(icalendar.Calendar.from_ical(ics(SERIES_V2)))
    got = served(client, editor, series_id)
    assert got == want, (sorted(got - want), sorted(want - got))


def test_feed_last_modified_does_not_go_back_when_an_event_leaves(client, as_role):
    """D2: SPEC §11 "subscribable by calendar applications (stable URL, ETag, Last-Modified)":
    Last-Modified is when the feed last changed (RFC 9110 §8.8.2); trashing an event changes
    the feed, so its Last-Modified cannot become older than the one served before."""
    import time
    from email.utils import parsedate_to_datetime

    editor = as_role("editor")
    window = {"ical": "1", "start_date": "2027-07-01", "end_date": "2027-07-02"}
    for title, hour in (("Stays", "10"), ("Leaves", "12")):
        response = client.post(
            f"{NS}/events",
            json={"title": title, "start_date": f"2027-07-01 {hour}:00", "end_date": f"2027-07-01 {hour}:30"},
            headers=editor,
        )
        assert response.status_code == 201
        leaving = response.get_json()["id"]
        time.sleep(1.1)
    before = client.get(f"{NS}/events", query_string=window)
    assert before.get_data(as_text=True).count("BEGIN:VEVENT") == 2
    time.sleep(1.1)
    assert client.delete(f"{NS}/events/{leaving}", headers=editor).status_code == 200
    after = client.get(f"{NS}/events", query_string=window)
    assert after.get_data(as_text=True).count("BEGIN:VEVENT") == 1
    assert after.headers["ETag"] != before.headers["ETag"]
    assert parsedate_to_datetime(after.headers["Last-Modified"]) >= parsedate_to_datetime(
        before.headers["Last-Modified"]
    ), (before.headers["Last-Modified"], after.headers["Last-Modified"])


def test_rule_ending_before_its_start_is_shown_by_the_feed_as_by_the_listing(client, as_role):
    """D3: SPEC §11 "a caller gets exactly the events its listing would show". A recurrence
    whose UNTIL is before the start is accepted and listed (one event), but the feed writes it
    with that RRULE, which calendar applications (recurring-ical-events, dateutil) expand to
    nothing: the subscriber never sees the event. Either refuse the rule (400) or write what is
    listed."""
    editor = as_role("editor")
    response = client.post(
        f"{NS}/events",
        json={
            "title": "Until before start",
            "start_date": "2027-06-01 10:00",
            "end_date": "2027-06-01 11:00",
            "recurrence": ["RRULE:FREQ=WEEKLY;UNTIL=20260101T000000Z"],
        },
        headers=editor,
    )
    if response.status_code == 400:
        assert "recurrence" in response.get_json()["data"]["params"]
        return
    assert response.status_code == 201
    event_id = response.get_json()["id"]
    listed = client.get(f"{NS}/events", query_string={"search": "Until before start", "start_date": "2027-01-01"})
    assert listed.get_json()["total"] == 1
    assert served(client, {}, event_id) == {("2027-06-01 10:00", "2027-06-01 11:00", "Until before start")}


def test_source_of_a_negotiated_feed_refreshes_as_a_calendar(client, as_role):
    """D4: the feed names its own address as SOURCE (RFC 7986 §5.8: "a URI where calendar
    data can be refreshed from"). A feed asked with ``Accept: text/calendar`` names the URL
    without ``ical=1``, which a calendar application fetching it gets as JSON."""
    editor = as_role("editor")
    response = client.post(
        f"{NS}/events",
        json={"title": "Source", "start_date": "2027-05-03 20:00", "end_date": "2027-05-03 21:00"},
        headers=editor,
    )
    assert response.status_code == 201
    feed = client.get(f"{NS}/events", query_string={"start_date": "2027-05-01"}, headers={"Accept": "text/calendar"})
    assert feed.headers["Content-Type"].startswith("text/calendar")
    source = str(icalendar.Calendar.from_ical(feed.get_data(as_text=True))["SOURCE"])
    path = source.split("://", 1)[1].split("/", 1)[1]
    again = client.get("/" + path)
    assert again.status_code == 200
    assert again.headers["Content-Type"].startswith("text/calendar"), (source, again.headers["Content-Type"])


def test_cli_import_of_this_calendars_own_feed_makes_no_copy(app, client, as_role, tmp_path):
    """D5: SPEC §11 import reads files "as ... this service write(s) them" and "is idempotent
    by UID"; README: a UID names one event in the calendar, "it never makes a copy". Over HTTP
    the feed of our own event is recognised ({id}@{host}); ``flask import-ics`` (no SITE_URL,
    as `make run` leaves it) copies it instead."""
    editor = as_role("editor", "owner")
    as_role("author", "writer")
    response = client.post(
        f"{NS}/events",
        json={"title": "Own feed roundtrip", "start_date": "2027-12-24 18:00", "end_date": "2027-12-24 20:00"},
        headers=editor,
    )
    assert response.status_code == 201
    event_id = response.get_json()["id"]
    feed = client.get(f"{NS}/events/{event_id}", query_string={"ical": "1"})
    path = tmp_path / "own.ics"
    path.write_bytes(feed.get_data())
    # Over HTTP the same file is recognised as our own event (rejected for this author).
    over_http = do_import(client, as_role("author", "writer"), feed.get_data())
    assert over_http["created"] == []
    result = app.test_cli_runner().invoke(args=["import-ics", str(path), "--author", "writer"])
    assert result.exit_code == 0, result.output
    assert "0 created" in result.output, result.output
    listed = client.get(f"{NS}/events", query_string={"search": "Own feed roundtrip", "start_date": "2027-01-01"}, headers=editor)
    assert listed.get_json()["total"] == 1


def test_cli_import_accepts_the_webcal_links_the_pages_offer(app, client):
    """D6: §15 pages offer every feed as ``webcal://…``; §11 ``import-ics FILE_OR_URL`` should
    read such a URL as the http one it names, not refuse its scheme."""
    page = client.get("/events/")
    assert page.status_code == 200
    assert "webcal://" in page.get_data(as_text=True)
    result = app.test_cli_runner().invoke(args=["import-ics", "webcal://127.0.0.1:9/wp-json/calendar/events/v1/events?ical=1"])
    # Port 9 answers nothing: a connection error is fine here; a refusal of the scheme is not.
    assert "only files and http(s) URLs" not in result.output, result.output


CANCEL = """BEGIN:VEVENT
UID:cancel-single@chk17t
DTSTAMP:20261101T000000Z
SEQUENCE:{seq}
DTSTART:20280301T100000Z
DTEND:20280301T110000Z
SUMMARY:Will be cancelled
{extra}END:VEVENT
"""


def test_newer_cancelled_version_of_an_imported_event_takes_it_off_the_calendar(client, as_role):
    """D7: SPEC §11 "a changed event (higher SEQUENCE ...) updates it in place". The source
    cancelled the event (SEQUENCE:1, STATUS:CANCELLED, as Nextcloud/Apple keep it in their
    exports, or an Outlook METHOD:CANCEL): it must no longer be shown to the public."""
    editor = as_role("editor")
    first = do_import(client, editor, ics(CANCEL.format(seq=0, extra="")))
    event_id = first["created"][0]["id"]
    do_import(client, editor, ics(CANCEL.format(seq=1, extra="STATUS:CANCELLED\n")))
    shown = client.get(f"{NS}/events/{event_id}")
    listed = client.get(f"{NS}/events", query_string={"start_date": "2028-03-01", "end_date": "2028-03-02"})
    assert shown.status_code != 200 or shown.get_json()["status"] != "publish", shown.get_json()["status"]
    assert all(e["id"] != event_id for e in listed.get_json()["events"])


def test_an_rrule_that_cannot_be_read_rejects_the_vevent_instead_of_flattening_it(client, as_role):
    """D8: SPEC §11 "a VEVENT that cannot become an event ... is rejected"; README "a rule that
    cannot be read rejects the VEVENT with a reason" (as it does for FREQ=FORTNIGHTLY). A rule
    without any NAME=VALUE part (vCalendar 1.0's "W1 MO #10", or "WEEKLY") is silently dropped
    and the VEVENT becomes a single event: nine of the ten Mondays vanish without a word."""
    editor = as_role("editor")
    report = do_import(
        client,
        editor,
        ics(
            "BEGIN:VEVENT\nUID:badrule@chk17t\nDTSTAMP:20261101T000000Z\nDTSTART:20280103T100000Z\n"
            "DTEND:20280103T110000Z\nRRULE:W1 MO #10\nSUMMARY:Ten Mondays\nEND:VEVENT\n"
        ),
    )
    assert report["created"] == [], report
    assert [x["uid"] for x in report["rejected"]] == ["badrule@chk17t"], report


def test_an_exdate_line_with_an_unreadable_value_does_not_bring_back_the_excluded_date(client, as_role):
    """D8 (same cause): "EXDATE:20280303T100000Z,garbage" is dropped whole, so the date the source
    cancelled (3 March) is shown; the API refuses such a line (400). Either reject the VEVENT with
    a reason, or keep the exclusion that can be read."""
    editor = as_role("editor")
    report = do_import(
        client,
        editor,
        ics(
            "BEGIN:VEVENT\nUID:badex@chk17t\nDTSTAMP:20261101T000000Z\nDTSTART:20280301T100000Z\n"
            "DTEND:20280301T110000Z\nRRULE:FREQ=DAILY;COUNT=5\nEXDATE:20280303T100000Z,garbage\n"
            "SUMMARY:Five days but the third\nEND:VEVENT\n"
        ),
    )
    if report["rejected"] and not report["created"]:
        return
    series_id = report["created"][0]["id"]
    got = served(client, editor, series_id)
    assert ("2028-03-03 10:00", "2028-03-03 11:00", "Five days but the third") not in got, sorted(got)


def test_an_override_with_an_unreadable_recurrence_id_does_not_replace_its_series(client, as_role):
    """D9: a VEVENT with the series' UID and a RECURRENCE-ID that cannot be read (here the ISO
    form with dashes that some generators write) is taken for another version of the series
    (RECURRENCE-ID treated as absent), and, with its higher SEQUENCE, replaces the whole daily
    series by one event. SPEC §11: a VEVENT that cannot become an event is rejected while the
    others are imported: the series must keep its dates."""
    editor = as_role("editor")
    report = do_import(
        client,
        editor,
        ics(
            "BEGIN:VEVENT\nUID:badrid@chk17t\nDTSTAMP:20261101T000000Z\nDTSTART:20280301T100000Z\n"
            "DTEND:20280301T110000Z\nRRULE:FREQ=DAILY;COUNT=5\nSUMMARY:Series\nEND:VEVENT\n"
            "BEGIN:VEVENT\nUID:badrid@chk17t\nDTSTAMP:20261101T000000Z\nSEQUENCE:1\n"
            "RECURRENCE-ID:2028-03-03T10:00:00Z\nDTSTART:20280303T150000Z\nDTEND:20280303T160000Z\n"
            "SUMMARY:Override\nEND:VEVENT\n"
        ),
    )
    ids = {x["id"] for x in report["created"] + report["updated"] if x.get("id")}
    assert ids, report
    starts = set()
    for event_id in ids:
        starts |= {start for start, _end, _title in served(client, editor, event_id)}
    for day in ("01", "02", "04", "05"):
        assert f"2028-03-{day} 10:00" in starts, (sorted(starts), report)


def test_a_long_description_with_many_escaped_commas_is_imported(client, as_role):
    """D10: DESCRIPTION is one TEXT value; "\\," is a comma of its text (RFC 5545 §3.3.11). A file
    whose description holds 1,200 commas (8 KB: a line-up, a list of sponsors) is refused whole with
    413 "A property has more than 1,000 values" (the bound meant for EXDATE/CATEGORIES lists counts
    the commas of any line)."""
    editor = as_role("editor")
    text = "Artist\\, " * 1200
    response = client.post(
        f"{NS}/events/import",
        data=ics(
            "BEGIN:VEVENT\nUID:commas@chk17t\nDTSTAMP:20261101T000000Z\nDTSTART:20280501T100000Z\n"
            f"DTEND:20280501T110000Z\nSUMMARY:Line-up\nDESCRIPTION:{text}\nEND:VEVENT\n"
        ),
        headers={**editor, "Content-Type": "text/calendar"},
    )
    assert response.status_code == 200, response.get_json()
    assert [x["uid"] for x in response.get_json()["created"]] == ["commas@chk17t"]


OUTLOOK_ZONES_SIX = [
    ("W. Europe Standard Time", "+0100", "+0200", "-1SU", "3", "-1SU", "10"),
    ("GMT Standard Time", "+0000", "+0100", "-1SU", "3", "-1SU", "10"),
    ("Eastern Standard Time", "-0500", "-0400", "2SU", "3", "1SU", "11"),
    ("Pacific Standard Time", "-0800", "-0700", "2SU", "3", "1SU", "11"),
    ("Central Standard Time", "-0600", "-0500", "2SU", "3", "1SU", "11"),
    ("AUS Eastern Standard Time", "+1000", "+1100", "1SU", "10", "1SU", "4"),
]


def test_an_outlook_export_with_six_time_zones_is_imported(client, as_role):
    """D11: Outlook writes each zone as a VTIMEZONE from 1601 with two yearly rules (about 875
    transitions to 2038 each). A calendar with meetings in six such zones (or six "Customized Time
    Zone N" blocks, one per invitation) is refused whole: 413 "The time zones (VTIMEZONE) have more
    than 5,000 transitions". SPEC §11 import reads files as Outlook writes them."""
    editor = as_role("editor")
    zones, events = "", ""
    for n, (name, std, dst, dday, dmon, sday, smon) in enumerate(OUTLOOK_ZONES_SIX):
        zones += (
            f"BEGIN:VTIMEZONE\nTZID:{name}\nBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:{dst}\n"
            f"TZOFFSETTO:{std}\nRRULE:FREQ=YEARLY;BYDAY={sday};BYMONTH={smon}\nEND:STANDARD\nBEGIN:DAYLIGHT\n"
            f"DTSTART:16010101T020000\nTZOFFSETFROM:{std}\nTZOFFSETTO:{dst}\n"
            f"RRULE:FREQ=YEARLY;BYDAY={dday};BYMONTH={dmon}\nEND:DAYLIGHT\nEND:VTIMEZONE\n"
        )
        events += (
            f"BEGIN:VEVENT\nUID:olz-{n}@chk17t\nDTSTAMP:20261101T000000Z\n"
            f'DTSTART;TZID="{name}":20280601T100000\nDTEND;TZID="{name}":20280601T110000\n'
            f"SUMMARY:Meeting {n}\nEND:VEVENT\n"
        )
    text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN\n"
    text += zones + events + "END:VCALENDAR\n"
    response = client.post(
        f"{NS}/events/import",
        data=text.replace("\n", "\r\n").encode(),
        headers={**editor, "Content-Type": "text/calendar"},
    )
    assert response.status_code == 200, response.get_json()
    assert len(response.get_json()["created"]) == 6
