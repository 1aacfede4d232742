"""What reading one iCalendar file may cost, checked on its text before the parser sees it.

The ``icalendar`` parser nests components by recursion, expands every VTIMEZONE whose TZID
it does not know into its transitions up to 2038 (and keeps them), and reads every line
and value of a file, before any check of ours can run. One linear pass over the unfolded
lines bounds each of these, so that a file that would cost seconds of CPU or hundreds of
megabytes is refused at the cost of reading it once (issue 28, docs/reliability.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from itertools import islice, takewhile

from dateutil.rrule import rrulestr

from app.i18n import N_, N_plural, Plural, _, ngettext
from rules.clock import utcnow

# The parser's nesting is recursive: VCALENDAR > VEVENT > VALARM is three levels, and no
# producer we know writes more than four.
MAX_DEPTH = 6
# Values of one property line (EXDATE, RDATE, CATEGORIES…): a series has at most
# RECURRENCE_MAX (1,000) occurrences, so more dates than that exclude nothing more.
MAX_VALUES = 1000
# The properties whose value the parser reads as a list, one object per comma-separated
# value (a rule's parts are lists too). Any other value is one text, whatever commas it
# holds: a DESCRIPTION's line-up of 1,200 names ("\," is a comma of its text) is read once.
MULTI_VALUED = {"CATEGORIES", "EXDATE", "RDATE", "FREEBUSY", "RESOURCES", "RRULE", "EXRULE"}
# Values of all the RDATE and EXDATE lines of one VEVENT together.
MAX_RECURRENCE_VALUES = 2000
# STANDARD and DAYLIGHT blocks of a whole file: a real zone has two, or one per rule
# change of its history, and this service's feeds write one per change from the events'
# first year to tzdata's last (Africa/Casablanca, whose changes follow Ramadan, 129 from
# 2027; a feed of five such zones had 210, and was refused at 200). 1,000 blocks without
# rules cost the parser 0.3 s (2026-11-28); those with one are also bounded by
# MAX_ZONE_TRANSITIONS below.
MAX_ZONE_RULES = 1_000
# Transitions of one zone the file's events use, from its rules' start to the last year
# it is read at (``_Scan.finish``): a zone's rules are worked out, from their start, only
# when a time in it is read. An Outlook zone (two yearly rules from 1601) has about 860 to
# 2030, a zone of this service's feeds one a year; a zone of 5,000 costs about 20 ms, less
# than matching it to an IANA zone does (2026-11-29). Zones no event uses cost nothing.
MAX_ZONE_TRANSITIONS = 5_000
# A zone is read at its events' dates and over the years its rules are matched at
# (``app/ical.py::matching_zone``: last year and the two after this one).
YEARS_MATCHED_AHEAD = 2
# The parts a time-zone rule may have: yearly rules with at most one hour, minute and
# second, as every producer writes them. Finer frequencies are refused: a daily rule from
# 1601 is 160,000 transitions, and one that never occurs is searched day by day to 9999.
ZONE_RULE_PARTS = {
    "FREQ",
    "UNTIL",
    "COUNT",
    "INTERVAL",
    "WKST",
    "BYMONTH",
    "BYDAY",
    "BYMONTHDAY",
    "BYSETPOS",
    "BYWEEKNO",
    "BYYEARDAY",
    "BYHOUR",
    "BYMINUTE",
    "BYSECOND",
}
SINGLE_VALUED = ("BYHOUR", "BYMINUTE", "BYSECOND")

MISMATCHED_END = N_("BEGIN:%(begun)s is closed by END:%(ended)s.")
TOO_DEEP = N_plural(
    "Components are nested more than %(num)s level deep.",
    "Components are nested more than %(num)s levels deep.",
)
TOO_MANY_EVENTS = N_plural(
    "The file has more than %(num)s event; split it, or import it with flask import-ics.",
    "The file has more than %(num)s events; split it, or import it with flask import-ics.",
)
TOO_MANY_LINES = N_plural(
    "The file has more than %(num)s line; split it, or import it with flask import-ics.",
    "The file has more than %(num)s lines; split it, or import it with flask import-ics.",
)
TOO_MANY_VALUES = N_plural(
    "A property has more than %(num)s value.", "A property has more than %(num)s values."
)
TOO_MANY_RECURRENCE_VALUES = N_plural(
    "An event has more than %(num)s RDATE and EXDATE value.",
    "An event has more than %(num)s RDATE and EXDATE values.",
)
BAD_ZONE_RULE = N_(
    "A time zone (VTIMEZONE) has a rule that no time zone has: only yearly rules that occur "
    "are read."
)
TOO_MANY_ZONE_RULES = N_plural(
    "The time zones (VTIMEZONE) have more than %(num)s rule.",
    "The time zones (VTIMEZONE) have more than %(num)s rules.",
)
TOO_MANY_TRANSITIONS = N_plural(
    "A time zone (VTIMEZONE) the events use has more than %(num)s transition.",
    "A time zone (VTIMEZONE) the events use has more than %(num)s transitions.",
)


@dataclass(frozen=True)
class Bounds:
    """The bounds of one reading; ``events`` and ``lines`` are None where the operator
    reads a file of their own (``flask import-ics``)."""

    events: int | None = None
    lines: int | None = None


class OverBound(ValueError):
    """The file passes a bound: ``message`` (untranslated; a ``Plural`` counts ``num``)
    with ``values``; ``too_large`` when it is a matter of size (413), not of form (400).
    Its text is the English one (the command line's)."""

    def __init__(self, message: str | Plural, too_large: bool = True, **values):
        if isinstance(message, Plural):
            text = message.singular if values["num"] == 1 else message.plural
        else:
            text = message
        super().__init__(text % values)
        self.message = message
        self.values = values
        self.too_large = too_large

    def said(self) -> str:
        """The message in the request's language."""
        if isinstance(self.message, Plural):
            return ngettext(*self.message, **self.values)
        return _(self.message, **self.values)


# A property's name, its parameters (quoted values may hold ":" and ";"), then its value.
_CONTENT_LINE = re.compile(r'([A-Za-z0-9-]+)((?:;[^:;"]*(?:"[^"]*"[^:;"]*)*)*):(.*)', re.DOTALL)
_TZID_PARAMETER = re.compile(r';\s*TZID\s*=\s*("[^"]*"|[^;]*)', re.IGNORECASE)
# The year of each value of a date or date-time list (``20280601T100000,20280602``).
_YEARS = re.compile(r"(?:^|,)\s*(\d{4})\d{4}")


def _zone_key(tzid: str) -> str:
    """A TZID as the zones and the times that name them are matched here: more loosely
    than the parser does (quotes, spaces, case), so that no zone it uses goes uncounted."""
    return tzid.strip().strip('"').strip().casefold()


def unfolded(text: str):
    """The content lines of ``text``, continuation lines joined (RFC 5545 §3.1)."""
    line = None
    for raw in text.splitlines():
        if raw[:1] in (" ", "\t") and line is not None:
            line += raw[1:]
            continue
        if line is not None:
            yield line
        line = raw
    if line is not None:
        yield line


def check(text: str, bounds: Bounds) -> None:
    """Raises ``OverBound`` for the first bound the file passes."""
    scan = _Scan(bounds)
    for count, line in enumerate(unfolded(text), 1):
        if bounds.lines is not None and count > bounds.lines:
            raise OverBound(TOO_MANY_LINES, num=bounds.lines)
        scan.line(line)
    scan.finish()


class _Scan:
    def __init__(self, bounds: Bounds):
        self.bounds = bounds
        self.stack: list[str] = []
        self.events = 0
        self.recurrence_values = 0
        self.zone_rules = 0
        self.zone_block: dict[str, str] | None = None
        # The zone being read (its TZID and rules), every zone read, and the last year
        # each TZID the file's times name is read at.
        self.zone_tzid = ""
        self.zone_parts: list = []
        self.zones: dict[str, list] = {}
        self.used: dict[str, int] = {}

    def line(self, line: str) -> None:
        match = _CONTENT_LINE.match(line)
        if match is None:
            return  # the parser decides what a malformed line is
        name, value = match.group(1).upper(), match.group(3)
        if name == "BEGIN":
            self.begin(value.strip().upper())
        elif name == "END":
            self.end(value.strip().upper())
        elif self.zone_block is not None:
            self.zone_block.setdefault(name, value)
            if name == "RDATE":
                self.zone_parts.append(value.count(",") + 1)
        elif self.stack[-1:] == ["VTIMEZONE"]:
            if name == "TZID":
                self.zone_tzid = value
        else:
            self.note_zone_used(match.group(2), value)
        if name in MULTI_VALUED and value.count(",") >= MAX_VALUES:
            raise OverBound(TOO_MANY_VALUES, num=MAX_VALUES)
        if name in ("RDATE", "EXDATE") and self.stack[-1:] == ["VEVENT"]:
            self.recurrence_values += value.count(",") + 1
            if self.recurrence_values > MAX_RECURRENCE_VALUES:
                raise OverBound(TOO_MANY_RECURRENCE_VALUES, num=MAX_RECURRENCE_VALUES)

    def begin(self, kind: str) -> None:
        self.stack.append(kind)
        if len(self.stack) > MAX_DEPTH:
            raise OverBound(TOO_DEEP, too_large=False, num=MAX_DEPTH)
        if kind == "VEVENT":
            self.events += 1
            self.recurrence_values = 0
            if self.bounds.events is not None and self.events > self.bounds.events:
                raise OverBound(TOO_MANY_EVENTS, num=self.bounds.events)
        elif kind in ("STANDARD", "DAYLIGHT") and self.stack[-2:-1] == ["VTIMEZONE"]:
            self.zone_rules += 1
            if self.zone_rules > MAX_ZONE_RULES:
                raise OverBound(TOO_MANY_ZONE_RULES, num=MAX_ZONE_RULES)
            self.zone_block = {}

    def end(self, kind: str) -> None:
        if self.stack and self.stack[-1] != kind:  # RFC 5545 §3.4: END names what BEGIN began
            raise OverBound(MISMATCHED_END, too_large=False, begun=self.stack[-1], ended=kind)
        if self.stack and self.stack[-1] in ("STANDARD", "DAYLIGHT"):
            self.zone_block_end()
        if self.stack and self.stack[-1] == "VTIMEZONE":
            self.zones.setdefault(_zone_key(self.zone_tzid), []).extend(self.zone_parts)
            self.zone_tzid, self.zone_parts = "", []
        if self.stack:
            self.stack.pop()

    def note_zone_used(self, parameters: str, value: str) -> None:
        """The zone a time names (``DTSTART;TZID=…``), read at the last year of its values."""
        tzid = _TZID_PARAMETER.search(parameters)
        if tzid is None:
            return
        key = _zone_key(tzid.group(1))
        years = [int(year) for year in _YEARS.findall(value)]
        self.used[key] = max([self.used.get(key, 0), *years])

    def finish(self) -> None:
        """Counts the transitions of every zone the file's times use, as reading those
        times would work them out: from each rule's start to the last year the zone is
        read at, stopping as soon as the zone's budget is spent."""
        self.zone_block_end()
        last_matched = utcnow().year + YEARS_MATCHED_AHEAD
        for key, year in self.used.items():
            until = datetime(min(max(year, last_matched), 9998) + 1, 1, 1)
            transitions = 0
            for part in self.zones.get(key, []):
                if isinstance(part, int):  # an RDATE line's values
                    transitions += part
                else:
                    transitions += _count_before(part, until, MAX_ZONE_TRANSITIONS - transitions)
                if transitions > MAX_ZONE_TRANSITIONS:
                    raise OverBound(TOO_MANY_TRANSITIONS, num=MAX_ZONE_TRANSITIONS)

    def zone_block_end(self) -> None:
        """Checks the zone rule just read and keeps it with its zone, for ``finish`` to
        count its transitions if an event uses the zone."""
        block, self.zone_block = self.zone_block, None
        if not block or "RRULE" not in block:
            return
        rule = block["RRULE"].upper()
        parts = dict(part.partition("=")[::2] for part in rule.split(";") if part)
        if (
            parts.get("FREQ") != "YEARLY"
            or not set(parts) <= ZONE_RULE_PARTS
            or any("," in parts.get(name, "") for name in SINGLE_VALUED)
        ):
            raise OverBound(BAD_ZONE_RULE, too_large=False)
        start = _zone_start(block.get("DTSTART", ""))
        if start is None:
            return  # the parser refuses it
        try:
            expanded = rrulestr(rule, dtstart=start, ignoretz=True)
            # A rule that never occurs is searched year by year to 9999 (0.3 s a rule):
            # one that does not occur within 30 years of its start is no zone's rule.
            probe = expanded.replace(count=None, until=start.replace(year=start.year + 30))
            occurs = next(iter(probe), None) is not None
        except (ValueError, TypeError, OverflowError):
            return  # the parser refuses it
        if not occurs:
            raise OverBound(BAD_ZONE_RULE, too_large=False)
        self.zone_parts.append(expanded)


def _count_before(rule, until: datetime, budget: int) -> int:
    """How many times of ``rule`` come before ``until``, counted to ``budget`` and one."""
    moments = takewhile(lambda moment: moment < until, rule)
    return sum(1 for _moment in islice(moments, budget + 1))


def _zone_start(value: str) -> datetime | None:
    try:
        return datetime.strptime(value.strip()[:15], "%Y%m%dT%H%M%S")
    except ValueError:
        return None
