"""Representations: rows to the plain dicts the reference emits, key for key.

Built by hand rather than through marshmallow ``dump`` because listings serialise
hundreds of nested objects per request; the ``*Out`` schemas document the same shapes.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import sys
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cached_property, lru_cache
from html import escape
from itertools import chain, repeat
from operator import itemgetter
from typing import NamedTuple
from urllib.parse import quote

import orjson
from flask import current_app, g, has_app_context

from app import jsonresponse as jsonresponse_module
from app.auth import may_read, may_see_protected
from app.jsonresponse import dumps, kept
from app.urls import namespace_url, site_host, site_url
from rules import dates as dates_module
from rules import posts as rules_posts_module
from rules import text as text_module
from rules.dates import (
    fmt,
    parse_stored,
    resolve_timezone,
    tz_abbreviation,
    utc_offset,
    utc_to_local,
)
from rules.posts import ORGANIZER_MASK, VENUE_MASK, effective_status
from rules.text import html_text
from store import media as media_store
from store import posts as posts_module
from store.db import database
from store.events import LinkKind, Relations, by_name, linked_rows
from store.memo import VersionMemo
from store.posts import publication_epoch
from store.terms import TAXONOMIES, published_counts
from store.users import ANONYMOUS, Viewer


@dataclass
class RenderContext:
    site: str
    ns: str
    host: str
    viewer: Viewer
    site_tz: str
    single: bool = False
    password: str | None = None
    term_counts: dict | None = None
    # Media by id, loaded a page at a time: the row, then its rendered image object.
    media: dict = field(default_factory=dict)
    # Series this viewer may not read: their occurrences do not show the series' lines.
    hidden_series: set = field(default_factory=set)
    # (database, data version) the request was answered at (app/cache.py), for a read.
    version: tuple | None = None

    @cached_property
    def view(self) -> tuple:
        """The way of seeing that a rendering kept per version is made for (RenderMemo,
        event_texts): site, namespace, site timezone, viewer, password, single or listing."""
        return (
            self.site,
            self.ns,
            self.site_tz,
            self.viewer.cache_key(),
            self.password,
            self.single,
        )

    @cached_property
    def stand_ins(self) -> tuple:
        """What the stand-ins of a stored text (``own_texts``) are replaced by: the host, the
        site and the namespace, as they stand inside a JSON string."""
        values = ((_HOST, self.host), (_SITE, self.site), (_NS, self.ns))
        return tuple((raw.encode(), dumps(value)[1:-1]) for raw, value in values)


def render_context(viewer: Viewer, single: bool = False, password: str | None = None):
    site = site_url()
    return RenderContext(
        site=site,
        ns=namespace_url(),
        host=_host_of(site),
        viewer=viewer,
        site_tz=current_app.config["SITE_TIMEZONE"],
        single=single,
        password=password,
        version=read_version(),
    )


@lru_cache(maxsize=64)
def _host_of(site: str) -> str:
    return site_host(site)


def read_version():
    """The request's ``(database, data version)``, when it is a read (app/cache.py)."""
    version = g.get("cache_version")
    return None if version is None else (database.database, version)


class RenderMemo(VersionMemo):
    """Media rows, venues and organizers as rendered for one way of seeing them (site,
    viewer, password, single or listing), and what a listing shows of each linked item
    (``linked_texts``), made once per data version (store/memo.py): the events of a page,
    and of the pages after it, show the same few. A status that changes with the clock
    alone (a scheduled item's date passing) is part of a key. Texts count towards
    ``MAX_BYTES``, so that long descriptions cannot swell it."""

    # Every venue and organizer of a large calendar (8,333 each at 100,000 demo events).
    MAX_ENTRIES = 20480
    MAX_BYTES = 12 * 1024 * 1024

    def size_of(self, value) -> int:
        if isinstance(value, bytes):
            return len(value)
        if isinstance(value, tuple):  # a term: (is a category, order, text)
            return len(value[2])
        return 0

    def linked(self, render, row, ctx: RenderContext) -> dict:
        """``render(row, ctx)`` (a venue or an organizer), once per version and view."""
        key = (render, row.id, effective_status(row), ctx.view)
        return self.get(ctx.version, key, lambda: render(row, ctx))


_MEMO = RenderMemo()


class EventTexts(VersionMemo):
    """Events as JSON text, per data version and way of seeing them
    (app/reading/texts.py::event_texts): a page that shows an event another page or read
    showed before reuses its text. An entry is ``(parts, bytes)``: the text is
    ``b"".join(parts)``, and ``bytes`` what the entry takes of its own. An event spliced
    from its stored text (``stored_event_parts``) shares the texts of its venues,
    organizers and terms with every other event that shows them (``linked_texts``): about
    1.5 kB of its own where the whole text is about 4 kB, so the bound in bytes holds
    three times as many such events. The bound in bytes holds for events with long
    descriptions too. 16 MB hold the published events of a 10,000-event calendar (the
    demo's, with its long descriptions): month views at any minute then find each of their
    events here once a worker has shown it (a cold window at 10,000 events: 0.69 -> 0.51 ms
    in-process, 1.45 -> 1.05 ms of a worker's CPU through gunicorn)."""

    MAX_ENTRIES = 16384
    MAX_BYTES = 16 * 1024 * 1024

    def size_of(self, value) -> int:
        # Its own text, and what the entry takes beyond it: its key, the tuples, the memo's
        # slot (240 bytes measured with tracemalloc; an absent event's entry too).
        return ENTRY_OVERHEAD + (0 if value is None else value[1])


