"""Files other calendar applications write (issue "iCalendar, second round"): each case a
small file reproducing what a real export does, imported and compared with what an
independent expander (``recurring-ical-events``) makes of the same file."""

import io
from datetime import UTC, datetime, timedelta

import icalendar
import pytest
import recurring_ical_events

from tests.conftest import NS
from tests.helpers import do_import, ics, imported
from tests.ical_helpers import listed_whole, shown

WIDE = {"start_date": "2000-01-01", "end_date": "2100-01-01", "per_page": 50}
US_EASTERN_RULES = """BEGIN:STANDARD
DTSTART:16010101T020000
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
END:DAYLIGHT"""


def _zone(tzid: str) -> str:
    return f"BEGIN:VTIMEZONE\nTZID:{tzid}\n{US_EASTERN_RULES}\nEND:VTIMEZONE"


def listed(client, headers, **query) -> list[str]:
    """UTC starts of every occurrence the JSON listing has, all pages."""
    found, page = [], 1
    while True:
        params = {**WIDE, "page": page, **query}
        body = client.get(f"{NS}/events", query_string=params, headers=headers)
        if body.status_code == 404:
            return sorted(found)
        data = body.get_json()
        found += [event["utc_start_date"] for event in data["events"]]
        if page >= data["total_pages"]:
            return sorted(found)
        page += 1


def expanded(data: bytes) -> list[str]:
    calendar = icalendar.Calendar.from_ical(data)
    window = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))
    return sorted(  # a cancelled occurrence is not shown (the expander keeps it, marked)
        e["DTSTART"].dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
        for e in recurring_ical_events.of(calendar).between(*window)
        if str(e.get("STATUS", "")).upper() != "CANCELLED"
    )


def test_an_empty_rrule_line_is_ignored_not_a_rejection(client, admin):
    """A calendarlabs holiday export writes ``RRULE:`` on every event."""
    data = ics(
        "UID:h1\nDTSTAMP:20260101T000000Z\nDTSTART;VALUE=DATE:20270101\nSUMMARY:New Year\nRRULE:",
        "UID:h2\nDTSTAMP:20260101T000000Z\nDTSTART;VALUE=DATE:20270525\nSUMMARY:Holiday\nRRULE:",
    )
    report = imported(client, admin, data)
    assert len(report["created"]) == 2 and report["rejected"] == []
    event = client.get(f"{NS}/events/{report['created'][0]['id']}").get_json()
    assert event["all_day"] and event["start_date"].startswith("2027-01-01")
    assert not event.get("recurrence")


def test_an_rrule_with_spaces_is_read_and_an_unreadable_one_rejects(client, admin):
    """Exchange writes ``BYDAY=MO, TU, WE``; a rule no reader can read is refused with a
    reason, not imported as one event."""
    spaced = ics(
        "UID:s1\nDTSTAMP:20260101T000000Z\nDTSTART:20270104T090000Z\nDTEND:20270104T093000Z\n"
        "SUMMARY:Stand-up\nRRULE:FREQ=WEEKLY;BYDAY=MO, TU, WE;COUNT=6",
        "UID:s2\nDTSTAMP:20260101T000000Z\nDTSTART:20270104T090000Z\nDTEND:20270104T093000Z\n"
        "SUMMARY:Broken\nRRULE:FREQ=SOMETIMES;BYDAY=XX",
    )
    report = imported(client, admin, spaced)
    assert [entry["uid"] for entry in report["created"]] == ["s1"]
    assert report["rejected"][0]["uid"] == "s2"
    assert "recurrence rule (RRULE)" in report["rejected"][0]["reason"]
    starts = listed(client, admin)
    alone = ics(
        "UID:s1\nDTSTAMP:20260101T000000Z\nDTSTART:20270104T090000Z\nDTEND:20270104T093000Z\n"
        "SUMMARY:Stand-up\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE;COUNT=6"
    )
    assert starts == expanded(alone)
    assert len(starts) == 6


def test_a_date_start_with_a_timed_end_keeps_its_days(client, admin):
    data = ics(
        "UID:d1\nDTSTAMP:20260101T000000Z\nDTSTART;VALUE=DATE:20270301\n"
        "DTEND:20270303T120000\nSUMMARY:Festival"
    )
    event = client.get(f"{NS}/events/{imported(client, admin, data)['created'][0]['id']}")
    body = event.get_json()
    assert body["all_day"]
    assert (body["start_date"][:10], body["end_date"][:10]) == ("2027-03-01", "2027-03-03")


def test_vendor_prefixed_and_outlook_zones_keep_their_daylight_rules(client, admin):
    """Thunderbird's ``/mozilla.org/…/America/New_York`` (with its VTIMEZONE, and without),
    and Outlook's ``(UTC-05:00) Eastern Time (US & Canada)`` with its rules: a weekly
    series across the March change stays at 09:00 local, as the file's own zone says."""
    zones = _zone("/mozilla.org/20070129_1/America/New_York") + "\n"
    zones += _zone('"(UTC-05:00) Eastern Time (US & Canada)"').replace('TZID:"', "TZID:")
    zones = zones.replace('Canada)"', "Canada)")
    rule = "RRULE:FREQ=WEEKLY;COUNT=6"
    data = ics(
        "UID:z1\nDTSTAMP:20260101T000000Z\nSUMMARY:Thunderbird\n"
        "DTSTART;TZID=/mozilla.org/20070129_1/America/New_York:20270301T090000\n"
        f"DTEND;TZID=/mozilla.org/20070129_1/America/New_York:20270301T100000\n{rule}",
        "UID:z2\nDTSTAMP:20260101T000000Z\nSUMMARY:Outlook\n"
        'DTSTART;TZID="(UTC-05:00) Eastern Time (US & Canada)":20270301T090000\n'
        f'DTEND;TZID="(UTC-05:00) Eastern Time (US & Canada)":20270301T100000\n{rule}',
        zones=zones,
    )
    report = imported(client, admin, data)
    assert len(report["created"]) == 2, report
    for entry in report["created"]:
        event = client.get(f"{NS}/events/{entry['id']}").get_json()
        assert event["timezone"] == "America/New_York"
    starts = listed(client, admin)
    assert starts == expanded(data)
    assert starts.count("2027-03-01 14:00:00") == 2 and starts.count("2027-03-15 13:00:00") == 2
    bare = ics(  # no VTIMEZONE at all: the prefix still names the zone
        "UID:z3\nDTSTAMP:20260101T000000Z\nSUMMARY:Bare\n"
        "DTSTART;TZID=/freeassociation.sourceforge.net/Tzfile/Europe/Paris:20270701T090000\n"
        "DTEND;TZID=/freeassociation.sourceforge.net/Tzfile/Europe/Paris:20270701T100000"
    )
    created = imported(client, admin, bare)["created"][0]
    event = client.get(f"{NS}/events/{created['id']}").get_json()
    assert event["timezone"] == "Europe/Paris" and event["utc_start_date"] == "2027-07-01 07:00:00"


def test_a_zone_only_the_file_names_is_matched_by_its_transitions(client, admin):
    data = ics(
        "UID:c1\nDTSTAMP:20260101T000000Z\nSUMMARY:Custom\n"
        "DTSTART;TZID=Our office:20270301T090000\nDTEND;TZID=Our office:20270301T100000\n"
        "RRULE:FREQ=WEEKLY;COUNT=4",
        zones=_zone("Our office"),
    )
    event_id = imported(client, admin, data)["created"][0]["id"]
    assert client.get(f"{NS}/events/{event_id}").get_json()["timezone"] == "America/New_York"
    assert listed(client, admin) == expanded(data)


