"""Date parsing and timezone arithmetic: pure functions, no I/O.

Accepted inputs (SPEC §4): ``YYYY-MM-DD HH:MM:SS``, ``YYYY-MM-DD HH:MM``, ``YYYY-MM-DD``,
ISO 8601 with ``T`` and an optional offset or ``Z``, a Unix timestamp, and the relative
forms clients send to the reference (PHP ``strtotime``): ``now``, ``today``,
``tomorrow``, ``yesterday``, ``+N unit``, ``-N unit``, ``N unit ago``,
``next|last <weekday|unit>``, each optionally with a time (``9am``, ``4:30pm``,
``16:00``); and ``first|last day of`` with months or years moved (``last day of next
month``). Results are naive wall-clock datetimes in the zone asked for.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from rules import clock
from rules.ids import has_other_digits

FORMAT = "%Y-%m-%d %H:%M:%S"


class DateError(ValueError):
    pass


# --- timezones ---------------------------------------------------------------------------

_UTC_OFFSET = re.compile(r"^UTC([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)
# WordPress's manual offsets in decimal hours (its setting "UTC+5:30" is the value 5.5), as
# The Events Calendar names an event's zone on such a site: UTC+5.5, UTC+5.75, UTC-3.5.
_UTC_DECIMAL = re.compile(r"^UTC([+-])(\d{1,2})\.(\d{1,2})$", re.IGNORECASE)
_ZONES: dict[str, str] | None = None


def _zone_names() -> dict[str, str]:
    """The tz database's names, by their lower-case spelling: a name is taken in any case
    ("europe/paris"), as people type it, and kept as the database writes it."""
    global _ZONES
    if _ZONES is None:
        # Not Debian's ``localtime`` (a link to the host's own /etc/localtime, whatever the
        # server is set to) nor ``Factory`` (no zone at all).
        names = available_timezones() - {"localtime", "Factory", "posixrules"}
        _ZONES = {name.lower(): name for name in names}
    return _ZONES


# The offsets from UTC that places keep besides whole hours (India's +5:30, Nepal's +5:45...).
_ODD_OFFSETS = ("-9:30", "-3:30", "+3:30", "+4:30", "+5:30", "+5:45", "+6:30", "+8:45")
_ODD_OFFSETS += ("+9:30", "+10:30", "+12:45")


@lru_cache(maxsize=1)
def zone_choices() -> tuple[str, ...]:
    """The zones a form offers to choose from: the tz database's names, sorted, then the
    fixed offsets ``resolve_timezone`` takes (UTC-12 to UTC+14), each as it names them."""
    hours = [f"UTC{'+' if hour >= 0 else '-'}{abs(hour)}" for hour in range(-12, 15) if hour]
    odd = [f"UTC{offset}" for offset in _ODD_OFFSETS]
    offsets = sorted(hours + odd, key=lambda label: resolve_timezone(label)[0].utcoffset(None))
    named = sorted(name for name in _zone_names().values() if name != "GMT")  # UTC's alias
    return (*named, *offsets)


@lru_cache(maxsize=1024)
def resolve_timezone(name: str) -> tuple[tzinfo, str]:
    """(tzinfo, canonical name) for an IANA name, ``UTC`` or ``UTC±H[:MM]``. Kept per
    name: ``ZoneInfo`` keeps only a few zones alive, and a page of events from many zones
    would read their files again and again."""
    name = (name or "").strip()
    if name.upper() in ("UTC", "Z", "GMT"):
        return UTC, "UTC"
    match = _UTC_OFFSET.match(name)
    if match:
        sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes >= 60:
            raise DateError(f"invalid UTC offset {name!r}")
        delta = timedelta(hours=hours, minutes=minutes)
        label = f"UTC{sign}{hours}" + (f":{minutes:02d}" if minutes else "")
        return timezone(-delta if sign == "-" else delta, label), label
    match = _UTC_DECIMAL.match(name)
    if match:
        sign, hours, fraction = match.group(1), int(match.group(2)), match.group(3).rstrip("0")
        minutes = int(fraction.ljust(2, "0")) * 60 // 100 if fraction else 0
        if hours > 14 or int(fraction.ljust(2, "0") or 0) * 60 % 100:  # whole minutes only
            raise DateError(f"invalid UTC offset {name!r}")
        delta = timedelta(hours=hours, minutes=minutes)
        label = f"UTC{sign}{hours}" + (f".{fraction}" if fraction else "")  # as the source's
        return timezone(-delta if sign == "-" else delta, label), label
    canonical = _zone_names().get(name.lower(), "")
    if canonical:
        try:
            return ZoneInfo(canonical), canonical
        except (ZoneInfoNotFoundError, ValueError):  # pragma: no cover - listed but broken
            pass
    raise DateError(f"unknown timezone {name!r}")


def local_to_utc(local: datetime, tz: tzinfo) -> datetime:
    """Naive wall clock in ``tz`` to naive UTC. Ambiguous times take the first
    occurrence; times skipped by a DST jump move forward by the gap, as PHP does."""
    aware = local.replace(tzinfo=tz, fold=0)
    try:
        utc = aware.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:
        raise DateError("date out of range") from None
    _four_digit_year(utc)
    # A wall time in a DST gap does not round-trip; zoneinfo maps it with the offset
    # before the jump, which lands after the gap: keep that (it is PHP's behaviour).
    return utc


def utc_to_local(utc: datetime, tz: tzinfo) -> datetime:
    try:
        return _four_digit_year(utc.replace(tzinfo=UTC).astimezone(tz).replace(tzinfo=None))
    except OverflowError:
        raise DateError("date out of range") from None


# The days a stored date may fall on: years of four digits (``_four_digit_year``), to the
# last day Python has. The pages show each of them (app/pages).
FIRST_DAY = date(1000, 1, 1)
LAST_DAY = date.max
# Texts that sort before and after every stored date and time (``YYYY-MM-DD HH:MM:SS``): the
# bounds of a day whose start lies past either end, which the pages reach (the days around
# those they show, or the start in UTC of 1000-01-01 east of Greenwich). Of the stored
# shape, digits where they are, so that any collation sorts them so (PostgreSQL's en_US
# passes over punctuation).
BEFORE_ALL = "1000-01-01 00:00:00"
AFTER_ALL = "9999-12-31 24:00:00"


def nth_day(first: date, n: int) -> str:
    """The ISO date ``n`` days after ``first``, or ``AFTER_ALL`` past ``LAST_DAY``."""
    ordinal = first.toordinal() + n
    return AFTER_ALL if ordinal > LAST_DAY.toordinal() else date.fromordinal(ordinal).isoformat()


def _four_digit_year(value: datetime) -> datetime:
    """Stored dates are ``YYYY-MM-DD HH:MM:SS``: years before 1000 cannot be written so
    (strftime gives ``999-…``), so they are refused on input rather than broken on read."""
    if value.year < 1000:
        raise DateError("date out of range")
    return value


def tz_abbreviation(local: datetime, tz: tzinfo, fold: int = 0) -> str:
    """The zone's abbreviation at a wall time (an ambiguous one: its first, or ``fold`` 1
    its second)."""
    return local.replace(tzinfo=tz, fold=fold).tzname() or ""


def utc_offset(local: datetime, tz: tzinfo) -> timedelta:
    return local.replace(tzinfo=tz, fold=0).utcoffset() or timedelta(0)


def fmt(value: datetime) -> str:
    """``FORMAT``: ``isoformat`` writes it five times faster than ``strftime`` for a naive
    value of a four-digit year (the dates of every listing's window and of every event)."""
    if value.tzinfo is None and value.year >= 1000:
        return value.isoformat(" ", "seconds")
    return value.strftime(FORMAT)


def parse_stored(text: str) -> datetime:
    """A stored ``YYYY-MM-DD HH:MM:SS`` (fromisoformat reads it ten times faster than
    strptime, on every date of every rendered event)."""
    return datetime.fromisoformat(text)


def snap_to_day_start(value: datetime) -> datetime:
    return datetime.combine(value.date(), time(0, 0, 0))


def snap_to_day_end(value: datetime) -> datetime:
    return datetime.combine(value.date(), time(23, 59, 59))


# --- parsing -----------------------------------------------------------------------------

_ABSOLUTE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?$",
    re.IGNORECASE,
)
_TIMESTAMP = re.compile(r"^[+-]?\d+(?:\.\d+)?$")  # numeric: a Unix timestamp, as the reference

