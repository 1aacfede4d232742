"""Categories and tags: one table, told apart by ``taxonomy``."""

from __future__ import annotations

from dataclasses import dataclass

from peewee import JOIN, SQL, Case, Select, fn

from rules import N_
from rules.clock import utcnow_str
from rules.ids import as_id
from rules.text import fold
from store.db import (
    contains_text,
    database,
    folded,
    never_reused_id,
    totals_with_pages,
    unindexed,
    write_transaction,
)
from store.errors import Conflict, InvalidInput, Vanished
from store.memo import MEMO, current_version
from store.models import Event, EventTerm, Term
from store.posts import (
    first_scheduled,
    found_by_slug,
    publication_horizon,
    readable_clause,
    rows_by_id,
    slugify,
    term_slugs_asked,
    unique_slug,
)
from store.sql import Shaped, Statement, in_list, last_page_total, param, rows_of
from store.users import Viewer

TAXONOMIES = {"category": "tribe_events_cat", "tag": "post_tag"}


def get_term(term_id: int, taxonomy: str) -> Term | None:
    if as_id(term_id) is None:
        return None
    return Term.get_or_none((Term.id == term_id) & (Term.taxonomy == taxonomy))


def _terms_where(condition):
    columns = (Term.id, Term.taxonomy, Term.name, Term.slug, Term.description, Term.parent)
    return Term.select(*columns).where(condition).order_by(Term.id)


# Compiled once: event writes look up every term they name.
_TERM_BY_ID = Statement(lambda: _terms_where((Term.id == param(0)) & (Term.taxonomy == param(1))))
_TERM_BY_SLUG = Statement(
    lambda: _terms_where((Term.taxonomy == param(0)) & (Term.slug == param(1)))
)
_TERM_BY_NAME = Statement(
    lambda: _terms_where((Term.taxonomy == param(0)) & (folded(Term.name) == param(1)))
)


def term_by_slug(slug: str, taxonomy: str) -> Term | None:
    """The term whose slug an address names (``found_by_slug``, in any case): a term's page
    names its slug only, and a slug of digits ("18+" makes ``18``) names that term, not
    the term whose id those digits are (``find_term``'s reading, the API's)."""
    rows = found_by_slug(slug, lambda asked: _TERM_BY_SLUG.rows(taxonomy, asked) or None)
    return Term(**vars(rows[0])) if rows else None


def find_term(value, taxonomy: str) -> Term | None:
    """A term by id, else by slug, else by name (case-insensitive)."""
    text = str(value).strip()
    rows = _by_id_or_slug(text, taxonomy) or _TERM_BY_NAME.rows(taxonomy, fold(text))
    return Term(**vars(rows[0])) if rows else None


def find_terms(values: list, taxonomy: str) -> list[Term | None]:
    """``find_term`` of each of ``values``, those that neither an id nor a slug finds looked
    up by name together (``terms_named``): a lookup by name folds the name of every term of
    the taxonomy, and an event write naming thousands of new tags, a lookup a name, took
    seconds a thousand with the write lock held (outside check chk19a)."""
    texts = [str(value).strip() for value in values]
    found = [_by_id_or_slug(text, taxonomy) for text in texts]
    missing = [text for text, rows in zip(texts, found, strict=True) if not rows]
    named = terms_named(missing, taxonomy) if len(missing) > 1 else {}
    if len(missing) == 1:  # the one name by its compiled statement
        rows = _TERM_BY_NAME.rows(taxonomy, fold(missing[0]))
        named = {fold(missing[0]): Term(**vars(rows[0]))} if rows else {}
    return [
        Term(**vars(rows[0])) if rows else named.get(fold(text))
        for text, rows in zip(texts, found, strict=True)
    ]


def terms_named(texts: list[str], taxonomy: str) -> dict[str, Term]:
    """The terms of ``taxonomy`` named by ``texts`` in any case, by folded name (the lowest
    id of a name, as ``find_term``): a statement for 500 names, each a pass over the names."""
    folds = list(dict.fromkeys(fold(text) for text in texts))
    named: dict[str, Term] = {}
    for start in range(0, len(folds), 500):
        chunk = folds[start : start + 500]
        for term in _terms_where((Term.taxonomy == taxonomy) & folded(Term.name).in_(chunk)):
            named.setdefault(fold(term.name), term)
    return named


