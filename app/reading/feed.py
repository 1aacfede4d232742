"""The iCalendar face of the read path (app/reading/__init__.py): a listing's events as
VEVENTs, series as one VEVENT with their rules and edited occurrences (SPEC §11, §12)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import orjson
from flask import current_app

from app.cache import cached_response
from app.ical import FeedEvent, calendar_response
from app.reading.texts import event_texts, single_read_refusal
from app.server_memory import release_memory
from rules import dates
from rules.recurrence import (
    feed_recurrence,
    feed_recurrence_between,
    is_occurrence,
    is_series,
    series_zone,
    stored_lines,
)
from store.events import (
    EventFilters,
    get_events,
    list_events,
)
from store.recurrence import (
    ical_role,
    last_occurrence_ends,
    overrides_of,
    series_dates,
    series_spans,
)


def feed_response(items):
    config = current_app.config
    return calendar_response(items, name=config["SITE_NAME"], site_timezone=config["SITE_TIMEZONE"])


# One feed built at a time per worker: building 1,000 events takes tens of MB, which the
# threads of a worker would otherwise each hold at once (and keep, as Python does).
_FEED_BUILDING = threading.Lock()


def events_feed(filters, viewer, password):
    """The listing as iCalendar: the same filters and visibility, no paging; events whose
    fields the caller may not read are left out rather than masked (SPEC §11)."""
    with _FEED_BUILDING:
        # A thread that waited here may find the feed that another one just built.
        response = cached_response()
        if response is None:
            response = _events_feed(filters, viewer, password)
            release_memory()
        return response


def _events_feed(filters, viewer, password):
    filters.readable_only = True
    most = current_app.config["ICAL_MAX_EVENTS"]
    rows, _total = list_events(filters, viewer, 0, most, only="feed")
    rows.sort(key=lambda row: (row.utc_start, row.id))  # soonest first, even near a point

    def readable(ids):  # the listing's visibility, whatever its other filters
        if not ids:
            return []
        seen = EventFilters(
            include=ids, statuses=filters.statuses, password=filters.password, readable_only=True
        )
        return list_events(seen, viewer, 0, len(ids))[0]

    return feed_response(calendar_items(rows, viewer, password, readable, listed_whole=False))


def _series_of(row) -> int | None:
    role = ical_role(row)
    if role == "series":
        return row.id
    return row.post_parent if role in ("override", "omitted") else None


# Events rendered at once for a feed: a 1,000-event feed never holds all their
# representations, and a worker keeps the memory it peaked at.
FEED_CHUNK = 100


def event_feed(event, viewer, password):
    """The feed of one event that ``viewer`` may read (``password`` given): a series by id
    or slug is the whole series, as the feed shows it (the same UID). An occurrence is its
    own dates alone, what a visitor on that date's page adds: a VEVENT with its own UID
    (``{occurrence id}@{host}``), not the series' UID with a RECURRENCE-ID, which calendar
    applications import badly without the series' VEVENT (docs/icalendar.md)."""
    if is_occurrence(event):
        return feed_response(FeedEvent(data) for data in _dicts([event], viewer, password))

    def readable(ids):
        return [
            row for row in get_events(ids) if single_read_refusal(row, viewer, password) is None
        ]

    return feed_response(calendar_items([event], viewer, password, readable))