ENTRY_OVERHEAD = 240


EVENT_TEXTS = EventTexts()


def date_details(value: str) -> dict:
    # Zero-padded strings, not numbers: existing clients read them that way.
    return {
        "year": value[0:4],
        "month": value[5:7],
        "day": value[8:10],
        "hour": value[11:13],
        "minutes": value[14:16],
        "seconds": value[17:19],
    }


UPLOADS_PATH = "/wp-content/uploads"  # where WordPress serves its uploads, too


def upload_url(ctx: RenderContext, name: str) -> str:
    return f"{ctx.site}{UPLOADS_PATH}/{name}"


def media_out(row, ctx: RenderContext) -> dict:
    """The reference's image object: WordPress's attachment metadata without ``file`` and
    ``image_meta``, each size with its own ``url``, empty members dropped."""
    sizes = {
        name: {
            "width": size["width"],
            "height": size["height"],
            "mime-type": size["mime-type"],
            "filesize": size["filesize"],
            "url": upload_url(ctx, size["file"]),
        }
        for name, size in orjson.loads(row.sizes or "{}").items()
    }
    data = {
        "url": upload_url(ctx, row.file),
        "id": row.id,
        "extension": row.extension,
        "width": row.width,
        "height": row.height,
        "filesize": row.filesize,
        "sizes": sizes,
    }
    return _drop_empty(data)


def preload_images(ctx: RenderContext, rows) -> None:
    """Loads, in one query, the media that ``rows`` (events, venues, organizers) show."""
    wanted = {int(row.image) for row in rows if media_store.is_media_id(row.image)}
    wanted -= ctx.media.keys()
    if wanted:  # None for a deleted one
        ctx.media.update(_MEMO.many(ctx.version, "media", wanted, media_store.media_by_id))


def image_out(value: str, ctx: RenderContext):
    """``false`` when there is no image (or its media was deleted); the image object for a
    media id; ``{url, extension}`` for an image hosted elsewhere."""
    if not value:
        return False
    if media_store.is_media_id(value):
        media_id = int(value)
        if media_id not in ctx.media:  # not preloaded: a single read
            ctx.media[media_id] = media_store.get_media(media_id)
        row = ctx.media[media_id]
        if row is None:
            return False
        if not isinstance(row, dict):  # rendered once per version and site
            media = row
            key = ("media out", media_id, ctx.site)
            row = ctx.media[media_id] = _MEMO.get(ctx.version, key, lambda: media_out(media, ctx))
        return row
    path = value.split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return {"url": value, "extension": extension}


# --- cost --------------------------------------------------------------------------------

_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*")  # ASCII digits, as PHP reads numbers
# The Events Calendar's default currency (its settings' "$" before the amount): what a cost
# sent as a bare amount is shown with, "10" as "$10" (samples/event-get.json).
DEFAULT_CURRENCY_SYMBOL = "$"
# The reference's word for a cost of nothing, alone or as the low end of a range ("Free –
# $10"): the API's, in every language; the pages write it in theirs (app/pages/formatting.py).
FREE = "Free"


def cost_amount(raw: str) -> str | None:
    """The number an amount as written says, as ``cost_details.values`` gives it ("12.50"
    is "12.5", "1.000,50" is "1000.5"); None when it holds none. The importer compares a
    source's values by it (app/tec_import.py::_cost)."""
    match = _NUMBER.search(raw)
    if not match:
        return None
    text = match.group(0)
    if "," in text and "." in text:
        # The last separator is the decimal one, as the plugin's Cost_Utils reads it: US
        # "1,000.50" and European "1.000,50" are both a thousand and a half.
        grouping = "," if text.rfind(",") < text.rfind(".") else "."
        text = text.replace(grouping, "").replace(",", ".")
    elif "," in text:
        head, _sep, tail = text.rpartition(",")
        text = f"{head.replace(',', '')}.{tail}" if len(tail) != 3 else text.replace(",", "")
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    normalised = format(number.normalize(), "f")
    return normalised


def url_slug(slug: str) -> str:
    """A slug in an address: letters beyond ASCII percent-encoded (as WordPress's links)."""
    return slug if slug.isascii() else quote(slug)


def event_path(slug: str) -> str:
    """The path of an event's page below the site's URL (its ``url``)."""
    return f"/event/{url_slug(slug)}/"


def cost_out(stored: str) -> tuple[str, dict]:
    """The formatted cost and ``cost_details`` from the cost as it was sent (a fresh
    ``cost_details`` each time: the parsing is shared, the dict is not)."""
    cost, details = _cost_out(stored)
    return cost, {**details, "values": list(details["values"])}


# Prices written in one text are split at its commas, as Cost_Utils::parse_currency_symbol
# splits them ("free, 20$, 30$" is the list ["free", "20$", "30$"]); not at a comma between
# digits, the amount's own separator ("1,000", "10,50").
_COST_SEPARATOR = re.compile(r"\s*(?:(?<![0-9]),|,(?![0-9]))\s*")
# What the API writes for amounts sent bare: each bound in the default currency, or free
# (the pages write such amounts for their language: app/pages/formatting.py::cost).
BARE_AMOUNTS_COST = re.compile(
    rf"(?:{FREE}|{re.escape(DEFAULT_CURRENCY_SYMBOL)}[0-9][0-9.,]*)"
    rf"(?: – {re.escape(DEFAULT_CURRENCY_SYMBOL)}[0-9][0-9.,]*)?"
)


