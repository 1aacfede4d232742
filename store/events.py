"""Event queries: listing with every filter, single reads, saves, trash and delete."""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from enum import IntEnum
from functools import lru_cache, partial
from itertools import accumulate
from operator import itemgetter
from typing import NamedTuple

from cachetools import LRUCache
from peewee import JOIN, SQL, NodeList, Select, ValuesList, fn

from rules.clock import utcnow_str
from rules.dates import nth_day
from rules.geo import bounding_box, distance_km
from rules.ids import as_id
from rules.recurrence import is_occurrence, is_series
from rules.text import search_terms
from store.db import (
    TEXT_INDEX_MIN,
    contains_text,
    count_matching,
    data_version,
    database,
    day_before,
    insert_rows,
    is_postgres,
    matching_ids,
    matching_params,
    text_indexed,
    unindexed,
    write_transaction,
)
from store.errors import Vanished
from store.linked import create_linked
from store.models import (
    Event,
    EventDates,
    EventDay,
    EventOrganizer,
    EventTerm,
    EventText,
    EventVenue,
    Organizer,
    Term,
    Venue,
    live_value,
)
from store.posts import (
    found_by_slug,
    insert_named_post,
    last_end_by,
    listed_statuses,
    publication_epoch,
    readable_clause,
    rows_by_id,
    unique_slug,
    unmasked_clause,
    visible_clause,
)
from store.recurrence import (
    after_series_write,
    delete_occurrences,
    exclude_occurrence,
    trash_occurrences,
)
from store.sql import Literals, Shaped, Statement, in_list, instances, last_page_total, param
from store.terms import materialise_terms
from store.users import Viewer


@dataclass
class EventFilters:
    """Resolved listing filters; every date is a UTC ``YYYY-MM-DD HH:MM:SS`` string."""

    start_min: str | None = None  # start >= (start_date)
    end_max: str | None = None  # end <= (end_date)
    starts_before: str | None = None
    starts_after: str | None = None
    ends_before: str | None = None
    ends_after: str | None = None
    search: str | None = None
    category_ids: list[int] | None = None
    tag_ids: list[int] | None = None
    venue_ids: list[int] | None = None
    organizer_ids: list[int] | None = None
    featured: bool | None = None
    statuses: list[str] | None = None
    include: list[int] | None = None
    post_parent: int | None = None
    ticketed: bool | None = None
    geoloc: bool | None = None
    near: tuple[float, float, float] | None = None  # lat, lng, radius km
    password: str | None = None  # the listing's access password for protected events
    readable_only: bool = False  # leave out events whose fields this viewer may not read
    # A series once, as its earliest event the listing shows (the editor's lists).
    first_of_series: bool | None = None
    # The events hidden from listings too: "hide from listings" is about the public lists,
    # and the editor's lists are where such events are managed (SPEC §16).
    with_hidden: bool | None = None


def _search_clause(text: str, id_column, ref):
    """Every word of the search (``search_terms``) must appear in the title, the
    description or the excerpt, and no excluded one in any: the words long enough for the
    trigram index in one lookup, shorter ones by a scan, and the excluded ones tested on
    what the others found, folded as the index's words are (``-été`` leaves out "ÉTÉ", a
    decomposed "été" and "Été" alike, on both engines)."""
    words, excluded = search_terms(text)
    indexed = [word for word in words if text_indexed(word)]
    clause = None
    if indexed:
        size = len(matching_params("event_search", indexed))
        placeholders = [ref.raw(f"match.{n}") for n in range(size)]
        clause = id_column.in_(matching_ids("event_search", indexed, placeholders))
    # A word too short for the index is scanned with each engine's quickest test, one the
    # index would not find as ``contains_text`` does (a Georgian word, on SQLite) folded.
    scanned = [
        _in_texts(word, scan=len(word) < TEXT_INDEX_MIN) for word in words if not text_indexed(word)
    ]
    for part in scanned + [~_in_texts(word, scan=False) for word in excluded]:
        clause = part if clause is None else clause & part
    return clause


def _in_texts(word: str, scan: bool = True):
    return (
        contains_text(Event.title, word, scan=scan)
        | contains_text(Event.description, word, scan=scan)
        | contains_text(Event.excerpt, word, scan=scan)
    )


def _indexed_words(text: str) -> list[str]:
    return [w for w in search_terms(text)[0] if text_indexed(w)]


def _filtered(
    filters: EventFilters,
    viewer: Viewer,
    ref=None,
    *,
    page: bool = False,
    search_in_order: bool = False,
    from_links=(),
    tested_first=None,
):
    """The listing query: for a ``page`` (read in start order, the status column hidden
    from the planner), or for a count; ``search_in_order``: test each event met in start
    order against the search's matches rather than starting from them; ``from_links``:
    link tables whose few matching links a page starts from; ``tested_first``: a clause
    tested on each row before the rest (a day's bounds, which most rows met fail: half
    of a month grid's counting time). Values are read through
    ``ref`` (``_listing_values``), so that one build serves every request of its shape.

    Filters on fields that a password masks (terms, venue, organizer, featured, ticketed,
    geolocation, the text a search reads) see those fields as absent on events whose
    fields this viewer may not read (SPEC §10)."""
    ref = ref or Literals(_listing_values(filters, viewer))
    now, author = ref("now"), ref("viewer")
    status = unindexed(Event.status) if page else None
    query = Event.select()
    if tested_first is not None:
        query = query.where(tested_first)
    visible = visible_clause(Event, viewer, filters.statuses, status, now=now, author=author)
    if not filters.with_hidden:
        visible &= Event.hide_from_listings == False  # noqa: E712
    query = query.where(visible)
    password = ref("password") if filters.password else None
    clear = unmasked_clause(Event, viewer, password, author=author)

    def present(clause):  # the masked field has this value, and the viewer may know it
        return clause & clear

    def absent(clause):  # the masked field lacks this value, as far as the viewer knows
        return ~clause | ~clear

    if filters.readable_only:
        query = query.where(clear)
    if filters.include:
        query = query.where(Event.id.in_(ref.list("include", len(filters.include))))
    else:
        query = _within_dates(query, filters, ref)
    if filters.search:
        # As WordPress: a search does not look inside events the caller may not read.
        id_column = unindexed(Event.id) if search_in_order else Event.id
        query = query.where(present(_search_clause(filters.search, id_column, ref)))
    query = _masked_flags(query, filters, viewer, ref, present, absent)
    if filters.post_parent is not None:
        query = query.where(Event.post_parent == ref("post_parent"))
    query = _linked_to(query, filters, viewer, ref, present, page, from_links)
    if filters.first_of_series:
        query = query.where(~_earlier_in_series(filters, viewer, ref))
    return query


def _masked_flags(query, filters: EventFilters, viewer: Viewer, ref, present, absent):
    """``featured``, ``ticketed`` and having coordinates (``geoloc``, ``near``): fields a
    password masks, wanted ``present`` or ``absent`` as far as the viewer knows."""
    for flag in ("featured", "ticketed"):
        wanted = getattr(filters, flag)
        if wanted is not None:
            column = getattr(Event, flag)
            query = query.where(present(column == True) if wanted else absent(column == True))  # noqa: E712
    if filters.geoloc is not None or filters.near is not None:
        with_coords = _with_coordinates(viewer, ref("now"), ref("viewer"))
        wanted = filters.near is not None or filters.geoloc  # near: within the radius
        query = query.where(present(with_coords) if wanted else absent(with_coords))
    return query


# Each link table: the column of what it links an event to, and the model of it when a
# viewer's reading of that item decides whether the link counts (venues, organizers).
LINKS = {
    EventTerm: (EventTerm.term, None),
    EventVenue: (EventVenue.venue, Venue),
    EventOrganizer: (EventOrganizer.organizer, Organizer),
}


def _linked(link, name: str, size: int, viewer: Viewer, ref, tested: bool):
    """Events linked by ``link`` to one of the ``size`` ids of the filter ``name``:
    ``tested`` on each event met (a page, in start order), else counted from the links'
    index. A venue or organizer counts only when the event's representation would show it
    to this viewer: not trashed, and readable (SPEC §10)."""
    column, model = LINKS[link]
    ids = ref.list(name, size)
    links = link.select(link.event)
    condition = column.in_(ids)
    if model is not None:
        links = links.join(model, on=(column == model.id))
        condition &= (model.status != "trash") & visible_clause(
            model, viewer, now=ref("now"), author=ref("viewer")
        )
    if tested:
        return fn.EXISTS(links.where((link.event == Event.id) & condition))
    return Event.id.in_(links.where(condition))


