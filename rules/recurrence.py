"""Recurring events (SPEC §12): RFC 5545 lines and their expansion, pure (hammered by
hypothesis); the series' rows are store/recurrence.py's.

A series is an event whose ``recurrence`` holds its lines (``RRULE:…``, ``RDATE…``,
``EXDATE…``, one per line, as Google Calendar's API takes them). Its occurrences are events
too, with ``post_parent`` = the series' id, ``occurrence`` = the local start they stand for
(their RECURRENCE-ID, in the series' timezone) and a copy of the series' lines in
``recurrence``; ``detached`` marks those edited on their own. The series itself is the
first occurrence (its DTSTART).

Rules are expanded by ``python-dateutil`` on naive wall-clock times in the series'
timezone, so a weekly 19:00 in Europe/Paris stays 19:00 across daylight-saving changes and
the UTC times follow; the duration is kept in wall-clock terms too.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from itertools import takewhile
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

from rules import N_, dates
from rules.ids import is_digits

FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
# RFC 5545 rule parts; dateutil also reads BYEASTER, which is not part of the standard.
RULE_PARTS = {
    "FREQ",
    "UNTIL",
    "COUNT",
    "INTERVAL",
    "BYSECOND",
    "BYMINUTE",
    "BYHOUR",
    "BYDAY",
    "BYMONTHDAY",
    "BYYEARDAY",
    "BYWEEKNO",
    "BYMONTH",
    "BYSETPOS",
    "WKST",
}
MAX_LINES = 200  # both limits are said in TOO_MANY_LINES
MAX_LINE_LENGTH = 2000


INVALID_LINE = N_("Must be RFC 5545 lines: RRULE, RDATE or EXDATE.")
# Each refusal of a line names the line (``%(line)s``) and what is wrong with it (SPEC §6).
NOT_A_LINE = N_('"%(line)s" is not an RFC 5545 line: RRULE, RDATE or EXDATE.')
BAD_VALUE = N_('"%(line)s": a part or a date of this line cannot be read.')
UNKNOWN_ZONE = N_('"%(line)s": %(zone)s is not a known timezone.')
NOT_WITH_FREQUENCY = N_('"%(line)s": RFC 5545 does not allow these parts with this FREQ.')
COUNT_AND_UNTIL = N_('"%(line)s": COUNT and UNTIL cannot be in the same rule.')
NEVER_OCCURS = N_('"%(line)s": this rule never gives a date.')
NO_PERIOD = N_('"%(line)s": only RDATE values may be periods (VALUE=PERIOD).')
TOO_MANY_LINES = N_("At most 200 lines, of at most 2000 characters each.")
NO_EXRULE = N_("EXRULE is not supported: use EXDATE lines.")
SUB_DAILY = N_("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY.")


class RecurrenceError(ValueError):
    """An invalid recurrence; ``message`` is one of the constants above (untranslated), and
    ``values`` fill its placeholders: the line at fault, as sent (its start when long)."""

    def __init__(self, message: str, **values):
        super().__init__(message)
        self.message = message
        self.values = values

    def at(self, line: str) -> RecurrenceError:
        """The error, naming ``line`` (its start, when long)."""
        self.values["line"] = line[:80] + ("…" if len(line) > 80 else "")
        return self


class TooManyOccurrences(ValueError):
    pass


@dataclass(frozen=True)
class Moment:
    """One RDATE/EXDATE value: a UTC instant (``Z``), a wall time in ``tzid`` (or in the
    series' zone when floating), or a whole day (``VALUE=DATE``)."""

    kind: str  # "utc", "local" or "date"
    value: datetime | date
    tzid: str | None = None
    # An RDATE;VALUE=PERIOD: its end, in the start's form (the occurrence keeps its own span).
    end: datetime | None = None

    def local(self, tz: tzinfo, start_time: time) -> datetime:
        """This moment as a naive wall-clock time in ``tz``."""
        if self.kind == "date":
            return datetime.combine(self.value, start_time)
        if self.kind == "utc":
            return dates.utc_to_local(self.value, tz)
        if self.tzid is None:
            return self.value
        zone = dates.resolve_timezone(self.tzid)[0]
        return dates.utc_to_local(dates.local_to_utc(self.value, zone), tz)

    def local_end(self, tz: tzinfo, start_time: time) -> datetime | None:
        """A period's end as a naive wall-clock time in ``tz``; None for a date or time."""
        if self.end is None:
            return None
        return Moment(self.kind, self.end, self.tzid).local(tz, start_time)


@dataclass
class Recurrence:
    lines: list[str]
    rules: list[str] = field(default_factory=list)  # RRULE values, without "RRULE:"
    rdates: list[Moment] = field(default_factory=list)
    exdates: list[Moment] = field(default_factory=list)

    @property
    def open_ended(self) -> bool:
        """Some rule has neither COUNT nor UNTIL: materialised to the horizon only."""
        return any(not _part(rule, "COUNT") and not _part(rule, "UNTIL") for rule in self.rules)


# --- parsing (pure) --------------------------------------------------------------------------

# A parameter's value may be quoted, and hold a colon then (RFC 5545 §3.2: a feed writes
# ``TZID="UTC+5:30"``).
_LINE = re.compile(r'^([A-Za-z-]+)((?:;[A-Za-z-]+=(?:"[^"]*"|[^;:"]*))*):(.+)$')
_DATE_TIME = re.compile(r"^(\d{8})T(\d{6})(Z?)$", re.IGNORECASE)
_DATE = re.compile(r"^\d{8}$")
_UNTIL = re.compile(r"(?i)(^|;)UNTIL=([0-9TZtz]+)")


def split_input(value) -> list[str]:
    """A list of lines, or one string with the lines separated by newlines."""
    if isinstance(value, str):
        items = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    elif isinstance(value, list | tuple):
        items = []
        for item in value:
            if not isinstance(item, str):
                raise RecurrenceError(INVALID_LINE)
            items.extend(split_input(item))
    else:
        raise RecurrenceError(INVALID_LINE)
    return [item.strip() for item in items if item.strip()]


def parse(value) -> Recurrence:
    """Validates recurrence input (a list of lines or a newline-separated string); ``[]``
    and ``""`` give an empty recurrence. Raises ``RecurrenceError``."""
    lines = split_input(value)
    if len(lines) > MAX_LINES or any(len(line) > MAX_LINE_LENGTH for line in lines):
        raise RecurrenceError(TOO_MANY_LINES)
    parsed = Recurrence(lines=lines)
    for line in lines:
        try:
            _parse_line(line, parsed)
        except RecurrenceError as error:
            raise error.at(line) from None
    return parsed


def _parse_line(line: str, parsed: Recurrence) -> None:
    """One line into ``parsed``; raises ``RecurrenceError`` (without the line: ``parse``
    names it)."""
    match = _LINE.match(line)
    if not match:
        raise RecurrenceError(NOT_A_LINE)
    name, params_text, body = match.group(1).upper(), match.group(2), match.group(3).strip()
    params = {}
    for param in filter(None, params_text.split(";")):
        key, _sep, val = param.partition("=")
        params[key.upper()] = val.strip().strip('"')
    if name == "EXRULE":
        raise RecurrenceError(NO_EXRULE)
    if name == "RRULE":
        if params:
            raise RecurrenceError(NOT_A_LINE)
        _check_rule(body)
        parsed.rules.append(body)
    elif name in ("RDATE", "EXDATE"):
        moments = _moments(body, params, name)
        (parsed.rdates if name == "RDATE" else parsed.exdates).extend(moments)
    else:
        raise RecurrenceError(NOT_A_LINE)


def _part(rule: str, name: str) -> str | None:
    for item in rule.split(";"):
        key, _sep, value = item.partition("=")
        if key.strip().upper() == name:
            return value.strip()
    return None


NONZERO_PARTS = ("BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS")
# Rules are tried, without COUNT or UNTIL, from a stand-in start: a rule with no date in 28
# years (after which weekdays and leap years repeat) has none at all. The stand-in is near
# the year 9999 because dateutil searches an impossible rule (BYMONTH=2;BYMONTHDAY=30) to
# that year before giving up: from here, that search is short.
PROBE_START = datetime(9970, 1, 1)
PROBE_END = datetime(9998, 12, 31, 23, 59, 59)


# RFC 5545 3.3.10: the parts a frequency may not have (calendar applications refuse the
# whole calendar that holds such a rule: ical.js throws on MONTHLY with BYWEEKNO).
_NOT_WITH = {
    "BYWEEKNO": ("DAILY", "WEEKLY", "MONTHLY"),
    "BYYEARDAY": ("DAILY", "WEEKLY", "MONTHLY"),
    "BYMONTHDAY": ("WEEKLY",),
}
_NUMBERED_DAY = re.compile(r"[+-]?\d")


def _parts_fit_frequency(rule: str, keys: list[str]) -> bool:
    """Whether the rule's parts are allowed with its FREQ: ``_NOT_WITH``, a numbered BYDAY
    (``2MO``) only in a MONTHLY or YEARLY rule, BYSETPOS only beside another BYxxx part."""
    frequency = (_part(rule, "FREQ") or "").upper()
    if any(frequency in _NOT_WITH.get(key, ()) for key in keys):
        return False
    days = (_part(rule, "BYDAY") or "").split(",")
    numbered = any(_NUMBERED_DAY.match(day.strip()) for day in days)
    if numbered and frequency not in ("MONTHLY", "YEARLY"):
        return False
    # BYSETPOS picks among the dates another BYxxx part makes: alone it means nothing.
    by_parts = [key for key in keys if key.startswith("BY") and key != "BYSETPOS"]
    return "BYSETPOS" not in keys or bool(by_parts)


def _check_rule(rule: str) -> None:
    keys = []
    for item in rule.split(";"):
        key, sep, value = item.partition("=")
        key = key.strip().upper()
        if not sep or not value.strip() or key not in RULE_PARTS:
            raise RecurrenceError(BAD_VALUE)
        keys.append(key)
    if len(keys) != len(set(keys)) or "FREQ" not in keys:
        raise RecurrenceError(BAD_VALUE)
    if (_part(rule, "FREQ") or "").upper() not in FREQUENCIES:
        raise RecurrenceError(SUB_DAILY)
    if "COUNT" in keys and "UNTIL" in keys:  # RFC 5545: MUST NOT occur in the same rule
        raise RecurrenceError(COUNT_AND_UNTIL)
    for number in ("COUNT", "INTERVAL"):
        text = _part(rule, number)
        if text is not None and (not is_digits(text) or not 1 <= int(text) <= 100000):
            raise RecurrenceError(BAD_VALUE)
    until = _part(rule, "UNTIL")
    if until is not None and not (_DATE.match(until) or _DATE_TIME.match(until)):
        raise RecurrenceError(BAD_VALUE)
    for key in NONZERO_PARTS:  # RFC 5545: these lists never hold 0
        values = (_part(rule, key) or "").split(",")
        if any(value.strip().lstrip("+-") in ("0", "00") for value in values):
            raise RecurrenceError(BAD_VALUE)
    if not _parts_fit_frequency(rule, keys):
        raise RecurrenceError(NOT_WITH_FREQUENCY)
    try:
        unbounded = ";".join(
            part
            for part in rule.split(";")
            if part.partition("=")[0].strip().upper() not in ("COUNT", "UNTIL")
        )
        probe = rrulestr(unbounded, dtstart=PROBE_START)
        # Iterating checks what building does not (dateutil fails on absurd BYDAY
        # ordinals only then), and a rule with no date in PROBE_YEARS never has one
        # (BYMONTH=2;BYMONTHDAY=30): expanding it would search to the year 9999.
        first = probe.after(PROBE_START, inc=True)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError):
        raise RecurrenceError(BAD_VALUE) from None
    if first is None or first > PROBE_END:
        raise RecurrenceError(NEVER_OCCURS)


