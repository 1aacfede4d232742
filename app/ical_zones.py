"""The VTIMEZONEs of the feeds: each zone as the tz database defines it, written as the
vzic/tzurl zone files are, so that a calendar application that trusts the feed's own zones
(Outlook, ical.js, vobject) shows the right times for as long as the zone keeps its rules.

- The zone's current rule (the POSIX TZ string at the end of its TZif data, such as
  ``EST5EDT,M3.2.0,M11.1.0``) becomes a DAYLIGHT and a STANDARD observance with a yearly
  ``RRULE`` (``BYMONTH=3;BYDAY=2SU``): open-ended, not cut at the feed's last event.
- The transitions before that rule took over (the zone's history, within the feed's years)
  are written one observance each, with one ``DTSTART`` and no ``RDATE`` list (ical.js
  reads only the first value of a list).
- A rule the RRULE form cannot say (a change at 24:00 or later, or at a negative hour, or
  a Julian day) is written as single transitions too, for ``YEARS_AHEAD`` years past the
  feed's last day.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo

import icalendar

YEARS_AHEAD = 12
# A rule the RRULE form cannot say is written as single transitions: over at most this many
# years from the feed's first (an event lasting to 9999 would ask for thousands).
YEARS_SCANNED = 60
DAYS = ("SU", "MO", "TU", "WE", "TH", "FR", "SA")
_NAME = r"(?:<[^>]+>|[A-Za-z]+)"
_OFFSET = r"[+-]?\d{1,3}(?::\d{2}(?::\d{2})?)?"
_POSIX = re.compile(
    rf"^(?P<std>{_NAME})(?P<stdoff>{_OFFSET})"
    rf"(?:(?P<dst>{_NAME})(?P<dstoff>{_OFFSET})?,(?P<start>[^,]+),(?P<end>[^,]+))?$"
)
_RULE = re.compile(r"^M(?P<month>\d{1,2})\.(?P<week>[1-5])\.(?P<day>[0-6])(?:/(?P<time>.+))?$")


class Unsaid(ValueError):
    """A rule the yearly RRULE form cannot say."""


def vtimezone(key: str, first: date, last: date) -> bytes:
    """The VTIMEZONE of ``key``, as text, for a feed whose events fall between ``first``
    and ``last`` (its observances hold past ``last``: open-ended rules, or single
    transitions for ``YEARS_AHEAD`` years). Kept per zone and years, written once. A
    fixed offset (``FixedZone``) is one observance of that offset."""
    if key in _FIXED:
        return _fixed_written(key)
    return _written(key, first.year, last.year)


class FixedZone(tzinfo):
    """A fixed UTC offset as an event names its timezone (``UTC+5:30``, WordPress's manual
    offsets), written in the feeds as a zone of that name (``TZID=UTC+5:30``) with its own
    VTIMEZONE, so the event keeps its wall time and its zone through a feed and an import
    (app/ical.py::named_zone reads the name back)."""

    def __init__(self, offset: timedelta, key: str):
        super().__init__()
        self.offset, self.key = offset, key

    def utcoffset(self, dt):
        return self.offset

    def dst(self, dt):
        return timedelta(0)

    def tzname(self, dt):
        return self.key


_FIXED: dict[str, FixedZone] = {}


def fixed_zone(offset: timedelta, key: str) -> FixedZone:
    """The one ``FixedZone`` of ``key`` (a zone's name is known by the VTIMEZONE writer)."""
    zone = _FIXED.get(key)
    if zone is None:
        zone = _FIXED[key] = FixedZone(offset, key)  # offsets: at most 15 × 60 × 2 names
    return zone


@lru_cache(maxsize=256)
def _fixed_written(key: str) -> bytes:
    zone = _FIXED[key]
    component = icalendar.Timezone()
    component.add("tzid", key)
    standard = icalendar.TimezoneStandard()
    standard.add("dtstart", datetime(1970, 1, 1))
    standard.add("tzoffsetfrom", zone.offset)
    standard.add("tzoffsetto", zone.offset)
    standard.add("tzname", key)
    component.add_component(standard)
    return component.to_ical()


@lru_cache(maxsize=1024)  # every zone (about 600) at a few spans
def _written(key: str, first_year: int, last_year: int) -> bytes:
    return _vtimezone(key, first_year, last_year).to_ical()


def _vtimezone(key: str, first_year: int, last_year: int) -> icalendar.Timezone:
    zone = ZoneInfo(key)
    component = icalendar.Timezone()
    component.add("tzid", key)
    begin = datetime(max(first_year - 1, 1), 1, 1, tzinfo=UTC)
    history, rule_from = _history(key)
    scan = False
    try:
        rules, stop = _rules(_posix(key)), rule_from
    except Unsaid:
        last = min(last_year + YEARS_AHEAD, begin.year + YEARS_SCANNED, 9998)
        rules, stop, scan = None, datetime(last, 1, 1, tzinfo=UTC), True
    start_year = max(begin.year, rule_from.year)
    if rules is not None:
        # The run of explicit transitions at the end that the rule says already (zone files
        # list them up to 2037): written as the rule, from the first year it says whole.
        count = len(history)
        while count and _rule_says(history[count - 1], rules):
            # Only a run without a year off: a zone that paused the rule (Riga in 2000)
            # keeps its history up to the pause.
            if count < len(history) and history[count].year - history[count - 1].year > 1:
                break
            count -= 1
        rule_from = history[count] if count < len(history) else rule_from
        year = rule_from.year
        while min(_onsets(year, rules)) < rule_from:
            year += 1
        start_year = max(begin.year, year)
        stop = min(_onsets(start_year, rules))
    # Transitions that the yearly rule does not say: the zone's history within the feed's
    # years, and, for a rule it cannot say, every transition up to the years ahead.
    singles = _transitions(zone, begin, stop, history, scan)
    before = _offset_at(zone, begin)
    if not singles or singles[0][0] > begin:
        # The offset in force at the span's start, from its start (no reader has to guess
        # what held before the first change written).
        component.add_component(_observance("standard", begin, before, before, zone))
    for moment, offset_from, offset_to in singles:
        kind = "daylight" if moment.astimezone(zone).dst() else "standard"
        component.add_component(_observance(kind, moment, offset_from, offset_to, zone))
    if rules is not None:
        for kind, offset_from, offset_to, month, byday, at in rules:
            local = _nth_weekday(start_year, month, byday) + at
            observance = _component(kind)
            observance.add("tzname", _abbreviation(zone, local - offset_from))
            observance.add("dtstart", local)
            observance.add("tzoffsetfrom", offset_from)
            observance.add("tzoffsetto", offset_to)
            observance.add("rrule", {"freq": "yearly", "bymonth": month, "byday": byday})
            component.add_component(observance)
    return component


def _onsets(year: int, rules) -> list[datetime]:
    """The UTC instants of a year's onsets of the rule's observances."""
    return [
        (_nth_weekday(year, month, byday) + at - offset_from).replace(tzinfo=UTC)
        for _kind, offset_from, _to, month, byday, at in rules
    ]


def _rule_says(moment: datetime, rules) -> bool:
    return moment.year < 9999 and moment in _onsets(moment.year, rules)


def _history(key: str) -> tuple[list[datetime], datetime]:
    """The explicit transitions (UTC) of the zone's TZif data, and the instant from which its
    POSIX rule applies (after the last of them)."""
    moments = [datetime.fromtimestamp(t, UTC) for t in _tzif(key)[0]]
    if not moments:
        return moments, datetime(1970, 1, 1, tzinfo=UTC)
    return moments, moments[-1] + timedelta(seconds=1)


def _transitions(
    zone: ZoneInfo, begin: datetime, stop: datetime, history: list[datetime], scan: bool
):
    """(local wall time just before, offset before, offset after) of each change of offset
    between ``begin`` and ``stop``: the history's own, and (``scan``: a rule no RRULE says)
    for the years after it, found day by day and narrowed to the minute."""
    found = []
    for moment in history:
        if begin <= moment < stop:
            found.append(moment)
    tail = max([begin, *[m + timedelta(seconds=1) for m in history]])
    day = tail if scan else stop
    while day < stop:
        following = day + timedelta(days=1)
        if _offset_at(zone, day) != _offset_at(zone, following):
            low, high = day, following
            while high - low > timedelta(minutes=1):
                middle = low + (high - low) / 2
                if _offset_at(zone, middle) == _offset_at(zone, low):
                    low = middle
                else:
                    high = middle
            found.append(high.replace(second=0, microsecond=0))
        day = following
    result = []
    for moment in sorted(set(found)):
        before, after = (moment - timedelta(seconds=1)).astimezone(zone), moment.astimezone(zone)
        if before.utcoffset() != after.utcoffset() or before.dst() != after.dst():
            result.append((moment, before.utcoffset(), after.utcoffset()))
    return result


def _offset_at(zone: ZoneInfo, moment: datetime) -> timedelta:
    return moment.astimezone(zone).utcoffset()


def _component(kind: str) -> icalendar.Component:
    return icalendar.TimezoneDaylight() if kind == "daylight" else icalendar.TimezoneStandard()


def _observance(kind, moment: datetime, offset_from, offset_to, zone) -> icalendar.Component:
    """One transition: its onset as the wall time before it (RFC 5545 §3.6.5)."""
    observance = _component(kind)
    local = (moment + offset_from).replace(tzinfo=None)
    observance.add("tzname", _abbreviation(zone, moment))
    observance.add("dtstart", local)
    observance.add("tzoffsetfrom", offset_from)
    observance.add("tzoffsetto", offset_to)
    return observance


def _abbreviation(zone: ZoneInfo, onset: datetime) -> str:
    """The zone's name for the time after an onset (``EDT``, ``CET``, ``+05``)."""
    instant = onset.replace(tzinfo=UTC) + timedelta(hours=12)
    return instant.astimezone(zone).tzname() or "UTC"


# --- the TZif data and its POSIX rule ------------------------------------------------------


@lru_cache(maxsize=512)
def _tzif(key: str) -> tuple[list[int], bytes]:
    """(explicit transition times, POSIX TZ string) of a zone, from the same data zoneinfo
    reads (the system's zone files, else the tzdata package)."""
    from zoneinfo import TZPATH
    from zoneinfo._common import load_data  # the reader zoneinfo itself uses

    for folder in TZPATH:
        try:
            with open(f"{folder}/{key}", "rb") as handle:
                data = load_data(handle)
                return list(data[1]), data[5]
        except OSError:
            continue
    from importlib import resources

    package, _sep, name = f"tzdata.zoneinfo.{key}".replace("/", ".").rpartition(".")
    with resources.files(package).joinpath(name).open("rb") as handle:
        data = load_data(handle)
    return list(data[1]), data[5]


def _posix(key: str) -> str:
    return (_tzif(key)[1] or b"").decode("ascii", "replace")


def _seconds(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    parts = [int(p) for p in text.lstrip("+-").split(":")]
    parts += [0] * (3 - len(parts))
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])


