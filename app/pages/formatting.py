"""Dates, times and links of the public pages, written for the page's language (Babel)."""

from __future__ import annotations

import re
import string
from collections import Counter
from datetime import UTC, date, datetime, time
from decimal import Decimal
from email.utils import format_datetime as rfc822_datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import (
    format_date,
    format_datetime,
    format_interval,
    format_time,
    match_skeleton,
)
from babel.numbers import format_decimal

from app.i18n import _
from app.render import BARE_AMOUNTS_COST, FREE
from rules import dates
from rules.recurrence import RecurrenceError, feed_recurrence


@lru_cache(maxsize=64)
def locale_of(lang: str) -> Locale:
    return Locale.parse(lang)


@lru_cache(maxsize=256)
def _pattern(lang: str, skeleton: str) -> str:
    """The language's pattern for ``skeleton``: Babel matches a skeleton anew on every
    ``format_skeleton`` call (7 of a month view's 12 seconds for 20 months)."""
    skeletons = locale_of(lang).datetime_skeletons
    return str(skeletons[match_skeleton(skeleton, skeletons) or "yMMMd"])


def format_skeleton(skeleton: str, value, locale: str) -> str:
    return format_datetime(value, _pattern(locale, skeleton), locale=locale)


def first_weekday(lang: str) -> int:
    """The weekday a week starts on in ``lang`` (0 is Monday), as calendars there print it."""
    return locale_of(lang).first_week_day


def weekday_names(lang: str) -> list[tuple[str, str]]:
    """(abbreviated, full) names of the weekdays from the language's first one."""
    names = locale_of(lang).days["format"]
    start = first_weekday(lang)
    return [
        (names["abbreviated"][(start + n) % 7], names["wide"][(start + n) % 7]) for n in range(7)
    ]


@lru_cache(maxsize=64)
def hours(lang: str) -> str:
    """The skeleton of hours and minutes the language writes (12 or 24 hours)."""
    return "hm" if "h" in locale_of(lang).time_formats["short"].pattern else "Hm"


def as_heading(text: str) -> str:
    """``text`` begun with a capital: French and Spanish write month and weekday names in
    small letters inside a sentence ("le mardi 1 décembre"), and with a capital when they
    begin a heading or a title ("Mardi 1 décembre 2026"); Babel gives the former."""
    return text[:1].upper() + text[1:]


@lru_cache(maxsize=1024)
def month_title(month: date, lang: str) -> str:
    """A month's name and year, as its page's heading (Babel: 0.2 ms, at every month
    page)."""
    return as_heading(format_skeleton("yMMMM", month, locale=lang))


@lru_cache(maxsize=4096)
def day_title(day: date, lang: str) -> str:
    return format_date(day, format="full", locale=lang)


@lru_cache(maxsize=1024)
def short_day(day: date, lang: str) -> str:
    return format_skeleton("MMMEd", day, locale=lang)


def local(value: str) -> datetime:
    return dates.parse_stored(value)


def when(event: dict, lang: str, site_tz: str) -> str:
    """An event's dates and times in its own timezone: one day or several, all day or not,
    with the zone's name when it is not the site's."""
    start, end = local(event["start_date"]), local(event["end_date"])
    if event.get("all_day"):
        if start.date() == end.date():
            return day_title(start.date(), lang)
        return _days(start.date(), end.date(), lang)
    if start.date() == end.date():
        text = f"{_long_day(start.date(), lang)}, {_hours(start.time(), end.time(), lang)}"
    else:
        text = f"{_day_and_time(start, lang)} – {_day_and_time(end, lang)}"
    named = zone_named(event, site_tz)
    return f"{text} ({named})" if named else text


def rss_date(utc: str) -> str:
    """An RSS item's ``pubDate`` (RFC 822, as RSS 2.0 asks) of a stored UTC moment
    (``YYYY-MM-DD HH:MM:SS``): the event's start, as the plugin's feed dates its items."""
    return rfc822_datetime(datetime.fromisoformat(utc).replace(tzinfo=UTC))


def zone_named(event: dict, site_tz: str) -> str:
    """The zone an event's times are written in, when it is not the site's: its name, and
    the abbreviation its clocks showed then ("Asia/Tokyo, JST"); else ""."""
    zone = event.get("timezone") or site_tz
    if zone == site_tz:
        return ""
    abbreviation = event.get("timezone_abbr")
    return f"{zone}, {abbreviation}" if abbreviation and abbreviation != zone else zone