@pytest.mark.parametrize(
    ("dates", "calendar_zone", "zone", "start"),
    [
        ("DTSTART;TZID=UTC:20270701T100000\nDTEND;TZID=UTC:20270701T110000", "", "UTC", "10"),
        ("DTSTART;TZID=Etc/UTC:20270701T100000", "", "Etc/UTC", "10"),
        ("DTSTART;TZID=UTC:20270701T100000", "America/New_York", "UTC", "10"),
        ("DTSTART:20270701T100000Z\nDTEND:20270701T110000Z", "", "UTC", "10"),
        # Google: UTC times, their zone in X-WR-TIMEZONE.
        ("DTSTART:20270701T100000Z", "America/New_York", "America/New_York", "06"),
    ],
    ids=["tzid-utc", "tzid-etc-utc", "tzid-utc-beside-calendar-zone", "z", "z-google"],
)
def test_an_explicit_utc_zone_is_not_replaced_by_the_site_s_zone(
    app, client, admin, dates, calendar_zone, zone, start
):
    """chk20i D1: README "a time zone is resolved, never silently replaced by the site's". A
    VEVENT that names the UTC zone (``TZID=UTC``), or UTC times in a file that names no
    calendar zone (no X-WR-TIMEZONE), was imported as an event of the site's zone
    (Europe/Paris, 12:00) instead of a UTC event at 10:00. Only Google's UTC times take the
    zone X-WR-TIMEZONE names."""
    app.config["SITE_TIMEZONE"] = "Europe/Paris"
    extra = f"X-WR-TIMEZONE:{calendar_zone}" if calendar_zone else ""
    data = ics(
        f"UID:chk20i-utc-1\nDTSTAMP:20261101T000000Z\nSUMMARY:UTC named\n{dates}", extra=extra
    )
    report = imported(client, admin, data)
    assert [c["uid"] for c in report["created"]] == ["chk20i-utc-1"], report
    event = client.get(f"{NS}/events/{report['created'][0]['id']}").get_json()
    assert event["timezone"] == zone
    assert event["start_date"] == f"2027-07-01 {start}:00:00"


def test_a_series_that_began_years_ago_imports_from_a_recent_start(client, admin):
    """A daily stand-up since 2012, open-ended: more occurrences than a series may have from
    its first day, so it is imported from a year ago on (not refused whole)."""
    data = ics(
        "UID:daily\nDTSTAMP:20260101T000000Z\nSUMMARY:Stand-up\n"
        "DTSTART:20120102T090000Z\nDTEND:20120102T091500Z\nRRULE:FREQ=DAILY"
    )
    report = imported(client, admin, data)
    assert len(report["created"]) == 1, report
    event = client.get(f"{NS}/events/{report['created'][0]['id']}").get_json()
    first = datetime.fromisoformat(event["utc_start_date"]).replace(tzinfo=UTC)
    today = datetime.now(UTC)
    assert today - timedelta(days=366) <= first <= today
    assert event["utc_start_date"].endswith("09:00:00")
    # With a COUNT, the occurrences left out are taken from it: the series ends as the
    # file's does (its 5,200th day).
    counted = ics(
        "UID:counted\nDTSTAMP:20260101T000000Z\nSUMMARY:Counted\n"
        "DTSTART:20120102T090000Z\nDTEND:20120102T091500Z\nRRULE:FREQ=DAILY;COUNT=5200"
    )
    report = imported(client, admin, counted)
    assert len(report["created"]) == 1, report
    ours = listed(client, admin, search="Counted")
    theirs = expanded(counted)
    assert ours[-1] == theirs[-1] and len(ours) < 1000
    assert ours == [s for s in theirs if s >= ours[0]]


# --- the feed's zones hold for years --------------------------------------------------------

ZONES_CHECKED = [
    "America/New_York",
    "Europe/Paris",
    "Europe/London",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "America/Nuuk",
    "Asia/Tokyo",
    "America/Sao_Paulo",
    "Pacific/Auckland",
    "Africa/Casablanca",
    "America/Santiago",
]


@pytest.mark.slow
def test_each_zone_of_the_feed_gives_the_tz_databases_offsets_for_ten_years(client, make_event):
    """Read by an independent reader (dateutil's ``tzical``), every VTIMEZONE of the feed
    gives the offsets of the tz database every six hours for ten years, and around every
    change; no RDATE holds a list (ical.js reads only its first value)."""
    from zoneinfo import ZoneInfo

    from dateutil.tz import tzical

    for zone in ZONES_CHECKED:
        make_event(
            title=f"In {zone}",
            timezone=zone,
            start_date="2027-01-10 10:00",
            end_date="2027-01-10 11:00",
        )
    feed = client.get(f"{NS}/events", query_string={"ical": 1, **WIDE}).get_data(as_text=True)
    unfolded = feed.replace("\r\n ", "")
    assert not [line for line in unfolded.splitlines() if line.startswith("RDATE") and "," in line]
    calendar = icalendar.Calendar.from_ical(feed)
    written = {str(c["TZID"]): c.to_ical().decode() for c in calendar.walk("VTIMEZONE")}
    assert set(written) == set(ZONES_CHECKED)
    # As calendars read an event's zone: a wall time of the event, to its UTC offset. Wall
    # times every three hours and every half hour around each change, less the hour a
    # change repeats or skips (its reading is each reader's own choice).
    start = datetime(2027, 1, 1, 0, 1)
    for name, text in written.items():
        theirs, ours = tzical(io.StringIO(text)).get(), ZoneInfo(name)
        walls, moment = [], start
        while moment < start + timedelta(days=3653):
            walls.append(moment)
            if (moment + timedelta(hours=3)).replace(tzinfo=ours).utcoffset() != (
                moment.replace(tzinfo=ours).utcoffset()
            ):
                walls += [moment + timedelta(minutes=30 * n) for n in range(1, 12)]
            moment += timedelta(hours=3)
        checked = 0
        for wall in walls:
            local = wall.replace(tzinfo=ours)
            if local.astimezone(UTC).astimezone(ours).replace(tzinfo=None) != wall:
                continue  # a skipped wall time
            if wall.replace(fold=1, tzinfo=ours).utcoffset() != local.utcoffset():
                continue  # a repeated wall time
            assert wall.replace(tzinfo=theirs).utcoffset() == local.utcoffset(), (name, wall)
            checked += 1
        assert checked > 29000, name


def test_the_feed_carries_the_image_every_organizer_and_how_often_to_look(
    client, admin, make_event
):
    image = client.post(
        f"{NS}/media",
        data=_png(),
        headers={**admin, "Content-Type": "image/png", "Content-Disposition": "file; name=a.png"},
    ).get_json()
    made = make_event(
        title="Poster night",
        image=image["id"],
        organizer=[{"organizer": "Ann", "email": "ann@example.org"}, {"organizer": "Bob"}],
    )
    response = client.get(f"{NS}/events", query_string={"ical": 1})
    calendar = icalendar.Calendar.from_ical(response.get_data(as_text=True))
    assert str(calendar["REFRESH-INTERVAL"].to_ical().decode()) == "PT1H"
    assert str(calendar["SOURCE"]).endswith(f"{NS}/events?ical=1")
    (vevent,) = calendar.walk("VEVENT")
    assert str(vevent["ORGANIZER"]) == "mailto:ann@example.org"
    assert vevent["ORGANIZER"].params["CN"] == "Ann"
    assert str(vevent["CONTACT"]) == "Bob" and vevent["CONTACT"].params["ALTREP"].startswith("http")
    for name in ("ATTACH", "IMAGE"):
        assert str(vevent[name]) == made["image"]["url"]
        assert vevent[name].params["FMTTYPE"] == "image/png"


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), "green").save(out, "PNG")
    return out.getvalue()


def test_this_and_future_moves_the_occurrence_and_the_later_ones(client, admin):
    """Thunderbird and Outlook move "this and the following" occurrences with one VEVENT:
    ``RECURRENCE-ID;RANGE=THISANDFUTURE``."""
    data = ics(
        "UID:choir\nDTSTAMP:20260101T000000Z\nSUMMARY:Choir\n"
        "DTSTART;TZID=Europe/Paris:20270104T190000\nDTEND;TZID=Europe/Paris:20270104T200000\n"
        "RRULE:FREQ=WEEKLY;COUNT=6",
        "UID:choir\nDTSTAMP:20260101T000000Z\nSUMMARY:Choir (new room)\nSEQUENCE:1\n"
        "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Paris:20270118T190000\n"
        "DTSTART;TZID=Europe/Paris:20270118T200000\nDTEND;TZID=Europe/Paris:20270118T213000",
    )
    report = imported(client, admin, data)
    assert len(report["created"]) == 1 and len(report["updated"]) == 4, report
    assert listed(client, admin) == expanded(data)
    titles = client.get(f"{NS}/events", query_string=WIDE, headers=admin).get_json()["events"]
    assert [e["title"] for e in titles] == ["Choir"] * 2 + ["Choir (new room)"] * 4
    assert imported(client, admin, data)["updated"] == []  # again: nothing changes