def _by_id_or_slug(text: str, taxonomy: str) -> list:
    rows = []
    if as_id(text) is not None:
        rows = _TERM_BY_ID.rows(int(text), taxonomy)
    for slug in dict.fromkeys(term_slugs_asked(text, _slug_held(taxonomy))):
        rows = rows or _TERM_BY_SLUG.rows(taxonomy, slug)
    return rows


def _slug_held(taxonomy: str):
    """Whether a term of ``taxonomy`` has a slug (``term_slugs_asked``: terms are public)."""
    return lambda slug: bool(_TERM_BY_SLUG.rows(taxonomy, slug))


def resolve_filter_terms(values: list[str], taxonomy: str, param: str) -> list[int]:
    """Ids for a listing filter given as slugs or ids (as ``find_term`` reads them); any
    unknown one is an error. Ids and slugs are looked up in the taxonomy's terms as read
    once per data version (``_filter_terms``): a listing filtered by a category asked a
    query for the term and one for each level below it."""
    known, by_slug, children = _filter_terms(taxonomy)
    ids = []
    for value in values:
        text = str(value).strip()
        term_id = int(text) if as_id(text) is not None else None
        if term_id not in known:
            asked = (by_slug.get(slug) for slug in term_slugs_asked(text, by_slug.__contains__))
            term_id = next((found for found in asked if found is not None), None)
        if term_id is None:  # by name, as the engine compares names
            term = find_term(value, taxonomy)
            if term is None:
                raise InvalidInput({param: N_("%(value)s is not an existing term.")}, value=value)
            term_id = term.id
        ids.append(term_id)
    if taxonomy == "category":  # as WordPress's taxonomy query: children are included
        ids = _with_descendants(ids, children)
    return ids


def _with_descendants(ids: list[int], children: dict[int, list[int]]) -> list[int]:
    """``ids`` and every category below them, level by level, each level by id."""
    found = list(dict.fromkeys(ids))
    seen = set(found)
    frontier = found
    while frontier:
        below = sorted(child for parent in frontier for child in children.get(parent, ()))
        frontier = [term_id for term_id in below if term_id not in seen]
        seen.update(frontier)
        found.extend(frontier)
    return found


def _filter_terms(taxonomy: str) -> tuple[frozenset, dict, dict]:
    """The taxonomy's terms as listing filters read them: their ids, ids by slug (the
    lowest id of a slug, as ``find_term``), children's ids by parent; once per version."""
    return MEMO.get(current_version(), ("filter terms", taxonomy), lambda: _read_terms(taxonomy))


def _read_terms(taxonomy: str) -> tuple[frozenset, dict, dict]:
    ids = []
    by_slug: dict[str, int] = {}
    children: dict[int, list[int]] = {}
    query = Term.select(Term.id, Term.slug, Term.parent).where(Term.taxonomy == taxonomy)
    for term_id, slug, parent in query.order_by(Term.id).tuples():
        ids.append(term_id)
        by_slug.setdefault(slug, term_id)
        if parent:
            children.setdefault(parent, []).append(term_id)
    return frozenset(ids), by_slug, children


def materialise_terms(items: list, taxonomy: str) -> list[int]:
    """Creates the new terms named in ``items`` (inside the caller's transaction); a name
    made meanwhile (another writer, or twice in ``items``) is the term it names."""
    names = [item[1] for item in items if isinstance(item, tuple)]
    made = {fold(name): term for name, term in zip(names, find_terms(names, taxonomy), strict=True)}
    ids = []
    for item in items:
        if isinstance(item, tuple):
            term = made.get(fold(item[1]))
            if term is None:
                term = made[fold(item[1])] = create_term(taxonomy, item[1])
            ids.append(term.id)
        else:
            ids.append(item)
    seen = set()
    return [i for i in ids if not (i in seen or seen.add(i))]


def create_term(taxonomy: str, name: str, slug: str = "", description: str = "", parent=0):
    candidate = unique_slug(Term, slug, taxonomy, scope=Term.taxonomy == taxonomy, title=name)
    fresh = never_reused_id(Term._meta.table_name)
    return Term.create(
        **({"id": fresh} if fresh is not None else {}),
        taxonomy=taxonomy,
        name=name,
        slug=candidate,
        description=description,
        parent=parent,
    )