# Days and hours are written by pure functions of few values: kept, as a list of events
# writes the same days and the same hours again and again (0.1 ms each by Babel).
@lru_cache(maxsize=4096)
def _long_day(day: date, lang: str) -> str:
    return format_skeleton("yMMMMEEEEd", day, locale=lang)


@lru_cache(maxsize=4096)
def _hours(start, end, lang: str) -> str:
    return format_interval(start, end, hours(lang), locale=lang)


@lru_cache(maxsize=4096)
def _days(start: date, end: date, lang: str) -> str:
    return format_interval(start, end, "yMMMEd", locale=lang)


def _day_and_time(moment: datetime, lang: str) -> str:
    return f"{_short_date(moment.date(), lang)}, {clock(moment, lang)}"


def short_start(start: str, all_day: bool, lang: str) -> str:
    """A stored start (``YYYY-MM-DD HH:MM:SS``, its event's wall clock) as a list of the
    editor writes it in ``lang``: the day in short ("So., 6. Dez. 2026"), with its time
    unless the event is all day, as the pages write a start."""
    moment = local(start)
    return _short_date(moment.date(), lang) if all_day else _day_and_time(moment, lang)


@lru_cache(maxsize=4096)
def _short_date(day: date, lang: str) -> str:
    return format_skeleton("yMMMEd", day, locale=lang)