_WEEKDAYS = {
    name: index
    for index, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}
_UNITS = {
    "s": "seconds",
    "h": "hours",
    "d": "days",
    "w": "weeks",
    "y": "years",
    "sec": "seconds",
    "secs": "seconds",
    "second": "seconds",
    "seconds": "seconds",
    "min": "minutes",
    "mins": "minutes",
    "minute": "minutes",
    "minutes": "minutes",
    "hour": "hours",
    "hours": "hours",
    "hr": "hours",
    "hrs": "hours",
    "day": "days",
    "days": "days",
    "week": "weeks",
    "weeks": "weeks",
    "fortnight": "fortnights",
    "fortnights": "fortnights",
    "month": "months",
    "months": "months",
    "year": "years",
    "years": "years",
}
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<date>\d{4}-\d{2}-\d{2})
    | (?P<clock>\d{1,2}:\d{2}(?::\d{2})?)\s*(?P<clockampm>am|pm|a\.m\.|p\.m\.)?
    | (?P<hour>\d{1,2})\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)
    | (?P<offset>[+-]?\s*\d+)\s*(?P<unit>[a-z]+)(?P<ago>\s+ago)?
    | (?P<word>[a-z]+)
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def day_after(day: date) -> date:
    """The day after ``day`` (an all-day event's end, as Google Calendar's link writes it),
    or ``day`` itself for the last day of year 9999, which has none."""
    return day + timedelta(days=1) if day < date.max else day


