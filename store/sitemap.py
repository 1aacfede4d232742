"""The addresses a sitemap lists (SPEC §15): every published event without a password,
every venue and organizer an anonymous caller may read, every category and tag. Read by the
one visibility rule (``store/posts.py::readable_clause``), a page of rows at a time."""

from __future__ import annotations

from store.models import Event, Organizer, Term, Venue
from store.posts import readable_clause
from store.users import ANONYMOUS

MODELS = {"event": Event, "venue": Venue, "organizer": Organizer}


def count_public() -> int:
    """How many addresses the sitemap lists."""
    total = sum(
        model.select().where(readable_clause(model, ANONYMOUS)).count() for model in MODELS.values()
    )
    return total + Term.select().count()


def public_pages(offset: int, limit: int) -> list[tuple[str, str, str]]:
    """(kind, slug, modified UTC) of the listed addresses from ``offset``: events, venues
    and organizers in id order, then the terms (their kind is their taxonomy)."""
    found: list[tuple[str, str, str]] = []
    for kind, model in MODELS.items():
        query = (
            model.select(model.slug, model.modified_utc)
            .where(readable_clause(model, ANONYMOUS))
            .order_by(model.id)
        )
        size = query.count()
        if offset >= size:
            offset -= size
            continue
        rows = query.offset(offset).limit(limit - len(found)).tuples()
        found.extend((kind, slug, modified) for slug, modified in rows)
        offset = 0
        if len(found) >= limit:
            return found
    terms = Term.select(Term.taxonomy, Term.slug).order_by(Term.id)
    found.extend(
        (taxonomy, slug, "")
        for taxonomy, slug in terms.offset(offset).limit(limit - len(found)).tuples()
    )
    return found