def test_an_rdate_period_keeps_its_own_duration(client, admin):
    data = ics(
        "UID:talks\nDTSTAMP:20260101T000000Z\nSUMMARY:Talk\n"
        "DTSTART:20270301T090000Z\nDTEND:20270301T100000Z\nRRULE:FREQ=WEEKLY;COUNT=2\n"
        "RDATE;VALUE=PERIOD:20270320T090000Z/PT3H,20270327T090000Z/20270327T100000Z"
    )
    report = imported(client, admin, data)
    assert len(report["created"]) == 1, report
    events = client.get(f"{NS}/events", query_string=WIDE, headers=admin).get_json()["events"]
    spans = [(e["utc_start_date"], e["utc_end_date"]) for e in events]
    assert ("2027-03-20 09:00:00", "2027-03-20 12:00:00") in spans
    assert ("2027-03-27 09:00:00", "2027-03-27 10:00:00") in spans
    calendar = icalendar.Calendar.from_ical(data)
    theirs = sorted(
        (
            e["DTSTART"].dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
            e["DTEND"].dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
        )
        for e in recurring_ical_events.of(calendar).between(
            datetime(2027, 1, 1), datetime(2028, 1, 1)
        )
    )
    assert sorted(spans) == theirs


def test_a_series_whose_first_date_is_deleted_starts_at_the_next(client, admin):
    """Thunderbird deletes a first occurrence with an EXDATE on DTSTART; Outlook with a
    cancelled VEVENT of its RECURRENCE-ID."""
    thunderbird = ics(
        "UID:tb\nDTSTAMP:20260101T000000Z\nSUMMARY:Yoga\n"
        "DTSTART;TZID=Europe/Paris:20270104T190000\nDTEND;TZID=Europe/Paris:20270104T200000\n"
        "RRULE:FREQ=WEEKLY;COUNT=5\nEXDATE;TZID=Europe/Paris:20270104T190000"
    )
    outlook = ics(
        "UID:ol\nDTSTAMP:20260101T000000Z\nSUMMARY:Pilates\n"
        "DTSTART;TZID=Europe/Paris:20270105T190000\nDTEND;TZID=Europe/Paris:20270105T200000\n"
        "RRULE:FREQ=WEEKLY;COUNT=5",
        "UID:ol\nDTSTAMP:20260101T000000Z\nSUMMARY:Pilates\nSTATUS:CANCELLED\n"
        "RECURRENCE-ID;TZID=Europe/Paris:20270105T190000\n"
        "DTSTART;TZID=Europe/Paris:20270105T190000\nDTEND;TZID=Europe/Paris:20270105T200000",
    )
    for data, title in ((thunderbird, "Yoga"), (outlook, "Pilates")):
        report = imported(client, admin, data)
        assert len(report["created"]) == 1 and report["rejected"] == [], report
        assert listed(client, admin, search=title) == expanded(data)
        assert len(expanded(data)) == 4
        again = imported(client, admin, data)
        assert again["created"] == [] and again["rejected"] == []


def test_a_series_started_off_its_rule_keeps_every_date_when_it_starts_later(client, admin):
    """A Sunday start of BYDAY=MO with a COUNT has the Sunday and COUNT Mondays (dateutil's
    reading and calendar applications', and the API's): when the import starts such a series
    at a later date (its first date deleted or edited, or years ago), the COUNT left counts
    only the Mondays before it, never the Sunday the rule does not give."""
    head = "DTSTAMP:20260101T000000Z\nDTSTART:20270307T190000Z\nDTEND:20270307T200000Z\n"
    deleted = ics(
        f"UID:off-deleted\nSUMMARY:Deleted\n{head}RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\n"
        "EXDATE:20270307T190000Z"
    )
    edited = ics(
        f"UID:off-edited\nSUMMARY:Edited\n{head}RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3",
        "UID:off-edited\nSUMMARY:Edited first\nDTSTAMP:20260101T000000Z\n"
        "RECURRENCE-ID:20270307T190000Z\nDTSTART:20270307T180000Z\nDTEND:20270307T200000Z",
    )
    # 2012-01-01 is a Sunday: Mondays and Tuesdays from then to March 2029, more than a
    # series may have, so it is imported from a year ago.
    years = ics(
        "UID:off-years\nSUMMARY:Years\nDTSTAMP:20260101T000000Z\n"
        "DTSTART:20120101T090000Z\nDTEND:20120101T091500Z\n"
        "RRULE:FREQ=WEEKLY;BYDAY=MO,TU;COUNT=1800"
    )
    for data, title, count in ((deleted, "Deleted", 3), (edited, "Edited", 4)):
        report = imported(client, admin, data)
        assert len(report["created"]) == 1 and report["rejected"] == [], report
        assert listed(client, admin, search=title) == expanded(data)
        assert len(expanded(data)) == count
    report = imported(client, admin, years)
    assert len(report["created"]) == 1 and report["rejected"] == [], report
    ours, theirs = listed(client, admin, search="Years"), expanded(years)
    assert ours[-1] == theirs[-1] and len(ours) < 1000
    assert ours == [moment for moment in theirs if moment >= ours[0]]


def test_an_edited_first_occurrence_is_kept_as_the_file_shows_it(client, admin):
    """Outlook and Thunderbird edit a series' first occurrence with a VEVENT whose
    RECURRENCE-ID is the series' DTSTART: the series starts at its next date and keeps the
    first as an RDATE, which the change edits as any other occurrence."""
    series = (
        "UID:first-edit\nDTSTAMP:20260101T000000Z\nSUMMARY:Choir\nSEQUENCE:0\n"
        "DTSTART;TZID=Europe/Paris:20270104T190000\nDTEND;TZID=Europe/Paris:20270104T200000\n"
        "RRULE:FREQ=WEEKLY;COUNT=5\nEXDATE;TZID=Europe/Paris:20270118T190000"
    )
    edit = (
        "UID:first-edit\nDTSTAMP:20260101T000000Z\nSUMMARY:Choir, first rehearsal\n"
        "RECURRENCE-ID;TZID=Europe/Paris:20270104T190000\n"
        "DTSTART;TZID=Europe/Paris:20270105T183000\nDTEND;TZID=Europe/Paris:20270105T203000"
    )
    data = ics(series, edit)
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["created"]) == 1, report
    ((entry),) = report["updated"]
    assert entry["recurrence_id"] == "2027-01-04 19:00:00"
    assert listed(client, admin, search="Choir") == expanded(data)
    assert len(expanded(data)) == 4
    events = client.get(f"{NS}/events", query_string={**WIDE, "search": "Choir"}).get_json()
    first, *rest = events["events"]
    assert first["title"] == "Choir, first rehearsal" and first["id"] == entry["id"]
    assert (
        first["start_date"] == "2027-01-05 18:30:00" and first["end_date"] == "2027-01-05 20:30:00"
    )
    assert [event["title"] for event in rest] == ["Choir"] * 3
    assert "RDATE;TZID=Europe/Paris:20270104T190000" in rest[0]["recurrence"]
    # Imported again: nothing changes; a newer series keeps its edited first occurrence.
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == []
    newer = ics(series.replace("SEQUENCE:0", "SEQUENCE:1").replace("Choir", "Chorus"), edit)
    after = imported(client, admin, newer)
    assert after["rejected"] == [] and len(after["updated"]) == 1, after
    titles = [
        e["title"] for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"]
    ]
    assert titles == ["Choir, first rehearsal", "Chorus", "Chorus", "Chorus"]
    # Our feed says the same, RFC 5545 whole: the first date is in the set it overrides.
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert expanded(feed) == listed(client, admin)


def test_a_first_occurrence_edited_after_its_series_came_is_kept(client, admin):
    """Found by a review: Outlook and Thunderbird edit one occurrence without a newer
    SEQUENCE for the series; the file imported again with the edit refused it."""
    series = (
        "UID:later\nDTSTAMP:20260101T000000Z\nSUMMARY:Daily\n"
        "DTSTART:20270301T100000Z\nDTEND:20270301T110000Z\nRRULE:FREQ=DAILY;COUNT=3"
    )
    edit = (
        "UID:later\nDTSTAMP:20260102T000000Z\nSUMMARY:Daily, moved\n"
        "RECURRENCE-ID:20270301T100000Z\nDTSTART:20270301T150000Z\nDTEND:20270301T160000Z"
    )
    assert len(imported(client, admin, ics(series))["created"]) == 1
    data = ics(series, edit)
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["updated"]) == 2, report
    assert listed(client, admin) == expanded(data)
    again = imported(client, admin, data)
    assert again["updated"] == again["rejected"] == [], again