def calendar_items(rows, viewer, password, readable, listed_whole=True) -> Iterator[FeedEvent]:
    """The VEVENTs for ``rows``, in their order (SPEC §11/§12): an ordinary event as
    itself; a series, or any occurrence of it, as the series once, with its RRULE, RDATE
    and EXDATE and one VEVENT per occurrence edited on its own, so that a subscriber sees
    the occurrences the listing shows even when only an occurrence matched its filters,
    and only those (a listing's feed: ``_partly_listed``). Made as they are written, about
    ``FEED_CHUNK`` events rendered at a time.

    ``readable(ids)`` gives the events among ``ids`` this caller may see as the listing
    would: a series it may not see is not emitted (its listed occurrences then appear on
    their own), and an edited occurrence it may not see leaves its date out (EXDATE).
    ``listed_whole`` false: ``rows`` hold ``FEED_COLUMNS`` only (store/events.py), so their
    texts are read, or rendered from rows read whole, by ``event_texts``."""
    wanted = list(dict.fromkeys(s for s in map(_series_of, rows) if s is not None))
    listed = {row.id: row for row in rows}
    series = {
        row.id: row
        for row in [
            *(listed[s] for s in wanted if s in listed and is_series(listed[s])),
            *readable([s for s in wanted if s not in listed]),
        ]
        if is_series(row)
    }
    edited = overrides_of(list(series))
    stretched, usual = _stretched(series)
    for series_id, stretched_rows in stretched.items():
        edited[series_id] = sorted([*edited[series_id], *stretched_rows], key=_occurrence)
    visible = {row.id for row in readable([o.id for group in edited.values() for o in group])}
    parts = {} if listed_whole else _partly_listed(series, rows, edited, visible)
    known = (last_occurrence_ends(list(series)), usual, parts)
    # What is written, in order: (None, [event]) or (series id, [series, edited occurrences]).
    groups, done = [], set()
    for row in rows:
        series_id = _series_of(row)
        if series_id not in series:
            groups.append((None, [row]))
        elif series_id not in done:
            done.add(series_id)
            shown = [o for o in edited[series_id] if o.id in visible]
            groups.append((series_id, [series[series_id], *shown]))
    for chunk in _chunks(groups, FEED_CHUNK):
        emitted = [row for _series_id, group in chunk for row in group]
        whole = emitted if listed_whole else [row for row in emitted if row.id not in listed]
        dicts = {data["id"]: data for data in _dicts(emitted, viewer, password, whole)}
        for series_id, group in chunk:
            # An event a write removed or hid since the listing has no text: left out.
            if group[0].id not in dicts:
                continue
            if series_id is None:
                yield FeedEvent(dicts[group[0].id])
            else:
                yield from _series_items(
                    series[series_id], edited[series_id], visible, dicts, known
                )


def _dicts(rows, viewer, password, whole=None) -> list[dict]:
    """The listing's own texts of ``rows`` (made once per data version, or spliced from
    their stored texts), read back as the representations a VEVENT is made of; ``whole``:
    those of ``rows`` read whole (all of them by default)."""
    texts = event_texts(
        [row.id for row in rows], viewer, rows=rows if whole is None else whole, password=password
    )
    return orjson.loads(orjson.dumps(texts))


def _stretched(series: dict) -> tuple[dict[int, list], dict[int, timedelta]]:
    """The occurrences of timed ``series`` (ids to rows) that last longer or shorter than
    most of their series' dates, and the series whose own first date does (with that usual
    length): an occurrence keeps the series' wall-clock times (SPEC §12), so one whose span
    holds a change of time (the clocks going forward at 2:00) lasts an hour less or more,
    where an RFC 5545 reader gives every occurrence the length of the series' VEVENT
    (§3.8.5.3). The VEVENT says the usual length, and the dates of another length are
    written with their own RECURRENCE-ID and dates, as occurrences edited on their own are,
    so that every reader finds the dates the API lists; so are the dates whose rule's time
    the clocks skip (moved forward by the gap, with the series' length: readers that add
    the length to the wall time make them empty). A series whose first date is of
    another length is written with the usual one as its DURATION, and its first date as
    an edit of its own."""
    spans = series_spans(list(series))
    lengths = {event_id: _length(start, end) for _s, event_id, start, end, _moved in spans}
    counted: dict[int, Counter] = {}
    for series_id, event_id, _start, _end, _moved in spans:
        counted.setdefault(series_id, Counter())[lengths[event_id]] += 1
    usual = {series_id: count.most_common(1)[0][0] for series_id, count in counted.items()}
    differ = [
        event_id
        for series_id, event_id, _start, _end, moved in spans
        if event_id != series_id and (moved or lengths[event_id] != usual[series_id])
    ]
    found: dict[int, list] = {}
    for row in get_events(differ):
        found.setdefault(row.post_parent, []).append(row)
    own = {s: length for s, length in usual.items() if s in lengths and lengths[s] != length}
    return found, own


