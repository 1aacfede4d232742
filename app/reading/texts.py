"""Events as JSON text for a viewer (step 3 of the read path, app/reading/__init__.py): kept
per data version and way of seeing, spliced from stored texts, or rendered from rows; and
a single event's read, for the API and the pages."""

from __future__ import annotations

from typing import NamedTuple

import orjson
from flask import current_app

from app.auth import (
    may,
    may_read,
    may_see_protected,
)
from app.errors import ApiError
from app.i18n import _
from app.jsonresponse import dumps, kept
from app.render import (
    EVENT_TEXTS,
    StoredExtra,
    event_ld,
    event_out,
    is_masked,
    linked_texts,
    parsed_event,
    preload_images,
    render_context,
    stored_event_parts,
    stored_texts_key,
)
from rules.dates import resolve_timezone
from rules.posts import effective_status
from store.events import (
    events_by_id,
    get_events,
    list_event_texts,
    load_relations,
)
from store.posts import publication_epoch
from store.terms import published_counts
from store.texts import stored_texts


def render_events(events, viewer, single=False, password=None, ctx=None):
    """The events as dicts, for ``viewer`` (or as ``ctx``, a render context, says)."""
    ctx = ctx or render_context(viewer, single=single, password=password)
    relations = load_relations(events)
    _prepare(ctx, events, relations)
    return [event_out(event, relations[event.id], ctx) for event in events]


def _prepare(ctx, events, relations) -> None:
    """What rendering ``events`` with their ``relations`` needs of the request: the linked
    items its viewer may not read are left out; term counts, images, hidden series."""
    viewer = ctx.viewer
    for related in relations.values():
        related.venues = [v for v in related.venues if may_read(viewer, v)]
        related.organizers = [o for o in related.organizers if may_read(viewer, o)]
    term_ids = {t.id for r in relations.values() for t in (*r.categories, *r.tags)}
    ctx.term_counts = published_counts(term_ids)
    linked = [x for r in relations.values() for x in (*r.venues, *r.organizers)]
    preload_images(ctx, [*events, *linked])
    ctx.hidden_series = _series_hidden_from(viewer, events, ctx.password)


class StoredEvent(NamedTuple):
    """What ``_prepare`` reads of an event, from its stored text."""

    id: int
    image: str
    post_parent: int | None
    recurrence: list


def _from_stored(stored: dict, ctx) -> dict[int, tuple]:
    """Listing texts of the events of ``stored`` (store/texts.py: published events without
    a password, which every viewer may read), as ``stored_event_parts`` makes them: what
    ``_prepare`` works out for rendered events, their linked items read as ``linked_texts``
    keeps them."""
    extras = {i: StoredExtra(*orjson.loads(extra)) for i, (_body, extra) in stored.items()}
    with_image = [StoredEvent(i, x.image, None, ()) for i, x in extras.items() if x.image]
    if with_image:
        preload_images(ctx, with_image)
    in_series = [
        StoredEvent(i, "", x.series, x.lines) for i, x in extras.items() if x.series is not None
    ]
    ctx.hidden_series = _series_hidden_from(ctx.viewer, in_series, ctx.password)
    links = set()
    for extra in extras.values():
        links.update(extra.links())
    linked = linked_texts(ctx, links)
    return {
        event_id: stored_event_parts(stored[event_id][0], extra, linked, ctx)
        for event_id, extra in extras.items()
    }


def listed_texts(filters, viewer, offset: int, limit: int, password=None) -> tuple:
    """(ids, total, texts) of a listing's page (step 2 and 3 of the read path): the page's
    ids, total and stored texts read in one statement when the page is read
    (``store/events.py::list_event_texts``), the texts then made by ``event_texts``."""
    made_for = stored_texts_key(current_app.config["SITE_TIMEZONE"])
    ids, total, stored = list_event_texts(filters, viewer, offset, limit, made_for)
    return ids, total, event_texts(ids, viewer, password=password, stored=stored)


def event_parts(ids, viewer, *, rows=(), single=False, password=None, stored=None) -> tuple:
    """What ``render_events`` makes for the events ``ids`` (that the caller may see), as JSON
    text in parts (``{id: (parts, bytes)}``, ``EventTexts``' entries), and the render
    context: each event's text is made once per data version and way of seeing it
    (site, viewer, password, single or listing, and which scheduled items have reached
    their date), so pages that overlap, as month views and category pages do, render an
    event once, and its row is only read when its text is not known. A listing splices
    an event's stored text (store/texts.py) when it has one. ``rows``: rows the caller
    already has (and has checked). ``stored``: the texts stored for a listing of ``ids``
    that the caller read with them (``listed_texts``), not asked again. A write renders
    afresh.

    The rows of a listing's page are read after its ids: a write in between may have
    deleted one or hidden it from this viewer (the read rule, ``may``), which is then left
    out, so the page may be shorter."""
    known = {row.id: row for row in rows}
    ctx = render_context(viewer, single=single, password=password)

    def render(wanted: list[int]) -> dict:
        missing = [i for i in wanted if i not in known]
        made = {}
        if not single:
            found = _stored_of(missing, ctx, stored)
            made.update(_from_stored(found, ctx) if found else ())
            missing = [i for i in missing if i not in made]
        fetched = get_events(missing)
        known.update((r.id, r) for r in fetched if may_read(viewer, r))
        events = [known[i] for i in wanted if i in known and i not in made]
        rendered = render_events(events, viewer, ctx=ctx) if events else []
        for row, data in zip(events, rendered, strict=True):
            made[row.id] = ((text := kept(dumps(data)),), len(text))
        return made

    return _kept("event", ctx, ids, render), ctx


