"""Issue 28: what one imported iCalendar file may cost. Files built to make the parser work
for seconds, grow a worker by hundreds of megabytes or recurse without bound are refused
with a 400 or 413 naming the body, before the parser sees them, and nothing is written."""

from datetime import date, timedelta

import icalendar
import pytest

from tests.conftest import NS
from tests.helpers import do_import, ics, imported

DAY = (date.today() + timedelta(days=10)).strftime("%Y%m%d")
EVENT = f"UID:ok-1\nDTSTART:{DAY}T100000Z\nDTEND:{DAY}T110000Z\nSUMMARY:Fine"


def zone(tzid: str, *rules: tuple[str, str]) -> str:
    """A VTIMEZONE with one STANDARD block per (DTSTART, RRULE)."""
    blocks = [
        f"BEGIN:STANDARD\nDTSTART:{start}\n{f'RRULE:{rule}' if rule else ''}\n"
        "TZOFFSETFROM:+0100\nTZOFFSETTO:+0000\nEND:STANDARD"
        for start, rule in rules
    ]
    return f"BEGIN:VTIMEZONE\nTZID:{tzid}\n" + "\n".join(blocks) + "\nEND:VTIMEZONE"


DAILY_FROM_1601 = zone(
    "Evil",
    ("16010101T000000", "FREQ=DAILY"),
    ("16010101T000000", "FREQ=DAILY;BYHOUR=" + ",".join(str(h) for h in range(1, 24))),
)
TWO_THOUSAND_RULES = zone("Many", *[(f"{1600 + n}0101T000000", "FREQ=YEARLY") for n in range(2000)])
NEVER_OCCURS = zone(
    "Never",
    *[(f"{1600 + n}0101T000000", "FREQ=YEARLY;COUNT=3;BYMONTH=2;BYMONTHDAY=31") for n in range(50)],
)


@pytest.fixture
def parser_untouched(monkeypatch):
    """Fails the test if the file reaches the iCalendar parser."""

    def refuse(*args, **kwargs):
        raise AssertionError("the parser was reached")

    monkeypatch.setattr(icalendar.Calendar, "from_ical", refuse)


def events_total(client, admin) -> int:
    return client.get(f"{NS}/events", query_string={"status": "any"}, headers=admin).get_json()[
        "total"
    ]


@pytest.mark.parametrize(
    "zones, status",
    [(DAILY_FROM_1601, 400), (TWO_THOUSAND_RULES, 413), (NEVER_OCCURS, 400)],
    ids=["daily-rules-from-1601", "2000-rules", "rules-that-never-occur"],
)
def test_time_zones_that_would_expand_without_bound_are_refused_before_parsing(
    client, admin, parser_untouched, zones, status
):
    response = do_import(client, admin, ics(EVENT, zones=zones))
    assert response.status_code == status
    body = response.get_json()
    assert "VTIMEZONE" in body["data"]["params"]["body"]
    assert events_total(client, admin) == 0


def test_real_zones_are_read(client, admin):
    outlook = zone(
        "W. Europe Standard Time", ("16011028T030000", "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10")
    )
    custom = zone("Custom Zone", ("19700101T000000", ""))
    data = ics(
        EVENT.replace("ok-1", "ok-2").replace(f"{DAY}T100000Z", f"{DAY}T100000"),
        zones=outlook + "\n" + custom,
    )
    assert len(imported(client, admin, data)["created"]) == 1


def test_deep_nesting_is_a_400_naming_the_body(client, admin, parser_untouched):
    alarms = "BEGIN:VALARM\n" * 1000 + "END:VALARM\n" * 1000
    response = do_import(client, admin, ics(EVENT + "\n" + alarms))
    assert response.status_code == 400
    assert response.get_json()["code"] == "rest_invalid_param"
    assert "nested" in response.get_json()["data"]["params"]["body"]
    x_components = "BEGIN:X-A\n" * 5000 + "END:X-A\n" * 5000
    assert do_import(client, admin, ics(EVENT + "\n" + x_components)).status_code == 400
    assert events_total(client, admin) == 0


