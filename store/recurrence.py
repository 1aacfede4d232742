"""Recurring events (SPEC §12): RFC 5545 lines, their expansion, and the series' rows.

A series is an event whose ``recurrence`` holds its lines (``RRULE:…``, ``RDATE…``,
``EXDATE…``, one per line, as Google Calendar's API takes them). Its occurrences are events
too, with ``post_parent`` = the series' id, ``occurrence`` = the local start they stand for
(their RECURRENCE-ID, in the series' timezone) and a copy of the series' lines in
``recurrence``; ``detached`` marks those edited on their own. The series itself is the
first occurrence (its DTSTART).

Rules are expanded by ``python-dateutil`` on naive wall-clock times in the series'
timezone, so a weekly 19:00 in Europe/Paris stays 19:00 across daylight-saving changes and
the UTC times follow; the duration is kept in wall-clock terms too.

The first half of the module is pure (parsing and expansion, hammered by hypothesis); the
second half reads and writes the series' rows inside the caller's write transaction.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime, time, tzinfo
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

from store import dates
from store.db import insert_rows

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
MAX_LINES = 200
MAX_LINE_LENGTH = 2000


def N_(message: str) -> str:
    """Marks a message for the catalogs (translated where it is reported)."""
    return message


INVALID_LINE = N_("Must be RFC 5545 lines: RRULE, RDATE or EXDATE.")
NO_EXRULE = N_("EXRULE is not supported: use EXDATE lines.")
SUB_DAILY = N_("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY.")


class RecurrenceError(ValueError):
    """An invalid recurrence; ``message`` is one of the constants above."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TooManyOccurrences(ValueError):
    pass


@dataclass(frozen=True)
class Moment:
    """One RDATE/EXDATE value: a UTC instant (``Z``), a wall time in ``tzid`` (or in the
    series' zone when floating), or a whole day (``VALUE=DATE``)."""

    kind: str  # "utc", "local" or "date"
    value: datetime | date
    tzid: str | None = None

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

_LINE = re.compile(r"^([A-Za-z-]+)((?:;[A-Za-z-]+=[^;:]*)*):(.+)$")
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
        raise RecurrenceError(INVALID_LINE)
    parsed = Recurrence(lines=lines)
    for line in lines:
        match = _LINE.match(line)
        if not match:
            raise RecurrenceError(INVALID_LINE)
        name, params_text, body = match.group(1).upper(), match.group(2), match.group(3).strip()
        params = {}
        for param in filter(None, params_text.split(";")):
            key, _sep, val = param.partition("=")
            params[key.upper()] = val.strip().strip('"')
        if name == "EXRULE":
            raise RecurrenceError(NO_EXRULE)
        if name == "RRULE":
            if params:
                raise RecurrenceError(INVALID_LINE)
            _check_rule(body)
            parsed.rules.append(body)
        elif name in ("RDATE", "EXDATE"):
            moments = _moments(body, params)
            (parsed.rdates if name == "RDATE" else parsed.exdates).extend(moments)
        else:
            raise RecurrenceError(INVALID_LINE)
    return parsed


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


def _check_rule(rule: str) -> None:
    keys = []
    for item in rule.split(";"):
        key, sep, value = item.partition("=")
        key = key.strip().upper()
        if not sep or not value.strip() or key not in RULE_PARTS:
            raise RecurrenceError(INVALID_LINE)
        keys.append(key)
    if len(keys) != len(set(keys)) or "FREQ" not in keys:
        raise RecurrenceError(INVALID_LINE)
    if (_part(rule, "FREQ") or "").upper() not in FREQUENCIES:
        raise RecurrenceError(SUB_DAILY)
    if "COUNT" in keys and "UNTIL" in keys:  # RFC 5545: MUST NOT occur in the same rule
        raise RecurrenceError(INVALID_LINE)
    for number in ("COUNT", "INTERVAL"):
        text = _part(rule, number)
        if text is not None and (not text.isdigit() or not 1 <= int(text) <= 100000):
            raise RecurrenceError(INVALID_LINE)
    until = _part(rule, "UNTIL")
    if until is not None and not (_DATE.match(until) or _DATE_TIME.match(until)):
        raise RecurrenceError(INVALID_LINE)
    for key in NONZERO_PARTS:  # RFC 5545: these lists never hold 0
        values = (_part(rule, key) or "").split(",")
        if any(value.strip().lstrip("+-") in ("0", "00") for value in values):
            raise RecurrenceError(INVALID_LINE)
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
        if first is None or first > PROBE_END:
            raise RecurrenceError(INVALID_LINE)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError):
        raise RecurrenceError(INVALID_LINE) from None


