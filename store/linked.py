"""Venues and organizers: the posts that events link to."""

from __future__ import annotations

from peewee import fn

from store.clock import utcnow_str
from store.models import EventOrganizer, EventVenue, Organizer, Venue
from store.posts import allocate_id, unique_slug

MODELS = {"venue": Venue, "organizer": Organizer}
LINKS = {"venue": (EventVenue, EventVenue.venue), "organizer": (EventOrganizer, EventOrganizer.organizer)}
# Fields besides the name that identify a duplicate when sent (the reference's rule).
DEDUP_FIELDS = {
    "venue": ("description", "address", "city", "state", "province", "zip", "country", "phone"),
    "organizer": ("description", "phone", "email", "website"),
}


def get_linked(kind: str, item_id: int):
    model = MODELS[kind]
    return model.get_or_none(model.id == item_id)


def get_linked_by_slug(kind: str, slug: str):
    model = MODELS[kind]
    return model.get_or_none((model.slug == slug) & (model.status != "trash"))


def find_duplicate(kind: str, values: dict):
    """An existing, non-trashed record with the same name (case-insensitive) and the same
    value for every identifying field that was sent."""
    model = MODELS[kind]
    query = model.select().where(
        (fn.LOWER(model.title) == values["title"].strip().lower()) & (model.status != "trash")
    )
    for field in DEDUP_FIELDS[kind]:
        if values.get(field):
            query = query.where(fn.LOWER(getattr(model, field)) == values[field].strip().lower())
    return query.order_by(model.id).first()


def create_linked(kind: str, values: dict, dedupe: bool = True):
    """Creates a venue or organizer from ``values`` (model columns), or returns the
    duplicate that already exists. Call inside a write transaction."""
    model = MODELS[kind]
    if dedupe:
        existing = find_duplicate(kind, values)
        if existing is not None:
            return existing, False
    now = utcnow_str()
    row = dict(values)
    row.setdefault("date", now)
    row.setdefault("date_utc", now)
    row["modified"] = row["modified_utc"] = now
    row["id"] = allocate_id(kind)
    row["slug"] = unique_slug(model, row.get("slug") or row["title"], kind)
    model.insert(row).execute()
    return model.get_by_id(row["id"]), True


def update_linked(kind: str, item, values: dict):
    model = MODELS[kind]
    row = dict(values)
    if "slug" in row:
        row["slug"] = unique_slug(model, row["slug"], kind, exclude_id=item.id)
    now = utcnow_str()
    row["modified"] = row["modified_utc"] = now
    model.update(row).where(model.id == item.id).execute()
    return model.get_by_id(item.id)


def linked_events_exist(kind: str, item_id: int) -> bool:
    link, column = LINKS[kind]
    return link.select().where(column == item_id).exists()