def add_months(value: datetime, months: int) -> datetime:
    """``value`` and ``months`` more, as PHP's strtotime adds them (``+1 month``, ``next
    year``, the default window's ``+24 months``): a day the month lacks runs over into the
    next (January 31 + 1 month is March 3, March 2 in a leap year), so that a relative date
    a client sends means the reference's instant."""
    month_index = value.month - 1 + months
    year = value.year + month_index // 12
    month = month_index % 12 + 1
    if not 1 <= year <= 9999:
        raise DateError("date out of range")
    return value.replace(year=year, month=month, day=1) + timedelta(days=value.day - 1)


def _shift(value: datetime, amount: int, unit: str) -> datetime:
    unit = _UNITS.get(unit.lower())
    if unit is None:
        raise DateError("unknown unit")
    try:
        if unit == "months":
            return add_months(value, amount)
        if unit == "years":
            return add_months(value, 12 * amount)
        if unit == "fortnights":
            return value + timedelta(weeks=2 * amount)
        return value + timedelta(**{unit: amount})
    except OverflowError:
        raise DateError("date out of range") from None


def _clock(hour: int, minute: int, second: int, ampm: str | None) -> time:
    if ampm:
        ampm = ampm.replace(".", "").lower()
        if not 1 <= hour <= 12:
            raise DateError("invalid 12-hour time")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        raise DateError("invalid time")
    return time(hour, minute, second)


# PHP's "first day of" / "last day of" (``last day of next month``), with what may follow
# it here: months or years moved, a time of day. strtotime adds what else follows (days, a
# weekday) to the day and then overrules the day: refused rather than guessed.
_DAY_OF = re.compile(r"^\s*(?P<which>first|last)\s+day\s+of\b(?P<rest>.*)$", re.DOTALL)
_DAY_OF_REST = re.compile(
    r"""^(?:\s*(?:
      (?:next|last|previous|this)\s+(?:month|year)
    | [+-]?\s*\d+\s*(?:months?|years?)(?:\s+ago)?
    | \d{1,2}(?::\d{2}){1,2}\s*(?:am|pm)?
    | \d{1,2}\s*(?:am|pm)
    | noon | midnight | now
    ))*\s*$""",
    re.VERBOSE,
)