def test_the_command_line_says_what_is_wrong_in_one_line(app, as_role, tmp_path):
    as_role("administrator")
    path = tmp_path / "nested.ics"
    path.write_bytes(ics(EVENT + "\n" + "BEGIN:VALARM\n" * 1000 + "END:VALARM\n" * 1000))
    result = app.test_cli_runner().invoke(args=["import-ics", str(path)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    assert "nested" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "body, words",
    [
        (EVENT + "\n" + "X-A:1\n" * 30000, "lines"),
        (EVENT + "\nRRULE:FREQ=DAILY\n" + "EXDATE:20300101T100000Z\n" * 2001, "EXDATE"),
        (
            EVENT + "\nEXDATE:" + ",".join([f"2030{m:02d}01T100000Z" for m in range(1, 13)] * 90),
            "values",
        ),
        (EVENT + "\nCATEGORIES:" + ",".join(f"c{n}" for n in range(5000)), "values"),
    ],
    ids=["lines", "exdate-lines", "values-of-one-line", "categories"],
)
def test_an_import_too_large_to_read_is_a_413(client, admin, parser_untouched, body, words):
    response = do_import(client, admin, ics(body))
    assert response.status_code == 413
    assert response.get_json()["code"] == "rest_payload_too_large"
    assert words in response.get_json()["data"]["params"]["body"]
    assert events_total(client, admin) == 0


def test_more_events_than_one_request_may_import_is_a_413(app, client, admin):
    app.config["ICAL_IMPORT_MAX_EVENTS"] = 3
    events = [EVENT.replace("ok-1", f"ok-{n}") for n in range(4)]
    response = do_import(client, admin, ics(*events))
    assert response.status_code == 413
    assert "flask import-ics" in response.get_json()["message"]
    assert events_total(client, admin) == 0
    assert len(imported(client, admin, ics(*events[:3]))["created"]) == 3


def test_the_command_line_reads_files_larger_than_a_request_may(app, client, as_role, tmp_path):
    app.config["ICAL_IMPORT_MAX_EVENTS"] = 3
    admin = as_role("administrator")
    path = tmp_path / "big.ics"
    path.write_bytes(ics(*[EVENT.replace("ok-1", f"ok-{n}") for n in range(5)]))
    result = app.test_cli_runner().invoke(args=["import-ics", str(path)])
    assert "5 created" in result.output, result.output
    assert events_total(client, admin) == 5


def category_names(client) -> set[str]:
    answer = client.get(f"{NS}/categories", query_string={"hide_empty": 0, "per_page": 50})
    return {c["name"] for c in answer.get_json()["categories"]}


def test_only_those_who_may_create_terms_create_categories_by_import(client, as_role):
    editor, author = as_role("editor"), as_role("author")
    assert (
        client.post(f"{NS}/categories", json={"name": "Music"}, headers=editor).status_code == 201
    )
    data = ics(EVENT + "\nCATEGORIES:Music,Brand new,Another")
    by_author = imported(client, author, data)["created"][0]
    assert by_author["left_out_categories"] == ["Brand new", "Another"]
    made = client.get(f"{NS}/events/{by_author['id']}", headers=author).get_json()
    assert [c["name"] for c in made["categories"]] == ["Music"]
    assert category_names(client) == {"Music"}
    by_editor = imported(client, editor, data.replace(b"ok-1", b"ok-9"))["created"][0]
    assert "left_out_categories" not in by_editor
    assert category_names(client) == {"Music", "Brand new", "Another"}


def test_a_zone_one_file_defines_does_not_reach_another_file(client, admin):
    def custom(offset: str, uid: str) -> bytes:
        return ics(
            f"UID:{uid}\nDTSTART;TZID=Mine:{DAY}T100000\nDTEND;TZID=Mine:{DAY}T110000\nSUMMARY:x",
            zones=zone("Mine", ("19700101T000000", "")).replace("+0000", offset),
        )

    first = imported(client, admin, custom("+0500", "z-1"))["created"][0]["id"]
    second = imported(client, admin, custom("-0300", "z-2"))["created"][0]["id"]
    read = lambda i: client.get(f"{NS}/events/{i}").get_json()  # noqa: E731
    assert read(first)["timezone"] == "UTC+5"
    assert read(second)["timezone"] == "UTC-3"
    assert read(second)["utc_start_date"].endswith("13:00:00")


# A zone whose yearly rule changes the offset 336 times a year: from 1601, 140,000
# transitions, and 1.5 s to read a time in it (2026-11-29).
BUSY = zone(
    "Busy",
    (
        "16010101T000000",
        "FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY="
        + ",".join(str(d) for d in range(1, 29)),
    ),
)


def test_a_zone_the_events_use_is_bounded_by_its_transitions(client, admin):
    """A zone is worked out from its rules' start when a time in it is read: the bound counts
    the transitions of each zone the events use, and a zone no event uses costs nothing."""
    used = EVENT.replace("ok-1", "busy-1").replace(
        f"DTSTART:{DAY}T100000Z\nDTEND:{DAY}T110000Z",
        f"DTSTART;TZID=Busy:{DAY}T100000\nDTEND;TZID=Busy:{DAY}T110000",
    )
    response = do_import(client, admin, ics(used, zones=BUSY))
    assert response.status_code == 413
    assert "transitions" in response.get_json()["data"]["params"]["body"]
    assert events_total(client, admin) == 0
    assert len(imported(client, admin, ics(EVENT, zones=BUSY))["created"]) == 1


OUTLOOK_ZONES_SIX = [
    ("W. Europe Standard Time", "+0100", "+0200", "-1SU", "3", "-1SU", "10"),
    ("GMT Standard Time", "+0000", "+0100", "-1SU", "3", "-1SU", "10"),
    ("Eastern Standard Time", "-0500", "-0400", "2SU", "3", "1SU", "11"),
    ("Pacific Standard Time", "-0800", "-0700", "2SU", "3", "1SU", "11"),
    ("Central Standard Time", "-0600", "-0500", "2SU", "3", "1SU", "11"),
    ("AUS Eastern Standard Time", "+1000", "+1100", "1SU", "10", "1SU", "4"),
]


def test_an_outlook_export_with_six_time_zones_is_imported(client, admin):
    """chk17t D11: Outlook writes each zone as a VTIMEZONE from 1601 with two yearly rules
    (about 860 transitions to 2030 each). A calendar with meetings in six such zones (or six
    "Customized Time Zone N" blocks, one per invitation) was refused whole by a bound on the
    transitions of all the file's zones together; SPEC §11 import reads files as Outlook
    writes them."""
    zones, events = [], []
    for n, (name, std, dst, dday, dmon, sday, smon) in enumerate(OUTLOOK_ZONES_SIX):
        zones.append(
            f"BEGIN:VTIMEZONE\nTZID:{name}\nBEGIN:STANDARD\nDTSTART:16010101T030000\n"
            f"TZOFFSETFROM:{dst}\nTZOFFSETTO:{std}\nRRULE:FREQ=YEARLY;BYDAY={sday};BYMONTH={smon}\n"
            f"END:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:16010101T020000\nTZOFFSETFROM:{std}\n"
            f"TZOFFSETTO:{dst}\nRRULE:FREQ=YEARLY;BYDAY={dday};BYMONTH={dmon}\nEND:DAYLIGHT\n"
            "END:VTIMEZONE"
        )
        events.append(
            f"UID:olz-{n}@chk17t\nDTSTAMP:20261101T000000Z\n"
            f'DTSTART;TZID="{name}":20280601T100000\nDTEND;TZID="{name}":20280601T110000\n'
            f"SUMMARY:Meeting {n}"
        )
    report = imported(client, admin, ics(*events, zones="\n".join(zones)))
    assert len(report["created"]) == 6, report


def test_a_long_description_with_many_escaped_commas_is_imported(client, admin):
    """chk17t D10: DESCRIPTION is one TEXT value; "\\," is a comma of its text (RFC 5545
    §3.3.11). A description of 1,200 commas (a line-up, a list of sponsors), escaped or not,
    was refused whole by the bound meant for the values of list-valued properties."""
    for uid, text in (("commas-1", "Artist\\, " * 1200), ("commas-2", "Artist, " * 1200)):
        body = EVENT.replace("ok-1", uid) + f"\nDESCRIPTION:{text}"
        report = imported(client, admin, ics(body))
        assert [x["uid"] for x in report["created"]] == [uid]