def published_counts(term_ids) -> dict[int, int]:
    """Published events per term: the count stored in the term's row (the rows made once
    per data version, which the terms' rendering reads too: one query for both), plus the
    scheduled events whose publication date has passed (found through the index of
    scheduled events, and only looked for when one is due)."""
    ids = sorted({int(i) for i in term_ids})
    if not ids:
        return {}
    rows = rows_by_id(Term, ids)
    counts = {term_id: row.published for term_id, row in rows.items() if row is not None}
    now = utcnow_str()
    first = first_scheduled()
    if not first or first > now:
        return counts
    sizes = (len(ids),)
    for term_id, number in _DUE_COUNTS.execute(*ids, "future", now, sizes=sizes):
        counts[term_id] = counts.get(term_id, 0) + number
    return counts


# Compiled once per list length: every page of events shows its terms' counts.
_DUE_COUNTS = Statement(
    lambda size: _due_counts(in_list(0, size), status=param(size), now=param(size + 1))
)


# --- the /categories and /tags resources --------------------------------------------------

ORDERBY = ("id", "name", "slug", "count", "term_group", "description", "include", "include_slugs")


@dataclass
class TermFilters:
    search: str | None = None
    include: list[int] | None = None
    exclude: list[int] | None = None
    order: str = "asc"
    orderby: str = "name"
    hide_empty: bool = True
    parent: int | None = None
    event: int | None = None
    slug: list[str] | None = None


def _due_counts(term_ids: list | None = None, status="future", now: str | None = None):
    """The one definition of a term's count is ``Term.published`` (links of published
    events, kept by triggers) plus this: links of scheduled events whose publication date
    has passed, per term, read from the ``(status, date_utc)`` index of events (no worker
    publishes them, so they are counted where they are read). ``term_ids`` narrows it."""
    # Unindexed sides keep the plan starting from the due events, however many links
    # the terms have.
    due = (
        EventTerm.select(EventTerm.term, fn.COUNT(SQL("*")).alias("n"))
        .join(Event, on=(EventTerm.event == unindexed(Event.id)))
        .where(
            (Event.status == status)
            & (Event.date_utc <= (now or utcnow_str()))
            & (Event.password == SQL("''"))  # as ``live_value``: protected ones count for none
        )
    )
    if term_ids is not None:
        due = due.where(unindexed(EventTerm.term).in_(term_ids))
    return due.group_by(EventTerm.term)


def _counted_ancestors() -> list[int]:
    """The ancestors of the categories that count events (made once per data version and
    publication horizon: a scheduled event's date passing changes the counts)."""
    parent_of = dict(Term.select(Term.id, Term.parent).where(Term.taxonomy == "category").tuples())
    counts = published_counts(parent_of)
    found: set[int] = set()
    for term_id in (term_id for term_id, n in counts.items() if n):
        seen = {term_id}
        parent = parent_of.get(term_id)
        while parent and parent not in seen and parent not in found:
            seen.add(parent)
            found.add(parent)
            parent = parent_of.get(parent)
    return sorted(found)


def terms_by_name(taxonomy: str, most: int | None = None) -> list[Term]:
    """The terms of ``taxonomy`` by name (the first ``most`` of them): what a form offers to
    choose."""
    # Names may repeat under different parents: the id orders those, on either engine.
    query = Term.select().where(Term.taxonomy == taxonomy).order_by(Term.name, Term.id)
    return list(query.limit(most) if most is not None else query)


def term_names(term_ids) -> dict[int, str]:
    """The names of the terms ``term_ids`` by id, in one query (a list's parents)."""
    ids = sorted(set(term_ids))
    if not ids:
        return {}
    return dict(Term.select(Term.id, Term.name).where(Term.id.in_(ids)).tuples())


