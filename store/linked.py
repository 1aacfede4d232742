"""Venues and organizers: the posts that events link to."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import reduce

from peewee import Case, fn

from rules.clock import utcnow_str
from rules.ids import as_id
from rules.posts import MASKS
from rules.text import fold, search_terms
from store.db import contains_text, folded, write_transaction
from store.errors import Vanished
from store.models import Event, EventOrganizer, EventVenue, Node, Organizer, Venue
from store.posts import (
    allocate_id,
    found_by_slug,
    readable_clause,
    unique_slug,
    unmasked_clause,
    visible_clause,
)
from store.sql import last_page_total
from store.users import Viewer

MODELS = {"venue": Venue, "organizer": Organizer}
LINKS = {
    "venue": (EventVenue, EventVenue.venue),
    "organizer": (EventOrganizer, EventOrganizer.organizer),
}
# Fields besides the name that identify a duplicate when sent (the reference's rule).
DEDUP_FIELDS = {
    "venue": ("description", "address", "city", "state", "province", "zip", "country", "phone"),
    "organizer": ("description", "phone", "email", "website"),
}
# Characters of the folded title that ``title_key`` keeps: a PostgreSQL index entry holds
# at most 2,704 bytes, and a name may be 65,535 characters long.
TITLE_KEY_LENGTH = 100


def get_linked(kind: str, item_id: int):
    if as_id(item_id) is None:
        return None
    model = MODELS[kind]
    return model.get_or_none(model.id == item_id)


def existing_linked(kind: str, ids) -> set[int]:
    """Which of ``ids`` are ids of existing ``kind`` records (any status), in one
    statement: a filter naming fifty venues is checked in one round trip, not a hundred."""
    model = MODELS[kind]
    wanted = {item_id for item_id in ids if as_id(item_id) is not None}
    if not wanted:
        return set()
    rows = (
        model.select(model.id)
        .join(Node, on=(Node.id == model.id))
        .where(model.id.in_(sorted(wanted)) & (Node.kind == kind))
        .tuples()
    )
    return {row[0] for row in rows}


def items_of_origin(origins: list[str]) -> list[tuple[str, object]]:
    """(kind, row) of the events, venues and organizers not in the trash that an import
    keeps as coming from one of ``origins`` (The Events Calendar's ``global_id``:
    ``Event.ical_uid``, the linked items' ``origin``), events first."""
    events = Event.select().where(Event.ical_uid.in_(origins) & (Event.status != "trash"))
    found = [("event", row) for row in events.order_by(Event.id)]
    for kind, model in (("venue", Venue), ("organizer", Organizer)):
        rows = model.select().where(model.origin.in_(origins) & (model.status != "trash"))
        found += [(kind, row) for row in rows]
    return found


def origins_of_post(number: int) -> set[str]:
    """The origins (``host?id=N``) of the items not in the trash that an import keeps as
    post ``number`` of a moved site, whatever the site's host: one when a single moved site
    had that post (a scan, asked only when ``items_of_origin`` found nothing at the host)."""
    suffix = f"?id={number}"
    events = Event.select(Event.ical_uid.alias("origin")).where(
        Event.ical_uid.endswith(suffix) & (Event.status != "trash")
    )
    found = {row.origin for row in events}
    for model in (Venue, Organizer):
        rows = model.select(model.origin).where(
            model.origin.endswith(suffix) & (model.status != "trash")
        )
        found |= {row.origin for row in rows}
    return found


def get_linked_by_slug(kind: str, slug: str, readable=None):
    """The venue or organizer an address names (``found_by_slug``: its older dashed slug
    only when ``readable`` takes it), not in the trash."""
    model = MODELS[kind]
    return found_by_slug(
        slug,
        lambda asked: model.get_or_none((model.slug == asked) & (model.status != "trash")),
        readable,
    )


def title_key(title: str) -> str:
    """The stored, indexed key of a venue's or organizer's title: the head of its fold.
    ``find_duplicate`` folded every row's title (SQLite: in Python, as no index may be made
    over our ``unicode_fold``), 6 ms a creation on an empty calendar, 89 ms with 100,000
    venues, under the write lock (chk19a); it now reads the rows of that key."""
    return fold(title)[:TITLE_KEY_LENGTH]


def _keyed(row: dict) -> dict:
    """A copy of ``row`` (columns to write) with the key of the title it writes, if any."""
    return {**row, "title_key": title_key(row["title"])} if "title" in row else dict(row)


def find_duplicate(kind: str, values: dict, viewer: Viewer):
    """An existing, non-trashed record with the same name (case-insensitive) and the same
    value for every identifying field that was sent, among those the viewer may read in
    full: a duplicate found elsewhere would reveal what the caller may not see. Found by
    its ``title_key``, the whole names compared among the rows of that key."""
    model = MODELS[kind]
    name = values["title"].strip()
    query = model.select().where(
        (model.title_key == title_key(name))
        & (folded(model.title) == fold(name))
        & (model.status != "trash")
        & readable_clause(model, viewer)
    )
    for field in DEDUP_FIELDS[kind]:
        if values.get(field):
            query = query.where(folded(getattr(model, field)) == fold(values[field].strip()))
    return query.order_by(model.id).first()


def create_linked(
    kind: str, values: dict, viewer: Viewer, dedupe: bool = True, now: str | None = None
):
    """Creates a venue or organizer from ``values`` (model columns), or returns the
    duplicate that ``viewer`` may read and that already exists. Call inside a write
    transaction; ``now``: the write's moment when it makes an event too (one write, one
    ``modified``: a feed's VEVENT is stamped with the latest of its items')."""
    model = MODELS[kind]
    if dedupe:
        existing = find_duplicate(kind, values, viewer)
        if existing is not None:
            return existing, False
    now = now or utcnow_str()
    row = _keyed(values)
    row.setdefault("date", now)
    row.setdefault("date_utc", now)
    row["modified"] = row["modified_utc"] = now
    row["id"] = allocate_id(kind)
    row["slug"] = unique_slug(model, row.get("slug"), kind, title=row["title"])
    model.insert(row).execute()
    return model.get_by_id(row["id"]), True


def update_linked(kind: str, item, values: dict):
    model = MODELS[kind]
    row = _keyed(values)
    if "slug" in row:
        row["slug"] = unique_slug(model, row["slug"], kind, exclude_id=item.id)
    now = utcnow_str()
    row["modified"] = row["modified_utc"] = now
    if not model.update(row).where(model.id == item.id).execute():
        raise Vanished(item.id)  # deleted since the request read it
    return model.get_by_id(item.id)


SEARCH_FIELDS = {
    "venue": (
        "title",
        "description",
        "excerpt",
        "address",
        "city",
        "province",
        "state",
        "stateprovince",
        "zip",
        "phone",
        "country",
    ),
    "organizer": ("title", "description", "excerpt", "phone", "email", "website"),
}


@dataclass
class LinkedFilters:
    statuses: list[str] | None = None
    search: str | None = None
    event: int | None = None
    has_events: bool | None = None
    only_with_upcoming: bool = False
    password: str | None = None  # the listing's access password for protected items
    include: list[int] | None = None  # only these ids (WordPress's ``include``)


def list_linked(
    kind: str, filters: LinkedFilters, viewer: Viewer, offset: int, limit: int, count=True
):
    """(rows, total) of venues or organizers, newest first; total None unless ``count``
    (asked of the database only when the page does not give it: ``last_page_total``)."""
    model = MODELS[kind]
    link, column = LINKS[kind]
    query = model.select().where(visible_clause(model, viewer, filters.statuses))
    if filters.include:
        query = query.where(model.id.in_(filters.include))
    if filters.search:  # read as an event search is: quotes, -exclusion, stopwords
        words, excluded = search_terms(filters.search)
        query = query.where(_matching(kind, words, excluded, viewer, filters.password))
    # Links count only through events this viewer may read in full: a draft's or a
    # protected event's venue is not the caller's to know.
    if filters.event is not None:
        query = query.where(
            fn.EXISTS(
                link.select(link.event)
                .join(Event, on=(link.event == Event.id))
                .where(
                    (column == model.id)
                    & (link.event == filters.event)
                    & readable_clause(Event, viewer, filters.password)
                )
            )
        )
    if filters.has_events is not None:
        counted = (
            link.select(link.event)
            .join(Event, on=(link.event == Event.id))
            .where(
                (column == model.id)
                & readable_clause(Event, viewer)
                # Drafts and pending events never count, whoever asks (the plugin's rule;
                # reference §3.5), unlike only_with_upcoming's events, which are the caller's.
                & Event.status.not_in(("draft", "pending"))
            )
        )
        clause = fn.EXISTS(counted)
        query = query.where(clause if filters.has_events else ~clause)
    if filters.only_with_upcoming:
        upcoming = (
            link.select(link.event)
            .join(Event, on=(link.event == Event.id))
            .where(
                (column == model.id)
                & (Event.utc_end >= utcnow_str())
                & readable_clause(Event, viewer)
            )
        )
        query = query.where(fn.EXISTS(upcoming))
    rows = list(query.order_by(model.date_utc.desc(), model.id.desc()).offset(offset).limit(limit))
    if not count:
        return rows, None
    total = last_page_total(rows, offset, limit)
    return rows, query.count() if total is None else total


def _matching(kind: str, words: list, excluded: list, viewer: Viewer, password):
    """A venue or organizer one of whose fields contains every word of a search, and none
    of whose fields contains an excluded word; the fields a password masks are searched
    only where this viewer may read them (a masked field neither finds nor excludes)."""
    model = MODELS[kind]
    clear = unmasked_clause(model, viewer, password)
    found, excluding = [], []
    for name in SEARCH_FIELDS[kind]:
        field = getattr(model, name)
        guard = clear if name in MASKS[kind] else None  # shown to all: found by all
        if words:
            every = reduce(operator.and_, (contains_text(field, word) for word in words))
            found.append(_guarded(every, guard))
        excluding += [_guarded(contains_text(field, word), guard) for word in excluded]
    clause = reduce(operator.or_, found) if found else None
    if excluding:  # COALESCE: an empty (NULL) field excludes nothing
        kept = ~fn.COALESCE(reduce(operator.or_, excluding), False)
        clause = kept if clause is None else clause & kept
    return clause


def _guarded(part, guard):
    return part if guard is None else part & guard


def trash_linked(kind: str, item):
    model = MODELS[kind]
    with write_transaction():
        now = utcnow_str()
        trashed = model.update(
            status="trash",
            trashed_from=Case(None, [(model.status == "trash", model.trashed_from)], model.status),
            modified=now,
            modified_utc=now,
        ).where(model.id == item.id)
        if not trashed.execute():
            raise Vanished(item.id)  # deleted since the request read it
        return model.get_by_id(item.id)


def delete_linked(kind: str, item) -> None:
    """Permanent delete; the links go with it (ON DELETE CASCADE)."""
    model = MODELS[kind]
    with write_transaction():
        model.delete().where(model.id == item.id).execute()


def save_linked(kind: str, values: dict, viewer: Viewer, existing=None, dedupe: bool = True):
    """Creates (de-duplicating among what ``viewer`` may read, unless ``dedupe`` is false)
    or updates; returns (row, created)."""
    with write_transaction():
        if existing is None:
            return create_linked(kind, values, viewer, dedupe=dedupe)
        return update_linked(kind, existing, values), False