def _linked_to(query, filters: EventFilters, viewer: Viewer, ref, present, page, from_links):
    """The term, venue and organizer filters of a listing."""
    for link, name in (
        (EventTerm, "category_ids"),
        (EventTerm, "tag_ids"),
        (EventVenue, "venue_ids"),
        (EventOrganizer, "organizer_ids"),
    ):
        ids = getattr(filters, name)
        if ids is not None:
            tested = page and link not in from_links
            query = query.where(present(_linked(link, name, len(ids), viewer, ref, tested)))
    return query


def _within_dates(query, filters: EventFilters, ref):
    """The listing's date bounds (its window, relative filters)."""
    if filters.start_min:
        query = query.where(Event.utc_start >= ref("start_min"))
    if filters.end_max:
        # An event never ends before it starts (prepare_event refuses it), so the end
        # bound also bounds the start: the index range stops at the window's end.
        end_max = ref("end_max")
        query = query.where((Event.utc_end <= end_max) & (Event.utc_start <= end_max))
    if filters.starts_before:
        query = query.where(Event.utc_start < ref("starts_before"))
    if filters.starts_after:
        query = query.where(Event.utc_start > ref("starts_after"))
    if filters.ends_before:
        ends_before = ref("ends_before")
        query = query.where((Event.utc_end < ends_before) & (Event.utc_start < ends_before))
    if filters.ends_after:
        query = query.where(Event.utc_end > ref("ends_after"))
        if not filters.with_hidden:  # ``event_day`` keeps listed events alone
            query = query.where(Event.utc_start >= _earliest_running(ref))
    return query


def _earliest_running(ref):
    """The earliest day a listed event still running on the day of ``ends_after`` starts
    (``event_day``, kept by triggers: any status, so it bounds every viewer's listing):
    the same events, but the index range in start order begins there instead of at the
    calendar's first event (an upcoming list, or a month, at 100,000 events walked every
    earlier event to test its end). None when no listed event ends that day or later,
    and then no event is listed, as none may be."""
    return EventDay.select(fn.MIN(EventDay.start_day)).where(
        (EventDay.end_day >= ref("ends_after.day")) & (EventDay.n > 0)
    )


def _earlier_in_series(filters: EventFilters, viewer: Viewer, ref):
    """An event of the same series (the series itself, or another of its occurrences) that
    starts before this one and that the listing would show too: visible to this viewer,
    listed, within the listing's date bounds and, when anything else filters the listing,
    matching it as well (``_in_listing``): an occurrence edited on its own may match a
    filter its series does not, and is then the first of its series that the listing
    shows."""
    other = Event.alias("other")
    now, author = ref("now"), ref("viewer")
    before = (other.utc_start < Event.utc_start) | (
        (other.utc_start == Event.utc_start) & (other.id < Event.id)
    )
    shown = (
        visible_clause(other, viewer, filters.statuses, now=now, author=author)
        & (other.recurrence != "")
        & before
    )
    if not filters.with_hidden:
        shown &= other.hide_from_listings == False  # noqa: E712
    for name, holds in (
        ("ends_after", lambda value: other.utc_end > value),
        ("ends_before", lambda value: other.utc_end < value),
        ("start_min", lambda value: other.utc_start >= value),
        ("end_max", lambda value: other.utc_end <= value),
        ("starts_after", lambda value: other.utc_start > value),
        ("starts_before", lambda value: other.utc_start < value),
    ):
        if getattr(filters, name):
            shown &= holds(ref(name))
    if _filters_beyond_dates(filters):
        shown &= _in_listing(filters, viewer, ref, other)
    series = Event.recurrence != ""
    the_series = other.select(SQL("1")).where((other.id == Event.post_parent) & shown)
    siblings = other.select(SQL("1")).where(
        (other.post_parent == fn.COALESCE(fn.NULLIF(Event.post_parent, 0), Event.id)) & shown
    )
    return series & (fn.EXISTS(the_series) | fn.EXISTS(siblings))


def _filters_beyond_dates(filters: EventFilters) -> bool:
    """Whether a filter other than the date bounds and the statuses (which
    ``_earlier_in_series`` tests itself) narrows the listing."""
    plain = {
        "start_min",
        "end_max",
        "starts_before",
        "starts_after",
        "ends_before",
        "ends_after",
        "statuses",
        "first_of_series",
    }
    return any(
        value is not None and value is not False and value != ""
        for name, value in vars(filters).items()
        if name not in plain
    )


def _in_listing(filters: EventFilters, viewer: Viewer, ref, other):
    """``other`` is an event the listing (every filter but ``first_of_series``) lists: the
    listing's own query, on that one event (its primary key)."""
    plain = replace(filters, first_of_series=None)
    listing = _filtered(plain, viewer, ref, page=True)
    return fn.EXISTS(listing.select(SQL("1")).where(Event.id == other.id))


def _with_coordinates(viewer: Viewer, now, author):
    """An event at a venue with coordinates that its representation shows this viewer."""
    return fn.EXISTS(
        EventVenue.select(EventVenue.event)
        .join(Venue, on=(EventVenue.venue == Venue.id))
        .where(
            (EventVenue.event == Event.id)
            & Venue.geo_lat.is_null(False)
            & (Venue.status != "trash")
            & readable_clause(Venue, viewer, now=now, author=author)
        )
    )


def _listing_values(filters: EventFilters, viewer: Viewer, **extra) -> dict:
    """The values ``_filtered`` reads through its ``ref``, by name: each filter (a list's
    items as ``name.0``, ``name.1``…), the clock, the viewer, the search's index terms."""
    values = {"now": utcnow_str(), "viewer": viewer.id, **extra}
    for name, value in vars(filters).items():
        if isinstance(value, list):
            values.update({f"{name}.{n}": item for n, item in enumerate(value)})
        else:
            values[name] = value
    if filters.ends_after:
        values["ends_after.day"] = filters.ends_after[:10]
    if filters.search:
        indexed = _indexed_words(filters.search)
        if indexed:
            params = matching_params("event_search", indexed)
            values.update({f"match.{n}": item for n, item in enumerate(params)})
    return values


def _shape(filters: EventFilters, viewer: Viewer) -> tuple | None:
    """What decides the text of ``_filtered``'s SQL: which filters are set, list lengths,
    flags, the viewer's role; ``None`` when the query is built afresh each time (a search
    with words too short for the index or excluded, whose scan reads the words as
    literals)."""
    shape = [viewer.role if viewer.logged_in else None]
    for name, value in vars(filters).items():
        if name == "search" and value:
            words, excluded = search_terms(value)
            if excluded or not all(text_indexed(word) for word in words):
                return None
            shape.append(len(matching_params("event_search", words)) if words else 0)
        elif name == "statuses":
            shape.append(tuple(value) if value is not None else None)
        elif value is None or isinstance(value, bool):
            shape.append(value)
        elif isinstance(value, list):
            shape.append(len(value))
        elif isinstance(value, str):  # ``_filtered`` tests text by truth: "" adds nothing
            shape.append(bool(value))
        else:  # numbers by presence: ``post_parent=0`` is a filter
            shape.append(True)
    return tuple(shape)


_LISTINGS = Shaped()


class Span(NamedTuple):
    """When a listed event takes place, all a calendar grid needs to place it, and what it
    shows of it (its title, linked by its slug)."""

    id: int
    all_day: bool  # as the engine gives it: 0/1 from SQLite
    start_date: str
    end_date: str
    utc_start: str
    utc_end: str
    title: str
    slug: str


class Shown(NamedTuple):
    """What a calendar grid shows of an event on one of its days (``events_by_day``, which
    placed it): whether it is all day, its start (the time it begins, on its first day),
    its title linked by its slug."""

    id: int
    all_day: bool  # as the engine gives it: 0/1 from SQLite
    utc_start: str
    title: str
    slug: str


# What the feed reads of its listed events to group their series (app/reading/feed.py):
# their JSON comes from event_texts, so their texts, descriptions included, are not read
# twice (a tenth of a 1,000-event feed).
FEED_COLUMNS = (
    Event.id,
    Event.utc_start,
    Event.status,
    Event.post_parent,
    Event.recurrence,
    Event.occurrence,
    Event.detached,
    Event.all_day,
    Event.start_date,
    Event.timezone,
)