class _Price(NamedTuple):
    """One price as sent: its text, its amounts (a range "10 - 20 €" has two) and the
    currency symbol around them, before (prefix) or after (postfix); ``written``: each
    amount as the text writes it ("12.50": a price keeps its cents where it is shown)."""

    text: str
    amounts: tuple[str, ...]
    symbol: str
    position: str
    written: dict[str, str]


# The reference's own text of a range from nothing ("Free – $12.50", what its API answers
# and a client sends back): its word is the amount 0, not a part of the currency symbol.
_FREE_TO = re.compile(rf"{FREE}\s*[–-]\s*", re.IGNORECASE)


def _price(text: str) -> _Price:
    matches = [m for m in _NUMBER.finditer(text) if cost_amount(m.group(0)) is not None]
    if not matches:
        return _Price(text, (), "", "", {})
    before, after = text[: matches[0].start()].strip(), text[matches[-1].end() :].strip()
    free = _FREE_TO.match(before)
    before = before[free.end() :] if free else before
    texts = ("0",) * bool(free) + tuple(match.group(0) for match in matches)
    amounts = tuple(cost_amount(amount) for amount in texts)
    written = dict(zip(amounts[::-1], texts[::-1], strict=True))  # each as first written
    symbol, position = (before, "prefix") if before else (after, "postfix" if after else "")
    return _Price(text, amounts, symbol, position, written)


def _one_currency(prices: list[_Price]) -> tuple[str, str]:
    """The symbol and position every price shares, as the reference infers them: none when
    the symbols differ ("20¥", "30$") or some price has none; a symbol without a position
    when it stands before one price and after another."""
    symbols = {price.symbol for price in prices}
    if len(symbols) != 1 or not prices[0].symbol:
        return "", ""
    positions = {price.position for price in prices}
    return prices[0].symbol, positions.pop() if len(positions) == 1 else ""


@lru_cache(maxsize=4096)
def _cost_out(stored: str) -> tuple[str, dict]:
    empty = {"currency_symbol": "", "currency_code": "", "currency_position": "", "values": []}
    if not stored:
        return "", empty
    raw = orjson.loads(stored)
    sent = raw if isinstance(raw, list) else _COST_SEPARATOR.split(str(raw))
    items = [str(x).strip() for x in sent if str(x).strip()]
    if not items:
        return "", empty
    prices = [_price(item) for item in items]
    priced = [price for price in prices if price.amounts]
    words = (re.sub(r"[^a-z0-9]+", "-", p.text.lower()).strip("-") for p in prices if not p.amounts)
    ordered = sorted({amount for price in priced for amount in price.amounts}, key=Decimal)
    symbol, position = _one_currency(priced) if priced else ("", "")
    details = {
        "currency_symbol": symbol,
        "currency_code": "",
        "currency_position": position,
        "values": ordered + [word for word in words if word],
    }
    whole = None if isinstance(raw, list) else str(raw).strip()
    return _cost_text(prices, ordered, whole), details


def _with_symbol(amount: str, symbol: str, position: str) -> str:
    return f"{symbol}{amount}" if position == "prefix" else f"{amount}{symbol}"


def _cost_text(prices: list[_Price], ordered: list[str], whole: str | None) -> str:
    """``cost``: one price as sent (a bare amount in the default currency, as the reference;
    nothing but zeros "Free"), else the lowest and highest of the prices, each with its
    currency: the one they share, the default one when none has any, else its own. A text
    (``whole``, not a list) of words or of prices in currencies that differ ("Adults 10,
    children 5") is shown as it was sent: its parts are not one price list."""
    if len(prices) == 1:
        price = prices[0]
        if price.amounts and all(Decimal(amount) == 0 for amount in price.amounts):
            return FREE
        if _NUMBER.fullmatch(price.text):
            return f"{DEFAULT_CURRENCY_SYMBOL}{price.text}"
        return price.text
    priced = [price for price in prices if price.amounts]
    symbol, position = _one_currency(priced) if priced else ("", "")
    if priced and not any(price.symbol for price in priced):
        symbol, position = DEFAULT_CURRENCY_SYMBOL, "prefix"  # shown, not in cost_details
    if whole is not None and not position:
        return whole
    if not ordered:
        return prices[0].text
    # Each amount as the first price that has it writes it.
    written = {k: v for price in reversed(priced) for k, v in price.written.items()}

    def show(amount: str) -> str:
        if Decimal(amount) == 0:
            return FREE
        if position:
            return _with_symbol(written[amount], symbol, position)
        own = next(price for price in priced if amount in price.amounts)  # as it was sent
        if len(own.amounts) == 1:
            return own.text
        return _with_symbol(own.written[amount], own.symbol, own.position)

    low, high = show(ordered[0]), show(ordered[-1])
    return low if low == high else f"{low} – {high}"


# --- linked posts --------------------------------------------------------------------


@lru_cache(maxsize=4096)
def site_time(utc_stamp: str, site_tz: str) -> str:
    """A stored UTC time as the site's clocks showed it: ``modified`` is site time, as the
    reference writes it (``modified_utc`` beside it), whatever the store keeps in its
    ``modified`` column (the time of the write in UTC)."""
    try:
        return fmt(utc_to_local(parse_stored(utc_stamp), resolve_timezone(site_tz)[0]))
    except ValueError:  # a stamp or zone that cannot be read: shown as stored
        return utc_stamp