def _moments(body: str, params: dict) -> list[Moment]:
    kind = params.pop("VALUE", "DATE-TIME").upper()
    tzid = params.pop("TZID", None)
    if params or kind not in ("DATE", "DATE-TIME"):  # PERIOD values are not supported
        raise RecurrenceError(INVALID_LINE)
    if tzid is not None:
        try:
            dates.resolve_timezone(tzid)
        except dates.DateError:
            raise RecurrenceError(INVALID_LINE) from None
    moments = []
    for text in body.split(","):
        text = text.strip()
        try:
            if kind == "DATE":
                if not _DATE.match(text) or tzid:
                    raise ValueError
                moments.append(Moment("date", datetime.strptime(text, "%Y%m%d").date()))
                continue
            match = _DATE_TIME.match(text)
            if not match:
                raise ValueError
            value = datetime.strptime(match.group(1) + match.group(2), "%Y%m%d%H%M%S")
            if value.year < 1000:
                raise ValueError
            if match.group(3):
                if tzid:
                    raise ValueError
                moments.append(Moment("utc", value))
            else:
                moments.append(Moment("local", value, tzid))
        except ValueError:
            raise RecurrenceError(INVALID_LINE) from None
    return moments


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


# --- the series' rows (inside the caller's write transaction) --------------------------------

# Link tables copied from the series to its occurrences, and the body keys that replace them.
LINK_TABLES = {
    "venue": ("event_venue", "venue_id"),
    "organizer": ("event_organizer", "organizer_id"),
    "categories": ("event_term", "term_id"),
    "tags": ("event_term", "term_id"),
}
# Columns an occurrence never takes from its series on an update of the series.
OWN_COLUMNS = {"id", "slug", "post_parent", "occurrence", "detached", "recurrence"}
SCHEDULE_COLUMNS = ("start_date", "end_date", "utc_start", "utc_end", "timezone", "all_day")
# The occurrences that follow their series: not edited (nor trashed) on their own.
_FOLLOWERS = "SELECT id FROM event WHERE post_parent = ? AND occurrence != '' AND NOT detached"


def is_series(event) -> bool:
    return bool(event.recurrence) and not event.occurrence


def is_occurrence(event) -> bool:
    return bool(event.occurrence)


def series_zone(series) -> tuple[tzinfo, str]:
    return dates.resolve_timezone(series.timezone or "UTC")


def _members(series_id: int):
    from store.models import Event

    return (Event.post_parent == series_id) & (Event.occurrence != "")


def _set_lines(series_id: int, lines: list[str]) -> None:
    """The series' lines, on the series and on the copy every occurrence carries."""
    from store.db import run_sql

    run_sql(
        "UPDATE event SET recurrence = ? WHERE id = ? OR (post_parent = ? AND occurrence != '')",
        (join_lines(lines), series_id, series_id),
    )


def _copy_links(series_id: int, tables, since: int | None = None) -> None:
    """Replaces the links of the following occurrences by copies of the series' links:
    two statements per table, whatever the number of occurrences. With ``since`` (the
    first id of occurrences just added, which have none), gives those theirs only."""
    from store.db import run_sql

    for table, column in dict.fromkeys(tables):
        live = ", live" if table == "event_term" else ""
        if since is None:
            run_sql(f"DELETE FROM {table} WHERE event_id IN ({_FOLLOWERS})", (series_id,))
        run_sql(
            f"INSERT INTO {table} (event_id, {column}, position{live}) "
            f"SELECT o.id, l.{column}, l.position{live.replace(', ', ', l.')} "
            f"FROM event AS o JOIN {table} AS l ON l.event_id = ? "
            f"WHERE o.post_parent = ? AND o.occurrence != '' AND NOT o.detached AND o.id >= ?",
            (series_id, series_id, since or 0),
        )


