"""What the public pages show, read through the API's own read path (SPEC §15).

Every page reads as an anonymous caller of the API does: the same filters
(``app/reading/filters.py::event_filters``), the same visibility and masking
(``store/events.py::list_events``, ``event_texts``), the same representations (the JSON of
``app/render.py``). Nothing here decides who may see what; a page never depends on who is
signed in, so one cached copy serves everyone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache

import orjson
from flask import current_app
from markupsafe import Markup, escape
from marshmallow import ValidationError

from app.auth import may_read, readable_by
from app.errors import ApiError
from app.pages.formatting import told_apart
from app.reading import feed
from app.reading.filters import event_filters
from app.reading.texts import (
    event_values,
    linked_data,
    read_event_dict,
    script_safe,
    single_read_refusal,
)
from app.render import SCHEMA_ORG, is_masked, organizer_out, render_context, venue_out
from rules import dates
from rules.clock import utcnow
from rules.ids import is_digits
from schemas.fields import Flag
from store.events import Span, events_of_slug_on_day, get_event, get_event_by_slug, list_events
from store.events import events_by_day as store_events_by_day
from store.events import neighbours as store_neighbours
from store.imported import former_slug_owner
from store.linked import (
    LinkedFilters,
    get_linked,
    get_linked_by_slug,
    items_of_origin,
    list_linked,
    origins_of_post,
)
from store.memo import MEMO, current_version
from store.recurrence import has_overrides
from store.terms import find_term, term_by_slug, terms_by_name
from store.users import ANONYMOUS

# An older dashed slug names its item on a page only when a visitor may read it
# (store/posts.py::found_by_slug).
VISITOR_READS = readable_by(ANONYMOUS)

# The filters a visitor may set on the list, month and day views, with the API's meaning.
FILTERS = ("search", "categories", "tags", "venue", "organizer")
# Most events a day view reads (the cost of a page is never the whole calendar).
MOST_IN_A_VIEW = 500
# Most events a day page places itself (``spans_between``; a month grid's days are counted
# by the store, ``events_by_day``): its last hours are empty only past this many events in
# three days.
MOST_SPANS = 20_000


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The names a query's filters may come by (``Filters.from_query``).
_FILTER_NAMES = frozenset(
    name for base in (*FILTERS, "tribe-bar-search", "featured") for name in (base, f"{base}[]")
)


class NotFound(LookupError):
    """Nothing an anonymous caller of the API may read answers to this address."""


class BadRequest(ValueError):
    """An address that names no page (a date that is none, a page number out of range)."""


class UnknownFilter(BadRequest):
    """A filter of the address names nothing an anonymous caller may read (a category
    deleted since the link was made): the filter (``name``) and the ``value``."""

    def __init__(self, name: str, value: str):
        super().__init__(name)
        self.name = name
        self.value = value


class BadFlag(BadRequest):
    """A yes-or-no of the address (``featured``) that is neither (the API refuses it too)."""


class BadChoice(BadRequest):
    """A choice of the address (an editor's list's ``status``) that is none of those its
    page offers: named, as a bad yes-or-no is, rather than shown as no choice at all."""


def flag_of(name: str, raw: str | None) -> bool | None:
    """A yes-or-no of a page's query as the API reads it (``schemas.fields.Flag``: true,
    false, 1 or 0, so that ``featured=0`` lists what the API lists); None when absent or
    left empty."""
    if raw is None or not raw.strip():
        return None
    try:
        return Flag().deserialize(raw)
    except ValidationError:
        raise BadFlag(name) from None


@dataclass
class Filters:
    """A visitor's filters, as the form and the query string name them."""

    search: str = ""
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    venue: list[str] = field(default_factory=list)
    organizer: list[str] = field(default_factory=list)
    # The Events Calendar's featured events list (``/events/featured/``), the API's
    # ``featured``: True, only featured events; False, only the others; None, all.
    featured: bool | None = None

    @classmethod
    def from_query(cls, query) -> Filters:
        """The filters of a query string; a control character in one (which the API
        refuses too) names no page."""

        def values(name):
            found = []
            for raw in query.getlist(name) + query.getlist(f"{name}[]"):
                found.extend(part.strip() for part in raw.split(",") if part.strip())
            return found[:20]

        if _FILTER_NAMES.isdisjoint(query):  # most pages: no filter asked
            return cls()
        for name in (*FILTERS, "tribe-bar-search"):
            for raw in query.getlist(name) + query.getlist(f"{name}[]"):
                if _CONTROL.search(raw):
                    raise BadRequest(name)
        search = (query.get("search") or query.get("tribe-bar-search") or "").strip()[:200]
        return cls(
            search=search,
            categories=values("categories"),
            tags=values("tags"),
            venue=values("venue"),
            organizer=values("organizer"),
            featured=flag_of("featured", query.get("featured")),
        )

    def query(self) -> dict:
        """The filters as query parameters (what a link to another view keeps)."""
        out: dict = {}
        if self.search:
            out["search"] = self.search
        for name in FILTERS[1:]:
            if getattr(self, name):
                out[name] = ",".join(getattr(self, name))
        if self.featured is not None:
            out["featured"] = int(self.featured)
        return out

    def api_args(self) -> dict:
        """The filters as the API's listing arguments; linked items named by slug are
        looked up (only those an anonymous caller may read)."""
        args: dict = {}
        if self.search:
            args["search"] = self.search
        if self.categories:
            args["categories"] = self.categories
        if self.tags:
            args["tags"] = self.tags
        if self.featured is not None:
            args["featured"] = self.featured
        for kind in ("venue", "organizer"):
            ids = [_linked_id(kind, value) for value in getattr(self, kind)]
            if ids:
                args[kind] = ids
        return args