def _post_head(row, ctx: RenderContext, kind_path: str) -> dict:
    return {
        "id": row.id,
        "author": str(row.author),
        "status": effective_status(row),
        "date": row.date,
        "date_utc": row.date_utc,
        "modified": site_time(row.modified_utc, ctx.site_tz),
        "modified_utc": row.modified_utc,
        "url": f"{ctx.site}/{kind_path}/{url_slug(row.slug)}/",
    }


def _global(item_id: int, ctx: RenderContext, origin: str = "") -> dict:
    """``global_id`` and its lineage: an imported item's origin (an event's iCalendar UID,
    or the source ``global_id`` of an item ``import-tec`` brought) follows its own id, as
    Event Aggregator's import origins do in the reference."""
    global_id = f"{ctx.host}?id={item_id}"
    return {
        "global_id": global_id,
        "global_id_lineage": [global_id, origin] if origin else [global_id],
    }


def _drop_empty(data: dict) -> dict:
    # The reference passes these through array_filter: "", false, [], "0" disappear.
    return {k: v for k, v in data.items() if v not in ("", None, False, [], "0", {})}


def venue_out(venue, ctx: RenderContext, single: bool | None = None) -> dict:
    data = _post_head(venue, ctx, "venue")
    data.update(
        venue=venue.title,
        description=venue.description,
        excerpt=venue.excerpt,
        slug=venue.slug,
        image=image_out(venue.image, ctx),
        address=venue.address,
        city=venue.city,
        country=venue.country,
        province=venue.province,
        state=venue.state,
        zip=venue.zip,
        phone=venue.phone,
        website=venue.website,
        stateprovince=venue.stateprovince,
    )
    data = _drop_empty(data)
    if venue.geo_lat is not None and venue.geo_lng is not None:
        data["geo_lat"] = venue.geo_lat
        data["geo_lng"] = venue.geo_lng
    protected = bool(venue.password) and not _may_see_protected(venue, ctx)
    if protected:
        data.update({k: v for k, v in VENUE_MASK.items() if k in data})
    if ctx.single if single is None else single:
        data["json_ld"] = place_ld(data) if not protected else {}
    # Masked to null as the reference masks them (reference-behaviour.md §masking).
    data["show_map"] = None if protected else bool(venue.show_map)
    data["show_map_link"] = None if protected else bool(venue.show_map_link)
    data.update(_global(venue.id, ctx, getattr(venue, "origin", "")))
    return data


def organizer_out(organizer, ctx: RenderContext, single: bool | None = None) -> dict:
    data = _post_head(organizer, ctx, "organizer")
    data.update(
        organizer=organizer.title,
        description=organizer.description,
        excerpt=organizer.excerpt,
        slug=organizer.slug,
        image=image_out(organizer.image, ctx),
        phone=organizer.phone,
        website=organizer.website,
        email=organizer.email,
    )
    data = _drop_empty(data)
    protected = bool(organizer.password) and not _may_see_protected(organizer, ctx)
    if protected:
        data.update({k: v for k, v in ORGANIZER_MASK.items() if k in data})
    if ctx.single if single is None else single:
        data["json_ld"] = person_ld(data) if not protected else {}
    data.update(_global(organizer.id, ctx, getattr(organizer, "origin", "")))
    return data


# JSON-LD is built from the representations, after masking: it can show nothing that the
# embedded objects beside it do not.


def address_line(venue: dict, with_name: bool = True) -> str:
    """A venue (as rendered) on one line, as every face writes it: the feed's LOCATION, a
    page's address and its calendar links' location. Name (unless ``with_name`` is false:
    where the name stands beside it), street, city, region, postcode, country."""
    region = venue.get("stateprovince") or venue.get("state") or venue.get("province")
    parts = [venue.get("venue") if with_name else None]
    parts += [venue.get("address"), venue.get("city"), region, venue.get("zip")]
    parts.append(venue.get("country"))
    return ", ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())


def place_ld(venue: dict) -> dict:
    address = {
        "@type": "PostalAddress",
        "streetAddress": venue.get("address", ""),
        "addressLocality": venue.get("city", ""),
        "addressRegion": venue.get("stateprovince")
        or venue.get("state")
        or venue.get("province", ""),
        "postalCode": venue.get("zip", ""),
        "addressCountry": venue.get("country", ""),
    }
    data = {
        "@type": "Place",
        "name": venue.get("venue", ""),
        "description": html_text(venue.get("excerpt") or venue.get("description", "")),
        "url": venue.get("website", ""),
        "address": {k: v for k, v in address.items() if v},
        "telephone": venue.get("phone", ""),
        "sameAs": venue.get("website", ""),
    }
    if venue.get("geo_lat") is not None and (venue.get("geo_lat"), venue.get("geo_lng")) != (0, 0):
        data["geo"] = {
            "@type": "GeoCoordinates",
            "latitude": venue["geo_lat"],
            "longitude": venue["geo_lng"],
        }
    return data


def person_ld(organizer: dict) -> dict:
    return {
        "@type": "Person",
        "name": organizer.get("organizer", ""),
        "description": html_text(organizer.get("excerpt") or organizer.get("description", "")),
        "url": organizer.get("website", ""),
        "telephone": organizer.get("phone", ""),
        "email": escape(organizer.get("email", "")),
        "sameAs": organizer.get("website", ""),
    }


# --- terms ---------------------------------------------------------------------------------