def _occurrence_slugs(base: str, starts: list[datetime]) -> list[str]:
    """``{slug}-{YYYY-MM-DD}`` (``-HHMM`` added when a day has several occurrences), made
    unique against other events with the usual ``-2`` suffixes."""
    from store.models import Event
    from store.posts import unique_slug

    per_day: dict[date, int] = {}
    for start in starts:
        per_day[start.date()] = per_day.get(start.date(), 0) + 1
    wanted = [
        f"{base}-{start:%Y-%m-%d}" + (f"-{start:%H%M}" if per_day[start.date()] > 1 else "")
        for start in starts
    ]
    taken: set[str] = set()
    for offset in range(0, len(wanted), 500):
        chunk = wanted[offset : offset + 500]
        taken.update(s for (s,) in Event.select(Event.slug).where(Event.slug.in_(chunk)).tuples())
    seen: set[str] = set()
    slugs = []
    for slug in wanted:
        if slug in taken or slug in seen:
            slug = unique_slug(Event, slug, "event")
            while slug in seen:  # not yet in the table: unique_slug cannot see it
                slug = unique_slug(Event, f"{slug}-2", "event")
        seen.add(slug)
        slugs.append(slug)
    return slugs


def _occurrence_rows(series, starts: list[datetime]) -> list[dict]:
    from store.models import Event
    from store.posts import allocate_ids

    base = {f.name: getattr(series, f.name) for f in Event._meta.sorted_fields if f.name != "id"}
    ids = allocate_ids("event", len(starts))
    rows = []
    for event_id, start, slug in zip(
        ids, starts, _occurrence_slugs(series.slug, starts), strict=True
    ):
        rows.append(
            {
                **base,
                "id": event_id,
                "slug": slug,
                "post_parent": series.id,
                "occurrence": dates.fmt(start),
                "detached": False,
                **_schedule_at(series, start),
            }
        )
    return rows


def _schedule_at(series, start: datetime) -> dict:
    """The dates of the occurrence of ``series`` at the wall time ``start``."""
    tz = series_zone(series)[0]
    duration = dates.parse_stored(series.end_date) - dates.parse_stored(series.start_date)
    utc_start = dates.local_to_utc(start, tz)
    utc_end = dates.local_to_utc(start + duration, tz)
    if utc_end < utc_start:  # a start in a DST gap stands at the later time the clock shows
        utc_end = utc_start + duration
    return {
        # Wall times in a DST gap are stored as the clock showed them, as on writes.
        "start_date": dates.fmt(dates.utc_to_local(utc_start, tz)),
        "end_date": dates.fmt(dates.utc_to_local(utc_end, tz)),
        "utc_start": dates.fmt(utc_start),
        "utc_end": dates.fmt(utc_end),
    }


def add_occurrences(series, starts: list[datetime]) -> int:
    """Inserts occurrences of ``series`` at the wall times ``starts`` with bulk inserts, and
    gives them the series' links. Returns how many were added."""
    from store.models import Event

    if not starts:
        return 0
    rows = _occurrence_rows(series, starts)
    insert_rows(Event, rows)  # prepared once, not built as Peewee queries
    # Ids are allocated in ascending order, after every existing one: the new rows are
    # those from the first of them, and only they lack links.
    _copy_links(series.id, LINK_TABLES.values(), since=min(row["id"] for row in rows))
    return len(rows)