def _linked_id(kind: str, value: str) -> int:
    if is_digits(value):
        return int(value)
    item = get_linked_by_slug(kind, value, VISITOR_READS)
    if item is None or not may_read(ANONYMOUS, item):
        raise UnknownFilter(kind, value)
    return item.id


def filter_name(kind: str, value: str) -> str:
    """What a list's title calls the tag or the organizer (``kind``) it is filtered by: its
    name, by id or slug, one look-up for a filter a visitor asked (the form offers neither,
    so no list of names is at hand); the value itself when it names nothing an anonymous
    caller may read (the list answers that filter's 400)."""
    if kind == "tags":
        term = find_term(value, "tag")
        return term.name if term is not None else value
    item = (
        get_linked(kind, int(value))
        if is_digits(value)
        else get_linked_by_slug(kind, value, VISITOR_READS)
    )
    return item.title if item is not None and may_read(ANONYMOUS, item) else value


def _utc(moment: datetime) -> str:
    """A UTC moment as a filter value with its offset (filters without one are read in the
    site's timezone)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + "Z"


def _filters(api_args: dict, limit: int):
    try:
        return _api_filters(api_args, limit)
    except ApiError as error:  # the API's 400 (an unknown category, venue…)
        if error.status == 400:
            raise _refused(api_args, error) from None
        raise


def _api_filters(api_args: dict, limit: int):
    args = {"per_page": limit, "page": 1, "strict_dates": True, **api_args}
    return event_filters(args, ANONYMOUS)[0]


def _refused(api_args: dict, error: ApiError) -> BadRequest:
    """What the API's 400 for ``api_args`` refused: the first value of a filter it names
    that the API refuses on its own (``UnknownFilter``), else a bad request."""
    named = error.data.get("params") or {}
    for name in FILTERS[1:]:
        if name not in named:
            continue
        for value in api_args.get(name, ()):
            try:
                _api_filters({name: [value]}, 1)
            except ApiError:
                return UnknownFilter(name, str(value))
    return BadRequest(str(error))


def events_of(
    api_args: dict, offset: int, limit: int, count: bool = True
) -> tuple[list[dict], int | None]:
    """A page of the events an anonymous ``GET {ns}/events`` with ``api_args`` lists, as
    its representations, and the listing's total (None, when not ``count``ed, unless the
    page holds the whole listing: store/events.py::list_events)."""
    ids, total = _listed(api_args, offset, limit, "ids", count)
    return representations(ids), total


def representations(ids: list[int]) -> list[dict]:
    """The events ``ids`` as the anonymous API shows them (those it may not show, or that a
    write removed since they were listed, left out)."""
    return event_values(ids, ANONYMOUS)  # as the API sends them


def events_ld(ids: list[int], shown: list[dict] = ()) -> list[Markup]:
    """The JSON-LD (schema.org ``Event``s) of the events ``ids`` as the anonymous API shows
    them, none for those masked by a password: a list, month or day view carries those
    of the events it shows (SPEC §15), each ready for its ``<script>`` element. ``shown``:
    their ``representations`` the page has (what a page adds to them, keys starting
    with ``_``, is not read), not read and parsed again for those not yet made."""
    parsed = {event["id"]: event for event in shown}
    return [Markup(text) for text in linked_data(ids, ANONYMOUS, parsed)]


def ld_script(json_ld: dict) -> list[Markup]:
    """An item's own ``json_ld`` (an event, venue or organizer page) as ``events_ld`` gives
    theirs; none when it has none. A page's JSON-LD names its vocabulary: the API's venue
    and organizer objects, made to stand inside an event's, do not (the plugin's shape)."""
    if not json_ld:
        return []
    if "@context" not in json_ld:
        json_ld = {"@context": SCHEMA_ORG, **json_ld}
    return [Markup(script_safe(orjson.dumps(json_ld)))]


def _listed(
    api_args: dict, offset: int, limit: int, only: str, count: bool = True
) -> tuple[list, int | None]:
    """The ids or ``Span``s (``only``) of a page of the listing, and its total."""
    return list_events(_filters(api_args, limit), ANONYMOUS, offset, limit, only=only, count=count)


def upcoming(filters: Filters, page: int, size: int, now: datetime) -> tuple[list[dict], bool]:
    """Events not yet ended, soonest first, every occurrence of a series as the API's
    listing holds it (SPEC §12, §15), and whether more follow the page (read as one more
    event: the pages show no total, and counting every upcoming event costs more than the
    page)."""
    args = {**filters.api_args(), "ends_after": _utc(now)}
    ids, _total = _listed(args, (page - 1) * size, size + 1, "ids", count=False)
    return representations(ids[:size]), len(ids) > size  # the one more is not shown


def past(filters: Filters, page: int, size: int, now: datetime) -> tuple[list[dict], int]:
    """Events that have ended, latest first, every occurrence as the API lists it: the
    listing's pages read from its end."""
    args = {**filters.api_args(), "ends_before": _utc(now)}
    _none, total = events_of(args, 0, 1)
    end = total - (page - 1) * size
    if end <= 0:
        return [], total
    start = max(end - size, 0)
    events, total = events_of(args, start, end - start)
    return list(reversed(events)), total