def list_terms(taxonomy: str, filters: TermFilters, viewer: Viewer, offset: int, limit: int):
    """(rows with ``.n`` the published event count, total). The ``event`` filter lists the
    terms of an event only when ``viewer`` may read that event's terms.

    Both statements are compiled once per shape (``store/sql.py::Shaped``): building and
    compiling the query with its subquery of due counts was most of a cold ``GET
    /categories``, whose SQL itself takes a fraction of a millisecond. The count is asked
    only when the page is full or beyond the last: a page short of ``limit`` is the last,
    and gives the total itself (most sites have fewer categories than a page holds). On
    PostgreSQL a page carries the total in each row (``totals_with_pages``: the rows are
    all read and sorted for the page anyway), and only a page beyond the last, which has
    no row, is counted: a full page cost a second round trip."""
    parents = []
    if filters.hide_empty and taxonomy == "category":
        # As WordPress's hierarchical term query: an empty category stays when one of its
        # descendants has events, so a client building the tree finds every parent.
        parents = MEMO.get(
            current_version(), ("counted ancestors", publication_horizon()), _counted_ancestors
        )
    values = _term_values(taxonomy, filters, parents, offset=offset, limit=limit)
    shape = _term_shape(taxonomy, filters, len(parents))

    def counted(ref):
        return _terms_query(taxonomy, filters, viewer, len(parents), ref)[0]

    with_total = totals_with_pages()

    def page(ref):
        query, ordering = _terms_query(taxonomy, filters, viewer, len(parents), ref)
        if with_total:
            query = query.select_extend(fn.COUNT(SQL("*")).over().alias("total"))
        return query.order_by(ordering, Term.id).offset(ref("offset")).limit(ref("limit"))

    rows = rows_of(_TERMS.execute(shape and (*shape, "page"), page, values))
    if rows and with_total:
        return rows, int(rows[0].total)
    total = last_page_total(rows, offset, limit)
    if total is not None:
        return rows, total
    total = _TERMS.execute(shape and (*shape, "count"), _counting(counted), values).fetchone()
    return rows, int(total[0])  # PostgreSQL: numeric


_TERMS = Shaped(size=64)


def _counting(build):
    """The number of rows of ``build``'s query, as Peewee's own ``count()`` asks it."""

    def build_count(ref):
        wrapped = build(ref).select(SQL("1")).alias("_wrapped")
        return Select([wrapped], [fn.COUNT(SQL("1"))]).bind(database)

    return build_count


def _term_shape(taxonomy: str, filters: TermFilters, parents: int) -> tuple | None:
    """What decides the text of ``_terms_query``'s SQL; ``None`` (built afresh each time)
    for a search or an event's terms, which are rare and read their values as literals."""
    if filters.search or filters.event is not None:
        return None
    lists = (len(getattr(filters, name) or ()) for name in ("include", "exclude", "slug"))
    return (
        taxonomy,
        *lists,
        filters.parent is not None,
        filters.hide_empty,
        parents,
        filters.orderby,
        filters.order,
    )


def _term_values(taxonomy: str, filters: TermFilters, parents: list[int], **extra) -> dict:
    """The values ``_terms_query`` reads through its ``ref``, by name (a list's items as
    ``name.0``, ``name.1``…)."""
    values = {"taxonomy": taxonomy, "now": utcnow_str(), "parent": filters.parent, **extra}
    # A slug asked is sanitised as a stored one was (WP_Term_Query's sanitize_title): `BIG-MUSIC`,
    # `été-musique`; each as term_slugs_asked reads it.
    held = _slug_held(taxonomy)
    slugs = [asked for slug in filters.slug or () for asked in term_slugs_asked(slug, held)]
    named = {"include": filters.include, "exclude": filters.exclude, "slug": slugs}
    for name, items in {**named, "parents": parents}.items():
        values.update({f"{name}.{n}": item for n, item in enumerate(items or ())})
    return values


def _terms_query(taxonomy: str, filters: TermFilters, viewer: Viewer, parents: int, ref):
    """(the listing's query, its ORDER BY term), each value read through ``ref``."""
    due = _due_counts(now=ref("now")).alias("due")
    count = Term.published + fn.COALESCE(due.c.n, 0)
    query = (
        Term.select(Term, count.alias("n"))
        .join(due, JOIN.LEFT_OUTER, on=(due.c.term_id == Term.id))
        .where(Term.taxonomy == ref("taxonomy"))
    )
    if filters.search:
        query = query.where(
            contains_text(Term.name, filters.search) | contains_text(Term.slug, filters.search)
        )
    if filters.include:
        query = query.where(Term.id.in_(ref.list("include", len(filters.include))))
    if filters.exclude:
        query = query.where(Term.id.not_in(ref.list("exclude", len(filters.exclude))))
    if filters.parent is not None:
        query = query.where(Term.parent == ref("parent"))
    if filters.slug:
        query = query.where(Term.slug.in_(ref.list("slug", 2 * len(filters.slug))))
    if filters.event is not None:
        query = query.where(
            fn.EXISTS(
                EventTerm.select(EventTerm.term)
                .join(Event, on=(EventTerm.event == Event.id))
                .where(
                    (EventTerm.term == Term.id)
                    & (EventTerm.event == filters.event)
                    & readable_clause(Event, viewer)
                )
            )
        )
    if filters.hide_empty:
        shown = count > 0
        if parents:
            shown |= Term.id.in_(ref.list("parents", parents))
        query = query.where(shown)
    return query, _term_ordering(filters, count, ref)