def _moments(body: str, params: dict, name: str) -> list[Moment]:
    kind = params.pop("VALUE", "DATE-TIME").upper()
    tzid = params.pop("TZID", None)
    if kind == "PERIOD" and name != "RDATE" and not params:
        raise RecurrenceError(NO_PERIOD)
    if params or kind not in ("DATE", "DATE-TIME", "PERIOD"):
        raise RecurrenceError(NOT_A_LINE)
    if tzid is not None:
        try:
            dates.resolve_timezone(tzid)
        except dates.DateError:
            raise RecurrenceError(UNKNOWN_ZONE, zone=tzid) from None
    moments = []
    for text in body.split(","):
        text = text.strip()
        try:
            if kind == "DATE":
                if not _DATE.match(text) or tzid:
                    raise ValueError
                moments.append(Moment("date", datetime.strptime(text, "%Y%m%d").date()))
                continue
            first, _slash, second = text.partition("/") if kind == "PERIOD" else (text, "", "")
            moment = _date_time(first, tzid)
            if kind == "PERIOD":
                moment = _period(moment, second, tzid)
            moments.append(moment)
        except (ValueError, OverflowError):
            raise RecurrenceError(BAD_VALUE) from None
    return moments


def _date_time(text: str, tzid: str | None) -> Moment:
    """A DATE-TIME value: a UTC instant (``Z``, never beside a TZID), or a wall time in
    ``tzid`` (floating without one). Raises ValueError."""
    match = _DATE_TIME.match(text)
    if not match:
        raise ValueError
    value = datetime.strptime(match.group(1) + match.group(2), "%Y%m%d%H%M%S")
    if value.year < 1000 or (match.group(3) and tzid):
        raise ValueError
    return Moment("utc", value) if match.group(3) else Moment("local", value, tzid)


