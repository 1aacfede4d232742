"""iCalendar (RFC 5545) with the ``icalendar`` library: feeds written from the event
representations, and files read into event bodies for the import.

Feeds are built from the dicts of ``app/render.py`` after masking, as ``json_ld`` is: a
VEVENT can show nothing that the JSON representation beside it does not. The library
escapes text and folds lines, so no value can start a property or a component.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from html import escape
from typing import NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit
from zoneinfo import ZoneInfo

import icalendar
from flask import Response, request
from icalendar.parser import dquote, foldline
from icalendar.timezone import tzp
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header
from werkzeug.urls import iri_to_uri

from app.i18n import N_
from app.ical_bounds import Bounds
from app.ical_bounds import check as check_bounds
from app.ical_zones import FixedZone, fixed_zone, vtimezone
from app.render import address_line
from app.urls import absolute_url, asked_url
from rules import clock, dates
from rules.ids import is_digits
from rules.posts import TERM_NAME_MAX
from rules.recurrence import FeedRecurrence, exdate_line
from rules.text import html_text, is_web_url, plain_text

MIMETYPE = "text/calendar"
PRODID = "-//calendar-events//Events Calendar REST API//EN"
# The status of an event as iCalendar knows it; drafts and pending events are tentative.
STATUS = {
    "publish": "CONFIRMED",
    "private": "CONFIRMED",
    "future": "TENTATIVE",
    "draft": "TENTATIVE",
    "pending": "TENTATIVE",
    "trash": "CANCELLED",
}


# --- HTTP ----------------------------------------------------------------------------------


def accepts_calendar() -> bool:
    """``Accept: text/calendar`` preferred to JSON (``*/*`` keeps JSON)."""
    req = request._get_current_object()  # not the proxy at each attribute
    accept = req.environ.get("HTTP_ACCEPT", "").lower()
    if "text" not in accept and "application" not in accept and "json" not in accept:
        # Only */* can match either: it matches both alike, and JSON is listed first.
        return False
    ranges = req.accept_mimetypes if ";" not in accept else _without_parameters(accept)
    best = ranges.best_match(["application/json", MIMETYPE])
    return best == MIMETYPE and ranges[MIMETYPE] > 0


def _source() -> str:
    """Where the feed lives (``SOURCE``): the address asked, on ``SITE_URL`` as every other
    link (behind a proxy the request's host is the loopback address, which a subscriber
    cannot reach), without a ``password`` (SPEC §2: a password is never part of any
    response; a subscriber keeps its own address), with ``ical=1`` when ``Accept:
    text/calendar`` asked for it: a calendar application refreshing from SOURCE sends no
    such header, and would get JSON."""
    parts = urlsplit(asked_url())
    query = parts.query
    pairs = parse_qsl(query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if k != "password"]
    if not any(k == "ical" for k, _v in kept):
        kept.append(("ical", "1"))
    if kept != pairs:
        query = urlencode(kept)
    url = absolute_url(urlunsplit(("", "", parts.path, query, "")))
    return _uri(iri_to_uri(url))


def _without_parameters(accept: str) -> MIMEAccept:
    """The media ranges of an Accept header with their weights and no other parameter:
    ``text/calendar; charset=utf-8`` asks for text/calendar (RFC 9110 §12.5.1), which
    Werkzeug would match only to a type offered with that parameter."""
    ranges = []
    for item in accept.split(","):
        media, *parameters = item.split(";")
        weight = [p.strip() for p in parameters if p.strip().lower().startswith("q=")]
        ranges.append(";".join([media.strip(), *weight[:1]]))
    return parse_accept_header(",".join(ranges), MIMEAccept)


def wants_calendar(args: dict) -> bool:
    return bool(args.get("ical")) or accepts_calendar()


def calendar_response(items: Iterable[FeedEvent], *, name: str, site_timezone: str) -> Response:
    """``text/calendar`` with ``Last-Modified`` (the latest change among the events, noted
    as they are written; ``app/cache.py`` moves it to a later write or clock change that
    may have taken an event out, dates a feed without events by those alone, and leaves
    out the date of a feed relative to now); the ``ETag`` is added, and the conditions
    answered, by ``app/cache.py``."""
    modified = []

    def noted(items):
        for item in items:
            modified.append(item.event["modified_utc"])
            yield item

    body = calendar_bytes(noted(items), name=name, site_timezone=site_timezone, source=_source())
    response = Response(body, mimetype=MIMETYPE)
    response.headers["Content-Type"] = f"{MIMETYPE}; charset=utf-8"
    response.headers["Content-Disposition"] = 'inline; filename="events.ics"'
    # Revalidated at every use: without it a cache may reuse a feed unasked for a tenth of
    # its age, or as long as it likes when it has no Last-Modified (RFC 9111 §4.2.2), and a
    # subscriber would miss a write. Kept by the cache's entries and said again by its 304s.
    response.headers["Cache-Control"] = "no-cache"
    if modified:
        response.last_modified = _utc(max(modified))
    return response


# --- writing -------------------------------------------------------------------------------


def _utc(stored: str) -> datetime:
    return dates.parse_stored(stored).replace(tzinfo=UTC)


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Line ends that are not CR or LF but that some readers split lines on (NEL, LS, PS, VT, FF).
_OTHER_LINE_ENDS = re.compile(r"[\x85\u2028\u2029]")


def clean(text: str) -> str:
    """Text safe for any value: line breaks as ``\n`` (which the library escapes; it leaves
    a lone CR as it is, and some readers take that for a line end), no other controls."""
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", _OTHER_LINE_ENDS.sub("\n", text))


def _zone(name: str) -> ZoneInfo | FixedZone | None:
    """The zone an event's times are written in: its IANA zone, or its fixed offset
    (``UTC+5:30``) as a zone of that name; None for UTC (the ``Z`` form)."""
    try:
        tz, label = dates.resolve_timezone(name)
    except dates.DateError:
        return None
    if label == "UTC":
        return None
    if isinstance(tz, ZoneInfo):
        return tz
    return fixed_zone(tz.utcoffset(None), label)


@dataclass
class FeedEvent:
    """One VEVENT of a feed: an event's representation (filtered and masked) and, for a
    recurring series (SPEC §12), its recurrence, or for an occurrence edited on its own,
    its series' representation and the wall time (in the series' zone) it replaces."""

    event: dict
    recurrence: FeedRecurrence | None = None
    series: dict | None = None
    recurrence_id: datetime | None = None
    last_day: date | None = None  # a series: the end of its last occurrence, for VTIMEZONE
    # A series whose own first date has another length than the rest: their length, as its
    # exact DURATION (which every reader applies to each date alike) instead of DTEND.
    length: timedelta | None = None


def feed_uid(event: dict) -> str:
    """``{id}@{host}``: stable, the host part of the event's ``global_id``."""
    host = event["global_id"].split("?", 1)[0]
    return f"{event['id']}@{host}"


def _in_zone(value: datetime, event: dict) -> datetime | date:
    """A wall time in ``event``'s timezone as its DTSTART is written: a date for all-day
    events, an aware time in its IANA zone, else UTC (the ``Z`` form)."""
    if event.get("all_day"):
        return value.date()
    zone = _zone(event["timezone"])
    if zone is not None:
        return value.replace(tzinfo=zone)
    try:
        tz = dates.resolve_timezone(event["timezone"])[0]
    except dates.DateError:
        tz = UTC
    return dates.local_to_utc(value, tz).replace(tzinfo=UTC)


def vevent(item: FeedEvent) -> tuple[str, ZoneInfo | None]:
    """One VEVENT, as text, from an event's representation, and the zone its times are
    written in. An edited occurrence takes its series' UID and names the occurrence it
    replaces. Written line by line with the library's own escaping, quoting and folding
    (``icalendar.parser``): its component objects cost four fifths of a feed's time."""
    event = item.event
    out = ["BEGIN:VEVENT\r\n", _line("UID", _escape(feed_uid(item.series or event)))]
    if item.series is not None and item.recurrence_id is not None:
        out.append(_when("RECURRENCE-ID", _in_zone(item.recurrence_id, item.series)))
    venue = event.get("venue")
    venues = [venue] if isinstance(venue, dict) else []  # [] when it has none
    revised = _utc_text(revised_utc(event["modified_utc"], venues, event.get("organizer") or ()))
    out.append(_line("DTSTAMP", revised))
    out.append(_line("CREATED", _utc_text(event["date_utc"])))
    out.append(_line("LAST-MODIFIED", revised))
    out.append(_line("SUMMARY", _escape(clean(event["title"]))))
    description = clean(html_text(event.get("description") or ""))
    if description:
        out.append(_line("DESCRIPTION", _escape(description)))
    out.append(_line("URL", _uri(event["url"])))
    when, zone = _times(item)
    out += when
    venues = event["venue"] if isinstance(event["venue"], list) else [event["venue"]]
    if venues:
        location = clean(address_line(venues[0]))
        if location:
            out.append(_line("LOCATION", _escape(location), _venue_title(venues[0])))
        lat, lng = venues[0].get("geo_lat"), venues[0].get("geo_lng")
        if lat is not None and lng is not None and (lat, lng) != (0, 0):
            out.append(_line("GEO", f"{float(lat)};{float(lng)}"))
    out += _people_and_image(event)
    names = [_escape(clean(term["name"])) for term in event["categories"]]
    if names:
        out.append(_line("CATEGORIES", ",".join(names)))
    out.append(_line("STATUS", STATUS.get(event["status"], "CONFIRMED")))
    if item.recurrence is not None:
        for rule in item.recurrence.rules:
            out.append(_line("RRULE", icalendar.vRecur.from_ical(rule).to_ical().decode()))
        for name, values in (
            ("RDATE", item.recurrence.rdates),
            ("EXDATE", item.recurrence.exdates),
        ):
            if values:
                out.append(_whens(name, [_in_zone(_as_datetime(v), event) for v in values]))
    out.append("END:VEVENT\r\n")
    return "".join(out), zone


def revised_utc(modified_utc: str, venues: Iterable, organizers: Iterable) -> str:
    """When what an event's VEVENT shows last changed (RFC 5545 §3.8.7.3), which importers
    keeping a copy compare: the event's ``modified``, or its venue's or an organizer's when
    later (their names, addresses and emails are its LOCATION, GEO and ORGANIZER), of rows
    or representations alike. The API's own ``modified`` stays the event's, as WordPress
    keeps it. Terms keep no modified time: a category or tag renamed alone does not move
    it (docs/icalendar.md)."""
    linked = [*venues, *organizers]
    stamps = [i.get("modified_utc", "") if isinstance(i, dict) else i.modified_utc for i in linked]
    return max([modified_utc, *stamps])


def _times(item: FeedEvent) -> tuple[list[str], ZoneInfo | None]:
    """DTSTART and DTEND (or DURATION) of a VEVENT, and the zone they are written in: an
    all-day event's dates, a timed one's wall times in its IANA zone, else UTC."""
    event = item.event
    if event.get("all_day"):
        first = dates.parse_stored(event["start_date"]).date()
        last = max(dates.parse_stored(event["end_date"]).date(), first)
        out = [_when("DTSTART", first)]
        if last < date.max:  # DTEND is the day after the last day
            out.append(_when("DTEND", last + timedelta(days=1)))
        elif last > first:  # the last day of year 9999 has none: the days it lasts
            out.append(_line("DURATION", f"P{(last - first).days + 1}D"))
        return out, None  # (a date alone lasts that day, RFC 5545 §3.6.1)
    zone = _zone(event["timezone"])
    if zone is None:  # UTC, or a fixed offset that has no IANA name: the Z form
        start, end = _utc_text(event["utc_start_date"]), _utc_text(event["utc_end_date"])
        parameters = {}
    else:
        start, end = _compact(event["start_date"]), _compact(event["end_date"])
        parameters = {"TZID": zone.key}
    out = [_line("DTSTART", start, parameters)]
    if item.length is not None:  # exact: hours, minutes, seconds
        seconds = int(item.length.total_seconds())
        hours, minutes, seconds = seconds // 3600, seconds // 60 % 60, seconds % 60
        out.append(_line("DURATION", f"PT{hours}H{minutes}M{seconds}S"))
    elif end != start:
        # RFC 5545 §3.8.2.2: DTEND is later than DTSTART. An event that ends when it starts
        # is its DTSTART alone (§3.6.1: it ends then), and the import reads it back so.
        out.append(_line("DTEND", end, parameters))
    return out, zone


def _people_and_image(event: dict) -> list[str]:
    """ORGANIZER, CONTACTs, ATTACH and IMAGE of an event's representation."""
    out = []
    for position, organizer in enumerate(event["organizer"]):
        # The first is the ORGANIZER; the others are CONTACTs (RFC 5545 §3.8.4.2: a name,
        # its address in ALTREP), as Google and Outlook show them.
        email = organizer.get("email", "")
        uri = re.sub(r"[\s\x00-\x1f\x7f\"]", "", f"mailto:{email}" if email else organizer["url"])
        name = clean(organizer.get("organizer", ""))
        if position == 0:
            out.append(_line("ORGANIZER", uri, {"CN": name}))
        elif name:
            out.append(_line("CONTACT", _escape(name), {"ALTREP": uri}))
    image = event.get("image")
    if isinstance(image, dict) and is_web_url(image.get("url", "")):
        # RFC 7986 IMAGE (Apple, Thunderbird) and ATTACH (Outlook, Google) with its type.
        kind = _IMAGE_TYPES.get(image.get("extension", "").lower())
        parameters = {"FMTTYPE": kind} if kind else {}
        url = _uri(image["url"])
        out.append(_line("ATTACH", url, parameters))
        out.append(_line("IMAGE", url, {"DISPLAY": "BADGE", **parameters, "VALUE": "URI"}))
    return out


def _line(name: str, value: str, parameters: dict | None = None) -> str:
    """One content line, parameters quoted and the line folded as the library does."""
    head = name
    if parameters:
        head += "".join(f";{key}={dquote(_parameter(text))}" for key, text in parameters.items())
    line = f"{head}:{value}"
    if len(line) < 75 and line.isascii():  # most lines: nothing to fold
        return line + "\r\n"
    return foldline(line) + "\r\n"


def _venue_title(venue: dict) -> dict | None:
    """``X-TITLE`` (Apple's name of a structured location's place) when the venue's name
    holds a comma or a line break: a reader that takes the name as what comes before the
    first comma (ours too, ``_venue``) would cut it."""
    name = clean(venue.get("venue") or "")
    return {"X-TITLE": name} if re.search(r"[,\n]", name) else None


def _escape(text: str) -> str:
    """RFC 5545 TEXT escaping (the library's ``escape_char`` first reads a ``\\N`` of the
    text as a line break: ``C:\\New folder`` would lose its backslash)."""
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
    )