SPAN_COLUMNS = (
    Event.id,
    Event.all_day,
    Event.start_date,
    Event.end_date,
    Event.utc_start,
    Event.utc_end,
    Event.title,
    Event.slug,
)
# A grid's first events of a day (``Shown``): a hundred rows a month, whose dates past the
# start the grid never reads (three columns of text each, a seventh of the statement).
SHOWN_COLUMNS = (Event.id, Event.all_day, Event.utc_start, Event.title, Event.slug)


def list_events(
    filters: EventFilters,
    viewer: Viewer,
    offset: int,
    limit: int,
    *,
    only: str | None = None,
    count: bool = True,
):
    """(rows of the page, total) ordered by UTC start, then id; with ``only="ids"`` the
    page's ids rather than its rows (for a caller that keeps renderings by id,
    app/reading/texts.py), with ``only="spans"`` their ``Span``s (a month grid), with
    ``only="feed"`` rows of ``FEED_COLUMNS`` only (the feed's listing). With
    ``count`` false the total is None unless the page holds the whole listing: a caller
    that needs only whether more follow asks for one more (counting every event after a
    page is most of a cold read on a large calendar)."""
    rows, total, _stored = _listing(filters, viewer, offset, limit, only, count, None)
    return rows, total


def list_event_texts(filters: EventFilters, viewer: Viewer, offset: int, limit: int, made_for):
    """(ids of the page, total, ``{id: (body, extra)}``): ``list_events(..., only="ids")``
    with the page's texts stored for ``made_for`` (store/texts.py, as ``stored_texts``
    gives them), read in the page's own statement with its total when the page is read
    (a listing asked once: a month at a random minute); None when the page came from the
    listing's first ids, whose texts are then to be asked. One round trip on PostgreSQL
    where the page, its count and its texts took three."""
    return _listing(filters, viewer, offset, limit, "ids", True, made_for)


def _listing(filters, viewer, offset, limit, only, count, made_for) -> tuple:
    """``list_event_texts``'s triple for every listing (``made_for`` None: no texts)."""
    if filters.near is not None:
        rows, total = _list_near(_filtered(filters, viewer), filters.near, viewer, offset, limit)
        if only == "spans":
            rows = [Span(*(getattr(row, c.name) for c in SPAN_COLUMNS)) for row in rows]
        return ([row.id for row in rows] if only == "ids" else rows), total, None
    version = data_version()
    values, shape = _listing_values(filters, viewer), _shape(filters, viewer)
    key = (
        database.database,  # one process may serve several databases (the tests do)
        version,
        # Which events, venues and organizers the clock has published: the filters by
        # venue, organizer or geolocation see the linked items' status too.
        publication_epoch(),
        repr(_keyed(filters)),  # every field, by the dataclass's own repr
        viewer.cache_key(),
    )
    bound = (filters, viewer, version, (values, shape))
    # A listing asked again (another page, another page size) keeps its first ids, like its
    # total: its first pages are then slices of them. Asked once (a month at any minute),
    # it reads its page only.
    sliced = only == "ids" and offset + limit <= FIRST_IDS
    first = _first_ids.get(key) if sliced else None
    if first is _ASKED_ONCE:
        first = _first_ids.put(key, array("q", _ordered(*bound, 0, FIRST_IDS, "ids")))
    elif sliced and first is None:
        _first_ids.put(key, _ASKED_ONCE)
    stored = None
    if first is not None:
        rows = list(first[offset : offset + limit])
        if len(first) < FIRST_IDS:  # the whole listing
            return rows, len(first), None
    else:
        joined = None
        if made_for is not None:
            joined = Joined(made_for, count and _totals.get(key) is None)
        rows = _ordered(*bound, offset, limit, only, joined)
        if joined is not None:
            rows, stored = _joined_rows(rows, key)
        total = last_page_total(rows, offset, limit)  # the listing's last page
        if total is not None:
            return rows, total, stored
    if not count:
        return rows, None, stored
    total = _totals.get(key)
    if total is None:
        total = _totals.put(key, _count(filters, viewer, (values, shape)))
    return rows, total, stored


def _keyed(filters: EventFilters) -> EventFilters:
    """``filters`` as a listing's key names them: what has not ended at any second between
    two event ends is one listing (``last_end_by``), so the upcoming list's pages keep
    their first ids and total from one second to the next."""
    if not filters.ends_after:
        return filters
    return replace(filters, ends_after=last_end_by(filters.ends_after))


def events_by_day(
    filters: EventFilters, viewer: Viewer, first: date, bounds: list[str], most: int
) -> list[tuple[int, list[Shown]]]:
    """For each day from ``first`` (a calendar grid's), how many events the listing
    ``filters`` has on it and the first ``most`` of them in start order (``Shown``): the
    listing's own query (``_filtered``: its visibility rule and filters), its dates (its
    window, its bounds from a moment) giving way to each day's. A day is the
    site's: ``bounds`` are the UTC starts of the days from the day before ``first`` to two
    days after the last (``len(bounds) - 3`` days). A timed event is on the days between
    those of its start and of its end (one ending at a midnight is not on the day that
    midnight begins); an all-day event on its own dates, whatever their UTC times, which
    lie within a day of the site's day on either side.

    SQL counts each day and reads its first events (two statements, each one round trip);
    no row comes back per event, so a grid costs its days, not the events of its six weeks.
    Each day's index range starts at the earliest day a listed event still running then
    starts (``event_day``, read once for the grid)."""
    count = len(bounds) - 3
    if count <= 0:
        return []
    base = replace(filters, **DATELESS)
    values = _listing_values(base, viewer, most=most)
    days = [nth_day(first, n) for n in range(count + 1)]  # past 9999-12-31: AFTER_ALL
    totals, starts = _counts_and_starts(base, viewer, first, days, bounds)
    values.update(_day_values(days, bounds, starts, count))
    shape = _shape(base, viewer)
    if shape is not None:
        shape = (*shape, "days", count)
    if totals is None:
        totals = [0] * count
        counts = partial(_day_counts, base, viewer, count)
        counted_days = _LISTINGS.execute(
            shape and (*shape, "count"), counts, values, plan=_plan(base)
        )
        for n, total in counted_days:
            totals[n] = int(total)
    grid: list[tuple[int, list[Shown]]] = [(total, []) for total in totals]
    shown = partial(_days_shown, base, viewer, count)
    shape = shape and (*shape, "shown", most)
    for n, *span in _LISTINGS.execute(shape, shown, values, plan=_plan(base)):
        grid[n][1].append(_shown(span))
    return grid


# What leaves a listing without dates (``events_by_day``: each day bounds its own events).
DATELESS = dict.fromkeys(
    ("start_min", "end_max", "starts_before", "starts_after", "ends_before", "ends_after")
)


def _counts_and_starts(
    base: EventFilters, viewer: Viewer, first: date, days: list[str], bounds: list[str]
) -> tuple[list[int] | None, list[str | None]]:
    """Each grid day's count when ``event_dates`` gives it (``_grid_counts``), else None, and
    where each day's first events may start. Counted by dates, the grid needs the earliest
    start of an event running on its first day alone (one value, not the 130 rows of
    ``_earliest_running_starts`` at 10,000 demo events)."""
    count, last = len(bounds) - 3, bounds[-1][:10]
    if _counted_by_dates(base, viewer, days, bounds, count):
        counted = _grid_counts(first, days, last, bounds[0][:10])
        if counted is not None:
            return counted
    return None, _earliest_running_starts([b[:10] for b in bounds[: count + 1]], last)


# A ``Shown`` of a row's values: ``Shown._make`` without its length check (a hundred a grid).
_shown = partial(tuple.__new__, Shown)


def _counted_by_dates(
    base: EventFilters, viewer: Viewer, days: list[str], bounds: list[str], count: int
) -> bool:
    """Whether a grid's day counts can come from ``event_dates`` (``_grid_counts``): the
    listing filters nothing (its rule is then ``visible_clause``'s published events, which
    a count by status gives, and a password masks nothing it tests) and its days are UTC's
    (the site's zone at UTC's offset all along: ``event_dates`` keeps timed events by UTC
    day). Any other grid counts each day's index range (``_day_counts``)."""
    if base != EventFilters() or viewer.has("edit_posts"):
        return False
    return all(bounds[n + 1] == f"{days[n]} 00:00:00" for n in range(count + 1))