def spans_between(filters: Filters, first: datetime, last: datetime) -> list[Span]:
    """When the events overlapping [first, last) take place, soonest first: the month grid
    and the day page place them all and read the representations of those they show only."""
    return _listed(_between_args(filters, first, last), 0, MOST_SPANS, "spans")[0]


def events_by_day(filters: Filters, first: date, last: date, most: int):
    """For each of the site's days [first, last], how many events are on it and the first
    ``most`` of them (``Shown``: what the grid shows of each), as ``spans_between`` places
    them, counted by the store without reading the others (a month of a large calendar
    holds thousands)."""
    bounds = day_starts(first, (last - first).days + 4, -1)
    # The listing without dates: the store bounds it by the days (its window's two dates,
    # read and checked as the API reads them, were a twentieth of a month page).
    return store_events_by_day(_filters(filters.api_args(), most), ANONYMOUS, first, bounds, most)


def day_starts(first: date, count: int, offset: int = 0) -> list[str]:
    """Where each of the ``count`` site's days from ``offset`` days after ``first`` begins,
    in UTC as stored dates are written (their text sorts as their time)."""
    zone = current_app.config["SITE_TIMEZONE"]
    ordinal = first.toordinal() + offset
    return [_day_start_text(ordinal + n, zone) for n in range(count)]


def day_start(first: date, offset: int = 0) -> datetime:
    """Where the site's day ``offset`` days after ``first`` begins, in UTC, within the
    moments a page can show (``_moments_shown``): a bound of the listings around the first
    and last days stored."""
    zone = current_app.config["SITE_TIMEZONE"]
    text = _day_start_text(first.toordinal() + offset, zone)
    low, high = _moments_shown(zone)
    return high if text == dates.AFTER_ALL else min(max(dates.parse_stored(text), low), high)