def _day_of_month(which: str, rest: str, now: datetime) -> datetime:
    """``first day of`` / ``last day of`` then ``rest``: the first or last day of the month
    ``rest`` moves to (``this month`` when it moves none), at the time of day ``now`` has
    or ``rest`` sets, as strtotime: the months move from the first of the month, so
    ``last day of next month`` on January 31 is February's last day, not March's."""
    if not _DAY_OF_REST.match(rest):
        raise DateError("unrecognised date")
    rest = re.sub(r"\bthis\s+(?:month|year)\b", " ", rest)
    value = now.replace(day=1)
    if rest.strip():
        value = _relative(rest, value)
    if which == "first":
        return value
    return add_months(value, 1) - timedelta(days=1)


def _relative(text: str, now: datetime) -> datetime:
    value = now
    position = 0
    pending: str | None = None  # "next" / "last" waiting for its weekday or unit
    matched_any = False
    text = text.strip().lower()
    day_of = _DAY_OF.match(text)
    if day_of:
        return _day_of_month(day_of["which"], day_of["rest"], now)
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise DateError("unrecognised date")
        position = match.end()
        matched_any = True
        if pending and not match.group("word"):
            raise DateError("unrecognised date")
        if match.group("date"):
            try:
                day = date.fromisoformat(match.group("date"))
            except ValueError:
                raise DateError("invalid date") from None
            value = datetime.combine(day, time())
        elif match.group("clock"):
            parts = [int(p) for p in match.group("clock").split(":")] + [0]
            value = datetime.combine(
                value.date(), _clock(parts[0], parts[1], parts[2], match.group("clockampm"))
            )
        elif match.group("hour"):
            value = datetime.combine(
                value.date(), _clock(int(match.group("hour")), 0, 0, match.group("ampm"))
            )
        elif match.group("offset"):
            amount = int(match.group("offset").replace(" ", ""))
            if match.group("ago"):
                amount = -amount
            value = _shift(value, amount, match.group("unit"))
        else:
            word = match.group("word")
            if pending:
                value, pending = _after_next_or_last(value, pending, word), None
            elif word in ("next", "last", "previous"):
                pending = "last" if word == "previous" else word
            else:
                value = _word(value, word)
    if pending or not matched_any:
        raise DateError("unrecognised date")
    return value


def _after_next_or_last(value: datetime, pending: str, word: str) -> datetime:
    """``next``/``last`` (``pending``) followed by a weekday or a unit."""
    direction = 1 if pending == "next" else -1
    if word in _WEEKDAYS:
        target = _WEEKDAYS[word]
        days = (target - value.weekday()) % 7
        if direction == 1:
            days = days or 7
        else:
            days = -((value.weekday() - target) % 7 or 7)
        return datetime.combine(value.date() + timedelta(days=days), time())
    if word in _UNITS:
        return _shift(value, direction, word)
    raise DateError("unrecognised date")


def _word(value: datetime, word: str) -> datetime:
    """A word of a relative date on its own: a day, a time of day, or a filler."""
    if word in ("now", "at", "on", "of"):
        return value
    if word in ("today", "midnight"):
        return datetime.combine(value.date(), time())
    if word == "noon":
        return datetime.combine(value.date(), time(12))
    if word == "tomorrow":
        return datetime.combine(value.date() + timedelta(days=1), time())
    if word == "yesterday":
        return datetime.combine(value.date() - timedelta(days=1), time())
    if word in _WEEKDAYS:
        days = (_WEEKDAYS[word] - value.weekday()) % 7
        return datetime.combine(value.date() + timedelta(days=days), time())
    raise DateError("unrecognised date")


def parse_datetime(value, tz: tzinfo, now_utc: datetime | None = None) -> datetime:
    """``value`` as a naive wall-clock datetime in ``tz`` (years 1000 to 9999); raises
    ``DateError``."""
    return _four_digit_year(_parse_datetime(value, tz, now_utc))