def _grid_counts(
    first: date, days: list[str], last_start: str, running_on: str
) -> tuple[list[int], list[str | None]] | None:
    """How many published, listed events each UTC day of ``days`` (from ``first``, and the
    day after the last) has,
    and where in start order its first one may be (``_spread``), from ``event_dates``' rows
    (a few a day, whatever the events: a grid of 100,000 events counted 30,000 index
    entries), read from the day before the first UTC day an event running on
    ``running_on`` (the UTC day of the day before ``first``) and starting by
    ``last_start`` starts (``_first_running``; an all-day one's first date may be a day
    earlier), asked in the same statement (``_ON_GRID_DATES``: one round trip, where the
    earliest start and the rows took two). None when a scheduled event is among them:
    whether it shows depends on the clock (its publication date), which the rows do not
    keep."""
    count = len(days) - 1
    last = first + timedelta(days=count - 1)
    rows = _ON_GRID_DATES.execute(last_start, running_on, f"{last}", f"{first}").fetchall()
    if any(status != "publish" for _first, _last, status, _all_day, _n in rows):
        return None
    return _spread(rows, days[:count])


def _spread(rows: list, days: list[str]) -> tuple[list[int], list[str | None]]:
    """Each day's count from ``rows`` of ``event_dates`` (events on the days from
    ``first_day`` to ``last_day``), and the earliest a day's events may start, as stored
    dates are written: a timed event at its first UTC day, an all-day one a day before its
    first date (its zone's midnight, within a day of UTC's). The first events of a day are
    then read from there (``_days_shown``), not from the start of the earliest event still
    running the day before (a day or two more of index entries a day). ``days``: the
    grid's, as ISO dates; a row's day among them is found by its text, no date parsed."""
    count = len(days)
    index = {day: n for n, day in enumerate(days)}
    changes = [0] * (count + 1)
    earliest: list[str | None] = [None] * count
    for first_day, last_day, _status, all_day, n in rows:
        # A day not in the grid is before it (a first day) or after it (a last day): the
        # rows are those on its days (``_on_dates``).
        begin, end = index.get(first_day, 0), index.get(last_day, count - 1)
        if begin > end:
            continue
        changes[begin] += n
        changes[end + 1] -= n
        start = first_day
        if all_day:  # the day before: the grid's own when it holds it
            start = days[begin - 1] if begin else _day_before(first_day)
        for day in range(begin, end + 1):
            known = earliest[day]
            if known is None or start < known:
                earliest[day] = start
    return list(accumulate(changes[:count])), earliest


def _day_before(day: str) -> str:
    """The ISO date before ``day``'s."""
    return f"{date.fromisoformat(day) - timedelta(days=1)}"


def _on_dates(lowest, last, first):
    """``event_dates``' rows of the days ``first`` to ``last``: events first on a day from
    ``lowest`` to ``last`` and last on ``first`` or later, of the statuses an anonymous
    caller may see (``rules/posts.py::is_published``)."""
    return EventDates.select(
        EventDates.first_day,
        EventDates.last_day,
        EventDates.status,
        EventDates.all_day,
        EventDates.n,
    ).where(
        (EventDates.first_day >= lowest)
        & (EventDates.first_day <= last)
        & (EventDates.last_day >= first)
        & EventDates.status.in_([SQL("'publish'"), SQL("'future'")])
        & (EventDates.n > SQL("0"))
    )


def _on_grid_dates():
    """``_on_dates`` of a grid counted by dates, from the day before ``_first_running``'s
    day (``param(0)``, ``param(1)``) to ``param(2)``, last on ``param(3)`` or later. No
    event running then: no day to begin from, no row."""
    return _on_dates(day_before(_first_running()), param(2), param(3))


_ON_GRID_DATES = Statement(_on_grid_dates)


def _day_values(days: list[str], bounds: list[str], starts: list, count: int) -> dict:
    """The values of each day's placeholders (``_on_day``); ``days``: the grid's, and the
    day after its last, as ISO dates. Made as one list beside the names of them all (a
    dict updated per day was a tenth of the statement's own time in Python)."""
    values: list[str] = []
    for n in range(count):
        until = bounds[n + 3]  # none running (no start): an empty range, from its end
        values += (starts[n] or until, until, *bounds[n : n + 3], days[n], days[n + 1])
    return dict(zip(_day_names(count), values, strict=True))


@lru_cache(maxsize=8)
def _day_names(count: int) -> tuple[str, ...]:
    """The names of every day's placeholders, day after day, as ``_day_values`` gives
    them."""
    parts = ("from", "until", "after", "start", "end", "date", "next")
    return tuple(f"day.{n}.{part}" for n in range(count) for part in parts)


# A grid's days as a table (``_grid_days``): each day's number and the bounds ``_on_day``
# tests, as ``_day_values`` names them.
GRID_DAY_COLUMNS = ("n", "from", "until", "after", "start", "end", "date", "next")


def _grid_days(ref, count: int):
    """The grid's ``count`` days as a ``VALUES`` table, one row a day: each day's events are
    found by a join from it, one index range a day as before, but one query for the
    engine to plan where 42 subqueries took SQLite 15 ms to prepare (more than running
    them: 1 ms), which it did again each time the statement fell out of its cache."""
    rows = [
        (SQL(str(n)), *(ref(f"day.{n}.{part}") for part in GRID_DAY_COLUMNS[1:]))
        for n in range(count)
    ]
    return ValuesList(rows).cte("grid_day", columns=[f"day_{c}" for c in GRID_DAY_COLUMNS])


def _on_day(base: EventFilters, viewer: Viewer, ref, day):
    """The events of the listing ``base`` on a day of a grid (a row of ``_grid_days``),
    from its index range."""
    start, end = day.c.day_start, day.c.day_end
    timed = (
        (Event.all_day == False)  # noqa: E712
        & (Event.utc_start < end)
        & ((Event.utc_end > start) | (Event.utc_start >= start))
    )
    all_day = (
        (Event.all_day == True)  # noqa: E712
        & (Event.start_date < day.c.day_next)
        & (Event.end_date >= day.c.day_date)
    )
    bounds = (
        (Event.utc_start >= day.c.day_from)
        & (Event.utc_start < day.c.day_until)
        & (Event.utc_end > day.c.day_after)
        & (timed | all_day)
    )
    return _filtered(base, viewer, ref, page=True, tested_first=bounds)


def _day_counts(base: EventFilters, viewer: Viewer, count: int, ref):
    """(day, count) rows of a grid's ``count`` days: a count of each day's index range by a
    subquery of its row (a join grouped by day sorted every event counted: 20 % slower
    at 100,000 events)."""
    days = _grid_days(ref, count)
    counted = _on_day(base, viewer, ref, days).select(fn.COUNT(SQL("*")))
    return Select(from_list=[days], columns=[days.c.day_n, counted]).with_cte(days).bind(database)


def _days_shown(base: EventFilters, viewer: Viewer, count: int, ref):
    """The first events of each day (``most`` of them), as (day, *SHOWN_COLUMNS) rows in
    day and start order: each day's by a subquery of its row (PostgreSQL's ``LATERAL``;
    SQLite, which has none, reads them by id from a correlated ``IN``)."""
    days = _grid_days(ref, count)
    first = _on_day(base, viewer, ref, days).order_by(Event.utc_start, Event.id).limit(ref("most"))
    if is_postgres():
        shown = first.select(*SHOWN_COLUMNS).alias("shown")
        columns = [shown.c[column.name] for column in SHOWN_COLUMNS]
        query = Select(from_list=[days], columns=[days.c.day_n, *columns]).join(
            shown, JOIN.LATERAL, on=SQL("true")
        )
        order = (days.c.day_n, shown.c.utc_start, shown.c.id)
        return query.order_by(*order).with_cte(days).bind(database)
    shown = Event.alias("shown")
    columns = [getattr(shown, column.name) for column in SHOWN_COLUMNS]
    return (
        shown.select(days.c.day_n, *columns)
        .from_(days)
        .join(shown, on=shown.id.in_(first.select(Event.id)))
        .order_by(days.c.day_n, shown.utc_start, shown.id)
        .with_cte(days)
    )