def rebuild(series, starts: list[datetime], before=None) -> None:
    """Re-creates the occurrences of ``series`` at ``starts``: the ones that follow the
    series are deleted and inserted anew; those edited on their own are kept when their
    start (else their day) still occurs (they then stand for that occurrence), deleted
    otherwise; those trashed on their own stay in the trash while the series excludes
    them. ``before``: the series before the write, whose excluded days stay excluded when
    its time of day, timezone or all-day flag changed (``_exdates_follow_their_day``)."""
    from store.models import Event

    lines = stored_lines(series.recurrence)
    follow = _follower(before, series, starts) if before is not None else None
    if follow is not None:
        moved = _exdates_follow_their_day(lines, before, series, follow)
        if moved != lines:
            lines = moved
            series.recurrence = join_lines(lines)  # the occurrences copy it below
            _set_lines(series.id, lines)
    tz = series_zone(series)[0]
    exdates = parse(lines).exdates
    # The starts were planned before the transaction: an occurrence trashed meanwhile has
    # added its EXDATE to the series, which is read here, inside it.
    starts = without_exdates(starts, exdates, tz)
    Event.delete().where(_members(series.id) & (Event.detached == False)).execute()  # noqa: E712
    first_by_day: dict[date, datetime] = {}
    for start in starts:
        first_by_day.setdefault(start.date(), start)
    planned = set(starts)
    kept: set[datetime] = set()
    rows = Event.select(Event.id, Event.occurrence, Event.status, Event.start_date).where(
        _members(series.id)
    )
    for row in rows:
        old = dates.parse_stored(row.occurrence)
        if row.status == "trash":
            # Trashed on its own, it stays in the trash (to be restored) for as long as
            # the series excludes it, moved with the series unless moved on its own.
            followed = follow(old) if follow else None
            moment = followed or old
            if without_exdates([moment], exdates, tz):  # no longer excluded: gone
                Event.delete().where(Event.id == row.id).execute()
                continue
            changes = {"occurrence": dates.fmt(moment), "recurrence": series.recurrence}
            if row.start_date == row.occurrence and followed is not None:
                changes.update(
                    _schedule_at(series, moment),
                    timezone=series.timezone,
                    all_day=series.all_day,
                )
            Event.update(changes).where(Event.id == row.id).execute()
            continue
        start = old if old in planned else first_by_day.get(old.date())
        if start is None or start in kept:
            Event.delete().where(Event.id == row.id).execute()
        else:
            kept.add(start)
            Event.update(occurrence=dates.fmt(start), recurrence=series.recurrence).where(
                Event.id == row.id
            ).execute()
    add_occurrences(series, [start for start in starts if start not in kept])


def _follower(before, series, starts):
    """When the write moved the series (its time of day, zone or all-day flag), a function
    giving, for a wall time of an occurrence of ``before``, the occurrence of ``series``
    that stands for it: the planned start of the same day at the series' new time of day
    (or the day's first; the new time of day on a day the plan leaves out), for an
    occurrence at ``before``'s time; None otherwise. None when the series did not move."""
    if (before.start_date[11:], before.timezone, bool(before.all_day)) == (
        series.start_date[11:],
        series.timezone,
        bool(series.all_day),
    ):
        return None
    old_time = dates.parse_stored(before.start_date).time()
    new_time = dates.parse_stored(series.start_date).time()
    by_day: dict[date, datetime] = {}
    for start in starts:
        if start.date() not in by_day or (
            start.time() == new_time and by_day[start.date()].time() != new_time
        ):
            by_day[start.date()] = start

    def follow(wall: datetime) -> datetime | None:
        if wall.time() != old_time:
            return None
        # A day the plan leaves out (already excluded) keeps the series' new time of day.
        return by_day.get(wall.date()) or datetime.combine(wall.date(), new_time)

    return follow


