"""Date parsing and timezone arithmetic: properties across DST changes."""

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import dates

ZONES = [
    "UTC",
    "America/New_York",
    "Europe/Paris",
    "Australia/Sydney",
    "Asia/Kolkata",
    "America/Juneau",
    "Atlantic/Reykjavik",
    "UTC+2",
    "UTC-5:30",
]
NOW = datetime(2026, 11, 22, 7, 0, 0)
moments = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2099, 12, 31))


@settings(max_examples=200, deadline=None)
@given(moments, st.sampled_from(ZONES))
def test_utc_round_trip(utc, zone):
    tz, _name = dates.resolve_timezone(zone)
    utc = utc.replace(microsecond=0)
    local = dates.utc_to_local(utc, tz)
    back = dates.local_to_utc(local, tz)
    # The wall clock repeats when clocks fall back: the earlier instant is the one meant.
    assert back == utc or (
        back < utc and dates.utc_to_local(back, tz) == local and utc - back <= timedelta(hours=2)
    )


@settings(max_examples=200, deadline=None)
@given(moments, st.sampled_from(ZONES))
def test_stored_format_round_trips_through_the_parser(local, zone):
    tz, _name = dates.resolve_timezone(zone)
    local = local.replace(microsecond=0)
    assert dates.parse_datetime(dates.fmt(local), tz) == local


@settings(max_examples=100, deadline=None)
@given(moments, st.sampled_from(ZONES))
def test_iso_with_offset_means_the_same_instant(utc, zone):
    tz, _name = dates.resolve_timezone(zone)
    utc = utc.replace(microsecond=0)
    parsed = dates.parse_datetime(utc.isoformat() + "Z", tz)
    if parsed.fold:
        # The second pass of a wall time the clocks repeat (a DST fall-back): a date is
        # kept as a wall time in its zone, and a repeated one means its first pass, as
        # PHP's does (rules/dates.py::local_to_utc): an hour before the instant written.
        assert dates.local_to_utc(parsed, tz) == utc - (
            parsed.replace(tzinfo=tz, fold=0).utcoffset() - parsed.replace(tzinfo=tz).utcoffset()
        )
    else:
        assert dates.local_to_utc(parsed, tz) == utc


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=4_000_000_000), st.sampled_from(ZONES))
def test_unix_timestamps(stamp, zone):
    tz, _name = dates.resolve_timezone(zone)
    parsed = dates.parse_datetime(str(stamp), tz)
    assert dates.local_to_utc(parsed, tz) == datetime(1970, 1, 1) + timedelta(seconds=stamp)


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789-:Tt Z+.\u0663", min_size=19, max_size=19),
        st.tuples(moments, st.sampled_from("T ")).map(
            lambda pair: pair[0].isoformat(pair[1], "seconds")
        ),
    )
)
def test_the_plain_form_reads_what_the_general_pattern_reads(text):
    """``_plain_form`` (``fromisoformat``) gives the value ``_ABSOLUTE`` reads, or leaves the
    text to it."""
    plain = dates._plain_form(text)
    if plain is None:
        return
    match = dates._ABSOLUTE.match(text)
    assert match is not None and match.group(7) is None
    assert plain == datetime(*(int(group) for group in match.groups()[:6]))


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789-:Tt Z+.\u0663", min_size=19, max_size=19),
        st.tuples(moments, st.sampled_from("T ")).map(
            lambda pair: pair[0].isoformat(pair[1], "seconds")
        ),
    ),
    st.sampled_from("Zz"),
    st.sampled_from(ZONES),
)
def test_a_utc_moment_in_the_plain_form_reads_as_the_general_pattern_reads_it(text, z, zone):
    """A plain form followed by ``Z`` (how the pages write their lists' bounds), read
    without the general pattern, gives the moment ``_ABSOLUTE`` reads, in the zone."""
    tz, _name = dates.resolve_timezone(zone)
    if dates._plain_form(text) is None:
        return
    match = dates._ABSOLUTE.match(text + z)
    assert match is not None and match.group(7).upper() == "Z"
    try:  # a moment past the years a zone can write (0001-01-01Z east of Greenwich)
        expected = dates.utc_to_local(datetime(*(int(g) for g in match.groups()[:6])), tz)
    except dates.DateError:
        with pytest.raises(dates.DateError):
            dates._parse_datetime(text + z, tz)
        return
    assert dates._parse_datetime(text + z, tz) == expected


@settings(max_examples=100, deadline=None)
@given(moments)
def test_day_snapping(value):
    value = value.replace(microsecond=0)
    assert dates.snap_to_day_start(value) <= value <= dates.snap_to_day_end(value)
    assert dates.fmt(dates.snap_to_day_end(value)).endswith("23:59:59")


def test_dst_spring_forward_in_new_york():
    tz, _ = dates.resolve_timezone("America/New_York")
    before = dates.local_to_utc(datetime(2026, 3, 8, 1, 30), tz)
    after = dates.local_to_utc(datetime(2026, 3, 8, 3, 30), tz)
    assert after - before == timedelta(hours=1)
    assert dates.tz_abbreviation(datetime(2026, 1, 5), tz) == "EST"
    assert dates.tz_abbreviation(datetime(2026, 7, 5), tz) == "EDT"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", "2026-11-22 07:00:00"),
        ("today", "2026-11-22 00:00:00"),
        ("tomorrow", "2026-11-23 00:00:00"),
        ("yesterday", "2026-11-21 00:00:00"),
        ("tomorrow 9am", "2026-11-23 09:00:00"),
        ("tomorrow 4:30pm", "2026-11-23 16:30:00"),
        ("+5 days 11am", "2026-11-27 11:00:00"),
        ("-2 hours", "2026-11-22 05:00:00"),
        ("3 days ago", "2026-11-19 07:00:00"),
        ("next wednesday 4pm", "2026-11-25 16:00:00"),
        ("last friday", "2026-11-20 00:00:00"),
        ("next week", "2026-11-29 07:00:00"),
        ("2018-01-01 4pm", "2018-01-01 16:00:00"),
        ("2018-01-01 16:00", "2018-01-01 16:00:00"),
        ("2018-01-01", "2018-01-01 00:00:00"),
        ("2018-01-01T10:00:00", "2018-01-01 10:00:00"),
        ("2018-01-01T10:00:00+02:00", "2018-01-01 08:00:00"),
    ],
)
def test_accepted_forms(text, expected):
    assert dates.fmt(dates.parse_datetime(text, dates.resolve_timezone("UTC")[0], NOW)) == expected