@lru_cache(maxsize=64)
def _moments_shown(zone: str) -> tuple[datetime, datetime]:
    """The first and last UTC moments whose time in ``zone`` has a year of four digits, as
    a stored date has in UTC too: a listing's bounds past them could not be read in the
    site's zone (an event beyond them is on no day the pages show there)."""
    tz = dates.resolve_timezone(zone)[0]
    first = datetime.combine(dates.FIRST_DAY, datetime.min.time())
    last = datetime.combine(dates.LAST_DAY, datetime.max.time()).replace(microsecond=0)
    bounds = []
    for moment, fallback, pick in ((first, first, max), (last, last, min)):
        try:
            bounds.append(pick(fallback, dates.local_to_utc(moment, tz)))
        except (dates.DateError, OverflowError, ValueError):  # that side of UTC: UTC's own
            bounds.append(fallback)
    return bounds[0], bounds[1]


@lru_cache(maxsize=4096)
def _day_start_text(ordinal: int, zone: str) -> str:
    """Where the day ``ordinal`` (``date.toordinal``) begins in ``zone`` (the site's), in
    UTC as stored dates are written: a grid asks for 38 to 45 of them (a pure function of
    few values). A day (or its start in UTC) past the years stored is bounded by the text
    before or after them all (``dates.BEFORE_ALL``, ``AFTER_ALL``): the pages show the
    first and last days stored, and reach a day or two around them."""
    if ordinal > dates.LAST_DAY.toordinal() + 1:
        return dates.AFTER_ALL
    if ordinal < dates.FIRST_DAY.toordinal():
        return dates.BEFORE_ALL
    day = date.fromordinal(min(ordinal, dates.LAST_DAY.toordinal()))
    past_the_last = ordinal > dates.LAST_DAY.toordinal()  # no date, but perhaps a UTC moment
    try:
        start = dates.local_to_utc(
            datetime.combine(day, datetime.min.time()), dates.resolve_timezone(zone)[0]
        )
        return dates.fmt(start + timedelta(days=1) if past_the_last else start)
    except (dates.DateError, OverflowError, ValueError):
        return dates.BEFORE_ALL if day.year == dates.FIRST_DAY.year else dates.AFTER_ALL


def _between_args(filters: Filters, first: datetime, last: datetime) -> dict:
    return {
        **filters.api_args(),
        "ends_after": _utc(first),
        "starts_before": _utc(last - timedelta(seconds=1)),
    }


def event_row(slug: str):
    """The stored event of ``slug`` (NotFound: none)."""
    event = get_event_by_slug(slug, VISITOR_READS)
    if event is None:
        raise NotFound(slug)
    return event


def event_page(slug: str, password: str | None) -> tuple[dict, bool]:
    """The event of ``slug`` as its single read shows it to an anonymous caller (with
    ``password`` when one was given), and whether it is locked (protected, no password)."""
    event = event_row(slug)
    data = read_event_dict(event, ANONYMOUS, password)
    if data is None:
        raise NotFound(slug)
    return data, is_masked(data)


def renamed_event_slug(slug: str) -> str:
    """The slug now of the imported event whose source renamed it from ``slug``, when an
    anonymous visitor may read it (NotFound: none)."""
    local = former_slug_owner("event", slug)
    event = get_event(local) if local else None
    if event is None or event.slug == slug or read_event_dict(event, ANONYMOUS, None) is None:
        raise NotFound(slug)
    return event.slug


def event_feed(event, password: str):
    """The feed of ``event`` as the API's single read answers it to an anonymous caller
    with ``password`` (NotFound: one it refuses, as ``event_page``)."""
    if single_read_refusal(event, ANONYMOUS, password) is not None:
        raise NotFound(event.slug)
    return feed.event_feed(event, ANONYMOUS, password)


def occurrence_slug(slug: str, day: date) -> str:
    """The slug of the event an address of The Events Calendar Pro names by its series'
    slug and a date (``/event/{slug}/{day}/``): of this calendar's series, that date's
    occurrence (``{slug}-{day}``); of an imported one, the event of that slug (numbered
    ``-2``, ``-3``… as the import numbers slugs taken) starting that day."""
    text = f"{day:%Y-%m-%d}"

    def rank(event) -> int:
        rest = event.slug[len(slug) :] if event.slug.startswith(slug) else "?"  # LIKE's case
        if rest == f"-{text}":
            return 0
        return 1 if rest == "" or re.fullmatch(r"-[0-9]+", rest) else 2

    found = sorted(events_of_slug_on_day(slug, day), key=rank)
    for event in found:
        if rank(event) < 2 and read_event_dict(event, ANONYMOUS, None) is not None:
            return event.slug
    raise NotFound(slug)