def test_the_first_occurrences_edited_one_after_another_are_all_kept(client, admin):
    """Thunderbird's file of a daily series whose first two occurrences were edited, and
    its last: the series starts at the first date the file leaves as it is."""
    series = (
        "UID:chain\nDTSTAMP:20260101T000000Z\nSUMMARY:Daily\n"
        "DTSTART;TZID=Europe/London:20271220T130000\nDTEND;TZID=Europe/London:20271220T140000\n"
        "RRULE:FREQ=DAILY;UNTIL=20271223T130000Z"
    )
    edits = [
        f"UID:chain\nDTSTAMP:20260101T000000Z\nSUMMARY:Daily {day}\n"
        f"RECURRENCE-ID;TZID=Europe/London:202712{day}T130000\n"
        f"DTSTART;TZID=Europe/London:202712{day}T{hour}0000\n"
        f"DTEND;TZID=Europe/London:202712{day}T{hour + 1}0000"
        for day, hour in ((20, 13), (21, 12), (23, 13))
    ]
    data = ics(series, *edits)
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["updated"]) == 3, report
    assert listed(client, admin) == expanded(data)
    titles = [
        e["title"] for e in client.get(f"{NS}/events", query_string=WIDE).get_json()["events"]
    ]
    assert titles == ["Daily 20", "Daily 21", "Daily", "Daily 23"]


PARIS = "TZID=Europe/Paris"


def test_a_series_of_dates_whose_first_is_edited_starts_at_its_next(client, admin):
    """A series of RDATEs (no RRULE) whose first date is edited, as Thunderbird writes it:
    the series starts at its next date, the first kept as an RDATE the change edits."""
    series = (
        "UID:dates\nDTSTAMP:20260101T000000Z\nSUMMARY:Talks\n"
        f"DTSTART;{PARIS}:20270104T190000\nDTEND;{PARIS}:20270104T200000\n"
        f"RDATE;{PARIS}:20270111T190000,20270201T180000\nRDATE;{PARIS}:20270115T190000"
    )
    edit = (
        "UID:dates\nDTSTAMP:20260101T000000Z\nSUMMARY:Talks, opening\n"
        f"RECURRENCE-ID;{PARIS}:20270104T190000\n"
        f"DTSTART;{PARIS}:20270105T183000\nDTEND;{PARIS}:20270105T203000"
    )
    data = ics(series, edit)
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["created"]) == 1, report
    assert listed_whole(client, admin) == shown(data)
    assert [title for _s, _e, title in shown(data)] == ["Talks, opening"] + ["Talks"] * 3
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == []
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_a_series_of_rules_and_dates_starts_at_its_next_date_of_the_rule(client, admin):
    """A weekly rule with an extra date (RDATE) between its first two: the first edited or
    deleted, the series starts at the rule's next date (the rule counts from its start),
    the extra date staying an occurrence before it."""
    series = (
        "UID:{uid}\nDTSTAMP:20260101T000000Z\nSUMMARY:{uid}\n"
        f"DTSTART;{PARIS}:20270104T190000\nDTEND;{PARIS}:20270104T200000\n"
        f"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\nRDATE;{PARIS}:20270106T170000"
    )
    edited = ics(
        series.format(uid="edited"),
        "UID:edited\nDTSTAMP:20260101T000000Z\nSUMMARY:edited first\n"
        f"RECURRENCE-ID;{PARIS}:20270104T190000\n"
        f"DTSTART;{PARIS}:20270104T180000\nDTEND;{PARIS}:20270104T200000",
    )
    deleted = ics(series.format(uid="deleted") + f"\nEXDATE;{PARIS}:20270104T190000")
    for data, uid in ((edited, "edited"), (deleted, "deleted")):
        report = imported(client, admin, data)
        assert report["rejected"] == [] and len(report["created"]) == 1, report
        assert listed_whole(client, admin, search=uid) == shown(data)
        assert imported(client, admin, data)["updated"] == []
    assert len(shown(edited)) == 4 and len(shown(deleted)) == 3


def test_a_series_whose_every_date_is_edited_shows_the_edits(client, admin):
    """Google Calendar's file of a series split in two ("this and following"): the second
    part, a UID ending in _R…, has every date edited (the same SEQUENCE), one of them
    cancelled; and a series of one date, edited. The series is written as its last edited
    date says, the others stay RDATEs edited each."""
    split = (
        "UID:abc_R20270105T080000@google.com\nDTSTAMP:20260101T000000Z\nSUMMARY:Team\n"
        f"DTSTART;{PARIS}:20270105T090000\nDTEND;{PARIS}:20270105T100000\n"
        "RRULE:FREQ=WEEKLY;UNTIL=20270202T225959Z;INTERVAL=2;BYDAY=TU;WKST=MO"
    )
    edits = [
        "UID:abc_R20270105T080000@google.com\nDTSTAMP:20260101T000000Z\n"
        f"SUMMARY:Team {day}\nRECURRENCE-ID;{PARIS}:202701{day}T090000\n"
        f"DTSTART;{PARIS}:202701{day}T{hour}0000\nDTEND;{PARIS}:202701{day}T{hour}3000"
        for day, hour in (("05", 10), ("19", 11))
    ]
    cancelled = (
        "UID:abc_R20270105T080000@google.com\nDTSTAMP:20260101T000000Z\nSUMMARY:Team\n"
        f"STATUS:CANCELLED\nRECURRENCE-ID;{PARIS}:20270202T090000\n"
        f"DTSTART;{PARIS}:20270202T090000\nDTEND;{PARIS}:20270202T100000"
    )
    single = (
        "UID:one\nDTSTAMP:20260101T000000Z\nSUMMARY:Review\nSEQUENCE:4\n"
        f"DTSTART;{PARIS}:20270915T093000\nDTEND;{PARIS}:20270915T103000\n"
        "RRULE:FREQ=WEEKLY;UNTIL=20271214T225959Z;INTERVAL=13;BYDAY=WE",
        "UID:one\nDTSTAMP:20260101T000000Z\nSUMMARY:Review, moved\nSEQUENCE:5\n"
        f"RECURRENCE-ID;{PARIS}:20270915T093000\n"
        f"DTSTART;{PARIS}:20270927T093000\nDTEND;{PARIS}:20270927T103000",
    )
    data = ics(split, *edits, cancelled, *single)
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["created"]) == 2, report
    assert listed_whole(client, admin) == shown(data)
    assert [title for _s, _e, title in shown(data)] == ["Team 05", "Team 19", "Review, moved"]
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)
    # A newer edit of the date the series is written as changes it.
    newer = edits[1].replace("Team 19", "Team 19 (room B)") + "\nSEQUENCE:1"
    data = ics(split, edits[0], newer, cancelled, *single)
    after = imported(client, admin, data)
    assert after["rejected"] == [] and after["created"] == [], after
    assert listed_whole(client, admin) == shown(data)