# RFC 5545 3.3.6: a positive duration, in weeks, or in days and time.
_DURATION = re.compile(r"^\+?P(?:(\d+)W|(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?)$", re.I)


def _period(start: Moment, text: str, tzid: str | None) -> Moment:
    """An RDATE;VALUE=PERIOD value (RFC 5545 3.3.9): ``start`` with the end its second half
    gives, an explicit end in the start's form or a positive duration. Raises ValueError."""
    match = _DURATION.match(text)
    # "PT" or "P1DT" (a T with no time after it) is no duration: RFC 5545 needs a part.
    if match and not text.upper().endswith("T") and any(match.groups()):
        weeks, days, hours, minutes, seconds = (int(part or 0) for part in match.groups())
        span = timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes, seconds=seconds)
        end = start.value + span
    else:
        end_moment = _date_time(text, tzid)
        if end_moment.kind != start.kind:  # both UTC, or both in the same zone
            raise ValueError
        end = end_moment.value
    if end <= start.value:
        raise ValueError
    return Moment(start.kind, start.value, start.tzid, end)


def _floating_until(rule: str, tz: tzinfo) -> str:
    """The rule with UNTIL as a wall-clock time in ``tz``: a UTC ``…Z`` UNTIL converted, a
    date-only UNTIL made inclusive of its whole day (expansion runs on naive times)."""
    match = _UNTIL.search(rule)
    if not match:
        return rule
    value = match.group(2).upper()
    if _DATE.match(value):
        local = datetime.strptime(value, "%Y%m%d").replace(hour=23, minute=59, second=59)
    else:
        local = datetime.strptime(value[:15], "%Y%m%dT%H%M%S")
        if value.endswith("Z"):
            local = dates.utc_to_local(local, tz)
    return rule[: match.start(2)] + local.strftime("%Y%m%dT%H%M%S") + rule[match.end(2) :]