def term_urls(term, ctx: RenderContext) -> dict:
    collection = f"{ctx.ns}/{'categories' if term.taxonomy == 'category' else 'tags'}"
    urls = {"self": f"{collection}/{term.id}", "collection": collection}
    if term.taxonomy == "category" and term.parent:
        urls["up"] = f"{collection}/{term.parent}"
    return urls


def term_embedded(term, ctx: RenderContext, count: int) -> dict:
    """The shape of a term inside an event (WordPress's term object)."""
    return {
        "name": term.name,
        "slug": term.slug,
        "term_group": 0,
        "term_taxonomy_id": term.id,
        "taxonomy": TAXONOMIES[term.taxonomy],
        "description": term.description,
        "parent": term.parent,
        "count": count,
        "filter": "raw",
        "id": term.id,
        "urls": term_urls(term, ctx),
    }


def term_out(term, ctx: RenderContext, count: int) -> dict:
    """The shape of a term from /categories and /tags."""
    kind = "category" if term.taxonomy == "category" else "tag"
    data = {
        "id": term.id,
        "count": count,
        "description": term.description,
        "name": term.name,
        "slug": term.slug,
        "taxonomy": TAXONOMIES[term.taxonomy],
    }
    if term.taxonomy == "category":
        data["parent"] = term.parent
    data["meta"] = []
    data["url"] = f"{ctx.site}/events/{kind}/{url_slug(term.slug)}/"
    data["urls"] = term_urls(term, ctx)
    return data


# --- events --------------------------------------------------------------------------------

EVENT_MASK = {
    "description": "",
    "excerpt": "",
    "image": False,
    "all_day": None,
    "cost": "",
    "cost_details": {
        "currency_symbol": "",
        "currency_position": "",
        "currency_code": "",
        "values": [],
    },
    "website": "",
    "show_map": None,
    "show_map_link": None,
    "hide_from_listings": None,
    "sticky": None,
    "featured": None,
    "ticketed": None,
    "categories": [],
    "tags": [],
    "venue": [],
    "organizer": [],
}


def _may_see_protected(row, ctx: RenderContext) -> bool:
    return may_see_protected(ctx.viewer, row, ctx.password)


def _zone_of(event, ctx: RenderContext) -> tuple[str, object, str]:
    """(the event's timezone name, its zone, the abbreviation at its start; "" and None
    when the name cannot be resolved)."""
    timezone_name = event.timezone or ctx.site_tz
    try:
        tz, _name = resolve_timezone(timezone_name)
        return timezone_name, tz, tz_abbreviation(parse_stored(event.start_date), tz)
    except ValueError:
        return timezone_name, None, ""


def _dates_out(event, timezone_name: str, abbr: str) -> dict:
    """An event's date members, in the reference's order."""
    return {
        "all_day": bool(event.all_day),
        "start_date": event.start_date,
        "start_date_details": date_details(event.start_date),
        "end_date": event.end_date,
        "end_date_details": date_details(event.end_date),
        "utc_start_date": event.utc_start,
        "utc_start_date_details": date_details(event.utc_start),
        "utc_end_date": event.utc_end,
        "utc_end_date_details": date_details(event.utc_end),
        "timezone": timezone_name,
        "timezone_abbr": abbr,
    }


def event_out(event, relations, ctx: RenderContext) -> dict:
    timezone_name, tz, abbr = _zone_of(event, ctx)
    cost, cost_details = cost_out(event.cost)
    url = ctx.site + event_path(event.slug)
    counts = ctx.term_counts or {}
    venues = [_MEMO.linked(venue_out, v, ctx) for v in relations.venues]
    data = {
        "id": event.id,
        **_global(event.id, ctx, getattr(event, "ical_uid", "")),
        "author": str(event.author),
        "status": effective_status(event),
        "date": event.date,
        "date_utc": event.date_utc,
        "modified": site_time(event.modified_utc, ctx.site_tz),
        "modified_utc": event.modified_utc,
        "url": url,
        "rest_url": f"{ctx.ns}/events/{event.id}",
        "title": event.title,
        "description": event.description,
        "excerpt": event.excerpt,
        "slug": event.slug,
        "image": image_out(event.image, ctx),
        **_dates_out(event, timezone_name, abbr),
        "cost": cost,
        "cost_details": cost_details,
        "website": url if event.website is None else event.website,
        "show_map": bool(event.show_map),
        "show_map_link": bool(event.show_map_link),
        "hide_from_listings": bool(event.hide_from_listings),
        "sticky": bool(event.sticky),
        "featured": bool(event.featured),
        "ticketed": bool(event.ticketed),
        "post_parent": event.post_parent,
        "recurrence": (
            event.recurrence.split("\n")
            if event.recurrence and event.post_parent not in ctx.hidden_series
            else []
        ),
        "categories": [term_embedded(t, ctx, counts.get(t.id, 0)) for t in relations.categories],
        "tags": [term_embedded(t, ctx, counts.get(t.id, 0)) for t in relations.tags],
        # One venue is the object itself, none is [], several a list: client compatibility.
        "venue": venues[0] if len(venues) == 1 else venues,
        "organizer": [_MEMO.linked(organizer_out, o, ctx) for o in relations.organizers],
    }
    protected = bool(event.password) and not _may_see_protected(event, ctx)
    if protected:
        data.update(EVENT_MASK)  # what is_masked tells
    if ctx.single and not protected:
        data["json_ld"] = event_ld(data, tz if abbr else None)
    return data