def readable_of_origin(origins: list[str]) -> tuple[str, str] | None:
    """(kind, slug) of the first item imported from one of ``origins`` (store/linked.py::
    items_of_origin) whose page an anonymous visitor may open, events first; else None."""
    for kind, item in items_of_origin(origins):
        if kind == "event":
            readable = read_event_dict(item, ANONYMOUS, None) is not None
        else:
            readable = may_read(ANONYMOUS, item)
        if readable:
            return kind, item.slug
    return None


def readable_of_post(number: int, hosts: set[str]) -> tuple[str, str] | None:
    """(kind, slug) of the item a moved site knew as post ``number``, as
    ``readable_of_origin`` finds it: at one of ``hosts`` (where this service is reached), else
    at any host when a single moved site had that post, so that a shortlink still leads to
    the item when it arrives under the old name's twin (``www.`` or not, ``localhost`` for
    ``127.0.0.1``), as the import takes them for one site; None when two sites had it."""
    found = readable_of_origin([f"{host}?id={number}" for host in hosts])
    if found is None:
        origins = origins_of_post(number)
        if len(origins) == 1:
            found = readable_of_origin(list(origins))
    return found


def linked_page(kind: str, slug: str) -> dict:
    """The venue or organizer of ``slug``, as the API shows it to an anonymous caller."""
    item = get_linked_by_slug(kind, slug, VISITOR_READS)
    if item is None or not may_read(ANONYMOUS, item):
        raise NotFound(slug)
    render = venue_out if kind == "venue" else organizer_out
    return render(item, render_context(ANONYMOUS, single=True))


def renamed_linked_slug(kind: str, slug: str) -> str:
    """The slug now of the imported venue or organizer whose source renamed it from
    ``slug``, when an anonymous visitor may read it (NotFound: none), as ``renamed_event_slug``."""
    local = former_slug_owner(kind, slug)
    item = get_linked(kind, local) if local else None
    if item is None or item.slug == slug or not may_read(ANONYMOUS, item):
        raise NotFound(slug)
    return item.slug


def term_page(taxonomy: str, slug: str):
    # By its slug only (not its id or name), whatever the case of the address, as an
    # event's or a venue's page.
    term = term_by_slug(slug, taxonomy)
    if term is None:
        raise NotFound(slug)
    return term


def site_today() -> date:
    return site_now().date()


def site_now() -> datetime:
    """Now as a wall-clock time in the site's timezone."""
    tz = dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0]
    return dates.utc_to_local(utcnow().replace(tzinfo=None), tz)


def to_utc(local: datetime) -> datetime:
    """A wall-clock time of the site's timezone in UTC (naive); a time no zone can place
    (the edges of the years we keep) names no page."""
    tz = dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0]
    try:
        return dates.local_to_utc(local, tz)
    except (dates.DateError, OverflowError, ValueError):
        raise BadRequest("date") from None


def occurrences(series_id: int, now: datetime, most: int = 6) -> list[dict]:
    """The next occurrences of a series (itself included when it has not ended)."""
    events, _total = events_of({"include": [series_id]}, 0, 1, count=False)
    following, _total = events_of(
        {"post_parent": series_id, "ends_after": _utc(now)}, 0, most, count=False
    )
    return [e for e in events if e["utc_end_date"] >= dates.fmt(now)] + following


def series_as_ruled(series_id: int) -> dict | None:
    """The first occurrence of a series (the series itself) as the anonymous API shows it,
    when every occurrence is as the series' rule makes it: None when one was edited on its
    own (its own dates or texts), or when the series is not to be read."""
    if has_overrides(series_id):
        return None
    found = representations([series_id])
    return found[0] if found else None


def neighbours(event: dict) -> tuple[Span | None, Span | None]:
    """The events listed just before and just after ``event`` (by start, then id, the
    listing's order) in the anonymous API's listing of any dates, as their spans (a page
    links them by title). Those starting at the same moment lead to each other: skipping
    them left them out of the chain of links."""
    return store_neighbours(_any_dates(), ANONYMOUS, event["utc_start_date"], event["id"])


