"""Categories and tags: one table, told apart by ``taxonomy``."""

from __future__ import annotations

from peewee import fn

from store.errors import InvalidInput
from store.models import Event, EventTerm, Term
from store.posts import is_published, slugify, split_list

TAXONOMIES = {"category": "tribe_events_cat", "tag": "post_tag"}


def get_term(term_id: int, taxonomy: str) -> Term | None:
    return Term.get_or_none((Term.id == term_id) & (Term.taxonomy == taxonomy))


def find_term(value, taxonomy: str) -> Term | None:
    """A term by id, else by slug, else by name (case-insensitive)."""
    text = str(value).strip()
    if text.isdigit():
        found = get_term(int(text), taxonomy)
        if found:
            return found
    found = Term.get_or_none((Term.taxonomy == taxonomy) & (Term.slug == text))
    if found:
        return found
    return Term.get_or_none((Term.taxonomy == taxonomy) & (fn.LOWER(Term.name) == text.lower()))


def resolve_filter_terms(values: list[str], taxonomy: str, param: str) -> list[int]:
    """Ids for a listing filter given as slugs or ids; any unknown one is an error."""
    ids = []
    for value in values:
        term = find_term(value, taxonomy)
        if term is None:
            raise InvalidInput({param: "%(value)s is not an existing term."}, value=value)
        ids.append(term.id)
    return ids


def parse_term_input(value, taxonomy: str, param: str) -> list:
    """Event write input: ids, slugs or names as a list or CSV. Returns ids and
    ("new", name) items; an unknown numeric id is an error."""
    if value in ("", None, [], 0, "0"):
        return []
    items = []
    for item in split_list(value):
        if isinstance(item, bool) or isinstance(item, dict | list):
            raise InvalidInput({param: "Must be term ids, slugs or names."})
        text = str(item).strip()
        if not text:
            continue
        term = find_term(text, taxonomy)
        if term is not None:
            items.append(term.id)
        elif text.isdigit():
            raise InvalidInput({param: "Term %(value)s does not exist."}, value=text)
        else:
            items.append(("new", text[:200]))
    return items


def materialise_terms(items: list, taxonomy: str) -> list[int]:
    """Creates the new terms named in ``items`` (inside the caller's transaction)."""
    ids = []
    for item in items:
        if isinstance(item, tuple):
            name = item[1]
            term = find_term(name, taxonomy) or create_term(taxonomy, name)
            ids.append(term.id)
        else:
            ids.append(item)
    seen = set()
    return [i for i in ids if not (i in seen or seen.add(i))]


def create_term(taxonomy: str, name: str, slug: str = "", description: str = "", parent=0):
    base = slugify(slug or name) or taxonomy
    candidate, number = base, 2
    while Term.select().where((Term.taxonomy == taxonomy) & (Term.slug == candidate)).exists():
        candidate = f"{base}-{number}"
        number += 1
    return Term.create(
        taxonomy=taxonomy, name=name, slug=candidate, description=description, parent=parent
    )


def published_counts(term_ids) -> dict[int, int]:
    """Published events per term, in one query."""
    if not term_ids:
        return {}
    query = (
        EventTerm.select(EventTerm.term, fn.COUNT(EventTerm.event).alias("n"))
        .join(Event, on=(EventTerm.event == Event.id))
        .where(EventTerm.term.in_(list(term_ids)) & is_published(Event))
        .group_by(EventTerm.term)
        .tuples()
    )
    return dict(query)