def test_a_series_of_dates_whose_every_date_is_edited_and_the_last_moved(client, admin):
    """A series of RDATEs only (no RRULE), every date edited, the last edit moving its date
    to the next day (found by a user): the series, written as that edit says, does not keep
    its own date as one more occurrence. The report names both dates as wall times in the
    series' zone (Paris, which X-WR-TIMEZONE gives the series of UTC times)."""
    events = []
    for uid, zone, day in (
        ("utc", "", "202704{}T{}0000Z"),
        ("paris", f";{PARIS}", "202706{}T{}0000"),
    ):
        head = f"UID:{uid}\nDTSTAMP:20261120T100000Z\n"
        events += [
            f"{head}SUMMARY:Ride\nDTSTART{zone}:{day.format('05', '08')}\n"
            f"DTEND{zone}:{day.format('05', '09')}\nRDATE{zone}:{day.format('12', '08')}",
            f"{head}SUMMARY:Ride A\nRECURRENCE-ID{zone}:{day.format('05', '08')}\n"
            f"DTSTART{zone}:{day.format('05', '07')}\nDTEND{zone}:{day.format('05', '09')}",
            f"{head}SUMMARY:Ride B\nRECURRENCE-ID{zone}:{day.format('12', '08')}\n"
            f"DTSTART{zone}:{day.format('13', '08')}\nDTEND{zone}:{day.format('13', '10')}",
        ]
    data = ics(*events, extra="X-WR-TIMEZONE:Europe/Paris")
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["created"]) == 2, report
    assert [title for _s, _e, title in shown(data)] == ["Ride A", "Ride B"] * 2
    assert listed_whole(client, admin) == shown(data)
    for uid, month, hour in (("utc", "04", "10"), ("paris", "06", "08")):
        (created,) = [entry for entry in report["created"] if entry["uid"] == uid]
        series = client.get(f"{NS}/events/{created['id']}", headers=admin).get_json()
        assert series["timezone"] == "Europe/Paris"
        named = sorted(entry["recurrence_id"] for entry in report["updated"] if entry["uid"] == uid)
        assert named == [f"2027-{month}-{day} {hour}:00:00" for day in ("05", "12")], report
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_this_and_future_on_the_first_occurrence_changes_the_whole_series(client, admin):
    """RECURRENCE-ID;RANGE=THISANDFUTURE of a series' first date: the series changes from
    it on, that is whole (its title, duration, and every date moved as the first is); the
    file's other changes name their dates as the series had them."""
    head = "DTSTAMP:20260101T000000Z\nSEQUENCE:0\n"
    weekly = ics(
        f"UID:weekly\n{head}SUMMARY:Choir\n"
        f"DTSTART;{PARIS}:20270104T190000\nDTEND;{PARIS}:20270104T200000\n"
        f"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20270201T180000Z\nEXDATE;{PARIS}:20270111T190000",
        f"UID:weekly\n{head}SUMMARY:Choir (new hall)\n"
        f"RECURRENCE-ID;RANGE=THISANDFUTURE;{PARIS}:20270104T190000\n"
        f"DTSTART;{PARIS}:20270104T193000\nDTEND;{PARIS}:20270104T210000",
        f"UID:weekly\n{head}SUMMARY:Choir, concert\nRECURRENCE-ID;{PARIS}:20270125T190000\n"
        f"DTSTART;{PARIS}:20270126T200000\nDTEND;{PARIS}:20270126T220000",
        f"UID:weekly\n{head}SUMMARY:Choir\nSTATUS:CANCELLED\n"
        f"RECURRENCE-ID;{PARIS}:20270118T190000\n"
        f"DTSTART;{PARIS}:20270118T190000\nDTEND;{PARIS}:20270118T200000",
    )
    daily = ics(
        f"UID:daily\n{head}SUMMARY:Stand-up\nDTSTART:20270301T090000Z\nDTEND:20270301T091500Z\n"
        "RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20270307T090000Z",
        f"UID:daily\n{head}SUMMARY:Stand-up (online)\n"
        "RECURRENCE-ID;RANGE=THISANDFUTURE:20270301T090000Z\n"
        "DTSTART:20270302T083000Z\nDTEND:20270302T090000Z",
    )
    for data, title, count in ((weekly, "Choir", 3), (daily, "Stand-up", 4)):
        report = imported(client, admin, data)
        assert report["rejected"] == [] and len(report["created"]) == 1, report
        assert listed_whole(client, admin, search=title) == shown(data)
        assert len(shown(data)) == count
        again = imported(client, admin, data)
        assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_a_whole_series_moved_as_its_rule_cannot_say_is_refused_with_a_reason(client, admin):
    """The first Monday of each month moved to the day after, from the first on, with no
    end: no rule says "the day after the first Monday" (1TU is another day in a month that
    starts on a Tuesday), and no list of dates says what it shows past the horizon; that
    change is refused with a reason, the series imported as its own VEVENT says."""
    data = ics(
        "UID:mondays\nDTSTAMP:20260101T000000Z\nSUMMARY:Mondays\n"
        "DTSTART:20270104T180000Z\nDTEND:20270104T190000Z\nRRULE:FREQ=MONTHLY;BYDAY=1MO",
        "UID:mondays\nDTSTAMP:20260101T000000Z\nSUMMARY:Tuesdays\n"
        "RECURRENCE-ID;RANGE=THISANDFUTURE:20270104T180000Z\n"
        "DTSTART:20270105T180000Z\nDTEND:20270105T190000Z",
    )
    report = imported(client, admin, data)
    assert len(report["created"]) == 1, report
    ((rejected),) = report["rejected"]
    assert "RANGE=THISANDFUTURE on its first occurrence" in rejected["reason"]
    titles = {title for _s, _e, title in listed_whole(client, admin)}
    assert titles == {"Mondays"}
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == [] and len(again["rejected"]) == 1


def test_several_series_under_one_uid_are_versions_the_newest_wins(client, admin):
    """Two VEVENTs of one UID without RECURRENCE-ID (recurring-ical-events' issue 148
    files): versions of one event, not two series (RFC 5545: a UID and a RECURRENCE-ID name
    one occurrence); the highest SEQUENCE is imported, wherever it stands in the file."""
    old = (
        "UID:111\nDTSTAMP:20260101T000000Z\nSUMMARY:Old\nSEQUENCE:1\n"
        "DTSTART;VALUE=DATE:20270705\nDTEND;VALUE=DATE:20270706\n"
        "RRULE:FREQ=WEEKLY;UNTIL=20270802;INTERVAL=2;BYDAY=MO"
    )
    new = old.replace("Old", "New").replace("SEQUENCE:1", "SEQUENCE:3") + (
        "\nEXDATE;VALUE=DATE:20270719"
    )
    for data in (ics(old, new), ics(new, old)):
        imported(client, admin, data)
        assert listed_whole(client, admin) == shown(data)
        assert [title for _s, _e, title in shown(data)] == ["New"] * 2


def test_a_line_that_cannot_be_read_leaves_the_rest_of_the_event(client, admin):
    """Found by importing the test files of the icalendar project: a content line the
    parser cannot split was a 500."""
    data = ics(
        "UID:odd\nDTSTAMP:20260101T000000Z\nSUMMARY:Odd line\n"
        "DTSTART:20270101T100000Z\nDTEND:20270101T110000Z\nNOCOLONHERE"
    )
    report = imported(client, admin, data)
    assert [entry["uid"] for entry in report["created"]] == ["odd"]


def test_the_later_occurrences_one_file_may_change_are_bounded(app, client, admin):
    """RANGE=THISANDFUTURE turns one VEVENT into a write per later occurrence: one file may
    change at most RECURRENCE_MAX occurrences so (an author's file of 250 such VEVENTs would
    otherwise ask for 250,000 writes)."""
    app.config["RECURRENCE_MAX"] = 20
    series = [
        f"UID:s{n}\nDTSTAMP:20260101T000000Z\nSUMMARY:S{n}\n"
        f"DTSTART:2027010{n}T090000Z\nDTEND:2027010{n}T100000Z\nRRULE:FREQ=WEEKLY;COUNT=15"
        for n in (4, 5)
    ]
    changes = [
        f"UID:s{n}\nDTSTAMP:20260101T000000Z\nSUMMARY:S{n} moved\nSEQUENCE:1\n"
        f"RECURRENCE-ID;RANGE=THISANDFUTURE:202701{n + 7}T090000Z\n"
        f"DTSTART:202701{n + 7}T110000Z\nDTEND:202701{n + 7}T120000Z"
        for n in (4, 5)
    ]
    report = imported(client, admin, ics(*series, *changes))
    assert len(report["created"]) == 2 and len(report["updated"]) == 14
    (refused,) = report["rejected"]
    assert refused["uid"] == "s5" and "than one file may change" in refused["reason"]


# --- found by an outside attack on the above ----------------------------------------------


def test_series_since_1800_cost_a_bounded_time_per_file(client, admin):
    import time

    body = (
        "UID:old{n}\nDTSTAMP:20260101T000000Z\nSUMMARY:Old\n"
        "DTSTART;TZID=Europe/Paris:18000101T100000\nDTEND;TZID=Europe/Paris:18000101T110000\n"
        "RRULE:FREQ=DAILY\nEXDATE;TZID=Europe/Paris:18000101T100000"
    )
    started = time.process_time()
    report = imported(client, admin, ics(*(body.format(n=n) for n in range(20))))
    assert len(report["rejected"]) == 20  # too many occurrences, as POST /events says
    assert time.process_time() - started < 10