@pytest.mark.parametrize(
    "text", ["before my birthday", "", "next", "2018-02-30", "25:00", "+3 bananas", "13pm"]
)
def test_rejected_forms(text):
    with pytest.raises(dates.DateError):
        dates.parse_datetime(text, dates.resolve_timezone("UTC")[0], NOW)


@pytest.mark.parametrize("name", ["Mars/Olympus", "UTC+25", "foo"])
def test_unknown_timezones(name):
    with pytest.raises(dates.DateError):
        dates.resolve_timezone(name)


@pytest.mark.parametrize(
    "name, canonical",
    [("europe/paris", "Europe/Paris"), ("AMERICA/NEW_YORK", "America/New_York"), ("utc", "UTC")],
)
def test_a_zone_name_in_any_case_is_the_database_s(name, canonical):
    assert dates.resolve_timezone(name)[1] == canonical


def test_the_zones_offered_are_each_taken_as_offered():
    """The event form's list of zones (chk19e D3): every name, and the fixed offsets, each
    one the API takes and names as offered."""
    offered = dates.zone_choices()
    assert "Europe/Paris" in offered and "UTC+5:30" in offered and "localtime" not in offered
    assert all(dates.resolve_timezone(name)[1] == name for name in offered)


def test_repeated_wall_clock_means_the_earlier_instant():
    tz, _ = dates.resolve_timezone("America/Juneau")
    first, second = datetime(2016, 11, 6, 9, 0), datetime(2016, 11, 6, 10, 0)
    assert dates.utc_to_local(first, tz) == dates.utc_to_local(second, tz)
    assert dates.local_to_utc(dates.utc_to_local(second, tz), tz) == first


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        ("+1 month", datetime(2027, 1, 31, 10), "2027-03-03 10:00:00"),
        ("+1 month", datetime(2028, 1, 31, 10), "2028-03-02 10:00:00"),
        ("-1 month", datetime(2027, 3, 31, 10), "2027-03-03 10:00:00"),
        ("next month", datetime(2027, 5, 31, 10), "2027-07-01 10:00:00"),
        ("+1 year", datetime(2028, 2, 29, 10), "2029-03-01 10:00:00"),
        ("+1 month", datetime(2027, 1, 15, 10), "2027-02-15 10:00:00"),
    ],
)
def test_months_run_over_a_short_months_end_as_strtotime(text, now, expected):
    """PHP's strtotime keeps the day and lets it run over into the next month."""
    utc = dates.resolve_timezone("UTC")[0]
    assert dates.fmt(dates.parse_datetime(text, utc, now)) == expected


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        ("last day of next month", datetime(2026, 11, 29, 5, 15, 38), "2026-12-31 05:15:38"),
        ("last day of next month", datetime(2027, 1, 31, 10), "2027-02-28 10:00:00"),
        ("last day of next month", datetime(2027, 12, 30, 10), "2028-01-31 10:00:00"),
        ("first day of next month", datetime(2027, 1, 31, 10), "2027-02-01 10:00:00"),
        ("last day of this month", datetime(2028, 2, 3, 10), "2028-02-29 10:00:00"),
        ("first day of last month 9am", datetime(2027, 3, 31, 10), "2027-02-01 09:00:00"),
        ("last day of +3 months", datetime(2026, 11, 29, 10), "2027-02-28 10:00:00"),
        ("first day of next month midnight", datetime(2026, 11, 29, 10), "2026-12-01 00:00:00"),
    ],
)
def test_first_and_last_day_of_a_month_as_strtotime(text, now, expected):
    """Outside check chk17s: 'last day of next month' was read as 'next month' minus one
    day (December 28 on November 29). strtotime moves the months from the first of the
    month, then takes its first or last day, at the time of day it had."""
    utc = dates.resolve_timezone("UTC")[0]
    assert dates.fmt(dates.parse_datetime(text, utc, now)) == expected


@pytest.mark.parametrize(
    "text", ["last day of tomorrow", "first day of next monday", "last day of +2 days"]
)
def test_first_and_last_day_of_with_days_is_refused(text):
    """What strtotime does with days after 'first/last day of' (adds them, then overrules
    the day) is refused rather than guessed: never a wrong date."""
    with pytest.raises(dates.DateError):
        dates.parse_datetime(text, dates.resolve_timezone("UTC")[0], NOW)


def test_only_relative_dates_the_feed_date_does_not_follow_are_untracked():
    """chk18s D1: the forms a feed's Last-Modified follows (now, the day words) and fixed
    dates are tracked; a date read from the clock at any other distance is not."""
    tz = dates.resolve_timezone("Europe/Paris")[0]
    for tracked in (
        "now",
        " Today ",
        "tomorrow",
        "2027-01-01 10:00:00",
        "2027-01-01",
        "1800000000",
    ):
        assert not dates.moves_untracked(tracked, tz), tracked
    for moving in ("+1 hour", "-30 minutes", "1 day ago", "next monday", "tomorrow 10am"):
        assert dates.moves_untracked(moving, tz), moving