def neighbours(
    filters: EventFilters, viewer: Viewer, utc_start: str, event_id: int
) -> tuple[Span | None, Span | None]:
    """The events the listing ``filters`` has just before and just after the place
    (``utc_start``, ``event_id``) in its order (start, then id), as ``Span``s: one
    statement, each side read from the start index and stopping at its first row (an
    event page's previous and next links took four listings). The listing's bounds on
    starts give way to that place."""
    base, shape, kept_values = _neighbours_plan(filters, viewer)
    values = {**kept_values, "now": utcnow_str(), "place.start": utc_start, "place.id": event_id}
    found: list[Span | None] = [None, None]
    for row in _LISTINGS.execute(shape, partial(_neighbours, base, viewer), values, plan="generic"):
        found[row[0]] = Span._make(row[1:])
    return found[0], found[1]


def _neighbours_plan(filters: EventFilters, viewer: Viewer) -> tuple:
    """``neighbours``' listing without its bounds on starts, its shape and its values but
    the clock's, kept for the last listing asked: every event page asks the same one
    (app/pages/reading.py::_any_dates, never changed), whose plan was a fifth of the
    call."""
    global _last_plan
    asked, by, plan = _last_plan
    if asked is filters and by is viewer:
        return plan
    base = replace(filters, starts_before=None, starts_after=None)
    shape = _shape(base, viewer)
    plan = (base, None if shape is None else (*shape, "neighbours"), _listing_values(base, viewer))
    _last_plan = (filters, viewer, plan)
    return plan


_last_plan: tuple = (None, None, None)  # (filters, viewer, plan), replaced as one


def _neighbours(base: EventFilters, viewer: Viewer, ref):
    """``neighbours``' statement: the last row before the place, then the first after it
    (each with its side, 0 or 1, and ``SPAN_COLUMNS``)."""
    start, ident = ref("place.start"), ref("place.id")
    sides = (
        (
            (Event.utc_start <= start) & ((Event.utc_start < start) | (Event.id < ident)),
            (Event.utc_start.desc(), Event.id.desc()),
        ),
        (
            (Event.utc_start >= start) & ((Event.utc_start > start) | (Event.id > ident)),
            (Event.utc_start, Event.id),
        ),
    )
    before, after = (
        Select(
            from_list=[
                _filtered(base, viewer, ref, page=True, tested_first=bound)
                .select(SQL(str(side)), *SPAN_COLUMNS)
                .order_by(*order)
                .limit(1)
                .alias(f"side{side}")
            ],
            columns=[SQL("*")],
        )
        for side, (bound, order) in enumerate(sides)
    )
    return (before + after).bind(database)  # UNION ALL


def _earliest_running_starts(days: list[str], last: str) -> list[str | None]:
    """For each of ``days`` (UTC ``YYYY-MM-DD``, ascending), the earliest day a listed event
    that ends that day or later, and starts by ``last``, starts; None when there is none."""
    rows = sorted(_RUNNING.execute(last, days[0]).fetchall(), key=itemgetter(1))  # by end
    ends = [end for _start, end in rows]
    earliest: list[str | None] = [None] * (len(rows) + 1)
    for index in range(len(rows) - 1, -1, -1):
        start = rows[index][0]
        later = earliest[index + 1]
        earliest[index] = start if later is None or start < later else later
    return [earliest[bisect_left(ends, day)] for day in days]


def _running(_sizes=()):
    """``event_day``'s rows of events ending on day ``param(1)`` or later that start by
    ``param(0)``. The earlier rows are still walked (no index by end day), but by the
    ``MIN`` on the key alone, which stops at the first row ending that late: testing each
    earlier row's ``n`` (a table read) took twice as long (0.6–1.5 ms late in a
    10,000-event calendar)."""
    ending = EventDay.alias("ending")
    earliest = ending.select(fn.MIN(ending.start_day)).where(ending.end_day >= param(1))
    return EventDay.select(EventDay.start_day, EventDay.end_day).where(
        (EventDay.start_day >= earliest)
        & (EventDay.start_day <= param(0))
        & (EventDay.end_day >= param(1))
        & (EventDay.n > SQL("0"))
    )


_RUNNING = Statement(_running)


def _first_running():
    """The earliest of ``_running``'s starts: the first value of
    ``_earliest_running_starts``, one value where it reads the rows."""
    return _running().select(fn.MIN(EventDay.start_day))


def _ordered(filters, viewer, version, bound, offset, limit, only, joined=None) -> list:
    """The page in start order, stopping after it (``bound``: the listing's values and
    shape): by the cheaper side of a search or of a venue's or organizer's few links."""
    wanted = offset + limit
    in_order = bool(filters.search) and _search_in_order(filters.search, version, wanted)
    from_links = [
        link
        for link, column, ids in (
            (EventVenue, EventVenue.venue, filters.venue_ids),
            (EventOrganizer, EventOrganizer.organizer, filters.organizer_ids),
        )
        if ids and _few_links(link, column, ids, version, wanted)
    ]
    return _page(filters, viewer, bound, offset, limit, (in_order, from_links), only, joined)


class Joined(NamedTuple):
    """What a page's statement reads besides its ids: the texts stored for ``made_for``,
    and the listing's total when ``count``."""

    made_for: str
    count: bool


def _page(filters, viewer, bound, offset, limit, way, only=None, joined=None) -> list:
    """The page's events (their ids or spans, as ``only`` says; with ``joined``, rows of
    ``(id, utc_start, body, extra[, total])``); ``bound`` is the listing's (values, shape); ``way``
    (``search_in_order``, ``from_links``) how ``_ordered`` chose to find it."""
    in_order, from_links = way

    def build(ref):
        query = _filtered(
            filters, viewer, ref, page=True, search_in_order=in_order, from_links=from_links
        )
        if only == "ids":
            query = query.select(Event.id)
        elif only == "spans":
            query = query.select(*SPAN_COLUMNS)
        elif only == "feed":
            query = query.select(*FEED_COLUMNS)
        query = query.order_by(Event.utc_start, Event.id).limit(ref("limit"))
        query = query.offset(ref("offset")) if offset else query
        return _with_joined(query, filters, viewer, ref, joined) if joined else query

    values, shape = bound
    values = {**values, "offset": offset, "limit": limit}
    counted = None  # the count's own part of the shape
    if joined is not None:
        values["made_for"] = joined.made_for
        if joined.count:
            values, counted = _count_values(filters, values)
    links = tuple(link.__name__ for link in from_links)
    if shape is not None:
        shape = (*shape, "page", in_order, links, offset > 0, only, joined is not None, counted)
    cursor = _LISTINGS.execute(shape, build, values, plan=_plan(filters))
    if only == "ids":
        return cursor.fetchall() if joined else [row[0] for row in cursor]
    if only == "spans":
        return list(map(Span._make, cursor))
    return instances(Event, cursor)


def _with_joined(page, filters, viewer, ref, joined: Joined):
    """The page's ids and starts with their stored texts (``stored_texts``'s rule: made for
    ``made_for``, not to be made) and, when ``joined.count``, the listing's total on each
    row (a scalar subquery: run once). Unordered: ``_joined_rows`` puts the few rows in the
    page's order, where the engine would sort them with their texts (SQLite: a temporary
    b-tree holding every body)."""
    page = page.select(Event.id, Event.utc_start).alias("page")
    columns = [page.c.id, page.c.utc_start, EventText.body, EventText.extra]
    if joined.count:
        columns.append(_count_query(filters, viewer, ref))
    on = (
        (EventText.event == page.c.id)
        & (EventText.made_for == ref("made_for"))
        & EventText.body.is_null(False)
    )
    return Select([page], columns).join(EventText, JOIN.LEFT_OUTER, on=on).bind(database)


def _joined_rows(rows: list, key) -> tuple[list[int], dict]:
    """``_with_joined``'s rows as the page's ids, in its order (start, then id), and their
    stored texts; a total read with them is kept as ``_count``'s would be."""
    rows.sort(key=_page_order)
    if rows and len(rows[0]) > 4:
        _totals.put(key, int(rows[0][4]))  # PostgreSQL: numeric
    stored = {row[0]: (row[2], row[3]) for row in rows if row[2]}  # "": never stored
    return [row[0] for row in rows], stored


def _page_order(row: tuple) -> tuple:
    return row[1], row[0]