def _exdates_follow_their_day(lines: list[str], before, series, follow) -> list[str]:
    """The series' lines with each EXDATE value that named an occurrence of ``before`` (a
    wall time at ``before``'s time of day, in its zone: the form trashing writes, also in a
    DST gap, where the occurrence stands at the time the clock showed; or a whole day when
    ``before`` was all-day) rewritten to name the occurrence that ``follow`` gives for it
    (``_follower``): moving a series from 10:00 to 09:00 keeps the days that were trashed
    or deleted out of it, in its listing and in its feed alike. A line of several values
    keeps the values that do not move; other lines stay."""
    old_tz, old_label = series_zone(before)
    old_time = dates.parse_stored(before.start_date).time()
    new_tz, label = series_zone(series)

    def moved(moment) -> str | None:
        if moment.kind == "date":
            if not before.all_day or series.all_day:
                return None  # a whole day stays a whole day
            wall = datetime.combine(moment.value, old_time)
        elif moment.kind == "local" and moment.tzid in (None, old_label):
            wall = moment.value  # as written: a time in a DST gap stays what it named
        else:
            wall = moment.local(old_tz, old_time)
        start = follow(wall)
        return None if start is None else exdate_line(start, new_tz, label, bool(series.all_day))

    return _rewrite_exdates(lines, moved)


def _rewrite_exdates(lines: list[str], change) -> list[str]:
    """``lines`` with each EXDATE value for which ``change(moment)`` gives a line (or ""
    to drop the value) replaced by it; the other values of a line stay on it."""
    found: list[str] = []
    for line in lines:
        match = _LINE.match(line)
        rewritten = [line]
        if match and match.group(1).upper() == "EXDATE":
            values = match.group(3).strip().split(",")
            moments = parse([line]).exdates
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


def restore_with_series(series, before) -> None:
    """A series taken out of the trash brings back the occurrences edited on their own
    that went to the trash with it: those whose day the series does not exclude (one
    trashed on its own added its EXDATE, and stays in the trash). They come back as drafts,
    for their editors to publish again."""
    from store.models import Event, EventTerm, live_value

    # The series as it was: the same write may move it (the lines are rewritten after).
    exdates, tz = parse(stored_lines(before.recurrence)).exdates, series_zone(before)[0]
    rows = Event.select().where(
        _members(series.id) & (Event.detached == True) & (Event.status == "trash")  # noqa: E712
    )
    for row in rows:
        if not without_exdates([dates.parse_stored(row.occurrence)], exdates, tz):
            continue  # trashed on its own: its day stays excluded
        # As WordPress restores what it takes out of the trash: a draft (its status before
        # is not kept, and a private or draft occurrence must not come back public).
        Event.update(
            status="draft", modified=series.modified, modified_utc=series.modified_utc
        ).where(Event.id == row.id).execute()
        EventTerm.update(live=live_value("draft", row.password)).where(
            EventTerm.event == row.id
        ).execute()


def propagate(series, changed: dict, link_keys) -> None:
    """An update of the series reaches every occurrence not edited on its own: the columns
    it sent, and the links it replaced."""
    from store.db import run_sql
    from store.models import Event, live_value

    columns = {k: v for k, v in changed.items() if k not in OWN_COLUMNS}
    if columns:
        Event.update(columns).where(
            _members(series.id) & (Event.detached == False)  # noqa: E712
        ).execute()
    tables = [LINK_TABLES[key] for key in link_keys if key in LINK_TABLES]
    if tables:
        _copy_links(series.id, tables)
    if {"status", "password"} & columns.keys() and ("event_term", "term_id") not in tables:
        live = live_value(series.status, series.password)  # the series as saved
        run_sql(
            f"UPDATE event_term SET live = ? WHERE event_id IN ({_FOLLOWERS})", (live, series.id)
        )


def end_series(series_id: int) -> None:
    """The recurrence ended: the following occurrences are deleted; those edited on their
    own become ordinary events."""
    from store.models import Event

    Event.delete().where(_members(series_id) & (Event.detached == False)).execute()  # noqa: E712
    Event.update(post_parent=0, occurrence="", detached=False, recurrence="").where(
        _members(series_id)
    ).execute()