@lru_cache(maxsize=1)
def _any_dates():
    """The filters of the anonymous API's listing of any dates: a relative bound alone
    (no default window), which ``neighbours`` drops, reading from an event's place both
    ways. The same for every page (the bound is in UTC), so read once; never changed
    (the store replaces what it drops). A day short of the last the calendar keeps: the
    API reads a filter in the site's zone too, and 9999-12-31T23:59:59Z is in the year
    10000 east of UTC (every event page was a 400 there)."""
    return _filters({"starts_before": "9999-12-30T00:00:00Z"}, 1)


# Most choices of each kind the filter form offers (a large site's visitors search instead).
MOST_CHOICES = 200


@dataclass(frozen=True)
class Choice:
    """One choice of the filter form: its slug (the value sent; its id when the slug is
    digits, which a filter reads as an id), its id (a link may name it by id) and its
    name, escaped once for every page of the version."""

    slug: str
    id: int
    name: str
    html: tuple[str, str, str]  # the escaped value, id and name


def form_choices() -> tuple[list[Choice], list[Choice]]:
    """The categories and the venues an anonymous caller may read, by name, that the filter
    form offers: read once per data version (they were half of a list page's cost)."""
    return MEMO.get(current_version(), ("page choices",), _read_choices)


def _read_choices() -> tuple[list[Choice], list[Choice]]:
    categories = [_choice(t.slug, t.id, t.name) for t in terms_by_name("category", MOST_CHOICES)]
    rows, _total = list_linked("venue", LinkedFilters(), ANONYMOUS, 0, MOST_CHOICES, count=False)
    # Two venues of one name told apart as the editor's form does, by a city an anonymous
    # visitor may read (a protected venue's is masked: by its id then).
    labels = told_apart(rows, lambda row: "" if row.password else row.city.strip())
    venues = [
        _choice(row.slug, row.id, label) for row, (_id, label) in zip(rows, labels, strict=True)
    ]
    return categories, sorted(venues, key=lambda choice: choice.name.lower())


def filter_value(slug: str, ident: int) -> str:
    """What names an item in a filter (``?categories=``, ``?venue=``, the form's choices):
    its slug, or its id when the slug is digits, which a filter reads as an id (the API's
    rule: ``_linked_id``, ``resolve_filter_terms``)."""
    return str(ident) if is_digits(slug) else slug


def term_filter(taxonomy: str, slug: str) -> str:
    """What names the term of ``slug`` in a filter (``filter_value``): an old address of a
    term's view moved to ours with the term as a filter; the slug itself when no term has
    it (the view then says that it names none)."""
    term = term_by_slug(slug, taxonomy)
    return slug if term is None else filter_value(term.slug, term.id)


def _choice(slug: str, ident: int, name: str) -> Choice:
    value = filter_value(slug, ident)
    return Choice(slug, ident, name, (str(escape(value)), str(ident), str(escape(name))))


@dataclass(frozen=True)
class Select:
    """A choice of the filter form: its ``<option>`` elements, whether it lets several be
    chosen (more than one is: a single select would keep one of them), and the chosen
    values it does not offer, which the form keeps as hidden fields."""

    options: Markup
    multiple: bool = False
    unlisted: tuple[str, ...] = ()


def select(kind: str, choices: list[Choice], selected: list[str]) -> Select:
    """The filter form's choice of ``kind``, ``selected`` (by slug or id) chosen."""
    if not selected:  # most pages: nothing to look for among the choices
        return Select(options(kind, choices, selected))
    offered = {value for choice in choices for value in (choice.slug, str(choice.id))}
    unlisted = tuple(value for value in selected if value not in offered)
    return Select(options(kind, choices, selected), len(selected) > 1, unlisted)


def options(kind: str, choices: list[Choice], selected: list[str]) -> Markup:
    """The ``<option>`` elements of ``choices`` (of ``kind``), those named in ``selected``
    (by slug or id) selected: written here rather than in a template loop, which cost 4 ms
    a page; with none selected, once per data version."""
    if not selected:
        return MEMO.get(current_version(), ("page options", kind), lambda: _options(choices, ()))
    return _options(choices, selected)


def _options(choices: list[Choice], selected) -> Markup:
    chosen = set(selected)
    parts = [
        f'<option value="{slug}"{" selected" if slug in chosen or ident in chosen else ""}>'
        f"{name}</option>"
        for slug, ident, name in (choice.html for choice in choices)
    ]
    return Markup("".join(parts))