def is_masked(event: dict) -> bool:
    """Whether an event's representation is masked by its password (``EVENT_MASK``): its
    ``all_day`` is None then, and a boolean in every other representation."""
    return event.get("all_day") is None


# --- stored texts (store/texts.py) --------------------------------------------------------

# What a stored text holds in place of the members that depend on the request or on other
# rows: one control character each, which no member's own text can hold raw (orjson writes
# every control character as ``\u00XX``). ``own_texts`` renders the event with them as its
# context's host, site and namespace (and as its image and series' lines when those depend
# on other rows or on the viewer); a read replaces each by the request's value.
_HOST, _SITE, _NS, _IMAGE, _LINES = "\x01", "\x02", "\x03", "\x04", "\x05"
_LINKED = ("categories", "tags", "venue", "organizer")  # spliced by ``stored_event_parts``


class StoredExtra(NamedTuple):
    """What a stored text keeps besides the event's own JSON (``own_texts``): what a read
    needs of the event's row and links, stored as a JSON list in this order."""

    image: str  # a media id, or "" (an image by URL is in the JSON itself)
    series: int | None  # the series, when a viewer may be kept from its lines
    lines: list  # the series' lines, then
    venues: list  # the linked ids, by ``LinkKind``, in link order
    organizers: list
    terms: list

    def links(self) -> Iterator[tuple[LinkKind, int]]:
        """Its linked items as ``links_of`` names them: ``(kind, id)``."""
        return chain(
            zip(repeat(_VENUE_LINK), self.venues),
            zip(repeat(_ORGANIZER_LINK), self.organizers),
            zip(repeat(_TERM_LINK), self.terms),
        )


# The kinds of links as plain names: an attribute of an enum class costs a lookup of its
# own (0.3 us), and a page of stored texts reads them a hundred times.
_VENUE_LINK, _ORGANIZER_LINK, _TERM_LINK = LinkKind.VENUE, LinkKind.ORGANIZER, LinkKind.TERM


def own_texts(events, links: dict, site_tz: str) -> dict[int, tuple[str, str]]:
    """What store/texts.py keeps of each event, made by ``event_out`` itself: the event's
    JSON up to its linked items, with the stand-ins above; and as ``extra`` what a read
    needs of its row and links (``StoredExtra``). A published event without a password only: the others are
    rendered afresh, for their viewer (``("", "")``), as is an event whose own texts hold
    one of the stand-ins."""
    ctx = RenderContext(site=_SITE, ns=_NS, host=_HOST, viewer=ANONYMOUS, site_tz=site_tz)
    preload_images(ctx, events)  # not stored, but event_out reads them: one query
    made = {}
    for event in events:
        if event.status != "publish" or event.password:
            made[event.id] = ("", "")
            continue
        media = media_store.is_media_id(event.image)
        series = bool(event.recurrence) and event.post_parent is not None
        data = event_out(event, Relations(), ctx)
        if media:
            data["image"] = _IMAGE
        if series:
            data["recurrence"] = _LINES
        for name in _LINKED:
            del data[name]
        text = dumps(data)[:-1]  # the linked items and the closing brace are spliced
        expected = (2, 1 + (event.website is None), 1, int(media), int(series))
        if tuple(text.count(stand_in) for stand_in, _raw in _ESCAPED) != expected:
            made[event.id] = ("", "")  # a stand-in within the event's own texts
            continue
        for stand_in, raw in _ESCAPED:
            text = text.replace(stand_in, raw)
        kinds: tuple[list, list, list] = ([], [], [])
        for kind, item in links.get(event.id, []):
            kinds[kind].append(item)
        extra = StoredExtra(
            event.image if media else "",
            event.post_parent if series else None,
            event.recurrence.split("\n") if series else [],
            *kinds,
        )
        made[event.id] = (text.decode(), dumps(list(extra)).decode())
    return made


# Each stand-in as orjson writes it (the image and the lines as the whole value), and the
# raw character a stored text holds instead.
_ESCAPED = tuple(
    (
        b'"' + dumps(stand_in)[1:-1] + b'"'
        if stand_in in (_IMAGE, _LINES)
        else dumps(stand_in)[1:-1],
        stand_in.encode(),
    )
    for stand_in in (_HOST, _SITE, _NS, _IMAGE, _LINES)
)


def texts_maker():
    """For store/texts.py: the key and the maker of the stored texts of the app at work
    (its site timezone), or None outside any app."""
    if not has_app_context():
        return None
    site_tz = current_app.config["SITE_TIMEZONE"]
    return stored_texts_key(site_tz), lambda events, links: own_texts(events, links, site_tz)