# The relative dates whose moment moves only when a feed's ``Last-Modified`` floor moves
# (store/posts.py::last_clock_change): "now" is passed by events at their starts and ends,
# the others change at the site's midnight.
FLOOR_TRACKED = frozenset(("now", "today", "tomorrow", "yesterday", "midnight"))
# Two readings of the clock this far apart give any relative date two different moments.
_CLOCK_PROBE = timedelta(days=400, hours=1, minutes=1, seconds=1)


def moves_untracked(value, tz: tzinfo) -> bool:
    """Whether ``value`` is a relative date (read from the clock) other than the forms of
    ``FLOOR_TRACKED``: a window such as ``starts_before=+1 hour`` takes in an event at a
    moment no write, start, end or midnight marks (app/cache.py::leave_undated). Other
    forms that change at midnight alone ("next monday") are counted too: the rule stays
    short, and such a feed is still revalidated by its ETag."""
    if not isinstance(value, str) or value.strip().lower() in FLOOR_TRACKED:
        return False
    now = clock.utcnow().replace(tzinfo=None)
    try:
        return parse_datetime(value, tz, now) != parse_datetime(value, tz, now + _CLOCK_PROBE)
    except DateError:  # readable now, not 400 days on (near year 9999): the clock's
        return True


def _parse_datetime(value, tz: tzinfo, now_utc: datetime | None = None) -> datetime:
    if isinstance(value, bool) or value is None:
        raise DateError("not a date")
    if isinstance(value, int | float):
        return _from_timestamp(value, tz)
    if not isinstance(value, str):
        raise DateError("not a date")
    text = value.strip()
    if not text:
        raise DateError("empty date")
    if has_other_digits(text):  # "٢٠٢٧-٠١-٠١": the regular expressions' \d would read them
        raise DateError("not a date")
    plain = _plain_form(text)
    if plain is not None:
        return plain
    if len(text) == 20 and text[19] in "Zz":  # a UTC moment, as the pages and feeds write one
        plain = _plain_form(text[:19])
        if plain is not None:
            return _from_utc(plain, tz)
    if _TIMESTAMP.match(text):
        return _from_timestamp(float(text), tz)
    text = _as_iso_day(text)
    match = _ABSOLUTE.match(text)
    if match:
        year, month, day, hour, minute, second, offset = match.groups()
        try:
            parsed = datetime(
                int(year),
                int(month),
                int(day),
                int(hour or 0),
                int(minute or 0),
                int(second or 0),
            )
        except ValueError:
            raise DateError("invalid date") from None
        if offset:
            if offset.upper() == "Z":
                delta = timedelta(0)
            else:
                digits = offset.replace(":", "")
                delta = timedelta(hours=int(digits[1:3]), minutes=int(digits[3:5]))
                if digits[0] == "-":
                    delta = -delta
            return _from_utc(parsed, tz, delta)
        return parsed
    now_utc = now_utc or clock.utcnow().replace(tzinfo=None)
    try:
        return _relative(text, utc_to_local(now_utc, tz))
    except (OverflowError, ValueError) as error:
        raise DateError(str(error) or "unrecognised date") from None


_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "(?P<month_name>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
# A weekday before the day ("Monday, December 7, 2026"), read and left aside as strtotime.
_WEEKDAY = r"^(?:(?:" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + r")\.?,?\s+)?"
# The other ways strtotime reads a day (php.net "Date Formats"), each at the start of the
# text and followed by nothing or a time: m/d/Y (American), Y/m/d, d-m-Y and d.m.Y, "December
# 1, 2026", "1 December 2026".
_WRITTEN_DAYS = [
    re.compile(_WEEKDAY + pattern[1:], re.IGNORECASE)
    for pattern in (
        r"^(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4}|\d{2})(?=$|[\sT])",
        r"^(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})(?=$|[\sT])",
        r"^(?P<day>\d{1,2})[-.](?P<month>\d{1,2})[-.](?P<year>\d{4})(?=$|[\sT])",
        r"^(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})(?=$|[\sT])",
        rf"^{_MONTH}\s*(?P<day>\d{{1,2}}){_ORDINAL},?\s*(?P<year>\d{{4}})(?=$|\s)",
        rf"^(?P<day>\d{{1,2}}){_ORDINAL}[\s-]*{_MONTH},?[\s-]*(?P<year>\d{{4}})(?=$|\s)",
    )
]