def event_texts(ids, viewer, **options) -> list:
    """The events ``ids`` as JSON text, as ``event_parts`` makes them (``options``: its
    own), for a read to send."""
    found = event_parts(ids, viewer, **options)[0]
    return [orjson.Fragment(b"".join(found[i][0])) for i in ids if found.get(i) is not None]


def event_values(ids, viewer) -> list[dict]:
    """The events ``ids`` as ``event_texts`` makes them for ``viewer``'s listing, parsed
    (the public pages' ``representations``), each read from its parts
    (``render.py::parsed_event``): the venues, organizers and terms the events share are
    parsed once per data version, not in every event's text."""
    found, ctx = event_parts(ids, viewer)
    return [parsed_event(found[i][0], ctx.version) for i in ids if found.get(i) is not None]


def _stored_of(ids: list[int], ctx, read) -> dict:
    """The stored texts of ``ids`` for ``ctx``: from ``read``, those read with the listing's
    page, else asked."""
    if read is not None:
        return {i: read[i] for i in ids if i in read}
    return stored_texts(ids, stored_texts_key(ctx.site_tz))


def _kept(kind: str, ctx, ids, make) -> dict:
    """``make(ids)`` (``{id: (parts, bytes)}``), kept in ``EVENT_TEXTS`` per data version,
    ``kind`` and way of seeing (``ctx``), and which scheduled items have reached their date."""
    if ctx.version is None:
        return make(list(ids))
    epoch = publication_epoch()
    # Kept unless a scheduled date passed while making them: the texts may show it.
    return EVENT_TEXTS.many(
        ctx.version, (kind, *ctx.view, epoch), ids, make, keep=lambda: publication_epoch() == epoch
    )


def linked_data(ids, viewer, parsed: dict | None = None) -> list[str]:
    """schema.org's ``Event`` of each of the events ``ids`` (the public pages' JSON-LD), made
    from their listing representations for ``viewer`` (``event_ld``; none for an event
    masked by its password), as JSON text kept as the events' own texts are: a month shows
    a hundred, and making them was a fifth of its page. The text is ``script_safe``, so a
    page writes it as it is (escaping a month's 115 kB of it at every page was 1 ms).
    ``parsed``: representations by id that the caller read for ``viewer`` already (a list
    page's), not parsed again (a list's events are 47 kB of JSON)."""
    ctx = render_context(viewer)
    parsed = parsed or {}

    def make(wanted: list[int]) -> dict:
        made = {}
        missing = [i for i in wanted if i not in parsed]
        read = event_values(missing, viewer) if missing else []
        for event in [*(parsed[i] for i in wanted if i in parsed), *read]:
            if is_masked(event):
                continue
            tz = resolve_timezone(event["timezone"])[0] if event.get("timezone_abbr") else None
            text = script_safe(orjson.dumps(event_ld(event, tz)))
            made[event["id"]] = ((text,), len(text))
        return made

    found = _kept("ld", ctx, ids, make)
    return [found[i][0][0] for i in ids if found.get(i) is not None]


def script_safe(text: bytes) -> str:
    """JSON text that can stand inside an HTML ``<script>`` element: the same JSON value,
    with ``<``, ``>``, ``&`` and ``'`` written as ``\\u`` escapes, as Jinja's ``tojson``
    writes them (``htmlsafe_json_dumps``)."""
    for char, escaped in _SCRIPT_ESCAPES:
        text = text.replace(char, escaped)
    return text.decode()


_SCRIPT_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"), (b"'", b"\\u0027"))


def _series_hidden_from(viewer, events, password) -> set[int]:
    """Series of these occurrences that the viewer may not read (a draft series with one
    published occurrence): their planned dates are not the viewer's to see."""
    parents = {e.post_parent for e in events if e.post_parent and e.recurrence}
    if not parents or viewer.has("edit_others_posts"):
        return set()
    readable = {
        series.id
        for series in events_by_id(parents).values()
        if series is not None
        and may_read(viewer, series)
        and may_see_protected(viewer, series, password)
    }
    return parents - readable


# The refusal of a protected event's single read without its password: the pages show
# the listing's (masked) representation instead.
PROTECTED = "event-password-protected"


def single_read_refusal(event, viewer, password) -> ApiError | None:
    """Why ``viewer`` (with ``password``) may not read ``event`` by itself, None when they
    may: trashed, not theirs to read, or protected without its password. The one home of
    these checks: the API's ``read_event`` raises it, the feed of one event leaves such
    rows out, ``read_event_dict`` shows the listing's representation for a password."""
    status = effective_status(event)
    if status == "trash":
        return ApiError("event-no-longer-available", _("This event is no longer available"), 403)
    if not may(viewer, "read", event, status):
        return ApiError("event-not-accessible", _("The requested event is not accessible"), 403)
    if not may_see_protected(viewer, event, password, status):
        message = _("The requested event is not accessible without a password")
        return ApiError(PROTECTED, message, 403)
    return None


def read_event_dict(event, viewer, password):
    """The event as ``viewer`` reads it, for the public pages: its single representation
    when ``read_event`` would answer it, the listing's (masked) one when only its password
    is missing, None when ``read_event`` refuses it otherwise."""
    refused = single_read_refusal(event, viewer, password)
    if refused is not None and refused.code != PROTECTED:
        return None
    single = refused is None
    texts = event_texts(
        [event.id], viewer, rows=[event], single=single, password=password if single else None
    )
    return orjson.loads(orjson.dumps(texts[0])) if texts else None