def _count(filters, viewer, bound) -> int:
    """The total (``_count_query``), in a statement of its own."""
    values, shape = bound
    values, by_days = _count_values(filters, values)
    if shape is not None:
        shape = (*shape, "count", by_days)

    def build(ref):
        return _count_query(filters, viewer, ref)

    count = _LISTINGS.execute(shape, build, values, plan=_plan(filters)).fetchone()[0]
    return int(count)  # PostgreSQL: numeric


def _plan(filters: EventFilters) -> str:
    """How PostgreSQL plans a listing's page, count and days (``store/db.py::
    PLAN_MODES``): for its values at every run when it searches words, whose pattern the
    generic plan cannot see (a search's first ids took 70–180 ms by it at 10,000 events,
    2.4 ms by a plan for the word); else by PostgreSQL's own choice."""
    return "custom" if filters.search else "auto"


def _count_query(filters, viewer, ref):
    """The total, as a sum of one count per status: each reads one range of the
    ``(status, utc_start, …)`` index, where the visibility rule's ``OR`` of statuses would
    make the engine merge several ranges and de-duplicate their rows (twice the time on a
    month of a large calendar). The statuses are disjoint, so the sum is exact; every write
    path stores one of ``STATUSES`` (schemas/fields.py::Status, the import's statuses), and
    only those the viewer may be shown are counted (``listed_statuses``).
    A plain date window's published events are summed by day instead (``_window_counts``),
    in the same statement: one snapshot, one round trip."""
    by_days = _by_days(filters)
    counted = [s for s in listed_statuses(viewer) if not (by_days and s == "publish")]
    query = _filtered(filters, viewer, ref)
    counts = [query.where(Event.status == status).select(fn.COUNT(SQL("*"))) for status in counted]
    if by_days:
        counts.extend(_window_counts(ref))
    return Select(columns=[NodeList(counts, glue=" + ")]).bind(database)


def _count_values(filters, values: dict) -> tuple[dict, bool]:
    """``values`` with what ``_count_query`` reads besides the listing's own, and whether it
    counts by days (``_by_days``: part of the count's shape)."""
    if _by_days(filters):
        return {**values, **_window_days(filters.start_min, filters.end_max)}, True
    return values, False


# What a plain date window may have besides its bounds. Every other filter selects when it
# is set, False included (``featured=false``: the events not featured); ``readable_only``
# is unset when False.
_WINDOW_BOUNDS = {"start_min", "end_max", "statuses", "password", "readable_only"}


def _by_days(filters: EventFilters) -> bool:
    """Whether the listing is a date window and nothing else (``start_date`` and
    ``end_date``, whose bounds every default listing and month view has; any viewer; any
    statuses that include ``publish``), whose published events ``_window_counts`` counts."""
    if not (filters.start_min and filters.end_max) or filters.start_min > filters.end_max:
        return False
    if filters.end_max >= "9999-12-31":  # no day after the last: counted as any window
        return False
    if filters.statuses is not None and "publish" not in filters.statuses:
        return False
    if filters.readable_only:
        return False
    return all(value is None for name, value in vars(filters).items() if name not in _WINDOW_BOUNDS)


def _window_days(start: str, end: str) -> dict:
    """The days ``_window_counts`` reads, by name. A window within one day is counted by its
    first day's events alone: its "last day" is then the next one, so that no day lies
    between the two and no event that ends on it ends by the window's end."""
    first, last = start[:10], end[:10]
    after_first = (date.fromisoformat(first) + timedelta(days=1)).isoformat()
    return {
        "days.first": first,
        "days.after_first": after_first,
        "days.last": after_first if first == last else last,
    }


def _window_counts(ref) -> list:
    """Three counts of the published, listed events wholly inside the window
    (``ref("start_min")`` to ``ref("end_max")``), whose sum is exact:
    - those that start on the window's first day (an index range of that day);
    - those that start after the first day and end before the last: ``event_day``'s rows
      of the days between (store/models.py::EventDay, kept by triggers);
    - those that end on the last day and start after the first, read from the earliest day
      one of them starts (a day or a few of the index, not the month: that bound alone, as
      a second lower bound would leave the engine to choose). ``event_day`` keeps the rows
      whose count fell to 0: hence ``n > 0``.
    Dates are ``YYYY-MM-DD HH:MM:SS`` text: a day ``YYYY-MM-DD`` sorts before every time of
    that day, so ``utc_end >= day`` reads "ends on that day or later"."""
    listed_published = (Event.status == "publish") & (Event.hide_from_listings == False)  # noqa: E712
    first, after_first, last = ref("days.first"), ref("days.after_first"), ref("days.last")
    start, end = ref("start_min"), ref("end_max")
    on_first_day = Event.select(fn.COUNT(SQL("*"))).where(
        listed_published
        & (Event.utc_start >= start)
        & (Event.utc_start < after_first)
        & (Event.utc_end <= end)
    )
    between = EventDay.select(fn.COALESCE(fn.SUM(EventDay.n), 0)).where(
        (EventDay.status == "publish")
        & (EventDay.start_day > first)
        & (EventDay.start_day < last)
        & (EventDay.end_day < last)
    )
    earliest_ending_last = EventDay.select(fn.MIN(EventDay.start_day)).where(
        (EventDay.status == "publish")
        & (EventDay.start_day >= after_first)
        & (EventDay.start_day <= last)
        & (EventDay.end_day == last)
        & (EventDay.n > 0)
    )
    on_last_day = Event.select(fn.COUNT(SQL("*"))).where(
        listed_published
        & (Event.utc_start >= earliest_ending_last)
        & (Event.utc_start <= end)
        & (Event.utc_end >= last)
        & (Event.utc_end <= end)
    )
    return [on_first_day, between, on_last_day]


def _search_in_order(text: str, version: int, wanted: int) -> bool:
    """Whether a page of a search is cheaper found by walking events in start order and
    testing each against the matches (about ``wanted × events / matches`` rows) than by
    reading every match and sorting (``matches`` rows): common words walk, rare ones
    start from their matches. The match count is cached like the totals."""
    words = _indexed_words(text)
    if not words:
        return False
    key = (database.database, version, "matches", tuple(words))
    matches = _totals.get(key)
    if matches is None:
        matches = _totals.put(key, count_matching("event_search", words))
    events = _MAX_EVENT_ID.first()[0] or 0  # ids bound the row count
    return matches * matches > wanted * events


def _few_links(link, column, ids: list[int], version: int, wanted: int) -> bool:
    """Whether a page is cheaper started from the links to ``ids`` (a venue's few events)
    than found by walking events in start order; the same rule as a search's words. The
    links are counted from their index, cached like totals."""
    key = (database.database, version, link.__name__, tuple(ids))
    links = _totals.get(key)
    if links is None:
        links = _totals.put(key, link.select().where(column.in_(ids)).count())
    events = _MAX_EVENT_ID.first()[0] or 0
    return links * links <= wanted * events


_MAX_EVENT_ID = Statement(lambda: Event.select(fn.MAX(Event.id)))


class ListingCache:
    """What a listing costs to count, per (database, data version, clock horizon, filters,
    viewer), per process: its total, a search's matches, a link's count (``_totals``) and its
    first ids (``_first_ids``), so that the pages of one listing share one count instead of
    each rescanning every matching row. Exact: any write changes the data version, and the
    only change without a write, a scheduled event whose date passes, changes the horizon."""

    def __init__(self, size: int = 2048):
        self.entries = LRUCache(maxsize=size)
        self.lock = threading.Lock()  # gthread workers (an LRUCache read moves its key)

    def get(self, key):
        with self.lock:
            return self.entries.get(key)

    def put(self, key, total: int) -> int:
        with self.lock:
            self.entries[key] = total
        return total


_totals = ListingCache()
# The first ids of a listing (array of FIRST_IDS at most: 1.7 kB), under a total's key: the
# list page's first twenty pages (ten events and the one more that says a page follows).
FIRST_IDS = 210
_first_ids = ListingCache(size=1024)
_ASKED_ONCE = array("q")  # marks a listing asked once, whose first ids are not kept yet