def after_series_write(saved, existing, changed: dict, link_keys, starts) -> None:
    """What a write of an event does to its series, inside the write's transaction.
    ``starts`` is the new expansion when the dates or the recurrence changed, else None."""
    if existing is not None and is_occurrence(existing):
        if existing.status == "trash" and saved.status != "trash":
            restore_occurrence(saved)
        elif existing.status != "trash" and saved.status == "trash":  # trashed by an update
            exclude_occurrence(saved)
        return
    was_series = existing is not None and bool(existing.recurrence)
    if was_series and existing.status == "trash" and saved.status != "trash":
        restore_with_series(saved, existing)
    if was_series and "recurrence" in changed and not saved.recurrence:
        end_series(saved.id)
    elif saved.recurrence and starts is not None:
        rebuild(saved, starts, existing if was_series else None)
    elif saved.recurrence:
        propagate(saved, changed, link_keys)


def _exdate_for(occurrence, series) -> str:
    tz, label = series_zone(series)
    return exdate_line(dates.parse_stored(occurrence.occurrence), tz, label, bool(series.all_day))


def exclude_occurrence(occurrence) -> None:
    """A trashed or deleted occurrence: its date gains an EXDATE line in the series."""
    from store.models import Event

    series = Event.get_or_none(Event.id == occurrence.post_parent)
    if series is None:
        return
    line = _exdate_for(occurrence, series)
    lines = stored_lines(series.recurrence)
    if line not in lines:
        _set_lines(series.id, [*lines, line])


def restore_occurrence(occurrence) -> None:
    """An occurrence taken out of the trash: the EXDATE its trashing added goes (and any
    other that excludes it)."""
    from store.models import Event

    series = Event.get_or_none(Event.id == occurrence.post_parent)
    if series is None:
        return
    tz = series_zone(series)[0]
    wall = dates.parse_stored(occurrence.occurrence)
    lines = stored_lines(series.recurrence)
    # Every value that excludes it, whatever its form (a whole day, another zone, a line
    # of several values): the occurrence is back in its series.
    kept = _rewrite_exdates(lines, lambda m: "" if not without_exdates([wall], [m], tz) else None)
    if kept != lines:
        _set_lines(series.id, kept)


def trash_occurrences(series_id: int, now: str) -> None:
    from store.db import run_sql
    from store.models import Event

    run_sql(
        "UPDATE event_term SET live = 0 WHERE event_id IN "
        "(SELECT id FROM event WHERE post_parent = ? AND occurrence != '')",
        (series_id,),
    )
    Event.update(status="trash", modified=now, modified_utc=now).where(
        _members(series_id)
    ).execute()


def delete_occurrences(series_id: int) -> None:
    from store.models import Event

    Event.delete().where(_members(series_id)).execute()


# --- for the iCalendar writer and the command line ----------------------------------------------


@dataclass
class Override:
    """An occurrence edited on its own: a VEVENT with RECURRENCE-ID ``recurrence_id`` (a wall
    time in the series' timezone; a date for all-day series); ``line`` is that property as
    RFC 5545 writes it (``RECURRENCE-ID;TZID=Europe/Paris:20270308T190000``)."""

    recurrence_id: datetime
    event: object
    line: str = ""


def ical_role(event) -> str:
    """How the iCalendar writer shows an event: "series" (one VEVENT with the series'
    lines), "override" (a VEVENT with RECURRENCE-ID, also listed by ``series_ical``),
    "omitted" (the series' lines stand for it: its RRULE, or the EXDATE of a trashed one)
    or "single"."""
    if is_series(event):
        return "series"
    if is_occurrence(event):
        return "override" if event.detached and event.status != "trash" else "omitted"
    return "single"


def series_ical(series) -> tuple[list[str], list[Override]]:
    """The series' RFC 5545 lines (RRULE/RDATE/EXDATE, as stored) and its individually
    edited occurrences that are not in the trash, in date order."""
    tz, label = series_zone(series)
    overrides = []
    for row in overrides_of([series.id])[series.id]:
        moment = dates.parse_stored(row.occurrence)
        line = exdate_line(moment, tz, label, bool(series.all_day), "RECURRENCE-ID")
        overrides.append(Override(moment, row, line))
    return stored_lines(series.recurrence), overrides


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


