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