def _term_ordering(filters: TermFilters, count, ref):
    """The ``orderby`` and ``order`` of a term listing, as an ORDER BY term."""
    column = {
        "id": Term.id,
        "name": folded(Term.name),
        "slug": Term.slug,
        "count": count,
        "term_group": Term.id,
        "description": Term.description,
    }.get(filters.orderby)
    if filters.orderby == "include" and filters.include:
        # The order the ids were given in (the first place of an id given twice).
        # The places as literals of the shape: as parameters PostgreSQL would type them as
        # text, and sort "10" before "2".
        given = ref.list("include", len(filters.include))
        column = Case(Term.id, [(term_id, SQL(str(n))) for n, term_id in enumerate(given)])
    if column is None:
        column = folded(Term.name)  # case-insensitive, like MySQL collations
    return column.desc() if filters.order == "desc" else column.asc()


def term_count(term_id: int) -> int:
    return published_counts([term_id]).get(term_id, 0)


def name_taken(taxonomy: str, name: str, parent: int, exclude_id: int | None = None):
    query = Term.select().where(
        (Term.taxonomy == taxonomy)
        & (folded(Term.name) == fold(name.strip()))
        & (Term.parent == parent)
    )
    if exclude_id is not None:
        query = query.where(Term.id != exclude_id)
    return query.first()


def slug_taken(taxonomy: str, slug: str, exclude_id: int | None = None):
    query = Term.select().where((Term.taxonomy == taxonomy) & (Term.slug == slug))
    if exclude_id is not None:
        query = query.where(Term.id != exclude_id)
    return query.first()


def ancestors(term_id: int) -> list[int]:
    seen = []
    current = Term.get_or_none(Term.id == term_id)
    while current is not None and current.parent and current.parent not in seen:
        seen.append(current.parent)
        current = Term.get_or_none(Term.id == current.parent)
    return seen


def save_term(taxonomy: str, values: dict, existing=None):
    """Creates or updates a term; duplicate names under one parent or duplicate slugs
    raise ``Conflict``. An empty ``slug`` is made from the name (the editor's emptied
    field; the API's schema takes only a non-empty one). Runs in one write transaction."""
    with write_transaction():
        parent = values.get("parent", existing.parent if existing else 0)
        name = values.get("name", existing.name if existing else "")
        clash = name_taken(taxonomy, name, parent, existing.id if existing else None)
        if clash is not None and ("name" in values or "parent" in values):
            raise Conflict(
                "term_exists",
                N_("A term with the name provided already exists with this parent."),
                "name",
                term_id=clash.id,
            )
        if values.get("slug"):
            slug = slugify(values["slug"], letters=True) or taxonomy
            clash = slug_taken(taxonomy, slug, existing.id if existing else None)
            if clash is not None:
                raise Conflict(  # SPEC §4: the same code as a duplicate name
                    "term_exists",
                    N_("The slug is already in use by another term."),
                    "slug",
                    term_id=clash.id,
                )
            values = {**values, "slug": slug}
        if existing is None:
            return create_term(
                taxonomy, name, values.get("slug", ""), values.get("description", ""), parent
            )
        if "slug" in values and not values["slug"]:
            scope = Term.taxonomy == taxonomy
            slug = unique_slug(Term, None, taxonomy, existing.id, scope=scope, title=name)
            values = {**values, "slug": slug}
        if values:  # an update that sends nothing changes nothing
            Term.update(values).where(Term.id == existing.id).execute()
        saved = Term.get_or_none(Term.id == existing.id)
        if saved is None:
            raise Vanished(existing.id)  # deleted since the request read it
        return saved


def delete_term(term) -> None:
    """Permanent: unlinks the term from events; its children move up to its parent."""
    with write_transaction():
        Term.update(parent=term.parent).where(Term.parent == term.id).execute()
        Term.delete().where(Term.id == term.id).execute()