def last_occurrence_ends(series_ids: list[int]) -> dict[int, str]:
    """The latest local end among the occurrences of each series (one query)."""
    from peewee import fn

    from store.models import Event

    if not series_ids:
        return {}
    query = (
        Event.select(Event.post_parent, fn.MAX(Event.end_date))
        .where(Event.post_parent.in_(series_ids) & (Event.occurrence != ""))
        .group_by(Event.post_parent)
        .tuples()
    )
    return dict(query)


def overrides_of(series_ids: list[int]) -> dict[int, list]:
    """The individually edited occurrences, not in the trash, of each series, in date
    order (one query): what ``series_ical`` lists, for many series at once."""
    from store.models import Event

    found: dict[int, list] = {series_id: [] for series_id in series_ids}
    if not series_ids:
        return found
    rows = (
        Event.select()
        .where(
            Event.post_parent.in_(series_ids)
            & (Event.occurrence != "")
            & (Event.detached == True)  # noqa: E712
            & (Event.status != "trash")
        )
        .order_by(Event.post_parent, Event.occurrence)
    )
    for row in rows:
        found[row.post_parent].append(row)
    return found


def exclude_date(series, occurrence: datetime) -> bool:
    """Adds the EXDATE line of the wall time ``occurrence`` to ``series`` (and to the copy its
    occurrences carry) without re-creating anything; True when the line was new."""
    from store.db import write_transaction
    from store.models import Event

    with write_transaction():
        current = Event.get_or_none(Event.id == series.id)
        if current is None:
            return False
        tz, label = series_zone(current)
        line = exdate_line(occurrence, tz, label, bool(current.all_day))
        lines = stored_lines(current.recurrence)
        if line in lines:
            return False
        _set_lines(current.id, [*lines, line])
        return True


def occurrence_at(series_id: int, occurrence: datetime):
    """The occurrence of the series standing for the wall time ``occurrence``, or None."""
    from store.models import Event

    return Event.get_or_none(_members(series_id) & (Event.occurrence == dates.fmt(occurrence)))


def occurrences_from(series_id: int, occurrence: datetime) -> list[datetime]:
    """The wall times (in the series' zone) of the series' occurrences at or after
    ``occurrence``, in order."""
    from store.models import Event

    rows = (
        Event.select(Event.occurrence)
        .where(_members(series_id) & (Event.occurrence >= dates.fmt(occurrence)))
        .order_by(Event.occurrence)
    )
    return [dates.parse_stored(row.occurrence) for row in rows]


def open_ended_series() -> list[int]:
    """Ids of the series whose rules run with no end (candidates for ``extend``)."""
    from store.models import Event

    ids = []
    query = Event.select(Event.id, Event.recurrence).where(
        (Event.recurrence != "") & (Event.occurrence == "") & (Event.status != "trash")
    )
    for row in query:
        try:
            if parse(stored_lines(row.recurrence)).open_ended:
                ids.append(row.id)
        except RecurrenceError:
            continue
    return ids


def extend_series(series_id: int, horizon_utc: datetime, limit: int) -> int:
    """Adds the occurrences of an open-ended series up to ``horizon_utc`` that do not exist
    yet (a trashed or deleted one has its EXDATE, so it is not re-created), never more than
    ``limit`` in all. Idempotent; returns how many were added."""
    from store.db import write_transaction
    from store.models import Event

    with write_transaction():
        series = Event.get_or_none(Event.id == series_id)
        if series is None or not is_series(series) or series.status == "trash":
            return 0
        tz = series_zone(series)[0]
        recurrence = parse(stored_lines(series.recurrence))
        start = dates.parse_stored(series.start_date)
        existing = {
            occurrence
            for (occurrence,) in Event.select(Event.occurrence).where(_members(series.id)).tuples()
        }
        try:
            starts = occurrence_starts(recurrence, start, tz, horizon_utc, limit=10**9)
        except TooManyOccurrences:  # pragma: no cover - the limit above is never reached
            return 0
        room = max(0, limit - 1 - len(existing))
        missing = [s for s in starts if dates.fmt(s) not in existing][:room]
        return add_occurrences(series, missing)