def _list_near(query, near, viewer: Viewer, offset, limit):
    """Events whose venue lies within the radius, nearest first. A bounding box on the
    indexed coordinates prunes venues before the exact great-circle distance."""
    lat, lng, radius = near
    (lat_min, lat_max), lng_ranges = bounding_box(lat, lng, radius)
    box = (Venue.geo_lat >= lat_min) & (Venue.geo_lat <= lat_max)
    lng_clause = None
    for low, high in lng_ranges:
        part = (Venue.geo_lng >= low) & (Venue.geo_lng <= high)
        lng_clause = part if lng_clause is None else lng_clause | part
    candidates = (
        query.select(Event, Venue.geo_lat.alias("lat"), Venue.geo_lng.alias("lng"))
        .join(EventVenue, on=(EventVenue.event == Event.id))
        .join(Venue, on=(EventVenue.venue == Venue.id))
        .where(box & lng_clause & (Venue.status != "trash") & readable_clause(Venue, viewer))
    )
    best: dict[int, tuple[float, Event]] = {}
    for row in candidates.objects():
        distance = distance_km(lat, lng, row.lat, row.lng)
        if distance <= radius and (row.id not in best or distance < best[row.id][0]):
            best[row.id] = (distance, row)
    ordered = sorted(best.values(), key=lambda pair: (pair[0], pair[1].utc_start, pair[1].id))
    return [row for _d, row in ordered[offset : offset + limit]], len(ordered)


# Compiled once: every single-event request starts here.
_EVENT_BY_ID = Statement(lambda: Event.select().where(Event.id == param(0)))


def get_event(event_id: int) -> Event | None:
    if as_id(event_id) is None:
        return None
    found = _EVENT_BY_ID.instances(Event, int(event_id))
    return found[0] if found else None


def post_ancestors(event_id: int) -> list[int]:
    """The ids up the ``post_parent`` chain from the event (its parent first)."""
    seen: list[int] = []
    current = event_id
    while True:
        row = Event.select(Event.post_parent).where(Event.id == current).first()
        if row is None or not row.post_parent or row.post_parent in seen:
            return seen
        current = row.post_parent
        seen.append(current)


def get_events(ids: list[int]) -> list[Event]:
    """The events with these ids (any status), in id order."""
    if not ids:
        return []
    return _EVENTS_BY_IDS.instances(Event, *ids, sizes=(len(ids),))


def events_to_make(limit: int) -> list[Event]:
    """The newest events whose stored texts are to be made (store/texts.py), at most
    ``limit``, in one query."""
    return _EVENTS_TO_MAKE.instances(Event, limit)


# Driven by the partial index of the texts to make (``event_text_to_make``): from the
# events' side SQLite walked every event to find the few whose text was to be made.
_EVENTS_TO_MAKE = Statement(
    lambda: (
        EventText.select(Event)
        .join(Event, on=(EventText.event == Event.id))
        .where(EventText.body.is_null())
        .order_by(EventText.event.desc())
        .limit(param(0))
    )
)
_EVENTS_BY_IDS = Statement(
    lambda size: Event.select().where(Event.id.in_(in_list(0, size))).order_by(Event.id)
)


def get_event_by_slug(slug: str, readable=None) -> Event | None:
    """The event an address names (``found_by_slug``: its older dashed slug only when
    ``readable`` takes it), not in the trash."""
    return found_by_slug(slug, _event_of_slug, readable)


def _event_of_slug(slug: str) -> Event | None:
    found = _EVENT_BY_SLUG.instances(Event, slug, "trash", 1)
    return found[0] if found else None


def slug_free_for(slug: str, event_id: int) -> bool:
    """Whether event ``event_id`` may take ``slug`` as it is: no other event (trashed ones
    too) holds it."""
    return unique_slug(Event, slug, "event", exclude_id=event_id) == slug


def events_of_slug_on_day(slug: str, day: date) -> list[Event]:
    """The events not in the trash that start on ``day`` (their own wall clock) whose slug is
    ``slug`` or begins ``slug-``: the dates of a series The Events Calendar Pro addresses
    as ``/event/{slug}/{day}/``, imported or made here under slugs of their own."""
    # Read by the start's index: that day in any zone (UTC-12 to UTC+14) starts and ends
    # within the UTC days either side of it (a LIKE on slugs alone read every event).
    query = Event.select().where(
        (Event.utc_start >= f"{day - timedelta(days=1)}")
        & (Event.utc_start < nth_day(day, 2))  # past 9999-12-31, after every date
        & ((Event.slug == slug) | Event.slug.startswith(f"{slug}-"))
        & Event.start_date.startswith(f"{day}")
        & (Event.status != "trash")
    )
    return list(query.order_by(Event.id).limit(50))


# Compiled once: every event page starts here (compiling it was a tenth of a cold page).
_EVENT_BY_SLUG = Statement(
    lambda: (
        Event.select().where((Event.slug == param(0)) & (Event.status != param(1))).limit(param(2))
    )
)


def find_imported_event(uid: str, author: int) -> Event | None:
    """The event imported from the VEVENT with this UID, never an occurrence (which carries
    its series' UID). A UID names one event in the calendar, whoever imported it: a live
    one before a trashed copy (the importer's own trashed copy, when someone imported the
    UID again since, is not what the calendar shows), then the author's own (two importers
    made two events before UIDs were calendar-wide), else the first made. The caller
    decides whether the importer may change it."""
    return find_lone_occurrence(uid, "", author)


def find_lone_occurrence(uid: str, recurrence_id: str, author: int) -> Event | None:
    """The event imported from a VEVENT that edits the occurrence ``recurrence_id`` (its
    RECURRENCE-ID as ``app/ical.py::recurrence_key`` writes it) of a series the calendar
    does not have: an event of its own. With ``""``, the event of the UID itself
    (``find_imported_event``)."""
    return (
        Event.select()
        .where(
            (Event.ical_uid == uid)
            & (Event.ical_recurrence_id == recurrence_id)
            & (Event.occurrence == "")
            # Another user's trashed event holds no UID: trashing one's own copy of a
            # public UID cannot block every other importer of it.
            & ((Event.author == author) | (Event.status != "trash"))
        )
        .order_by((Event.status == "trash").asc(), (Event.author != author).asc(), Event.id)
        .first()
    )


def event_exists(event_id: int) -> bool:
    return as_id(event_id) is not None and _EVENT_EXISTS.first(int(event_id)) is not None


_EVENT_EXISTS = Statement(lambda: Event.select(SQL("1")).where(Event.id == param(0)))


@dataclass
class Relations:
    venues: list = field(default_factory=list)
    organizers: list = field(default_factory=list)
    categories: list = field(default_factory=list)
    tags: list = field(default_factory=list)


# The links of a page of events, all three kinds in one query (``IN`` list of ``size``
# ids, compiled once per page size): (kind, event_id, item, position).
_LINKS_OF_EVENTS = Statement(
    lambda size: (
        EventVenue.select(SQL("0"), EventVenue.event, EventVenue.venue, EventVenue.position).where(
            EventVenue.event.in_(in_list(0, size))
        )
        + EventOrganizer.select(
            SQL("1"), EventOrganizer.event, EventOrganizer.organizer, EventOrganizer.position
        ).where(EventOrganizer.event.in_(in_list(0, size)))
        + EventTerm.select(SQL("2"), EventTerm.event, EventTerm.term, EventTerm.position).where(
            EventTerm.event.in_(in_list(0, size))
        )
    )
)


class LinkKind(IntEnum):
    """What a link of an event points at: the ``kind`` of ``links_of``'s links (the number
    its query selects) and of the ids a stored text keeps (app/render.py::StoredExtra)."""

    VENUE = 0
    ORGANIZER = 1
    TERM = 2


_KINDS = (Venue, Organizer, Term)  # by LinkKind


def load_relations(events) -> dict[int, Relations]:
    """Venues, organizers and terms of every event of a page, whatever the page size: the
    links in one query (none when the write that made this data version read them all),
    then ``relations_from`` them."""
    ids = [event.id for event in events]
    version, links = _remembered_links
    if links and version == (database.database, data_version()) and all(i in links for i in ids):
        return relations_from({i: links[i] for i in ids})
    return relations_from(links_of(ids))


# ``((database, data version), {event id: links})``: the links of the events whose texts
# the write that made that version made (read inside its transaction, after its last
# change: the links at that version). One for the process, replaced by each write.
_remembered_links: tuple = (None, {})


def remember_links(version: int, links: dict) -> None:
    global _remembered_links
    _remembered_links = ((database.database, version), links)