def _parameter(text: str) -> str:
    """A parameter value in RFC 6868's escaping (``^^``, ``^n``, ``^'``): a name keeps its
    caret, line breaks and double quotes."""
    return text.replace("^", "^^").replace("\r\n", "^n").replace("\n", "^n").replace('"', "^'")


_URI_UNSAFE = re.compile(r"[\x00-\x20\x7f-\x9f\u2028\u2029\"]")


def _uri(value: str) -> str:
    """A URI as a property value: no control character, space or line separator."""
    return _URI_UNSAFE.sub("", value)


def _utc_text(stored: str) -> str:
    return _compact(stored) + "Z"


def _compact(stored: str) -> str:
    """A stored ``YYYY-MM-DD HH:MM:SS`` as iCalendar's ``YYYYMMDDTHHMMSS``."""
    return f"{stored[0:4]}{stored[5:7]}{stored[8:10]}T{stored[11:13]}{stored[14:16]}{stored[17:19]}"


def _when(name: str, value: date | datetime) -> str:
    """DTSTART, DTEND or RECURRENCE-ID: a date, a time in an IANA zone, or UTC."""
    return _whens(name, [value])


def _whens(name: str, values: list) -> str:
    """A property of one or more dates or times of one kind (the event's)."""
    first = values[0]
    if not isinstance(first, datetime):
        return _line(name, ",".join(f"{v:%Y%m%d}" for v in values), {"VALUE": "DATE"})
    key = getattr(first.tzinfo, "key", None)
    if key and key not in ("UTC", "Etc/UTC"):
        return _line(name, ",".join(f"{v:%Y%m%dT%H%M%S}" for v in values), {"TZID": key})
    return _line(name, ",".join(f"{v.astimezone(UTC):%Y%m%dT%H%M%SZ}" for v in values))