@lru_cache(maxsize=16)
def stored_texts_key(site_tz: str) -> str:
    """What ``own_texts`` makes a text with: the site's timezone, the time zone data (its
    abbreviations) and the code of the members' shapes and formats (this module,
    rules/dates.py, store/posts.py, rules/posts.py, rules/text.py, app/jsonresponse.py)."""
    digest = hashlib.sha256(f"{site_tz}|{_tzdata_version()}".encode())
    modules = (
        sys.modules[__name__],
        dates_module,
        posts_module,
        rules_posts_module,
        text_module,
        jsonresponse_module,
    )
    for module in modules:
        with open(module.__file__, "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()[:16]


def _tzdata_version() -> str:
    """The versions of the time zone data ``zoneinfo`` may read: the system's and the
    ``tzdata`` package's."""
    found = []
    for folder in zoneinfo.TZPATH:
        try:
            with open(os.path.join(folder, "tzdata.zi"), encoding="utf-8") as data:
                found.append(data.readline().strip())
        except OSError:
            continue
    try:
        found.append(importlib.metadata.version("tzdata"))
    except importlib.metadata.PackageNotFoundError:
        pass
    return ",".join(found)


def stored_event_parts(body: str, extra: StoredExtra, linked: dict, ctx) -> tuple:
    """The JSON text ``event_out`` makes for a listing (``ctx.single`` false), from the
    stored ``body`` and ``extra`` of ``own_texts`` and the page's ``linked_texts``, as
    ``(parts, bytes of its own)``: the text is ``b"".join(parts)``
    (tests/test_stored_texts.py holds it equal to ``event_out``'s, byte for byte). The
    request's host, site and namespace replace their stand-ins, then the image and the
    series' lines when they have one, then the linked rows' texts as ``RenderMemo`` keeps
    them (shared, not copied: ``EventTexts``) follow, in the order ``dumps`` writes the
    members of ``event_out``."""
    image, series, lines, venue_ids, organizer_ids, term_ids = extra
    own = body.encode()
    for raw, value in ctx.stand_ins:
        own = own.replace(raw, value)
    if image:
        own = own.replace(_IMAGE_RAW, dumps(image_out(image, ctx)))
    if series is not None:
        own = own.replace(_LINES_RAW, dumps(lines if series not in ctx.hidden_series else []))
    parts = [own]
    categories, tags = [], []
    if term_ids:
        terms = _shown(linked, _TERM_LINK, term_ids)
        if len(terms) > 1:
            terms.sort(key=_term_order)  # by name, as ``wp_get_post_terms`` gives them
        for category, _order, text in terms:
            (categories if category else tags).append(text)
    _splice(parts, _CATEGORIES, categories)
    _splice(parts, _TAGS, tags)
    venues = _shown(linked, _VENUE_LINK, venue_ids)
    if len(venues) == 1:  # one venue is the object itself, as event_out writes it
        parts += (_VENUE, venues[0])
    else:
        _splice(parts, _VENUES, venues)
        parts.append(_LIST_END)
    _splice(parts, _ORGANIZERS, _shown(linked, _ORGANIZER_LINK, organizer_ids))
    parts.append(_END)
    # What the entry holds of its own: a linked text past ``SHARED_UP_TO`` counts as its
    # own too, so that long venue descriptions cannot swell what the bound leaves uncounted.
    large = 0
    for part in parts[1:]:
        if len(part) > SHARED_UP_TO:
            large += len(part)
    return tuple(parts), len(own) + large + 8 * len(parts) + 100  # + the tuple's pointers


_IMAGE_RAW, _LINES_RAW = _IMAGE.encode(), _LINES.encode()


def _shown(linked: dict, kind: LinkKind, ids: list) -> list:
    """The texts ``linked`` holds for the items ``ids`` of ``kind``, those left out (None)
    left out: a text is never empty (a JSON value), a term's is a tuple."""
    return list(filter(None, map(linked.__getitem__, zip(repeat(kind), ids))))


_term_order = itemgetter(1)  # a term's (is a category, order by name, text)


def linked_texts(ctx: RenderContext, links) -> dict:
    """What a listing shows of each of ``links`` (``(kind, id)``, store/events.py
    ``links_of``) for ``ctx``'s way of seeing: the text of a venue or an organizer, None
    when it is left out (gone, trashed, or not the viewer's to read: ``may``); for a term, ``(is a category, order by name, text)`` with its count of
    published events, None when it is gone. Made once per data version, way of seeing and
    publication epoch (a scheduled venue reaching its date shows, a scheduled event's
    moves its terms' counts): a page of events reads each link in one step."""
    epoch = publication_epoch()
    return _MEMO.many(
        ctx.version,
        ("link", ctx.view, epoch),
        links,
        lambda missing: _linked_texts(ctx, missing),
        keep=lambda: publication_epoch() == epoch,
    )


def _linked_texts(ctx: RenderContext, links: list) -> dict:
    viewer = ctx.viewer
    readable = {
        link: row
        for link, row in linked_rows(links).items()
        if row is not None and (link[0] == LinkKind.TERM or may_read(viewer, row))
    }
    counts = published_counts([item for kind, item in readable if kind == LinkKind.TERM])
    preload_images(ctx, [row for (kind, _item), row in readable.items() if kind != LinkKind.TERM])
    made: dict = {}
    for (kind, item), row in readable.items():
        if kind == LinkKind.TERM:
            text = kept(dumps(term_embedded(row, ctx, counts.get(item, 0))))
            made[(kind, item)] = (row.taxonomy == "category", by_name(row), text)
        else:
            made[(kind, item)] = kept(dumps((venue_out, organizer_out)[kind](row, ctx)))
    return made


# A linked text up to this size is counted as shared by the entries of ``EventTexts``.
SHARED_UP_TO = 4096
# The members after the series' lines, as ``dumps`` writes them: each list's opening
# (closing the list before it), its items parted by commas; the last list closes the object.
_CATEGORIES = b',"categories":['
_TAGS = b'],"tags":['
_VENUE = b'],"venue":'
_VENUES = b'],"venue":['
_ORGANIZERS = b',"organizer":['
_LIST_END = b"]"
_END = b"]}"
_COMMA = b","


def _splice(parts: list, opening: bytes, items: list) -> None:
    parts.append(opening)
    if items:
        parts.append(items[0])
        for item in items[1:]:
            parts += (_COMMA, item)


class ParsedLinks(VersionMemo):
    """The values of linked texts (``linked_texts``) as ``parsed_event`` read them, by
    text, per data version: a page's events share a few venues, organizers and terms, and
    reading them again for each event was most of parsing a list page's events. An entry
    is ``(bytes counted, value)``: a parsed text takes about four times its length, and
    its key the text's own when ``RenderMemo`` has dropped it."""

    MAX_ENTRIES = 2048
    MAX_BYTES = 1024 * 1024

    def size_of(self, value) -> int:
        return value[0]


PARSED_LINKS = ParsedLinks()


def parsed_event(parts: tuple, version) -> dict:
    """The value of the text ``b"".join(parts)`` (an entry of ``EventTexts``), as
    ``orjson.loads`` reads it: spliced parts (``stored_event_parts``) piece by piece, the
    event's own members, then each linked item as the value ``PARSED_LINKS`` keeps,
    shared with every event and page that shows it (copying them took half of what the
    memo saves): a page never writes into a linked item (``app/pages::_link_items``
    links copies)."""
    if len(parts) == 1:
        return orjson.loads(parts[0])
    event = orjson.loads(parts[0] + b"}")
    kept_value = PARSED_LINKS.entries_for(version).get
    made = []
    listed = None  # the list the next item goes to; None: it is the venue itself
    for part in parts[1:]:
        if part[0] == _ITEM:
            found = kept_value(part)
            if found is None:
                found = (5 * len(part), orjson.loads(part))
                made.append((part, found))
            if listed is None:
                event["venue"] = found[1]
            else:
                listed.append(found[1])
        elif part is _VENUE:
            listed = None
        elif part in _OPENED:
            listed = event[_OPENED[part]] = []
    if made and version is not None:
        PARSED_LINKS.put_many(version, made)
    return event


_ITEM = ord("{")  # a linked text's first byte; the splice's own parts start with "," or "]"
_OPENED = {_CATEGORIES: "categories", _TAGS: "tags", _VENUES: "venue", _ORGANIZERS: "organizer"}


def _iso(local: str, tz) -> str:
    value = parse_stored(local)
    if tz is None:
        return value.isoformat() + "+00:00"
    offset = utc_offset(value, tz)
    return value.replace(tzinfo=None).isoformat() + _format_offset(offset)


def _format_offset(offset) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


SCHEMA_ORG = "http://schema.org"  # as the plugin writes it


# schema.org's priceCurrency is an ISO 4217 code: the plugin writes its default, USD, for
# every event; a price written with a symbol that names one currency ("12 €", "£5", "CHF 20")
# is offered in that currency. "$" and "kr" name several: the plugin's default stays.
_CURRENCY_CODES = {
    "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW", "₽": "RUB", "₺": "TRY",
    "₪": "ILS", "₴": "UAH", "₱": "PHP", "₫": "VND", "฿": "THB", "zł": "PLN", "Kč": "CZK",
    "Ft": "HUF", "R$": "BRL", "C$": "CAD", "CA$": "CAD", "A$": "AUD", "AU$": "AUD",
    "NZ$": "NZD", "HK$": "HKD", "US$": "USD", "Fr.": "CHF",
}  # fmt: skip


@lru_cache(maxsize=256)
def currency_code(symbol: str) -> str:
    """The ISO 4217 code of a price's currency symbol (a code written as the symbol, "CHF",
    is taken as it is), the plugin's default USD when the symbol names none or several."""
    from babel.numbers import list_currencies  # its data read on the first priced event

    if symbol in list_currencies():
        return symbol
    return _CURRENCY_CODES.get(symbol, "USD")


def event_ld(data: dict, tz) -> dict:
    """schema.org's Event from an event's representation (not masked): the API's single
    reads carry it, the public pages show it for the events they list."""
    ld = {
        "@context": SCHEMA_ORG,
        "@type": "Event",
        "name": data["title"],
        "description": html_text(data["excerpt"] or data["description"]),
    }
    if data["image"]:  # before the url, as the plugin's JSON_LD Abstract sets it
        ld["image"] = data["image"]["url"]
    ld |= {
        "url": data["url"],
        "eventAttendanceMode": "https://schema.org/OfflineEventAttendanceMode",
        "eventStatus": "https://schema.org/EventScheduled",
        "startDate": _iso(data["start_date"], tz),
        "endDate": _iso(data["end_date"], tz),
    }
    venues = data["venue"] if isinstance(data["venue"], list) else [data["venue"]]
    # A single read's venue and organizer carry their own ``json_ld``, made of the same
    # members (``venue_out``, ``organizer_out``): taken as they are; {} (masked) or none
    # (a listing's) made here.
    if venues:
        ld["location"] = venues[0].get("json_ld") or place_ld(venues[0])
    if data["organizer"]:
        organizer = data["organizer"][0]
        ld["organizer"] = organizer.get("json_ld") or person_ld(organizer)
    values = data["cost_details"]["values"]
    if values:
        ld["offers"] = {
            "@type": "Offer",
            "price": values[0],
            "priceCurrency": currency_code(data["cost_details"]["currency_symbol"]),
            "url": data["url"],
            "category": "primary",
            "availability": "inStock",
            # The publication day at midnight, as the reference writes it (samples/event-get.json)
            "validFrom": f"{data['date'][:10]}T00:00:00+00:00",
        }
    ld["performer"] = "Organization"
    return ld