def test_this_and_future_past_year_9999_or_on_the_first_date_answers_cleanly(client, admin):
    series = (
        "UID:far\nDTSTAMP:20260101T000000Z\nSUMMARY:Far\n"
        "DTSTART:20261201T100000Z\nDTEND:20261201T110000Z\nRRULE:FREQ=DAILY;COUNT=5"
    )
    far = (
        "UID:far\nDTSTAMP:20260101T000000Z\nSUMMARY:Far\nSEQUENCE:1\n"
        "RECURRENCE-ID;RANGE=THISANDFUTURE:20261202T100000Z\n"
        "DTSTART;TZID=Europe/Paris:99991231T100000\nDTEND;TZID=Europe/Paris:99991231T110000"
    )
    first = (
        "UID:far\nDTSTAMP:20260101T000000Z\nSUMMARY:Far\nSEQUENCE:2\n"
        "RECURRENCE-ID;RANGE=THISANDFUTURE:20261201T100000Z\n"
        "DTSTART:20261201T120000Z\nDTEND:20261201T130000Z"
    )
    response = do_import(client, admin, ics(series, far, first))
    assert response.status_code == 200, response.get_data(as_text=True)
    report = response.get_json()  # no 500: the change past 9999 stops at its own occurrence
    assert len(report["created"]) == 1 and report["rejected"] == [], report
    # The change of the first date on changes the whole series (two hours later).
    assert report["updated"][0]["recurrence_id"] == "2026-12-01 10:00:00"
    events = client.get(f"{NS}/events", query_string=WIDE).get_json()["events"]
    assert [e["utc_start_date"][8:] for e in events] == [f"0{day} 12:00:00" for day in (1, 3, 4, 5)]


def test_another_users_draft_series_is_neither_changed_nor_revealed(client, as_role):
    first = as_role("author", "first")
    series = (
        "UID:secret-1\nDTSTAMP:20260101T000000Z\nSUMMARY:Secret\n"
        "DTSTART:20270104T100000Z\nDTEND:20270104T110000Z\nRRULE:FREQ=WEEKLY;COUNT=6"
    )
    imported(client, first, ics(series), status="draft")
    probe = (
        "UID:secret-1\nDTSTAMP:20260101T000000Z\nSUMMARY:Probe\nSEQUENCE:9\n"
        "RECURRENCE-ID;RANGE=THISANDFUTURE:20270111T100000Z\n"
        "DTSTART:20270111T100000Z\nDTEND:20270111T110000Z"
    )
    unknown = probe.replace("secret-1", "nobody-1")
    second = as_role("author", "second")
    told = imported(client, second, ics(probe))
    other = imported(client, second, ics(unknown))
    # Answered as a UID the calendar does not have: the edit alone, an event of the
    # importer's own; the series stays as it was.
    assert told["rejected"] == other["rejected"] == [] and len(told["created"]) == 1
    assert told["created"][0].keys() == other["created"][0].keys()
    assert told["created"][0]["note"] == other["created"][0]["note"]
    titles = [t for _s, _e, t in listed_whole(client, first, status="draft,publish")]
    assert titles.count("Secret") == 6 and titles.count("Probe") == 2


def test_a_trashed_copy_of_another_user_does_not_hold_the_uid(client, as_role):
    squatter, author = as_role("author", "squatter"), as_role("author", "author")
    data = ics(
        "UID:gcal-1@google.com\nDTSTAMP:20260101T000000Z\nSUMMARY:Public\n"
        "DTSTART:20270104T100000Z\nDTEND:20270104T110000Z"
    )
    (made,) = imported(client, squatter, data)["created"]
    assert client.delete(f"{NS}/events/{made['id']}", headers=squatter).status_code == 200
    (mine,) = imported(client, author, data)["created"]
    assert mine["id"] != made["id"]


def test_a_clipped_series_counts_its_excluded_dates(client, admin):
    exdates = "\n".join(f"EXDATE:202401{day:02d}T100000Z" for day in range(2, 30))
    data = ics(
        "UID:clip\nDTSTAMP:20260101T000000Z\nSUMMARY:Clip\n"
        f"DTSTART:20240101T100000Z\nDTEND:20240101T103000Z\nRRULE:FREQ=DAILY;COUNT=1500\n{exdates}"
    )
    imported(client, admin, data)
    assert listed(client, admin)[-1] == expanded(data)[-1]


def test_feed_text_and_addresses_cannot_break_lines(client, admin, make_event):
    # An address holding a control character is refused when written (rules/text.py::
    # is_web_url), so none reaches a feed; a title's line separator is the feed's to keep.
    refused = client.post(
        f"{NS}/events",
        json={"title": "x", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00",
              "image": "https://example.org/a\x01b.png"},
        headers=admin,
    )  # fmt: skip
    assert refused.status_code == 400
    made = make_event(title="C:\\New folder\\Nodes\u2028x", image="https://example.org/a.png")
    response = client.get(f"{NS}/events?ical=1&x=%E2%80%A8END:VCALENDAR")
    text = response.get_data(as_text=True)
    assert "\u2028" not in text and "\x01" not in text
    # RFC 5545 escaping: each backslash doubled (icalendar's own reader then misreads
    # "\\N" as a line break, so the raw line is checked).
    assert "SUMMARY:C:\\\\New folder\\\\Nodes" in text
    assert made["title"].startswith("C:\\New folder\\Nodes")


def test_a_zone_that_changed_inside_the_span_says_what_held_before(client, make_event):
    """Asia/Almaty moved from +06 to +05 on 2024-03-01: an event of 2023 reads +06."""
    from dateutil.tz import tzical

    make_event(
        title="Before",
        timezone="Asia/Almaty",
        start_date="2023-06-01 10:00",
        end_date="2023-06-01 11:00",
    )
    feed = client.get(f"{NS}/events", query_string={"ical": 1, **WIDE}).get_data(as_text=True)
    (zone,) = icalendar.Calendar.from_ical(feed).walk("VTIMEZONE")
    theirs = tzical(io.StringIO(zone.to_ical().decode())).get()
    assert datetime(2023, 6, 1, 10).replace(tzinfo=theirs).utcoffset() == timedelta(hours=6)
    assert datetime(2025, 6, 1, 10).replace(tzinfo=theirs).utcoffset() == timedelta(hours=5)


def test_a_long_event_in_a_zone_no_rrule_says_is_a_quick_feed(client, make_event):
    import time

    made = make_event(
        title="Long",
        timezone="Asia/Jerusalem",
        start_date="2025-06-01 10:00",
        end_date="9999-06-01 10:00",
    )
    started = time.process_time()
    response = client.get(f"{NS}/events/{made['id']}?ical=1")
    assert response.status_code == 200 and len(response.data) < 200_000
    assert time.process_time() - started < 3


# --- the import's remaining differences (issue 34, third round) -----------------------------


def test_an_edit_whose_series_is_not_in_the_file_is_an_event_of_its_own(client, admin):
    """Google exports the edits of a series whose own VEVENT it leaves out (a RECURRENCE-ID
    with no series): a calendar application shows each as an event. Each becomes one,
    named by its UID and RECURRENCE-ID (re-imported: nothing changes; a newer SEQUENCE
    updates it), reported with a note; a cancelled one shows nothing. When the series comes
    later, its occurrences show the edits and the events made alone leave."""
    head = "UID:split@google.com\nDTSTAMP:20260101T000000Z\n"
    edits = [
        f"{head}SUMMARY:Yoga (moved)\nRECURRENCE-ID;{PARIS}:20270308T180000\n"
        f"DTSTART;{PARIS}:20270309T190000\nDTEND;{PARIS}:20270309T200000",
        f"{head}SUMMARY:Yoga (long)\nRECURRENCE-ID:20270315T170000Z\n"
        "DTSTART:20270315T170000Z\nDTEND:20270315T193000Z",
        f"{head}SUMMARY:Yoga\nSTATUS:CANCELLED\nRECURRENCE-ID:20270322T170000Z\n"
        "DTSTART:20270322T170000Z\nDTEND:20270322T180000Z",
    ]
    data = ics(*edits)
    report = imported(client, admin, data)
    assert report["updated"] == report["unchanged"] == [], report
    assert sorted(entry["recurrence_id"] for entry in report["created"]) == [
        "2027-03-08 18:00:00",
        "2027-03-15 17:00:00",
    ]
    assert all("neither in the file nor" in entry["note"] for entry in report["created"])
    (cancelled,) = report["rejected"]
    assert cancelled["reason"] == "The VEVENT is cancelled."
    assert listed_whole(client, admin) == shown(data)
    assert [title for _s, _e, title in shown(data)] == ["Yoga (moved)", "Yoga (long)"]
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == [] and len(again["unchanged"]) == 2, again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)

    newer = ics(edits[0].replace("Yoga (moved)", "Yoga (moved again)") + "\nSEQUENCE:2")
    (updated,) = imported(client, admin, newer)["updated"]
    assert updated["id"] == report["created"][0]["id"] and "note" in updated
    assert "Yoga (moved again)" in [title for _s, _e, title in listed_whole(client, admin)]

    series = (
        f"{head}SUMMARY:Yoga\nDTSTART;{PARIS}:20270301T180000\n"
        f"DTEND;{PARIS}:20270301T190000\nRRULE:FREQ=WEEKLY;COUNT=4"
    )
    whole = ics(series, *edits)
    later = imported(client, admin, whole)
    assert later["rejected"] == [] and len(later["created"]) == 1, later
    assert listed_whole(client, admin) == shown(whole)
    again = imported(client, admin, whole)
    assert again["created"] == again["updated"] == again["rejected"] == [], again