# --- expansion (pure) ------------------------------------------------------------------------


def occurrence_starts(
    recurrence: Recurrence,
    start: datetime,
    tz: tzinfo,
    horizon_utc: datetime,
    limit: int,
) -> list[datetime]:
    """Wall-clock starts (naive, in ``tz``) of the occurrences after the series' own
    ``start``, in order: every RRULE and RDATE, less the EXDATEs; open-ended rules stop at
    ``horizon_utc``. More than ``limit`` occurrences in all (the series included) raises
    ``TooManyOccurrences``. The series' own start is never excluded (it is the series)."""
    found: set[datetime] = set()
    horizon = dates.utc_to_local(horizon_utc, tz)
    for rule_text in recurrence.rules:
        rule = rrulestr(_floating_until(rule_text, tz), dtstart=start)
        open_ended = not _part(rule_text, "COUNT") and not _part(rule_text, "UNTIL")
        if open_ended:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                rule = rule.replace(until=horizon)
        for moment in rule:
            if moment != start:
                found.add(moment)
            # EXDATEs are applied below: allow for them before giving up.
            if len(found) >= limit + len(recurrence.exdates):
                raise TooManyOccurrences
    for moment in recurrence.rdates:
        local = moment.local(tz, start.time())
        if local != start:
            found.add(local)
    found = set(without_exdates(found, recurrence.exdates, tz))
    if len(found) >= limit:
        raise TooManyOccurrences
    return sorted(found)


def ended_before(recurrence: Recurrence, start: datetime, tz: tzinfo) -> RecurrenceError | None:
    """NEVER_OCCURS, naming the rule, for an RRULE whose UNTIL is before the series'
    ``start``: calendar applications (recurring-ical-events, dateutil) give such a rule's
    VEVENT no date at all, its start included, while the series would be listed."""
    for rule_text in recurrence.rules:
        if not _part(rule_text, "UNTIL"):
            continue
        until = _part(_floating_until(rule_text, tz), "UNTIL")
        if datetime.strptime(until, "%Y%m%dT%H%M%S") < start:
            return RecurrenceError(NEVER_OCCURS).at(f"RRULE:{rule_text}")
    return None


def rule_gives(recurrence: Recurrence, start: datetime, tz: tzinfo, moment: datetime) -> bool:
    """Whether the series' RRULEs and RDATEs, its EXDATEs aside, give the wall time
    ``moment`` (its own ``start`` included): a date trashed on its own stays while they do."""
    if moment == start:
        return True
    if any(m.local(tz, start.time()) == moment for m in recurrence.rdates):
        return True
    return a_rule_gives(recurrence, start, tz, moment)