def _rules(posix: str):
    """The two yearly observances of a POSIX TZ string with daylight saving time, as
    (kind, offset from, offset to, month, BYDAY, local time of day); None when the zone
    keeps one offset. ``Unsaid`` for what a yearly RRULE cannot say."""
    match = _POSIX.match(posix)
    if not match:
        raise Unsaid(posix)
    standard = timedelta(seconds=-_seconds(match["stdoff"]))  # POSIX counts west
    if not match["dst"]:
        return None
    daylight = (
        timedelta(seconds=-_seconds(match["dstoff"]))
        if match["dstoff"]
        else standard + timedelta(hours=1)
    )
    start, end = _RULE.match(match["start"]), _RULE.match(match["end"])
    if not start or not end:
        raise Unsaid(posix)
    observances = []
    for kind, rule, offset_from, offset_to in (
        ("daylight", start, standard, daylight),
        ("standard", end, daylight, standard),
    ):
        at = timedelta(seconds=_seconds(rule["time"])) if rule["time"] else timedelta(hours=2)
        if not timedelta(0) <= at < timedelta(hours=24):
            raise Unsaid(posix)
        week = int(rule["week"])
        byday = f"{-1 if week == 5 else week}{DAYS[int(rule['day'])]}"
        observances.append((kind, offset_from, offset_to, int(rule["month"]), byday, at))
    return observances


def _nth_weekday(year: int, month: int, byday: str) -> datetime:
    """The day an RRULE's BYDAY (``2SU``, ``-1SU``) names in a month, at midnight."""
    weekday = (DAYS.index(byday[-2:]) - 1) % 7  # Python's Monday is 0
    count = int(byday[:-2])
    if count > 0:
        first = date(year, month, 1)
        day = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (count - 1))
    else:
        following = date(year + (month == 12), month % 12 + 1, 1)
        last = following - timedelta(days=1)
        day = last - timedelta(days=(last.weekday() - weekday) % 7)
    return datetime(day.year, day.month, day.day)