def _as_iso_day(text: str) -> str:
    """``text`` with a day written in another of the forms strtotime reads
    (``_WRITTEN_DAYS``) rewritten as ``YYYY-MM-DD``, the rest kept; else ``text``."""
    for pattern in _WRITTEN_DAYS:
        match = pattern.match(text)
        if match:
            found = match.groupdict()
            month = _MONTHS[found["month_name"].lower()] if found.get("month_name") else None
            month = month or int(found["month"])
            year = int(found["year"])
            if len(found["year"]) == 2:  # strtotime: 00-69 this century, 70-99 the last
                year += 2000 if year < 70 else 1900
            day = f"{year:04d}-{month:02d}-{int(found['day']):02d}"
            return day + text[match.end() :]
    return text


def _plain_form(text: str) -> datetime | None:
    """``YYYY-MM-DD HH:MM:SS`` (``T`` or a space between), the form clients send, read by
    ``fromisoformat`` in a twentieth of ``_ABSOLUTE``'s time: the value ``_ABSOLUTE`` reads
    from it; None for anything else, which is then read as before (tests/test_dates.py)."""
    if (
        len(text) != 19
        or text[10] not in "T "
        or text[4] != "-"
        or text[7] != "-"
        or text[13] != ":"
        or text[16] != ":"
        or not text.isascii()
    ):
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:  # a digit missing, a day past the month's end: told as before
        return None
    return value if value.tzinfo is None else None


def _from_utc(moment: datetime, tz: tzinfo, offset: timedelta = timedelta(0)) -> datetime:
    """The wall clock in ``tz`` of ``moment`` read at ``offset`` from UTC; a moment past
    the years a datetime holds (0001-01-01T00:00+14:00) is out of range, not a crash."""
    try:
        return utc_to_local(moment - offset, tz)
    except OverflowError:
        raise DateError("date out of range") from None


def _from_timestamp(value: float, tz: tzinfo) -> datetime:
    try:
        utc = datetime.fromtimestamp(float(value), UTC).replace(tzinfo=None, microsecond=0)
    except (OverflowError, OSError, ValueError):
        raise DateError("timestamp out of range") from None
    return utc_to_local(utc, tz)


def publication_dates(body: dict, site_tz: tzinfo, creating: bool) -> dict:
    """``date`` (site time) and ``date_utc`` from whichever the body sends; now for a new
    item that sends neither; nothing for an update that sends neither."""
    if "date" in body:
        local = parse_datetime(body["date"], site_tz)
        return {"date": fmt(local), "date_utc": fmt(local_to_utc(local, site_tz))}
    if "date_utc" in body:
        utc = parse_datetime(body["date_utc"], UTC)
        return {"date_utc": fmt(utc), "date": fmt(utc_to_local(utc, site_tz))}
    if creating:
        now = clock.utcnow().replace(tzinfo=None)
        return {"date_utc": fmt(now), "date": fmt(utc_to_local(now, site_tz))}
    return {}


def default_window(now_local: datetime) -> tuple[datetime, datetime]:
    """The event listing's window when no date filter is given (the reference's):
    from yesterday (snapped to 00:00 by the caller) to two years ahead (snapped to 23:59:59)."""
    return now_local - timedelta(days=1), add_months(now_local, 24)


# The default window's length in days (its 24 months are a day more across a leap day).
WINDOW_DAYS = 730


def series_horizon(now_local: datetime, days: int) -> datetime:
    """Where open-ended series stop being materialised (SPEC §12): ``days`` ahead; a
    horizon as long as the default window or longer reaches at least the window's last
    second, so that a listing without dates shows such a series to its end."""
    horizon = now_local + timedelta(days=days)
    if days >= WINDOW_DAYS:
        horizon = max(horizon, snap_to_day_end(default_window(now_local)[1]))
    return horizon