def test_an_edit_alone_is_imported_by_the_command_too(app, as_role, tmp_path):
    as_role("administrator", "boss")
    path = tmp_path / "alone.ics"
    path.write_bytes(
        ics(
            "UID:alone\nDTSTAMP:20260101T000000Z\nSUMMARY:Alone\n"
            "RECURRENCE-ID:20270308T180000Z\nDTSTART:20270308T190000Z\nDTEND:20270308T200000Z"
        )
    )
    runner = app.test_cli_runner()
    result = runner.invoke(args=["import-ics", str(path), "--author", "boss"])
    assert result.exit_code == 0, result.output
    assert "1 created" in result.output
    assert "created alone (2027-03-08 18:00:00): The VEVENT changes one" in result.output
    again = runner.invoke(args=["import-ics", str(path), "--author", "boss"])
    assert "0 created, 0 updated, 1 unchanged, 0 rejected" in again.output


def test_this_and_future_of_the_first_date_in_utc_with_the_calendars_zone(client, admin):
    """A file of UTC times whose zone X-WR-TIMEZONE names (as Google writes them), with
    RANGE=THISANDFUTURE on the series' first date: the whole series changes (RFC 5545
    3.8.4.4), as the same file written with TZIDs shows it. ``recurring-ical-events``
    shows the first date alone changed: the ``x-wr-timezone`` library it runs first
    rewrites each RECURRENCE-ID without its parameters, RANGE among them (2.0.1), so that
    difference is the other library's, not ours."""
    head = "UID:gym\nDTSTAMP:20260101T000000Z\n"
    series = f"{head}SUMMARY:Gym\nRRULE:FREQ=WEEKLY;COUNT=6\n"
    change = f"{head}SUMMARY:Gym (new hall)\nSEQUENCE:1\n"
    google = ics(
        f"{series}DTSTART:20270301T180000Z\nDTEND:20270301T190000Z",
        f"{change}RECURRENCE-ID;RANGE=THISANDFUTURE:20270301T180000Z\n"
        "DTSTART:20270301T190000Z\nDTEND:20270301T203000Z",
        extra="X-WR-TIMEZONE:Europe/Paris",
    )
    paris = ics(
        f"{series}DTSTART;{PARIS}:20270301T190000\nDTEND;{PARIS}:20270301T200000",
        f"{change}RECURRENCE-ID;RANGE=THISANDFUTURE;{PARIS}:20270301T190000\n"
        f"DTSTART;{PARIS}:20270301T200000\nDTEND;{PARIS}:20270301T213000",
    )
    report = imported(client, admin, google)
    assert report["rejected"] == [] and len(report["created"]) == 1, report
    # The same moments: 19:00Z is 20:00 in Paris before 28 March, 18:00Z after it.
    assert listed_whole(client, admin) == shown(paris)
    assert [title for _s, _e, title in shown(paris)] == ["Gym (new hall)"] * 6
    assert [title for _s, _e, title in shown(google)][1:] == ["Gym"] * 5  # the expander's
    again = imported(client, admin, google)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_a_whole_series_moved_off_its_rules_days_is_written_as_it_shows(client, admin):
    """RANGE=THISANDFUTURE on a series' first date that moves it as its rule cannot say:
    Mondays to Tuesdays of a weekly BYDAY=MO rule (open-ended too) become a BYDAY=TU rule;
    a monthly rule moved by days (with an end), its dates one by one; a series moved into
    another zone keeps its zone, every date moved by the same time difference. Each as
    recurring-ical-events shows it (start, end, title), again unchanged, fed back alike."""
    head = "DTSTAMP:20260101T000000Z\n"

    def moved(uid, title, start, end, rule, new_start, new_end, zone=""):
        first, other = zone or "", zone or ""
        return ics(
            f"UID:{uid}\n{head}SUMMARY:{title}\nDTSTART{first}:{start}\nDTEND{first}:{end}\n"
            f"RRULE:{rule}",
            f"UID:{uid}\n{head}SUMMARY:{title} (moved)\nSEQUENCE:1\n"
            f"RECURRENCE-ID;RANGE=THISANDFUTURE{first}:{start}\n"
            f"DTSTART{other}:{new_start}\nDTEND{other}:{new_end}",
        )

    files = [
        moved(
            "mondays",
            "Mondays",
            "20270104T180000Z",
            "20270104T190000Z",
            "FREQ=WEEKLY;BYDAY=MO;COUNT=5",
            "20270105T180000Z",
            "20270105T193000Z",
        ),
        moved(
            "weekly",
            "Weekly",
            "20270104T180000Z",
            "20270104T190000Z",
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH",
            "20270105T180000Z",
            "20270105T190000Z",
        ),
        moved(
            "monthly",
            "Monthly",
            "20270131T090000Z",
            "20270131T100000Z",
            "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4",
            "20270201T090000Z",
            "20270201T100000Z",
        ),
        ics(
            f"UID:zoned\n{head}SUMMARY:Zoned\nDTSTART;{PARIS}:20270301T190000\n"
            f"DTEND;{PARIS}:20270301T200000\nRRULE:FREQ=WEEKLY;COUNT=6",
            f"UID:zoned\n{head}SUMMARY:Zoned (moved)\nSEQUENCE:1\n"
            f"RECURRENCE-ID;RANGE=THISANDFUTURE;{PARIS}:20270301T190000\n"
            "DTSTART;TZID=America/New_York:20270301T140000\n"
            "DTEND;TZID=America/New_York:20270301T150000",
        ),
    ]
    for data in files:
        report = imported(client, admin, data)
        assert report["rejected"] == [] and len(report["created"]) == 1, report
        (uid,) = {entry["uid"] for entry in report["created"]}
        title = uid.capitalize()
        # Open-ended series are materialised to the horizon (two years): compared to then.
        ours = [row for row in listed_whole(client, admin, search=title) if row[0] < "2028-06"]
        assert ours == [row for row in shown(data) if row[0] < "2028-06"], uid
        assert {t for _s, _e, t in shown(data)} == {f"{title} (moved)"}
        again = imported(client, admin, data)
        assert again["created"] == again["updated"] == again["rejected"] == [], again
    series = client.get(f"{NS}/events", query_string={**WIDE, "search": "Mondays"}).get_json()
    (rule,) = series["events"][0]["recurrence"]  # a rule still, of Tuesdays
    assert sorted(rule.removeprefix("RRULE:").split(";")) == ["BYDAY=TU", "COUNT=5", "FREQ=WEEKLY"]
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert [row for row in shown(feed) if row[0] < "2028-06"] == [
        row for row in listed_whole(client, admin) if row[0] < "2028-06"
    ]