def a_rule_gives(recurrence: Recurrence, start: datetime, tz: tzinfo, moment: datetime) -> bool:
    """Whether one of the series' RRULEs (not its RDATEs, nor its own ``start``) gives the
    wall time ``moment``."""
    for rule_text in recurrence.rules:
        rule = rrulestr(_floating_until(rule_text, tz), dtstart=start)
        if rule.after(moment, inc=True) == moment:
            return True
    return False


def names_a_date(recurrence: Recurrence, start: datetime, tz: tzinfo, moment: Moment) -> bool:
    """Whether the EXDATE value ``moment`` names a date the series' RRULEs and RDATEs give
    (``rule_gives``), or for a whole day (``VALUE=DATE``) one on that day, as
    ``without_exdates`` reads it."""
    if moment.kind != "date":
        return rule_gives(recurrence, start, tz, moment.local(tz, start.time()))
    day = moment.value
    given = [start, *(m.local(tz, start.time()) for m in recurrence.rdates)]
    if any(when.date() == day for when in given):
        return True
    for rule_text in recurrence.rules:
        rule = rrulestr(_floating_until(rule_text, tz), dtstart=start)
        found = rule.after(datetime.combine(day, time()), inc=True)
        if found is not None and found.date() == day:
            return True
    return False


def without_stale_exdates(lines: list[str], start: datetime, tz: tzinfo, before) -> list[str]:
    """The lines of a series whose dates a write changed (it starts at the wall time
    ``start`` in ``tz`` now), less the EXDATE values that named a date of the series as it
    was (``before``: its Recurrence, start and zone) and name none of it now: they exclude
    nothing any more, and a calendar application would keep them as exceptions of dates
    the series does not have. A value that named nothing before is the writer's own."""
    now = parse(lines)
    was, was_start, was_tz = before

    def stale(moment: Moment) -> str | None:
        if names_a_date(now, start, tz, moment) or not names_a_date(was, was_start, was_tz, moment):
            return None
        return ""

    return rewrite_exdates(lines, stale)


def lines_from(lines: list[str], start: datetime, new_start: datetime) -> list[str]:
    """The lines of a series that starts at the wall time ``start``, for the same series
    started at ``new_start``, one of its later dates: each RRULE's COUNT less the dates that
    rule gave before ``new_start`` (a rule with none left is dropped). COUNT counts the
    rule's own dates, as expansion reads it: the series' start spends one only when the rule
    gives it (a Sunday start of BYDAY=MO;COUNT=3 has three Mondays after it)."""
    found = []
    for line in lines:
        name, _sep, rule_text = line.partition(":")
        count = _part(rule_text, "COUNT") if name.strip().upper() == "RRULE" else None
        if count is None:
            found.append(line)
            continue
        rule = rrulestr(rule_text, dtstart=start)
        left = int(count) - sum(1 for _moment in takewhile(lambda m: m < new_start, rule))
        if left > 0:
            parts = [
                f"COUNT={left}" if part.partition("=")[0].strip().upper() == "COUNT" else part
                for part in rule_text.split(";")
            ]
            found.append(f"{name}:{';'.join(parts)}")
    return found


def without_exdates(starts, exdates: list[Moment], tz: tzinfo) -> list[datetime]:
    """``starts`` less those an EXDATE names (the same instant, or the same day for a
    ``VALUE=DATE`` EXDATE)."""
    if not exdates:
        return list(starts)
    instants = {_instant(m, tz) for m in exdates if m.kind != "date"}
    days = {m.value for m in exdates if m.kind == "date"}
    return [
        moment
        for moment in starts
        if moment.date() not in days and dates.local_to_utc(moment, tz) not in instants
    ]


def _instant(moment: Moment, tz: tzinfo) -> datetime:
    if moment.kind == "utc":
        return moment.value
    zone = dates.resolve_timezone(moment.tzid)[0] if moment.tzid else tz
    return dates.local_to_utc(moment.value, zone)


def exdate_line(
    occurrence: datetime, tz: tzinfo, tz_label: str, all_day: bool, name: str = "EXDATE"
) -> str:
    """The EXDATE line that excludes the occurrence standing for the wall time
    ``occurrence`` (the form Google Calendar writes); with ``name="RECURRENCE-ID"``, the
    property naming that occurrence in an overriding VEVENT."""
    if all_day:
        return f"{name};VALUE=DATE:{occurrence:%Y%m%d}"
    if isinstance(tz, ZoneInfo):
        return f"{name};TZID={tz_label}:{occurrence:%Y%m%dT%H%M%S}"
    return f"{name}:{dates.local_to_utc(occurrence, tz):%Y%m%dT%H%M%S}Z"


def join_lines(lines: list[str]) -> str:
    return "\n".join(lines)