_IMAGE_TYPES = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
}


def _as_datetime(value: date | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime.combine(value, time())


def calendar_bytes(
    items: Iterable[FeedEvent], *, name: str, site_timezone: str, source: str = ""
) -> bytes:
    """A VCALENDAR of ``items`` (built from representation dicts, already filtered and
    masked), with one VTIMEZONE per zone used, from the events' first year on, open-ended
    (app/ical_zones.py)."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", clean(name))
    calendar.add("x-wr-timezone", site_timezone)
    # How often subscribers should look again (RFC 7986; Outlook reads its X- twin), and,
    # for a subscription, where the feed lives.
    calendar.add("refresh-interval", "PT1H", parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", "PT1H")
    if source:
        calendar.add("source", source, parameters={"VALUE": "URI"})
    # Each VEVENT is written as soon as it is built, so a 1,000-event feed never holds
    # 1,000 component objects at once (a worker keeps the memory it peaked at).
    written, spans = [], {}
    for item in items:
        text, zone = vevent(item)
        written.append(text.encode())
        if zone is not None:
            event = item.event
            first = dates.parse_stored(event["start_date"]).date()
            last = max(dates.parse_stored(event["end_date"]).date(), item.last_day or first)
            low, high = spans.get(zone.key, (first, last))
            spans[zone.key] = (min(low, first), max(high, last))
    zones = [vtimezone(key, *spans[key]) for key in sorted(spans)]
    head = calendar.to_ical()
    end = b"END:VCALENDAR\r\n"
    if not head.endswith(end):  # pragma: no cover - the library's own framing
        raise ValueError("unexpected VCALENDAR framing")
    return head[: -len(end)] + b"".join(zones) + b"".join(written) + end


# --- reading -------------------------------------------------------------------------------


class NotICalendar(ValueError):
    """The data is not an iCalendar object (nothing may be imported from it)."""


class NotUTF8(NotICalendar):
    """The data is not UTF-8 text, which RFC 5545 asks (a Windows-1252 or UTF-16 export)."""


@dataclass
class Incoming:
    """One VEVENT of an imported file: an event body for the write path, or the reason
    (a message to translate) why it cannot become an event."""

    uid: str
    sequence: int = 0
    modified: str = ""  # LAST-MODIFIED (or DTSTAMP without METHOD) in UTC, "" when absent
    body: dict = field(default_factory=dict)
    reason: str = ""
    # A VEVENT that changes one occurrence of the series with the same UID: the value of
    # its RECURRENCE-ID (an aware or floating time, or a date), and whether it cancels it.
    changes_occurrence: bool = False
    recurrence_id: date | None = None
    # That RECURRENCE-ID as text (``recurrence_key``): with the UID, what names an edit
    # imported as an event of its own when its series is not in the calendar.
    recurrence_key: str = ""
    cancelled: bool = False
    # RECURRENCE-ID;RANGE=THISANDFUTURE: the change applies to the later occurrences too.
    this_and_future: bool = False
    # An RDATE;VALUE=PERIOD of its own duration: an occurrence edited on its own (read with
    # the series, imported after it).
    periods: list = field(default_factory=list)


# The name a rule line the parser would misread takes (``_rule_as_read``).
UNREADABLE_RULE = "X-CALENDAR-UNREADABLE-RULE"
REASON_NO_START = N_("The VEVENT has no valid start (DTSTART).")
REASON_CANCELLED = N_("The VEVENT is cancelled.")
REASON_BAD_DATES = N_("The dates of the VEVENT cannot be read.")
REASON_BAD_RULE = N_("The recurrence rule (RRULE) of the VEVENT cannot be read.")
REASON_BAD_EXDATE = N_("The excluded dates (EXDATE) of the VEVENT cannot be read.")
REASON_BAD_RDATE = N_("The added dates (RDATE) of the VEVENT cannot be read.")
REASON_BAD_RECURRENCE_ID = N_("The occurrence the VEVENT changes (RECURRENCE-ID) cannot be read.")
# The reason a line the parser could not read gives its VEVENT: a series is never read as
# one event, nor an excluded date shown, because one of its lines was dropped.
_UNREADABLE = {
    "RRULE": REASON_BAD_RULE,
    "EXRULE": REASON_BAD_RULE,
    "EXDATE": REASON_BAD_EXDATE,
    "RDATE": REASON_BAD_RDATE,
}


def parse_calendar(data: bytes | str, bounds: Bounds = Bounds()) -> list[icalendar.Calendar]:
    """The VCALENDARs of ``data``; raises ``NotICalendar`` for anything else, and
    ``OverBound`` (before parsing) for a file that would cost more than ``bounds`` allow."""
    if isinstance(data, bytes):
        # Unfolded before it is decoded: a fold may cut a character's bytes (RFC 5545 3.1).
        try:
            data = _FOLD_BYTES.sub(b"", data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise NotUTF8("not UTF-8") from None
    if "BEGIN:VCALENDAR" not in data[:4096].upper():
        raise NotICalendar("no VCALENDAR")
    check_bounds(data, bounds)
    try:
        calendars = icalendar.Calendar.from_ical(_as_the_parser_reads(data), multiple=True)
    except Exception as error:  # the parser raises several kinds for malformed input
        raise NotICalendar(str(error)) from None
    calendars = [c for c in calendars if c.name == "VCALENDAR"]
    if not calendars:
        raise NotICalendar("no VCALENDAR")
    return calendars


_RULE_LINE = re.compile(r"^((?:RRULE|EXRULE)[;:][^\r\n]*)", re.IGNORECASE | re.MULTILINE)
_FOLD = re.compile(r"\r?\n[ \t]")
_FOLD_BYTES = re.compile(rb"\r?\n[ \t]")


def _as_the_parser_reads(text: str) -> str:
    """The file with what the parser misreads mended: rules with spaces removed
    (``BYDAY=MO, TU, WE``, as an Exchange export writes them), which the parser would refuse
    and drop (a weekly series would become one event); a comma escaped inside a category's
    name (``CATEGORIES:Rock\\, Pop``, as the feeds write "Rock, Pop") kept as
    ``ESCAPED_COMMA``, where the parser would split the name; an escaped backslash kept as
    ``ESCAPED_BACKSLASH``, where the parser would read ``\\\\new`` as a line break and "ew"
    (``restored`` gives both back)."""
    # The stand-ins are Unicode noncharacters, "not for interchange": a file's own are
    # dropped, so that every stand-in ``restored`` reads back is one of ours.
    text = _NONCHARACTERS.sub("", text)
    upper = text.upper()
    if "RULE" not in upper and "CATEGORIES" not in upper and "\\\\" not in text:
        return text
    text = _FOLD.sub("", text).replace("\\\\", ESCAPED_BACKSLASH)
    text = _RULE_LINE.sub(lambda m: _rule_as_read(m.group(1)), text)
    return _CATEGORIES_LINE.sub(lambda m: _ESCAPED_COMMA.sub(_kept_comma, m.group(1)), text)


def _rule_as_read(line: str) -> str:
    """A rule line without its spaces; one with a part that is no ``NAME=VALUE`` pair
    (vCalendar 1.0's ``W1 MO #10``, ``FREQ:WEEKLY``), which the parser would read as an
    empty rule, and so as none (a series become one event), renamed ``UNREADABLE_RULE``:
    its VEVENT is rejected with a reason. An empty ``RRULE:`` says nothing and stays."""
    line = re.sub(r"[ \t]+", "", line)
    value = line.partition(":")[2]
    if any(part and "=" not in part for part in value.split(";")):
        return f"{UNREADABLE_RULE}:{value}"
    return line


# An escaped comma (backslash, comma) after an even run of backslashes: two backslashes and
# a comma are an escaped backslash, then the comma between two names.
_ESCAPED_COMMA = re.compile(r"(?<!\\)((?:\\\\)*)\\,")


def _kept_comma(match) -> str:
    return match.group(1) + ESCAPED_COMMA


_CATEGORIES_LINE = re.compile(r"^(CATEGORIES[;:][^\r\n]*)", re.IGNORECASE | re.MULTILINE)
# Stand for an escaped comma in a category's name and an escaped backslash while the
# parser reads the file: noncharacters (a private-use one may be a file's own, an icon).
ESCAPED_COMMA = "\ufdd0"
ESCAPED_BACKSLASH = "\ufdd1"
_NONCHARACTERS = re.compile("[\ufdd0-\ufdef]")


def restored(text: str) -> str:
    """A value read by the parser with the backslashes ``_as_the_parser_reads`` kept."""
    return text.replace(ESCAPED_BACKSLASH, "\\")


# The parser keeps the zones a file defines (VTIMEZONE with a TZID it does not know) in one
# cache for the whole process, and a zone once kept wins over a later file's zone of the same
# name: each file is read alone, with that cache emptied after it.
_READING = threading.Lock()


def read_events(data: bytes | str, site_timezone: str, bounds: Bounds = Bounds()) -> list[Incoming]:
    """Every VEVENT of the file, in order, read as Google Calendar, Outlook, Apple
    Calendar and this service write them. Raises ``NotICalendar`` or ``OverBound``
    before anything else."""
    with _READING:
        try:
            items = []
            for calendar in parse_calendar(data, bounds):
                zones = _file_zones(calendar, site_timezone)
                # RFC 5545 3.8.7.2: without METHOD, DTSTAMP is the LAST-MODIFIED.
                stamped = "method" not in calendar
                cancels = str(calendar.get("method", "")).strip().upper() == "CANCEL"
                for component in calendar.walk("VEVENT"):
                    item = _incoming(component, zones, stamped, cancels)
                    items += [item, *item.periods]
            return items
        finally:
            tzp.use(tzp.name)  # forgets the file's own zones


class FileZones(NamedTuple):
    """The zones a file's times without a zone of their own are read in: ``floating``
    (times and days with no zone, and a TZID that names none), ``utc`` (times in Z form)."""

    floating: str
    utc: str


def _file_zones(calendar, site_timezone: str) -> FileZones:
    """Google writes UTC times and names their zone in X-WR-TIMEZONE: a known zone there is
    both. Without it, floating times are the site's, and a UTC time stays UTC (a zone the
    file gives is never replaced by the site's)."""
    name = str(calendar.get("x-wr-timezone", "")).strip()
    try:
        zone = dates.resolve_timezone(name)[1] if name else None
    except dates.DateError:
        zone = None
    return FileZones(zone or site_timezone, zone or "UTC")


def _text(component, name: str) -> str:
    value = component.get(name)
    if isinstance(value, list):
        value = value[0] if value else ""
    return restored(str(value or "")).strip()


def _uid(component) -> str:
    """The UID; a file without one (hand-made) gets a stable one from the content."""
    uid = plain_text(_text(component, "uid")).strip()
    if uid:
        return uid[:255]
    digest = hashlib.sha256(component.to_ical()).hexdigest()[:32]
    return f"{digest}@import"


def _all(component, name: str) -> list:
    value = component.get(name)
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def series_wall_time(value: date, tz: tzinfo, start_time: time) -> datetime:
    """An RDATE, EXDATE or RECURRENCE-ID value as a wall-clock time in the series' zone
    ``tz``: aware times converted, floating ones as they are (the calendar's zone, as the
    series' DTSTART), dates at the series' start time."""
    if not isinstance(value, datetime):
        return datetime.combine(value, start_time)
    if value.tzinfo is None:
        return value
    return value.astimezone(tz).replace(tzinfo=None)


def series_day(value: date, tz: tzinfo) -> date:
    """The day an RDATE, EXDATE or RECURRENCE-ID value names in an all-day series: a date
    itself; a time in a zone the day it is in that zone (Outlook names an all-day series'
    days by midnight in its own zone: converted to the series' zone, an hour east of it,
    it would name the day before); a UTC time, the day in the series' zone."""
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is UTC or getattr(value.tzinfo, "key", None) in ("UTC", "Etc/UTC"):
        return value.astimezone(tz).date()
    return value.date()


# Values per RDATE/EXDATE line written for the write path (which takes 2,000 characters).
_VALUES_PER_LINE = 100


def _recurrence_lines(component, body: dict) -> list[str]:
    """RRULE/EXRULE/RDATE/EXDATE of a VEVENT as the ``recurrence`` lines of event writes
    (SPEC §12): rules as the file has them (the write path refuses EXRULE and sub-daily
    frequencies), dates as wall-clock times in the series' zone, whatever zone (Windows
    names, VTIMEZONEs of the file) they were written in. An EXDATE of a whole day beside a
    timed DTSTART stays a date: it excludes that day."""
    tz, label = dates.resolve_timezone(body["timezone"])
    all_day = body["all_day"]
    start_time = dates.parse_stored(body["start_date"]).time()
    lines = []
    for name in ("rrule", "exrule"):
        for rule in _all(component, name):
            text = _without_null_count(rule.to_ical().decode())
            if text:  # an empty ``RRULE:`` says nothing (calendarlabs exports one)
                lines.append(f"{name.upper()}:{text}")
    for name in ("rdate", "exdate"):
        grouped: dict[str, list[str]] = {}
        for prop in _all(component, name):
            for value in getattr(prop, "dts", []):
                moment = value.dt[0] if isinstance(value.dt, tuple) else value.dt  # PERIOD
                if isinstance(value.dt, tuple) and not all_day:
                    moment = _period_start(moment, tz)
                if not isinstance(moment, datetime) and not all_day:
                    head, text = f"{name.upper()};VALUE=DATE", f"{moment:%Y%m%d}"
                else:
                    if all_day:
                        local = datetime.combine(series_day(moment, tz), time())
                    else:
                        local = series_wall_time(moment, tz, start_time)
                    line = exdate_line(local, tz, label, all_day, name.upper())
                    head, _sep, text = line.rpartition(":")
                values = grouped.setdefault(head, [])
                if text not in values:
                    values.append(text)
        for head, values in grouped.items():
            for offset in range(0, len(values), _VALUES_PER_LINE):
                lines.append(f"{head}:{','.join(values[offset : offset + _VALUES_PER_LINE])}")
    return lines


def _without_null_count(rule: str) -> str:
    """A rule without a COUNT that counts nothing beside its UNTIL (Confluence writes
    ``COUNT=-1`` so for no count; calendar applications read the rule without it). Without
    an UNTIL such a count stays, and the rule is refused: read without it, it would run
    to the horizon."""
    if not re.search(r"(?:^|;)\s*UNTIL\s*=", rule, re.IGNORECASE):
        return rule

    def kept(part: str) -> bool:
        key, _sep, value = part.partition("=")
        value = value.strip()
        return key.strip().upper() != "COUNT" or (is_digits(value) and int(value) > 0)

    parts = rule.split(";")
    return ";".join(part for part in parts if kept(part))


def _zone_label(value: datetime) -> str | None:
    """The IANA name of an aware datetime's zone: its own (Windows names are mapped by the
    library); for a zone the file defines, the IANA zone its name holds
    (``/mozilla.org/20070129_1/America/New_York``), else one with the same offsets for
    years (an Outlook ``(UTC-05:00) Eastern Time (US & Canada)``, or any name); else, for
    rules no zone has, its UTC offset at that time."""
    key = getattr(value.tzinfo, "key", None)
    if key:
        try:
            return dates.resolve_timezone(key)[1]
        except dates.DateError:
            pass
    tzid = getattr(value.tzinfo, "_tzid", None)
    if tzid:
        named = named_zone(tzid) or matching_zone(value.tzinfo, tzid, _this_year())
        if named:
            return named
    offset = value.utcoffset()
    if offset is None:
        return None
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "UTC"
    sign, minutes = ("+" if minutes > 0 else "-"), abs(minutes)
    return f"UTC{sign}{minutes // 60}" + (f":{minutes % 60:02d}" if minutes % 60 else "")


def _this_year() -> int:
    """The years a file's zone is matched over start here (once per zone, whatever the
    years of its events: rules are matched as they are now)."""
    return clock.utcnow().year - 1


def named_zone(tzid: str) -> str | None:
    """The IANA zone a TZID names, also behind a vendor's prefix
    (``/mozilla.org/20070129_1/Europe/Paris``, ``/freeassociation.sourceforge.net/Tzfile/
    Europe/Paris``), else None."""
    parts = [part for part in tzid.strip().strip("/").split("/") if part]
    for first in range(len(parts)):
        tail = "/".join(parts[first:])
        if "/" not in tail and first and tail.upper() != "UTC":
            break  # a bare last segment ("Paris") names no zone
        try:
            return dates.resolve_timezone(tail)[1]
        except dates.DateError:
            continue
    return None


_MATCHED: dict[tuple, str | None] = {}


def matching_zone(zone: tzinfo, tzid: str, year: int) -> str | None:
    """For a zone with daylight rules, the IANA zone whose offsets are the file's zone's at
    every week of ``year`` and the two years after (its rules kept, not one fixed offset;
    a zone of one offset keeps it, named ``UTC+3:30``); among several, the one
    whose city the TZID names, else one Windows maps its zones to (the shortest name:
    America/New_York before America/Indiana/Indianapolis)."""
    key = (tzid, year, tuple(_offsets(zone, year, 8)))
    if key in _MATCHED:
        return _MATCHED[key]
    if len(_MATCHED) >= 1024:  # files name zones freely: the memory they may take is bounded
        _MATCHED.clear()
    weeks = _instants(year, 3 * 52)
    wanted = [zone.utcoffset(moment) for moment in weeks]
    if len(set(wanted)) == 1:  # one offset: said exactly as UTC+3:30, no city guessed
        _MATCHED[key] = None
        return None
    probe = [weeks[0], weeks[26]]  # January and July first: most zones differ there
    words = set(re.findall(r"[a-z]+", tzid.lower()))
    found = []
    for name in _candidate_zones():
        candidate = ZoneInfo(name)
        if [candidate.utcoffset(m) for m in probe] != [wanted[0], wanted[26]]:
            continue
        if [candidate.utcoffset(m) for m in weeks] == wanted:
            city = set(re.findall(r"[a-z]+", name.split("/")[-1].lower()))
            found.append((not city <= words, name not in _PRIMARY, name.count("/"), name))
    _MATCHED[key] = min(found)[-1] if found else None
    return _MATCHED[key]


def _instants(year: int, count: int) -> list[datetime]:
    first = datetime(year, 1, 1, 12)
    return [first + timedelta(days=7 * n) for n in range(count)]


def _offsets(zone: tzinfo, year: int, count: int) -> list:
    return [zone.utcoffset(moment) for moment in _instants(year, count)]


_CANDIDATES: list[str] = []
_PRIMARY: set[str] = set()


def _candidate_zones() -> list[str]:
    """IANA zones of a region (``Europe/Paris``; not ``Etc/GMT+5`` nor the old ``US/…``)."""
    if not _CANDIDATES:
        from zoneinfo import available_timezones

        from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

        regions = ("Africa/", "America/", "Antarctica/", "Asia/", "Atlantic/", "Australia/")
        regions += ("Europe/", "Indian/", "Pacific/")
        _CANDIDATES.extend(sorted(z for z in available_timezones() if z.startswith(regions)))
        _PRIMARY.update(WINDOWS_TO_OLSON.values())
    return _CANDIDATES


def _wall(value: datetime, tz: tzinfo) -> str:
    return dates.fmt(value.astimezone(tz).replace(tzinfo=None))


def _decoded(component, name: str):
    if name not in component:
        return None
    value = component.decoded(name)
    return value[0] if isinstance(value, list) else value


def _dates(component, zones: FileZones) -> dict:
    """start_date, end_date, timezone and all_day as event writes take them."""
    start = _decoded(component, "dtstart")
    if not isinstance(start, date):
        raise ValueError("no start")
    end = _decoded(component, "dtend")
    start, end = _outlook_all_day(component, start, end)
    duration = _decoded(component, "duration") if end is None and "duration" in component else None
    if not isinstance(start, datetime):  # all day: DTEND is the day after the last day
        last = end if isinstance(end, date) else None
        if isinstance(last, datetime):  # a time for the end: the day it falls in counts
            last = last.date() + timedelta(days=1) if last.time() != time() else last.date()
        last = last - timedelta(days=1) if last and last > start else start
        if isinstance(duration, timedelta) and duration > timedelta(days=1):
            last = start + timedelta(days=duration.days - 1)  # up to 9999-12-31, no day after
        return {
            "all_day": True,
            "timezone": zones.floating,
            "start_date": f"{start.isoformat()} 00:00:00",
            "end_date": f"{last.isoformat()} 23:59:59",
        }
    if end is None and duration is not None:
        end = start + duration
    # A day as the end of a timed start: its midnight (never before the start).
    if isinstance(end, date) and not isinstance(end, datetime):
        end = max(datetime.combine(end, time()).replace(tzinfo=start.tzinfo), start)
    if not isinstance(end, datetime):
        end = start
    named = named_zone(str(component["dtstart"].params.get("TZID", "")))
    if start.tzinfo is None and named:  # a TZID the parser did not know, with no VTIMEZONE
        tz = dates.resolve_timezone(named)[0]
        start = start.replace(tzinfo=tz)
        end = end.replace(tzinfo=tz) if end.tzinfo is None else end
    if start.tzinfo is None:  # floating: the calendar's zone
        label = zones.floating
        if end.tzinfo is not None:
            end = end.astimezone(dates.resolve_timezone(label)[0]).replace(tzinfo=None)
        return {
            "all_day": False,
            "timezone": label,
            "start_date": dates.fmt(start),
            "end_date": dates.fmt(end),
        }
    # A TZID that names UTC (``TZID=UTC``, ``Etc/UTC``, ``GMT``) is that zone, as any other.
    label = _zone_label(start) if "TZID" in component["dtstart"].params else zones.utc
    tz = dates.resolve_timezone(label)[0]
    if end.tzinfo is None:
        end = end.replace(tzinfo=start.tzinfo)
    return {
        "all_day": False,
        "timezone": label,
        "start_date": _wall(start, tz),
        "end_date": _wall(end, tz),
    }


def _outlook_all_day(component, start: date, end: date | None) -> tuple:
    """Outlook and Exchange write an all-day event as midnight to midnight in a zone, with
    X-MICROSOFT-CDO-ALLDAYEVENT:TRUE: its days, as a VALUE=DATE event would give them."""
    flag = _text(component, "x-microsoft-cdo-alldayevent").upper() == "TRUE"
    if not (flag and isinstance(start, datetime) and start.time() == time()):
        return start, end
    if isinstance(end, datetime):
        if end.time() != time():
            return start, end
        end = end.date()
    return start.date(), end


def _utc_stamp(component, name: str) -> str:
    value = _decoded(component, name)
    if not isinstance(value, datetime):
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return dates.fmt(value.astimezone(UTC).replace(tzinfo=None))


def _description_html(component) -> str:
    """The description as the HTML that event descriptions hold (sanitised by the write
    path, as every description is): Outlook's X-ALT-DESC;FMTTYPE=text/html when there is
    one; a DESCRIPTION that carries tags as HTML (Google Calendar writes what its editor
    made so: ``Join us!<br><ul><li>…``), where escaping would show visitors the tags;
    plain text with its line breaks kept."""
    for value in _all(component, "x-alt-desc"):
        if str(getattr(value, "params", {}).get("FMTTYPE", "")).lower() == "text/html":
            html = restored(str(value))
            body = _HTML_BODY.search(html)
            html = (body.group(1) if body else html).strip()
            if html_text(html):
                return html
    text = _text(component, "description")
    if _HTML_TAG.search(text):
        return text
    return "<br>\n".join(escape(line, quote=False) for line in text.split("\n"))


# The tags a calendar's editor writes in a description (Google's: breaks, paragraphs,
# lists, links, bold, italic, underline); a lone "<" or "a <b> c" in plain text without
# a closing tag is not enough to make it HTML.
_HTML_TAG = re.compile(
    r"<br\s*/?>|</(?:p|div|span|ul|ol|li|a|b|i|u|strong|em|h[1-6])\s*>", re.IGNORECASE
)
# Outlook's X-ALT-DESC is a whole document: its body is the description.
_HTML_BODY = re.compile(r"<body\b[^>]*>(.*?)(?:</body\s*>|$)", re.IGNORECASE | re.DOTALL)


def _venue(component) -> dict | None:
    """LOCATION as a venue: the name before the first comma or line break (Apple Calendar
    breaks lines), or the one its ``X-TITLE`` names, the address after it."""
    location = _text(component, "location")
    if not location:
        return None
    title = _location_title(component, location)
    if title:
        name, rest = title, [location[len(title) :].lstrip(", \n")]
    else:
        name, *rest = re.split(r"\s*[,\n]\s*", location, maxsplit=1)
    address = ", ".join(line.strip() for line in "".join(rest).splitlines() if line.strip())
    venue = {"venue": name.strip()[:1000]}
    if address:
        venue["address"] = address[:1000]
    geo = component.get("geo")
    if geo is not None:
        try:
            venue["geo_lat"], venue["geo_lng"] = float(geo.latitude), float(geo.longitude)
        except (AttributeError, TypeError, ValueError):
            pass
    return venue if venue["venue"] else None


def _location_title(component, location: str) -> str:
    """The venue's name a LOCATION's ``X-TITLE`` gives (``_venue_title``), when the line
    starts with it; else empty."""
    value = component.get("location")
    params = getattr(value[0] if isinstance(value, list) and value else value, "params", {})
    title = restored(str(params.get("X-TITLE", ""))).strip()
    return title if title and location.startswith(title) else ""


def _organizer(component) -> dict | None:
    value = component.get("organizer")
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    address = restored(str(value)).strip()
    email = address[7:].strip() if address.lower().startswith("mailto:") else ""
    name = restored(str(getattr(value, "params", {}).get("CN", ""))).strip() or email
    if not name:
        return None
    organizer = {"organizer": name[:1000]}
    if "@" in email and not re.search(r"[\s<>\"]", email):
        organizer["email"] = email
    return organizer


def _categories(component) -> list[str]:
    values = component.get("categories")
    if values is None:
        return []
    names = []
    for value in values if isinstance(values, list) else [values]:
        names.extend(
            # A name's trailing backslash is dropped, as WordPress's wp_unslash drops it.
            restored(str(name).replace(ESCAPED_COMMA, ",")).strip().rstrip("\\").strip()
            for name in getattr(value, "cats", [value])
        )
    # A file's names are kept as far as a term's name goes (the API refuses a longer one).
    return [name[:TERM_NAME_MAX] for name in names if name]


def _incoming(component, zones: FileZones, stamped: bool, cancels: bool) -> Incoming:
    """The VEVENT ``component`` as an event body, or the reason it cannot be one;
    ``cancels``: its calendar's METHOD is CANCEL (Outlook's cancellation)."""
    uid = _uid(component)
    try:
        sequence = int(_decoded(component, "sequence") or 0)
    except (TypeError, ValueError):
        sequence = 0
    # A SEQUENCE is a small counter; beyond a 32-bit integer it is noise, not a version.
    sequence = min(max(sequence, 0), 2**31 - 1)
    item = Incoming(uid=uid, sequence=sequence, modified=_safe_stamp(component, stamped))
    cancelled = cancels or _text(component, "status").upper() == "CANCELLED"
    if "recurrence-id" in component or _dropped(component, "RECURRENCE-ID"):
        if not _read_recurrence_id(component, item) or cancelled:
            item.cancelled = cancelled and not item.reason  # excluded from its series
            return item
    elif cancelled:
        item.reason = REASON_CANCELLED
        return item
    try:
        if "dtstart" not in component:
            item.reason = REASON_NO_START
            return item
        body = _dates(component, zones)
    except (ValueError, TypeError, KeyError, OverflowError, dates.DateError):
        item.reason = REASON_NO_START if "dtstart" not in component else REASON_BAD_DATES
        return item
    body["title"] = _text(component, "summary") or "(no title)"
    description = _description_html(component)
    if description:
        body["description"] = description
    url = _text(component, "url")
    if is_web_url(url):
        body["website"] = url
    venue = _venue(component)
    if venue:
        body["venue"] = venue
    organizer = _organizer(component)
    if organizer:
        body["organizer"] = [organizer]
    categories = _categories(component)
    if categories:
        body["categories"] = categories
    unreadable = _unreadable_line(component)
    if unreadable:
        item.reason = unreadable
        return item
    if item.recurrence_id is None and any(
        name in component for name in ("rrule", "exrule", "rdate", "exdate")
    ):
        try:
            body["recurrence"] = _recurrence_lines(component, body)
            item.periods = _own_periods(component, body, item)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError, dates.DateError):
            item.reason = REASON_BAD_DATES
            return item
    item.body = body
    return item


def _dropped(component, name: str) -> bool:
    """Whether the parser dropped a ``name`` line of ``component`` it could not read."""
    return any(str(dropped or "").upper() == name for dropped, _error in component.errors)


def _unreadable_line(component) -> str:
    """The reason for the first recurrence line of ``component`` that cannot be read (the
    parser drops it, or ``_rule_as_read`` renamed it), as the API refuses such a line;
    "" when every one can."""
    if UNREADABLE_RULE.lower() in component:
        return REASON_BAD_RULE
    for name, reason in _UNREADABLE.items():
        if _dropped(component, name):
            return reason
    return ""


def _read_recurrence_id(component, item: Incoming) -> bool:
    """The occurrence a VEVENT changes (its RECURRENCE-ID and RANGE) into ``item``; False,
    with the reason, when it cannot be read."""
    item.changes_occurrence = True
    try:
        item.recurrence_id = _decoded(component, "recurrence-id")
    except (ValueError, TypeError, KeyError, OverflowError):
        item.recurrence_id = None
    if not isinstance(item.recurrence_id, date):
        item.recurrence_id = None
        item.reason = REASON_BAD_RECURRENCE_ID  # never taken for another version of its series
        return False
    item.recurrence_key = recurrence_key(item.recurrence_id)
    prop = component["recurrence-id"]
    prop = prop[0] if isinstance(prop, list) else prop
    item.this_and_future = str(prop.params.get("RANGE", "")).upper() == "THISANDFUTURE"
    return True


def recurrence_key(value: date) -> str:
    """A RECURRENCE-ID as stable text, whatever zone the file wrote it in: a UTC time
    (``…Z``), a floating time, or a day, in RFC 5545's forms."""
    if not isinstance(value, datetime):
        return f"{value:%Y%m%d}"
    try:
        if value.tzinfo is not None:
            return f"{value.astimezone(UTC):%Y%m%dT%H%M%S}Z"
    except (OverflowError, ValueError):  # at the edge of year 1 or 9999: as written
        pass
    return f"{value:%Y%m%dT%H%M%S}"


def _period_start(value: date, tz: tzinfo) -> datetime:
    """A bound of an RDATE;VALUE=PERIOD beside a timed start: a day (``19970101/19970102``,
    which RFC 5545 does not allow but files have) is its midnight in the series' zone, as
    recurring-ical-events reads it; a time as it is."""
    if isinstance(value, datetime):
        return value
    return datetime.combine(value, time()).replace(tzinfo=tz)


def _own_periods(component, body: dict, series: Incoming) -> list[Incoming]:
    """The RDATE;VALUE=PERIOD values whose duration is not the series': each an occurrence
    edited on its own (as a VEVENT with its RECURRENCE-ID would say), keeping its span."""
    if body["all_day"]:
        return []
    tz = dates.resolve_timezone(body["timezone"])[0]
    start = dates.parse_stored(body["start_date"])
    duration = dates.parse_stored(body["end_date"]) - start
    found = []
    for prop in _all(component, "rdate"):
        for value in getattr(prop, "dts", []):
            if not isinstance(value.dt, tuple):
                continue
            first, second = value.dt
            end = first + second if isinstance(second, timedelta) else second
            first, end = _period_start(first, tz), _period_start(end, tz)
            local = series_wall_time(first, tz, start.time())
            local_end = series_wall_time(end, tz, start.time())
            if local_end - local == duration or local_end <= local:
                continue
            found.append(
                Incoming(
                    uid=series.uid,
                    sequence=series.sequence,
                    modified=series.modified,
                    body={
                        **{k: v for k, v in body.items() if k != "recurrence"},
                        "start_date": dates.fmt(local),
                        "end_date": dates.fmt(local_end),
                    },
                    changes_occurrence=True,
                    recurrence_id=first,
                )
            )
    return found


def _safe_stamp(component, stamped: bool) -> str:
    """LAST-MODIFIED in UTC; in a file without METHOD, DTSTAMP when it has none (``stamped``:
    RFC 5545 3.8.7.2 makes them the same there, and simple exporters write only DTSTAMP)."""
    for name in ("last-modified", "dtstamp") if stamped else ("last-modified",):
        try:
            stamp = _utc_stamp(component, name)
        except (ValueError, TypeError, KeyError, OverflowError):
            stamp = ""
        if stamp:
            return stamp
    return ""