def _length(utc_start: str, utc_end: str):
    return dates.parse_stored(utc_end) - dates.parse_stored(utc_start)


def _occurrence(row) -> str:
    return row.occurrence


def _chunks(groups: list, size: int) -> Iterator[list]:
    """``groups`` (pairs whose second item is a list) in runs of about ``size`` items."""
    chunk, count = [], 0
    for group in groups:
        chunk.append(group)
        count += len(group[1])
        if count >= size:
            yield chunk
            chunk, count = [], 0
    if chunk:
        yield chunk


def _partly_listed(series: dict, rows, edited: dict, visible: set) -> dict[int, tuple]:
    """For each of ``series`` whose dates the listing (``rows``) holds only some of (the
    date window, past or upcoming, any filter an occurrence edited on its own does not
    match): the ids of its events listed, and the dates (as their rules give them) listed
    and left out. A series whose every date is listed, but for the edited ones the caller
    may not see (written as EXDATEs by ``_series_items``), is written whole, as before."""
    listed: dict[int, set[int]] = {}
    for row in rows:
        listed.setdefault(_series_of(row), set()).add(row.id)
    unseen = {row.id for group in edited.values() for row in group if row.id not in visible}
    found = {}
    for series_id, members in series_dates(list(series)).items():
        ids = listed.get(series_id, set())
        if all(event_id in ids or event_id in unseen for event_id, _date in members):
            continue
        dates_of = [(event_id in ids, dates.parse_stored(text)) for event_id, text in members]
        found[series_id] = (
            ids,
            [moment for shown, moment in dates_of if shown],
            [moment for shown, moment in dates_of if not shown],
        )
    return found


def _series_items(series, edited, visible, dicts, known) -> list[FeedEvent]:
    """The series' VEVENT and those of its dates edited on their own (or of another
    length: ``usual``, the series whose first date has one, with the length of the rest).
    ``known``: the series' last ends, ``usual``, and what a listing holds of each series it
    holds only part of (``_partly_listed``): the VEVENT then stands for those dates alone."""
    ends, usual, parts = known
    part = parts.get(series.id)
    tz = series_zone(series)[0]
    all_day = bool(series.all_day)
    start = dates.parse_stored(series.start_date)
    first = dicts[series.id]
    if part is None:
        recurrence = feed_recurrence(stored_lines(series.recurrence), start, tz, all_day)
        for row in edited:
            if row.id not in visible or row.id not in dicts:  # not the caller's to see
                moment = dates.parse_stored(row.occurrence)
                recurrence.exdates.append(moment.date() if all_day else moment)
        head = first
    else:
        ids, listed, left_out = part
        edited = [row for row in edited if row.id in ids]
        begins, recurrence = feed_recurrence_between(
            stored_lines(series.recurrence), start, tz, all_day, listed, left_out
        )
        head = _moved_to(first, begins - start, tz)
    last = ends.get(series.id)
    item = FeedEvent(
        head,
        recurrence,
        last_day=dates.parse_stored(last).date() if last else None,
        length=usual.get(series.id),
    )
    own = [FeedEvent(first, series=first, recurrence_id=start)]
    shown = part is None or series.id in part[0]
    return [item, *(own if series.id in usual and shown else ())] + [
        FeedEvent(
            dicts[row.id],
            series=dicts[series.id],
            recurrence_id=dates.parse_stored(row.occurrence),
        )
        for row in edited
        if row.id in visible and row.id in dicts
    ]


def _moved_to(event: dict, shift: timedelta, tz) -> dict:
    """The series' representation with its dates ``shift`` later on the wall clock (the
    VEVENT of a series listed from a later date starts there)."""
    if not shift:
        return event
    moved = dict(event)
    for name in ("start_date", "end_date"):
        local = dates.parse_stored(event[name]) + shift
        moved[name] = dates.fmt(local)
        moved[f"utc_{name}"] = dates.fmt(dates.local_to_utc(local, tz))
    return moved