def typed_date(text: str, lang: str) -> str:
    """A day, or a day and time, as a form's date inputs send it (``2026-06-01``,
    ``2026-06-01T18:30``) written as ``lang`` writes it, seconds kept when there are any
    (a refused save shows what was typed, to be copied); any other text as it is."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    if len(text) <= 10:
        return _short_date(moment.date(), lang)
    if moment.second:
        return f"{_short_date(moment.date(), lang)}, {format_time(moment, 'medium', locale=lang)}"
    return _day_and_time(moment, lang)


def clock(moment: datetime, lang: str) -> str:
    """The time of day of ``moment`` as ``lang`` writes it (the month grid's times)."""
    return clock_text(f"{moment:%H:%M}", lang)


@lru_cache(maxsize=4096)
def clock_text(hours_minutes: str, lang: str) -> str:
    """``HH:MM`` as the language writes a time (a month grid writes a hundred)."""
    return format_time(datetime.strptime(hours_minutes, "%H:%M").time(), "short", locale=lang)


# An amount of ``cost_details.values`` (app/render.py::cost_amount writes them so).
_AMOUNT = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def cost(event: dict, lang: str) -> str:
    """An event's cost as its page writes it. Amounts sent bare (``cost_details`` names no
    currency and the API gave them its default one, not prices whose currencies differ,
    "20¥ – 30$") are numbers written for the page's language ("12,50"), lowest to highest,
    with no currency: the API's "$12.50" has The Events Calendar's default currency
    (app/render.py::DEFAULT_CURRENCY_SYMBOL), which no one set for this site. Otherwise
    the API's text, its word for no cost (alone or the low end of a range) in the page's
    language."""
    text, details = event["cost"], event["cost_details"]
    values = details["values"]
    bare = not details["currency_symbol"] and BARE_AMOUNTS_COST.fullmatch(text)
    if values and bare and all(map(_AMOUNT.fullmatch, values)):
        low, high = _amount(values[0], lang), _amount(values[-1], lang)
        return low if low == high else f"{low} – {high}"
    if text == FREE or text.startswith(f"{FREE} – "):
        return _("Free") + text[len(FREE) :]
    return text


def _amount(value: str, lang: str) -> str:
    """An amount as the language writes it: its digits grouped, its cents as two digits
    at least ("1 234,50"), and nothing as the language's word for free."""
    if Decimal(value) == 0:
        return _("Free")
    pattern = "#,##0.00###" if "." in value else "#,##0"
    return format_decimal(Decimal(value), format=pattern, locale=lang)


def zone_note(zone: str, first: date, last: date, others_named: bool = False) -> str:
    """What the month grid and the day page say of the times they write in the site's
    ``zone``: its name, and the abbreviations its clocks show from the start of ``first``
    to the end of ``last`` (both, across a change of time: a day page of the change too).
    The day page writes an event of another zone in that zone, named (``others_named``)."""
    tz, name = dates.resolve_timezone(zone)
    shown: list[str] = []
    moments = (datetime.combine(first, time()), datetime.combine(last, time(23, 59)))
    for moment in moments:  # both sides of a change at midnight (Beirut): both folds
        for fold in (0, 1):
            abbreviation = dates.tz_abbreviation(moment, tz, fold)
            if abbreviation and abbreviation != name and abbreviation not in shown:
                shown.append(abbreviation)
    label = f"{name} ({', '.join(shown)})" if shown else name
    if others_named:
        return _("Times are in %(zone)s unless another zone is named.", zone=label)
    return _("Times are in %(zone)s.", zone=label)


def iso(value: str) -> str:
    return local(value).isoformat()


def google_event_link(event: dict, location: str, text: str, series: dict | None = None) -> str:
    """Google Calendar's "add this event" address: the event's dates, or the whole series
    when ``series`` (its first occurrence, every occurrence as its rule makes it) has a
    recurrence Google's link can take (``google_recurrence``)."""
    recurrence = google_recurrence(series) if series else None
    query = {"action": "TEMPLATE", "text": event["title"]}
    if recurrence:
        query.update(recurrence)
    elif event.get("all_day"):
        first = local(event["start_date"]).date()
        last = dates.day_after(local(event["end_date"]).date())
        query["dates"] = f"{first:%Y%m%d}/{last:%Y%m%d}"
    else:
        start, end = local(event["utc_start_date"]), local(event["utc_end_date"])
        query["dates"] = f"{start:%Y%m%dT%H%M%SZ}/{end:%Y%m%dT%H%M%SZ}"
    query["details"] = text[:800]
    if location:
        query["location"] = location
    return "https://calendar.google.com/calendar/render?" + "&".join(
        f"{name}={_quoted(value)}" for name, value in query.items()
    )


def _quoting(kept: str) -> list[str]:
    """Each byte as ``quote(value, safe=kept)`` writes it: letters, digits, ``_.-~`` and
    ``kept`` as they are, any other byte of the UTF-8 text as ``%XX``. ``urlencode`` quoted
    the link's values a character at a time in Python (its details run to 800): by this
    table, ``map`` does it in C, and the names, all ours, need no quoting."""
    unreserved = frozenset(string.ascii_letters + string.digits + "_.-~" + kept)
    return [chr(b) if chr(b) in unreserved else f"%{b:02X}" for b in range(256)]


_QUOTED = _quoting("")
# A feed's address as a query's value: ':', '/', '?' and '=' are legal there (RFC 3986
# §3.4) and kept, so that the link reads ``cid=webcal://…`` as SPEC §15 writes it; what
# would end or change the value ('&', '#', '+', '%', spaces, other bytes) is quoted.
_QUOTED_ADDRESS = _quoting(":/?=")


def _quoted(value: str, table: list[str] = _QUOTED) -> str:
    return "".join(map(table.__getitem__, value.encode()))


def google_recurrence(series: dict) -> dict | None:
    """What Google's template link says of a whole series: its first dates as wall-clock
    times of its zone (``ctz``, so that Google keeps the series' time across changes of
    time, as its occurrences do) and ``recur``, its RRULE with UNTIL in UTC as the feed
    writes it. The link takes one RRULE and no RDATE or EXDATE (unofficial parameters:
    InteractionDesignFoundation/add-event-to-calendar-docs services/google.md, and
    add2cal/add-to-calendar-button, which sends RRULEs only), and ``ctz`` a tz database
    name: None for any other series, whose link keeps the one date."""
    found = _series_recurrence(
        series.get("timezone") or "UTC",
        bool(series.get("all_day")),
        series["start_date"],
        series["end_date"],
        tuple(series.get("recurrence") or ()),
    )
    return None if found is None else dict(found)


# A pure function of the series' zone, dates and lines, kept: every occurrence's page links
# its series the same way (reading the lines again was a fifth of a series' page).
@lru_cache(maxsize=1024)
def _series_recurrence(
    timezone: str, all_day: bool, start_date: str, end_date: str, recurrence: tuple
) -> tuple | None:
    try:
        tz, zone = dates.resolve_timezone(timezone)
    except dates.DateError:
        return None
    if not (isinstance(tz, ZoneInfo) or zone == "UTC" or all_day):  # UTC±H: no tz name
        return None
    start, end = local(start_date), local(end_date)
    try:
        lines = feed_recurrence(list(recurrence), start, tz, all_day)
    except RecurrenceError:
        return None
    if len(lines.rules) != 1 or lines.rdates or lines.exdates:
        return None
    if all_day:
        span = f"{start:%Y%m%d}/{dates.day_after(end.date()):%Y%m%d}"
        return (("dates", span), ("recur", f"RRULE:{lines.rules[0]}"))
    span = f"{start:%Y%m%dT%H%M%S}/{end:%Y%m%dT%H%M%S}"
    return (("dates", span), ("ctz", zone), ("recur", f"RRULE:{lines.rules[0]}"))


def google_subscribe_link(webcal: str) -> str:
    """Google's subscribe link of a feed (every list page has one): ``cid`` the feed's
    ``webcal://`` address, readable, with what its own query holds quoted."""
    return "https://calendar.google.com/calendar/render?cid=" + _quoted(webcal, _QUOTED_ADDRESS)


def map_link(venue: dict) -> str:
    """The venue on OpenStreetMap; "" when its coordinates are not known (the
    representation leaves them out)."""
    lat, lng = venue.get("geo_lat"), venue.get("geo_lng")
    if lat is None or lng is None:
        return ""
    return f"https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=16/{lat}/{lng}"


def thumbnail_srcset(image: dict) -> str:
    """A small image's ``srcset``: its thumbnail (150×150, cropped) and, for screens of
    more pixels than that, its medium size (or the original when there is none); "" for
    an image of at most 150×150, which has no sizes (shown as it is)."""
    sizes = image.get("sizes") or {}
    thumbnail = sizes.get("thumbnail")
    if not thumbnail:
        return ""
    larger = sizes.get("medium") or image
    entries = [f"{thumbnail['url']} {thumbnail['width']}w"]
    if larger.get("width", 0) > thumbnail["width"]:
        entries.append(f"{larger['url']} {larger['width']}w")
    return ", ".join(entries)


# The widest an event's, venue's or organizer's page draws its image (calendar.css:
# 48rem, with room to spare).
IMAGE_SLOT = 800


def image_sizes(image: dict) -> str:
    """A page's image's ``sizes`` (templates/macros.html::item_image): its slot, never
    wider than the image itself. A browser picks the ``srcset`` candidate for the slot's width: an image narrower than
    a fixed 800 px slot was taken at half density, drawn twice its size, blurred."""
    slot = min(image.get("width") or IMAGE_SLOT, IMAGE_SLOT)
    return f"(max-width: {slot}px) 100vw, {slot}px"


def srcset(image: dict) -> str:
    """The image's sizes for ``srcset`` (each "URL WIDTHw"), the original last."""
    sizes = image.get("sizes") or {}
    entries = [
        f"{size['url']} {size['width']}w"
        for name, size in sizes.items()
        if name != "thumbnail" and size.get("url") and size.get("width")
    ]
    if image.get("width"):
        entries.append(f"{image['url']} {image['width']}w")
    return ", ".join(entries)


def told_apart(rows: list, detail=None) -> list[tuple[int, str]]:
    """Each venue or organizer (``rows``) by its name; of two or more of one name, each
    followed by ``detail(row)`` (by default its city, a venue's, or its e-mail, an
    organizer's), and by its id when that is not enough: whoever chooses one (the editor's
    form, the visitors' filter form) must see which one it is."""
    detail = detail or _own_detail
    named = Counter(row.title.strip().lower() for row in rows)
    labels = []
    for row in rows:
        label = row.title
        if named[row.title.strip().lower()] > 1:
            shown = detail(row)
            label = f"{row.title} ({shown})" if shown else row.title
        labels.append(label)
    again = Counter(label.lower() for label in labels)
    return [
        (row.id, f"{label} #{row.id}" if again[label.lower()] > 1 else label)
        for row, label in zip(rows, labels, strict=True)
    ]


def _own_detail(row) -> str:
    return (getattr(row, "city", "") or getattr(row, "email", "") or "").strip()