def stored_lines(text: str) -> list[str]:
    return text.split("\n") if text else []


# --- what makes a series, an occurrence ---------------------------------------------------


def is_series(event) -> bool:
    return bool(event.recurrence) and not event.occurrence


def is_occurrence(event) -> bool:
    return bool(event.occurrence)


def series_shown(event: dict) -> int | None:
    """The series an event as represented (a dict of the API's shape) belongs to: its
    ``post_parent``, or its own id for the series itself; None for an event that does not
    repeat: a list marks the entry "Repeats", an event page lists the series' next dates
    (SPEC §15)."""
    if not event.get("recurrence"):
        return None
    return event.get("post_parent") or event["id"]


def series_zone(series) -> tuple[tzinfo, str]:
    return dates.resolve_timezone(series.timezone or "UTC")


def rewrite_exdates(lines: list[str], change) -> list[str]:
    """``lines`` with each EXDATE value for which ``change(moment)`` gives a line (or ""
    to drop the value) replaced by it; the other values of a line stay on it."""
    return rewrite_dates(lines, change, "EXDATE")


def rewrite_dates(lines: list[str], change, name: str) -> list[str]:
    """``rewrite_exdates`` for the values of the lines ``name`` (EXDATE or RDATE)."""
    found: list[str] = []
    for line in lines:
        match = _LINE.match(line)
        rewritten = [line]
        if match and match.group(1).upper() == name:
            values = match.group(3).strip().split(",")
            parsed = parse([line])
            moments = parsed.exdates if name == "EXDATE" else parsed.rdates
            if len(moments) == len(values):
                changes = [change(moment) for moment in moments]
                if any(item is not None for item in changes):
                    kept = [v for v, c in zip(values, changes, strict=True) if c is None]
                    head = f"{match.group(1)}{match.group(2)}"
                    rewritten = [f"{head}:{','.join(kept)}"] if kept else []
                    rewritten += [c for c in changes if c]
        for item in rewritten:
            if item not in found:
                found.append(item)
    return found


# --- a whole series moved ---------------------------------------------------------------------

# Parts that pin a rule's dates to given days, and its times to given hours: such a rule does
# not say its dates moved by days (by hours). Months and years vary in length: a rule of them
# does not say its dates moved by days either.
DAY_PARTS = ("BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS")
TIME_PARTS = ("BYHOUR", "BYMINUTE", "BYSECOND")


def shifted_lines(
    lines: list[str], start: datetime, shift: timedelta, tz: tzinfo, tz_label: str, all_day: bool
) -> list[str] | None:
    """The lines of a series that starts at the wall time ``start``, for the same series with
    every date ``shift`` later (RANGE=THISANDFUTURE on its first occurrence): rules from the
    moved start with their UNTIL moved too, RDATE and EXDATE values moved. None when a rule
    cannot say it."""
    if not shift:
        return list(lines)
    days = ((start + shift).date() - start.date()).days
    found = []
    for line in parse(lines).lines:
        name, _sep, value = line.partition(":")
        name = name.split(";")[0].upper()
        if name == "RRULE":
            pinned = [_part(value, key) for key in (*TIME_PARTS, *(DAY_PARTS if days else ()))]
            monthly = (_part(value, "FREQ") or "").upper() in ("MONTHLY", "YEARLY")
            if any(part is not None for part in pinned) or (days and monthly):
                return None
            found.append(f"RRULE:{_shifted_until(value, shift, days, tz)}")
            continue
        moments = parse([line])
        grouped: dict[str, list[str]] = {}
        for moment in moments.rdates + moments.exdates:
            if moment.kind == "date" and not all_day:  # a whole day beside a timed start
                head, text = f"{name};VALUE=DATE", f"{moment.value + timedelta(days=days):%Y%m%d}"
            else:
                local = moment.local(tz, start.time()) + shift
                head, _sep, text = exdate_line(local, tz, tz_label, all_day, name).rpartition(":")
            grouped.setdefault(head, []).append(text)
        found += [f"{head}:{','.join(values)}" for head, values in grouped.items()]
    return found


WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def moved_lines(
    lines: list[str],
    start: datetime,
    shift: timedelta,
    tz: tzinfo,
    tz_label: str,
    all_day: bool,
    horizon_utc: datetime,
    limit: int,
) -> tuple[list[str] | None, int]:
    """``shifted_lines`` for any series: the lines of the series that starts at the wall
    time ``start`` for the same series with every date ``shift`` later. Rules that say it
    themselves (``shifted_lines``), or once the days of a daily or weekly rule's BYDAY move
    with its dates (Mondays to Tuesdays), are kept when their dates, expanded to
    ``horizon_utc``, are exactly the old ones moved; else a series with an end is written
    as its dates moved, one by one (RDATEs); None for an open-ended one (no list of dates
    says what it shows past the horizon). With them, how many dates were worked out (what
    it cost); raises ``TooManyOccurrences`` past ``limit``."""
    if not shift:
        return list(lines), 0
    parsed = parse(lines)
    before = [start, *occurrence_starts(parsed, start, tz, horizon_utc, limit)]
    expected = [moment + shift for moment in before]
    cost = len(before)
    days = ((start + shift).date() - start.date()).days
    # Open-ended rules stop at the horizon: compare what comes before it either way.
    cut = dates.utc_to_local(horizon_utc, tz) - abs(shift) - timedelta(days=1)
    for candidate in (
        shifted_lines(lines, start, shift, tz, tz_label, all_day),
        _weekdays_moved(lines, start, shift, days, tz, tz_label, all_day),
    ):
        if candidate is None:
            continue
        after = [
            start + shift,
            *occurrence_starts(parse(candidate), start + shift, tz, horizon_utc, limit),
        ]
        cost += len(after)
        if after == expected or (
            parsed.open_ended and [m for m in after if m < cut] == [m for m in expected if m < cut]
        ):
            return candidate, cost
    if parsed.open_ended:
        return None, cost
    grouped: dict[str, list[str]] = {}
    for moment in expected[1:]:
        head, _sep, text = exdate_line(moment, tz, tz_label, all_day, "RDATE").rpartition(":")
        grouped.setdefault(head, []).append(text)
    found = [
        f"{head}:{','.join(values[offset : offset + _VALUES_PER_LINE])}"
        for head, values in grouped.items()
        for offset in range(0, len(values), _VALUES_PER_LINE)
    ]
    return found, cost


# Values per RDATE line written for a series' dates one by one (lines take 2,000 characters).
_VALUES_PER_LINE = 100


def _weekdays_moved(
    lines: list[str],
    start: datetime,
    shift: timedelta,
    days: int,
    tz: tzinfo,
    tz_label: str,
    all_day: bool,
) -> list[str] | None:
    """``lines`` whose daily or weekly rules pin only weekdays (BYDAY=MO,WE), with those
    weekdays moved by ``days`` (Mondays to Tuesdays) and UNTIL and the dates moved as
    ``shifted_lines`` moves them; None when some rule pins more, or no weekday moves."""
    if days % 7 == 0:
        return None
    rules, others = [], []
    for line in parse(lines).lines:
        name, _sep, value = line.partition(":")
        if name.split(";")[0].upper() != "RRULE":
            others.append(line)
            continue
        byday = _part(value, "BYDAY")
        frequency = (_part(value, "FREQ") or "").upper()
        pinned = [key for key in DAY_PARTS if key != "BYDAY" and _part(value, key) is not None]
        if byday is None or pinned or frequency not in ("DAILY", "WEEKLY"):
            return None
        codes = [code.strip().upper() for code in byday.split(",")]
        if any(code not in WEEKDAYS for code in codes):  # an ordinal (1MO)
            return None
        moved = ",".join(WEEKDAYS[(WEEKDAYS.index(code) + days) % 7] for code in codes)
        parts = [
            f"BYDAY={moved}" if item.partition("=")[0].strip().upper() == "BYDAY" else item
            for item in value.split(";")
        ]
        rules.append(f"RRULE:{_shifted_until(';'.join(parts), shift, days, tz)}")
    return rules + (shifted_lines(others, start, shift, tz, tz_label, all_day) or [])


def _shifted_until(rule: str, shift: timedelta, days: int, tz: tzinfo) -> str:
    """A rule's UNTIL moved with its dates: a date by the days they move, a time by the
    shift (as a wall time in ``tz``; in UTC when it was)."""
    match = _UNTIL.search(rule)
    if not match:
        return rule
    value = match.group(2).upper()
    if _DATE.match(value):
        text = f"{datetime.strptime(value, '%Y%m%d') + timedelta(days=days):%Y%m%d}"
    else:
        local = datetime.strptime(_part(_floating_until(rule, tz), "UNTIL"), "%Y%m%dT%H%M%S")
        local += shift
        in_utc = value.endswith("Z")
        text = (
            f"{dates.local_to_utc(local, tz):%Y%m%dT%H%M%S}Z"
            if in_utc
            else f"{local:%Y%m%dT%H%M%S}"
        )
    return rule[: match.start(2)] + text + rule[match.end(2) :]


# --- for the iCalendar writer ----------------------------------------------------------------