def links_of(ids: list[int]) -> dict[int, list[tuple[int, int]]]:
    """``{event id: [(kind, linked id), …]}``, in link order, each kind a ``LinkKind``."""
    links: dict[int, list] = {event_id: [] for event_id in ids}
    if not ids:
        return links
    found = _LINKS_OF_EVENTS.execute(*ids, sizes=(len(ids),)).fetchall()
    found.sort(key=lambda link: link[3])  # link order, as each event lists them
    for kind, event_id, item, _position in found:
        links[event_id].append((LinkKind(kind), item))
    return links


def relations_from(links: dict[int, list]) -> dict[int, Relations]:
    """The linked rows of ``links_of``'s links (``linked_rows``). Trashed linked items are
    left out; the caller leaves out the ones its viewer may not read. Venues and
    organizers come in the order they were linked, terms by name."""
    relations = {event_id: Relations() for event_id in links}
    rows = linked_rows(link for event_links in links.values() for link in event_links)
    for event_id, event_links in links.items():
        target = relations[event_id]
        for link in event_links:
            row = rows[link]
            if row is None:
                continue
            kind = link[0]
            if kind == LinkKind.VENUE:
                target.venues.append(row)
            elif kind == LinkKind.ORGANIZER:
                target.organizers.append(row)
            elif row.taxonomy == "category":
                target.categories.append(row)
            else:
                target.tags.append(row)
    for target in relations.values():  # by name, as ``wp_get_post_terms`` gives them
        for terms in (target.categories, target.tags):
            if len(terms) > 1:
                terms.sort(key=by_name)
    return relations


def linked_rows(links) -> dict[tuple[int, int], Venue | Organizer | Term | None]:
    """``{(kind, id): row}`` of links ``(kind, id)`` (``links_of``), made once per data
    version (the pages of a calendar show the same few venues, organizers and terms again
    and again); None for an item that is gone, or trashed (terms have no status)."""
    wanted: tuple[set, ...] = tuple(set() for _kind in _KINDS)
    for kind, item in links:
        wanted[kind].add(item)
    found = {}
    for kind, model in enumerate(_KINDS):
        for item, row in rows_by_id(model, wanted[kind]).items():
            shown = row is not None and (kind == LinkKind.TERM or row.status != "trash")
            found[(kind, item)] = row if shown else None
    return found


def by_name(term) -> tuple:
    return (term.name.lower(), term.id)  # case-insensitive, as the term listings


def events_by_id(ids: set) -> dict:
    """Events by id (``None``: no such event), as plain rows made once per data version:
    the series of a page's occurrences, shown again and again."""
    return rows_by_id(Event, ids)


def _replace_links(
    model, column, event_id: int, ids: list[int], live: int = 0, new: bool = False
) -> None:
    if not new:  # a new event has no links to replace
        model.delete().where(model.event == event_id).execute()
    if not ids:
        return
    rows = [{"event": event_id, column: item, "position": n} for n, item in enumerate(ids)]
    if model is EventTerm:
        for row in rows:
            row["live"] = live
    insert_rows(model, rows)  # prepared, no RETURNING


def _materialise_linked(kind: str, items: list, viewer: Viewer, now: str) -> list[int]:
    ids = []
    for item in items:
        if isinstance(item, dict):
            row, _created = create_linked(kind, item, viewer, now=now)
            ids.append(row.id)
        else:
            ids.append(item)
    seen = set()
    return [i for i in ids if not (i in seen or seen.add(i))]


def save_event(
    values: dict,
    links: dict,
    existing: Event | None = None,
    *,
    viewer: Viewer,
    occurrences: list | None = None,
) -> Event:
    """Inserts or updates an event and replaces the links named in ``links``
    (``venue``, ``organizer``: ids or new-item dicts, de-duplicated among what ``viewer``
    may read; ``categories``, ``tags``: ids or ("new", name)). For a recurring series,
    ``occurrences`` (wall-clock starts) re-creates its occurrences, and an update of the
    series reaches those not edited on their own (store/recurrence.py). One write
    transaction: a failure leaves nothing of the series behind."""
    with write_transaction():
        now = utcnow_str()
        row = dict(values)
        row["modified"] = row["modified_utc"] = now
        if existing is not None and is_occurrence(existing):
            row["detached"] = True  # edited on its own: updates of the series pass it by
        if existing is None:
            event_id = insert_named_post(Event, "event", row, row.get("slug"))
            saved = Event(**row)  # the defaults fill the rest, as the insert did
        else:
            event_id = existing.id
            if "slug" in row:
                row["slug"] = unique_slug(Event, row["slug"], "event", exclude_id=event_id)
            if not Event.update(row).where(Event.id == event_id).execute():
                raise Vanished(event_id)  # deleted, or its series re-created, since read
            # Re-read inside the transaction: a concurrent write may have changed fields
            # this update did not send, and the answer must show them.
            saved = Event.get_by_id(event_id)
        _write_links(saved, links, existing, viewer)
        after_series_write(saved, existing, row, links.keys(), occurrences)
        if saved.recurrence:
            # The series' write may have rewritten this row too (a restored occurrence's
            # date leaves the EXDATEs every occurrence carries): answered as a read after.
            saved = Event.get_by_id(event_id)
        return saved


def _write_links(saved: Event, links: dict, existing: Event | None, viewer: Viewer) -> None:
    """The links named in ``links`` replaced (a new event's written), inside save_event's
    transaction; the term links' ``live`` follows the row as saved."""
    event_id = saved.id
    if "venue" in links:
        venues = _materialise_linked("venue", links["venue"], viewer, saved.modified_utc)
        _replace_links(EventVenue, "venue", event_id, venues, new=existing is None)
    if "organizer" in links:
        _replace_links(
            EventOrganizer,
            "organizer",
            event_id,
            _materialise_linked("organizer", links["organizer"], viewer, saved.modified_utc),
            new=existing is None,
        )
    # The links' ``live`` follows the row as saved, whatever ``existing`` (read before
    # this transaction) said: a write in between may have changed the status or the
    # password.
    live = live_value(saved.status, saved.password)
    terms = []
    for key, taxonomy in (("categories", "category"), ("tags", "tag")):
        if key in links:
            terms.append((taxonomy, materialise_terms(links[key], taxonomy)))
    if terms:
        kept = [t for t, _ in terms]
        ordered = []
        if existing is not None:  # keep the links of the taxonomy not being replaced
            current = (
                EventTerm.select(EventTerm.term)
                .join(Term, on=(EventTerm.term == Term.id))
                .where((EventTerm.event == event_id) & Term.taxonomy.not_in(kept))
                .order_by(EventTerm.position)
            )
            ordered = [row.term_id for row in current]
        for _taxonomy, ids in terms:
            ordered.extend(ids)
        _replace_links(EventTerm, "term", event_id, ordered, live=live, new=existing is None)
    elif existing is not None:  # only the links that differ are written
        EventTerm.update(live=live).where(
            (EventTerm.event == event_id) & (EventTerm.live != live)
        ).execute()


def trash_event(event: Event) -> Event | None:
    """To the trash. A trashed occurrence is edited on its own and its date leaves the
    series (EXDATE); a trashed series takes all its occurrences with it."""
    with write_transaction():
        # Read again under the write lock: a concurrent change of the series may have
        # re-created (or removed) this occurrence since the request read it.
        event = Event.get_or_none(Event.id == event.id)
        if event is None:
            return None
        now = utcnow_str()
        changes = {"status": "trash", "trashed_from": event.status, "modified": now}
        changes["modified_utc"] = now
        if is_occurrence(event):
            # Trashed on its own; one that followed its series follows it again when
            # restored (store/recurrence.py::restore_occurrence).
            changes["detached"] = True
            changes["trashed_following"] = not event.detached
            exclude_occurrence(event)
        elif is_series(event):
            trash_occurrences(event.id, now)
        Event.update(changes).where(Event.id == event.id).execute()
        EventTerm.update(live=0).where(EventTerm.event == event.id).execute()
        return Event.get_or_none(Event.id == event.id)


def delete_event(event: Event) -> None:
    """Deletes permanently: a deleted occurrence's date leaves the series (EXDATE); a
    deleted series takes all its occurrences with it."""
    with write_transaction():
        event = Event.get_or_none(Event.id == event.id)  # as in trash_event
        if event is None:
            return
        if is_occurrence(event):
            exclude_occurrence(event)
        elif is_series(event):
            delete_occurrences(event.id)
        Event.delete().where(Event.id == event.id).execute()
        Event.update(post_parent=0).where(Event.post_parent == event.id).execute()