def test_each_occurrence_takes_the_change_nearest_before_it_whatever_the_order(client, admin):
    """recurring-ical-events' issue 75 file: a THISANDFUTURE change, an edit of one date
    after it and a later THISANDFUTURE change. The date edited on its own keeps its edit,
    and the dates from the later change on take that change, whatever order the file
    gives them (the first change's own writes had hidden both: not newer)."""
    head = "UID:210\nDTSTAMP:20260101T000000Z\n"
    series = (
        f"{head}SUMMARY:Original\nSEQUENCE:0\nDTSTART:20270901T120000Z\n"
        "DTEND:20270901T140000Z\nRRULE:FREQ=DAILY;INTERVAL=2;COUNT=12"
    )
    first = (
        f"{head}SUMMARY:Modified\nSEQUENCE:1\nRECURRENCE-ID;RANGE=THISANDFUTURE:20270905T120000Z\n"
        "DTSTART:20270905T090000Z\nDTEND:20270905T160000Z"
    )
    one = (
        f"{head}SUMMARY:One\nSEQUENCE:1\nRECURRENCE-ID:20270909T120000Z\n"
        "DTSTART:20270909T170000Z\nDTEND:20270909T190000Z"
    )
    later = (
        f"{head}SUMMARY:Edited\nSEQUENCE:1\nRECURRENCE-ID;RANGE=THISANDFUTURE:20270913T120000Z\n"
        "DTSTART:20270914T142200Z\nDTEND:20270914T161300Z"
    )
    for data in (ics(series, first, one, later), ics(series, later, one, first)):
        report = imported(client, admin, data)
        assert report["rejected"] == [], report
        assert listed_whole(client, admin) == shown(data)
        titles = [title for _s, _e, title in shown(data)]
        assert titles.count("One") == 1 and titles.count("Edited") == 6, titles
        again = imported(client, admin, data)
        assert again["created"] == again["updated"] == again["rejected"] == [], again
        feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
        assert shown(feed) == listed_whole(client, admin)
        (made,) = report["created"]
        assert (
            client.delete(f"{NS}/events/{made['id']}?force=true", headers=admin).status_code == 200
        )


def test_a_series_whose_every_date_is_excluded_shows_nothing(client, admin):
    """Google's split series keep parts whose every date is excluded (issue 173 file: an
    EXDATE on the start, the rule ending before its next date): nothing is shown. Rejected
    with a reason; a series an earlier import made goes to the trash."""
    head = "UID:split_R20270105@google.com\nDTSTAMP:20260101T000000Z\nSUMMARY:Part\n"
    start = f"DTSTART;{PARIS}:20270105T090000\nDTEND;{PARIS}:20270105T100000\n"
    rule = "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;UNTIL=20270125T225959Z\n"
    empty = ics(f"{head}{start}{rule}EXDATE;{PARIS}:20270105T090000,20270119T090000")
    report = imported(client, admin, empty)
    (rejected,) = report["rejected"]
    assert "Every date of the recurring VEVENT is excluded" in rejected["reason"]
    assert listed_whole(client, admin) == shown(empty) == []

    earlier = ics(f"{head}{start}{rule}")
    (made,) = imported(client, admin, earlier)["created"]
    assert len(listed_whole(client, admin)) == 2
    (updated,) = imported(client, admin, empty)["updated"]
    assert updated["id"] == made["id"] and listed_whole(client, admin) == []
    again = imported(client, admin, empty)
    assert again["created"] == again["updated"] == [] and len(again["rejected"]) == 1


def test_a_count_that_counts_nothing_is_read_as_none(client, admin):
    """Confluence writes ``COUNT=-1`` beside its UNTIL (issue 128 file): the rule without
    it, as calendar applications read it, not a rejection."""
    data = ics(
        "UID:conf\nDTSTAMP:20260101T000000Z\nSUMMARY:Team\nDTSTART;VALUE=DATE:20271004\n"
        "DTEND;VALUE=DATE:20271011\nRRULE:FREQ=WEEKLY;UNTIL=20280331;COUNT=-1;INTERVAL=4;BYDAY=MO"
    )
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["created"]) == 1, report
    assert listed_whole(client, admin) == shown(data) and len(shown(data)) == 7
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_an_all_day_series_edited_by_midnight_in_a_zone_edits_that_day(client, admin):
    """Exchange names the days of an all-day series by midnight in its own zone
    (``RECURRENCE-ID;TZID=GMT Standard Time:20270415T000000``, issue 28 file): that day,
    not the day before that a conversion to UTC gives in summer."""
    zone = (
        "BEGIN:VTIMEZONE\nTZID:GMT Standard Time\nBEGIN:STANDARD\nDTSTART:16010101T020000\n"
        "TZOFFSETFROM:+0100\nTZOFFSETTO:+0000\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\n"
        "END:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:16010101T010000\nTZOFFSETFROM:+0000\n"
        "TZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\nEND:DAYLIGHT\n"
        "END:VTIMEZONE"
    )
    head = "UID:bins\nDTSTAMP:20260101T000000Z\n"
    data = ics(
        f"{head}SUMMARY:Black bin\nDTSTART;VALUE=DATE:20270401\nDTEND;VALUE=DATE:20270402\n"
        "RRULE:FREQ=WEEKLY;UNTIL=20270603T230000Z;INTERVAL=2;BYDAY=TH;WKST=MO\n"
        "EXDATE;TZID=GMT Standard Time:20270527T000000",
        f"{head}SUMMARY:Black bin (Friday)\nRECURRENCE-ID;TZID=GMT Standard Time:20270415T000000\n"
        "DTSTART;VALUE=DATE:20270416\nDTEND;VALUE=DATE:20270417",
        zones=zone,
    )
    report = imported(client, admin, data)
    assert report["rejected"] == [], report
    assert listed_whole(client, admin) == shown(data)
    assert ("2027-04-16 (day)", "2027-04-17 (day)", "Black bin (Friday)") in shown(data)
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_this_and_future_written_in_another_zone_moves_by_its_time_difference(client, admin):
    """RANGE=THISANDFUTURE on a later date, its new times written in another zone than the
    series': the dates from it on move by the change's time difference, in the series'
    zone, as recurring-ical-events shows them (they stood in the series' zone at the other
    zone's wall times, an hour or six off)."""
    head = "UID:zoned-later\nDTSTAMP:20260101T000000Z\n"
    data = ics(
        f"{head}SUMMARY:Call\nDTSTART;{PARIS}:20270301T190000\nDTEND;{PARIS}:20270301T200000\n"
        "RRULE:FREQ=WEEKLY;COUNT=6",
        f"{head}SUMMARY:Call (later)\nSEQUENCE:1\n"
        f"RECURRENCE-ID;RANGE=THISANDFUTURE;{PARIS}:20270315T190000\n"
        "DTSTART;TZID=America/New_York:20270315T150000\n"
        "DTEND;TZID=America/New_York:20270315T153000",
    )
    report = imported(client, admin, data)
    assert report["rejected"] == [], report
    assert listed_whole(client, admin) == shown(data)
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_an_rdate_period_of_days_beside_a_timed_start_runs_from_midnight(client, admin):
    """``RDATE;VALUE=PERIOD:20270101/20270102`` beside a timed DTSTART (icalendar's issue
    1633 files; RFC 5545 wants times there): an occurrence from that day's midnight in the
    series' zone to the next, as recurring-ical-events reads it, beside the start's own."""
    for uid, zone in (("utc", ""), ("ny", ";TZID=America/New_York")):
        start = "20270101T180000" + ("Z" if not zone else "")
        data = ics(
            f"UID:{uid}\nDTSTAMP:20260101T000000Z\nSUMMARY:{uid}\nDTSTART{zone}:{start}\n"
            f"RDATE{zone};VALUE=PERIOD:20270101/20270102"
        )
        report = imported(client, admin, data)
        assert report["rejected"] == [], report
        assert listed_whole(client, admin, search=uid) == shown(data) and len(shown(data)) == 2
        again = imported(client, admin, data)
        assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


def test_a_timed_start_with_a_date_end_ends_at_that_days_midnight(client, admin):
    """``DTSTART:20270101T090000`` with ``DTEND;VALUE=DATE:20270102`` (recurring-ical-events'
    issue 201 matrix; RFC 5545 wants one type): it ends at that day's midnight, as the
    expander reads it, not at its start."""
    data = ics(
        "UID:mixed\nDTSTAMP:20260101T000000Z\nSUMMARY:Mixed\n"
        "DTSTART:20270101T090000Z\nDTEND;VALUE=DATE:20270102",
        "UID:mixed-utc\nDTSTAMP:20260101T000000Z\nSUMMARY:Mixed in Paris\n"
        f"DTSTART;{PARIS}:20270105T090000\nDTEND;VALUE=DATE:20270106",
    )
    report = imported(client, admin, data)
    assert report["rejected"] == [] and len(report["created"]) == 2, report
    assert listed_whole(client, admin) == shown(data)
    assert shown(data)[0][:2] == ("2027-01-01 09:00:00", "2027-01-02 00:00:00")
    again = imported(client, admin, data)
    assert again["created"] == again["updated"] == again["rejected"] == [], again
    feed = client.get(f"{NS}/events", query_string={**WIDE, "ical": 1}).data
    assert shown(feed) == listed_whole(client, admin)


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