@dataclass
class FeedRecurrence:
    """A series' lines as an iCalendar writer puts them beside a DTSTART in the series'
    zone: RRULE values with UNTIL in UTC (a date for all-day series), as RFC 5545 requires
    beside a zoned DTSTART; RDATE and EXDATE values as wall-clock times in the series'
    zone (dates for all-day series)."""

    rules: list[str]
    rdates: list
    exdates: list


def feed_recurrence(lines: list[str], start: datetime, tz: tzinfo, all_day: bool) -> FeedRecurrence:
    """``lines`` (as stored) for a series starting at the wall time ``start`` in ``tz``. An
    EXDATE of a whole day names that day's occurrence, and the series' own start is never
    excluded, as in ``occurrence_starts``."""
    parsed = parse(lines)
    rules = []
    for rule in parsed.rules:
        rule = _until_for_count(rule, start)
        match = _UNTIL.search(rule)
        if match:
            local = datetime.strptime(_part(_floating_until(rule, tz), "UNTIL"), "%Y%m%dT%H%M%S")
            until = (
                f"{local:%Y%m%d}" if all_day else f"{dates.local_to_utc(local, tz):%Y%m%dT%H%M%S}Z"
            )
            rule = rule[: match.start(2)] + until + rule[match.end(2) :]
        rules.append(rule)

    def values(moments, keep_start):
        found = []
        for moment in moments:
            local = moment.local(tz, start.time())
            if local == start and not keep_start:
                continue
            value = local.date() if all_day else local
            if value not in found:
                found.append(value)
        return found

    return FeedRecurrence(rules, values(parsed.rdates, True), values(parsed.exdates, False))


def feed_recurrence_between(
    lines: list[str],
    start: datetime,
    tz: tzinfo,
    all_day: bool,
    listed: list[datetime],
    left_out: list[datetime],
) -> tuple[datetime, FeedRecurrence]:
    """The lines of a series as the feed of a listing that holds only some of its dates
    writes them (SPEC §11: a caller gets exactly the events its listing would show), and
    the VEVENT's DTSTART: the first date listed, the rules ending at the last one (UNTIL,
    in UTC as ``feed_recurrence`` writes it), the dates between that the listing leaves out
    excluded. ``listed``, ``left_out``: wall times of the series' dates, each as its rule
    gives it (an occurrence moved on its own by the date it replaces). A first date that
    no rule gives (an RDATE) would start the rules on another weekday or day of the month:
    the dates listed are then written as RDATEs alone."""
    first, last = min(listed), max(listed)

    def value(moment):
        return moment.date() if all_day else moment

    if first != start and not a_rule_gives(parse(lines), start, tz, first):
        return first, FeedRecurrence([], [value(m) for m in sorted(set(listed) - {first})], [])
    whole = feed_recurrence(lines, start, tz, all_day)
    low, high = value(first), value(last)
    until = f"{last:%Y%m%d}" if all_day else f"{dates.local_to_utc(last, tz):%Y%m%dT%H%M%S}Z"
    rules = [_ending(rule, until) for rule in whole.rules]
    rdates = [v for v in whole.rdates if low < v <= high]
    exdates = [v for v in whole.exdates if low < v < high]
    exdates += [value(m) for m in sorted(set(left_out)) if first < m < last]
    return first, FeedRecurrence(rules, rdates, list(dict.fromkeys(exdates)))


def _ending(rule: str, until: str) -> str:
    """``rule`` ending at ``until`` (its COUNT or UNTIL replaced)."""
    kept = [p for p in rule.split(";") if p.partition("=")[0].strip().upper() not in _ENDS]
    return ";".join([*kept, f"UNTIL={until}"])


_ENDS = ("COUNT", "UNTIL")


def _until_for_count(rule: str, start: datetime) -> str:
    """``rule``, or when it has a COUNT and does not give the series' ``start``, the same
    rule ending at its last date (a wall-clock UNTIL). Readers differ on such a COUNT: RFC
    5545 counts DTSTART as the first of it (a reader that follows it shows one date fewer),
    dateutil, ``recurring_ical_events`` and this service count the rule's own dates (a
    Sunday start of BYDAY=MO;COUNT=3 is four dates); an UNTIL reads alike in both."""
    if _part(rule, "COUNT") is None:
        return rule
    expanded = rrulestr(rule, dtstart=start)
    first = expanded.after(start, inc=True)
    if first is None or first == start:
        return rule
    last = list(expanded)[-1]  # expanded only then: a series' COUNT gives at most its dates
    return ";".join(
        f"UNTIL={last:%Y%m%dT%H%M%S}" if part.partition("=")[0].strip().upper() == "COUNT" else part
        for part in rule.split(";")
    )
