"""Events: listing, create, read, update and delete by id and by slug."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import NamedTuple

import orjson
from flask import current_app, request
from flask.views import MethodView

from app.auth import (
    current_viewer,
    may,
    may_read,
    may_see_protected,
    require,
    require_force_delete,
)
from app.cache import cached, cached_response
from app.errors import ApiError, forbidden, invalid_params
from app.event_input import (
    change_event,
    create_event,
    not_an_event,
    prepare_event,
    raise_invalid,
)
from app.i18n import N_, _
from app.i18n import _ as say  # kind names, marked in app.i18n
from app.ical import FeedEvent, calendar_response, wants_calendar
from app.ical_import import check_file, import_events, read_file
from app.jsonresponse import dumps, json_response, kept
from app.listing import Page, listing_response
from app.render import (
    EVENT_TEXTS,
    event_out,
    linked_texts,
    preload_images,
    render_context,
    stored_event_parts,
    stored_texts_key,
)
from app.server_memory import release_memory
from app.smorest import Blueprint
from app.urls import namespace_url
from rules import dates
from rules.clock import utcnow
from rules.ids import as_id
from rules.recurrence import feed_recurrence, is_series, series_zone, stored_lines
from schemas.events import (
    EventCreate,
    EventDeleteArgs,
    EventImportArgs,
    EventListOut,
    EventOut,
    EventQueryArgs,
    EventReadArgs,
    EventUpdate,
    ImportReportOut,
)
from schemas.fields import STATUSES
from store.errors import InvalidInput
from store.events import (
    EventFilters,
    delete_event,
    event_exists,
    events_by_id,
    get_event,
    get_event_by_slug,
    get_events,
    list_events,
    load_relations,
    trash_event,
)
from store.linked import get_linked
from store.posts import effective_status, node_kind, publication_epoch
from store.recurrence import ical_role, last_occurrence_ends, overrides_of
from store.terms import published_counts, resolve_filter_terms
from store.texts import stored_texts

blp = Blueprint("events", __name__, description="Events: create, read, update, delete and list.")

DATE_PARAMS = (
    "start_date",
    "end_date",
    "starts_before",
    "starts_after",
    "ends_before",
    "ends_after",
)


# --- listing ---------------------------------------------------------------------------------


def checked_statuses(requested, viewer, param="status"):
    """The ``status`` filter: callers who cannot edit may ask for ``publish`` alone."""
    if requested is None:
        return None
    requested = list(dict.fromkeys(requested))  # "publish,publish" asks for publish
    unknown = [s for s in requested if s not in STATUSES and s != "any"]
    if unknown or (not viewer.has("edit_posts") and requested != ["publish"]):
        raise invalid_params(
            {param: _("Status must be publish, or a list of statuses that you may read.")}
        )
    if "any" in requested:
        return [s for s in STATUSES if s != "trash"]
    return requested


def _window(args, site_tz):
    """UTC bounds for the date filters and the local values echoed in ``rest_url``.

    Inclusive (default) dates snap to whole days: ``start_date`` to 00:00:00, the others
    to 23:59:59. Without any date the default window runs from yesterday 00:00 to the end
    of the day two years ahead; relative filters alone drop it.
    """
    strict = args["strict_dates"]
    given = {p: args[p] for p in DATE_PARAMS if p in args}
    relative = any(p in given for p in DATE_PARAMS[2:])
    if not relative and ("start_date" not in given or "end_date" not in given):
        now_local = dates.utc_to_local(utcnow().replace(tzinfo=None), site_tz)
        window_start, window_end = dates.default_window(now_local)
        given.setdefault("start_date", dates.fmt(window_start))
        given.setdefault("end_date", dates.fmt(window_end))
    bounds, echo = {}, {}
    for param, raw in given.items():
        try:
            local = dates.parse_datetime(raw, site_tz)
            is_default = param not in args
            if not strict or is_default:
                local = (
                    dates.snap_to_day_start(local)
                    if param == "start_date"
                    else dates.snap_to_day_end(local)
                )
            bounds[param] = dates.fmt(dates.local_to_utc(local, site_tz))
        except dates.DateError:
            raise invalid_params(
                {param: _("Must be a date such as 2025-06-01 18:30:00.")}
            ) from None
        echo[param] = dates.fmt(local)
    return bounds, echo


def _linked_ids(ids, kind, param):
    for item_id in ids:
        if node_kind(item_id) != kind or get_linked(kind, item_id) is None:
            raise invalid_params(
                {
                    param: _(
                        "%(id)s is not the id of an existing %(kind)s.", id=item_id, kind=say(kind)
                    )
                }
            )
    return ids


def event_filters(args, viewer):
    """Validated query arguments as store filters, and the effective arguments to echo."""
    config = current_app.config
    site_tz = dates.resolve_timezone(config["SITE_TIMEZONE"])[0]
    filters = EventFilters()
    echo: dict = {"per_page": min(args["per_page"], config["MAX_PER_PAGE"])}
    filters.statuses = checked_statuses(args.get("status"), viewer)
    filters.password = args.get("password")
    if "include" in args:
        filters.include = args["include"]
    else:
        bounds, dates_echo = _window(args, site_tz)
        filters.start_min = bounds.get("start_date")
        filters.end_max = bounds.get("end_date")
        filters.starts_before = bounds.get("starts_before")
        filters.starts_after = bounds.get("starts_after")
        filters.ends_before = bounds.get("ends_before")
        filters.ends_after = bounds.get("ends_after")
        echo.update(dates_echo)
    if args.get("strict_dates"):
        echo["strict_dates"] = True
    try:
        if "categories" in args:
            filters.category_ids = resolve_filter_terms(
                args["categories"], "category", "categories"
            )
        if "tags" in args:
            filters.tag_ids = resolve_filter_terms(args["tags"], "tag", "tags")
    except InvalidInput as error:
        raise_invalid(error)
    if "venue" in args:
        filters.venue_ids = _linked_ids(args["venue"], "venue", "venue")
    if "organizer" in args:
        filters.organizer_ids = _linked_ids(args["organizer"], "organizer", "organizer")
    if "post_parent" in args:
        if not event_exists(args["post_parent"]):
            raise invalid_params(
                {"post_parent": _("%(id)s is not the id of an event.", id=args["post_parent"])}
            )
        filters.post_parent = args["post_parent"]
    for key in ("search", "featured", "ticketed"):
        if key in args:
            setattr(filters, key, args[key])
    _geo_filters(args, filters, config)
    for key in ECHOED:
        if key in args:
            echo[key] = args[key]
    echo["status"] = (
        args["status"] if "status" in args else (None if viewer.has("edit_posts") else "publish")
    )
    return filters, echo


# The filters a listing's links repeat, when the request gave them.
ECHOED = (
    "search", "categories", "tags", "venue", "organizer", "featured", "include", "post_parent",
    "ticketed", "geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius",
)  # fmt: skip


def _geo_filters(args, filters, config) -> None:
    """The geolocation filters: only where the site has them, a latitude with a longitude."""
    geo_params = [p for p in ("geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius") if p in args]
    if geo_params and not config["GEOLOCATION"]:
        raise invalid_params(
            {p: _("The geolocation module is disabled on this site.") for p in geo_params}
        )
    if ("geoloc_lat" in args) != ("geoloc_lng" in args):
        missing = "geoloc_lng" if "geoloc_lat" in args else "geoloc_lat"
        raise invalid_params({missing: _("geoloc_lat and geoloc_lng must be given together.")})
    if "geoloc_radius" in args and "geoloc_lat" not in args:
        raise invalid_params({"geoloc_radius": _("geoloc_radius needs geoloc_lat and geoloc_lng.")})
    if "geoloc" in args:
        filters.geoloc = args["geoloc"]
    if "geoloc_lat" in args:
        radius = args.get("geoloc_radius", config["GEOFENCE_KM"])
        filters.near = (args["geoloc_lat"], args["geoloc_lng"], radius)


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
    extras = {event_id: orjson.loads(extra) for event_id, (_body, extra) in stored.items()}
    with_image = [StoredEvent(i, x[0], None, ()) for i, x in extras.items() if x[0]]
    if with_image:
        preload_images(ctx, with_image)
    in_series = [StoredEvent(i, "", x[1], x[2]) for i, x in extras.items() if x[1] is not None]
    ctx.hidden_series = _series_hidden_from(ctx.viewer, in_series, ctx.password)
    links = set()
    for extra in extras.values():
        for kind in (0, 1, 2):
            links.update((kind, item) for item in extra[3 + kind])
    linked = linked_texts(ctx, links)
    return {
        event_id: stored_event_parts(stored[event_id][0], extra, linked, ctx)
        for event_id, extra in extras.items()
    }


def event_texts(ids, viewer, *, rows=(), single=False, password=None) -> list:
    """What ``render_events`` makes for the events ``ids`` (that the caller may see), as JSON
    text, for a read: each event's text is made once per data version and way of seeing it
    (site, viewer, password, single or listing, and which scheduled items have reached
    their date), so pages that overlap, as month views and category pages do, render an
    event once, and its row is only read when its text is not known. A listing splices
    an event's stored text (store/texts.py) when it has one. ``rows``: rows the caller
    already has (and has checked). A write renders afresh.

    The rows of a listing's page are read after its ids: a write in between may have
    deleted one or hidden it from this viewer (the read rule, ``may``), which is then left
    out, so the page may be shorter."""
    known = {row.id: row for row in rows}
    ctx = render_context(viewer, single=single, password=password)

    def render(wanted: list[int]) -> dict:
        missing = [i for i in wanted if i not in known]
        made = {}
        if not single:
            stored = stored_texts(missing, stored_texts_key(ctx.site_tz))
            made.update(_from_stored(stored, ctx) if stored else ())
            missing = [i for i in missing if i not in made]
        fetched = get_events(missing)
        known.update((r.id, r) for r in fetched if may_read(viewer, r))
        events = [known[i] for i in wanted if i in known and i not in made]
        rendered = render_events(events, viewer, ctx=ctx) if events else []
        for row, data in zip(events, rendered, strict=True):
            made[row.id] = ((text := kept(dumps(data)),), len(text))
        return made

    if ctx.version is None:
        found = render(list(ids))
    else:
        epoch = publication_epoch()
        view = ("event", *ctx.view, epoch)
        # Kept unless a scheduled date passed while rendering: the texts may show it.
        found = EVENT_TEXTS.many(
            ctx.version, view, ids, render, keep=lambda: publication_epoch() == epoch
        )
    return [orjson.Fragment(b"".join(found[i][0])) for i in ids if found.get(i) is not None]


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


# --- single items ------------------------------------------------------------------------


# The capability a write asks for when no event answers to its id or slug: the generic one,
# as the reference's permission callbacks fall back to it (reference-behaviour.md §1), so
# that a caller who may not write events learns nothing of which ids exist (401 / 403).
WRITE_CAPABILITY = {"edit": "edit_posts", "delete": "delete_posts"}


def event_for_write(event_id: int, viewer, action: str, body: dict | None = None):
    event = get_event(event_id)
    if event is None:
        _missing(viewer, action, body)
        raise not_an_event(event_id)
    return event


def event_by_slug(slug: str, viewer=None, action: str | None = None, body: dict | None = None):
    """The event of ``slug``; for a write (``action``), none is first the checks of its
    ``body`` and the caller's lack of the generic capability."""
    event = get_event_by_slug(slug)
    if event is None:
        if action is not None:
            _missing(viewer, action, body)
        raise invalid_params({"slug": _("No event has the slug %(slug)s.", slug=slug)})
    return event


def _missing(viewer, action: str, body: dict | None) -> None:
    """A write to no event: its fields are checked one by one first (a malformed request
    is a 400 even anonymous, as the reference validates arguments before it asks for any
    right), then the generic capability (401/403)."""
    if body is not None:
        prepare_event(body, None, viewer)  # reads only: nothing is made before the save
    if not viewer.has(WRITE_CAPABILITY[action]):
        raise forbidden(viewer.logged_in)


def read_event(event, viewer, password, as_calendar=False):
    status = effective_status(event)
    if status == "trash":
        raise ApiError("event-no-longer-available", _("This event is no longer available"), 403)
    if not may(viewer, "read", event, status):
        raise ApiError("event-not-accessible", _("The requested event is not accessible"), 403)
    if not may_see_protected(viewer, event, password, status):
        raise ApiError(
            "event-password-protected",
            _("The requested event is not accessible without a password"),
            403,
        )
    if as_calendar:
        # An occurrence or a series by id/slug: the whole series, as the feed shows it, so
        # that a calendar that also subscribes to the feed sees the same UID, not a copy.
        def readable(ids):
            return [
                row
                for row in get_events(ids)
                if effective_status(row) != "trash"
                and may_read(viewer, row)
                and may_see_protected(viewer, row, password, effective_status(row))
            ]

        return feed_response(calendar_items([event], viewer, password, readable))
    text = event_texts([event.id], viewer, rows=[event], single=True, password=password)
    return json_response(text[0])


def read_event_dict(event, viewer, password):
    """The event as ``viewer`` reads it, for the public pages: its single representation
    when ``read_event`` would answer it, the listing's (masked) one when only its password
    is missing, None when ``read_event`` refuses it otherwise."""
    status = effective_status(event)
    if status == "trash" or not may(viewer, "read", event, status):
        return None
    single = may_see_protected(viewer, event, password, status)
    texts = event_texts(
        [event.id], viewer, rows=[event], single=single, password=password if single else None
    )
    return orjson.loads(orjson.dumps(texts[0])) if texts else None


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
    rows, _total = list_events(filters, viewer, 0, current_app.config["ICAL_MAX_EVENTS"])
    rows.sort(key=lambda row: (row.utc_start, row.id))  # soonest first, even near a point

    def readable(ids):  # the listing's visibility, whatever its other filters
        if not ids:
            return []
        seen = EventFilters(
            include=ids, statuses=filters.statuses, password=filters.password, readable_only=True
        )
        return list_events(seen, viewer, 0, len(ids))[0]

    return feed_response(calendar_items(rows, viewer, password, readable))


def _series_of(row) -> int | None:
    role = ical_role(row)
    if role == "series":
        return row.id
    return row.post_parent if role in ("override", "omitted") else None


# Events rendered at once for a feed: a 1,000-event feed never holds all their
# representations, and a worker keeps the memory it peaked at.
FEED_CHUNK = 100


def calendar_items(rows, viewer, password, readable) -> Iterator[FeedEvent]:
    """The VEVENTs for ``rows``, in their order (SPEC §11/§12): an ordinary event as
    itself; a series, or any occurrence of it, as the series once, with its RRULE, RDATE
    and EXDATE and one VEVENT per occurrence edited on its own, so that a subscriber sees
    the occurrences the listing shows even when only an occurrence matched its filters.
    Made as they are written, about ``FEED_CHUNK`` events rendered at a time.

    ``readable(ids)`` gives the events among ``ids`` this caller may see as the listing
    would: a series it may not see is not emitted (its listed occurrences then appear on
    their own), and an edited occurrence it may not see leaves its date out (EXDATE)."""
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
    visible = {row.id for row in readable([o.id for group in edited.values() for o in group])}
    ends = last_occurrence_ends(list(series))
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
        # The listing's own texts of these events (made once per data version, or spliced
        # from their stored texts), read back as the representations a VEVENT is made of.
        texts = event_texts([row.id for row in emitted], viewer, rows=emitted, password=password)
        dicts = {data["id"]: data for data in orjson.loads(orjson.dumps(texts))}
        for series_id, group in chunk:
            if series_id is None:
                yield FeedEvent(dicts[group[0].id])
            else:
                yield from _series_items(series[series_id], edited[series_id], visible, dicts, ends)


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


def _series_items(series, edited, visible, dicts, ends) -> list[FeedEvent]:
    tz = series_zone(series)[0]
    all_day = bool(series.all_day)
    recurrence = feed_recurrence(
        stored_lines(series.recurrence), dates.parse_stored(series.start_date), tz, all_day
    )
    for row in edited:
        if row.id not in visible:  # not the caller's to see: its date is left out
            moment = dates.parse_stored(row.occurrence)
            recurrence.exdates.append(moment.date() if all_day else moment)
    last = ends.get(series.id)
    head = FeedEvent(
        dicts[series.id],
        recurrence,
        last_day=dates.parse_stored(last).date() if last else None,
    )
    return [head] + [
        FeedEvent(
            dicts[row.id],
            series=dicts[series.id],
            recurrence_id=dates.parse_stored(row.occurrence),
        )
        for row in edited
        if row.id in visible
    ]


def update_event(event, body, viewer):
    saved = change_event(event, body, viewer)
    return json_response(render_events([saved], viewer)[0])


def remove_event(event, args, viewer):
    require(viewer, "delete", event, effective_status(event))
    if args["force"]:
        require_force_delete(viewer)
        body = render_events([event], viewer)[0]
        delete_event(event)
        return json_response(body)
    if event.status == "trash":
        raise ApiError("event-is-in-trash", _("The event is already trashed"), 410)
    trashed = trash_event(event)
    if trashed is None:  # removed by a concurrent write since it was read
        raise not_an_event(event.id)
    return json_response(render_events([trashed], viewer)[0])


# --- routes --------------------------------------------------------------------------------

# With ``ical`` (or Accept: text/calendar) the same routes answer iCalendar (SPEC §11).
CALENDAR_DOC = {200: {"content": {"text/calendar": {"schema": {"type": "string"}}}}}
IMPORT_BODY_DOC = {
    "required": True,
    "description": N_("An iCalendar file: the body itself, or the part named file of a form."),
    "content": {
        "text/calendar": {"schema": {"type": "string"}},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
                "required": ["file"],
            }
        },
    },
}


@blp.route("/events")
@cached
class Events(MethodView):
    @blp.arguments(EventQueryArgs, location="query")
    @blp.response(200, EventListOut)
    @blp.doc(responses=CALENDAR_DOC)
    def get(self, args):
        """List events, ordered by start date."""
        viewer = current_viewer()
        filters, echo = event_filters(args, viewer)
        if wants_calendar(args):
            return events_feed(filters, viewer, args.get("password"))
        page = Page(args["page"], args["per_page"], current_app.config["MAX_PER_PAGE"])
        ids, total = list_events(filters, viewer, page.offset, page.size, only="ids")
        if not ids and page.number > 1:
            raise ApiError(
                "event-archive-page-not-found",
                _("The requested event archive page does not exist"),
                404,
            )
        items = event_texts(ids, viewer, password=args.get("password"))
        if len(items) < len(ids):  # hidden or deleted by a write since the page was read
            total = max(total - (len(ids) - len(items)), page.offset + len(items))
        return listing_response("events", items, total, page, f"{namespace_url()}/events", echo)

    @blp.arguments(EventCreate, location="json")
    @blp.response(201, EventOut)
    def post(self, body):
        """Create an event."""
        viewer = current_viewer()
        event = create_event(body, viewer)
        return json_response(render_events([event], viewer)[0], 201)


@blp.route("/events/import")
class EventImport(MethodView):
    @blp.arguments(EventImportArgs, location="query")
    @blp.response(200, ImportReportOut)
    @blp.doc(requestBody=IMPORT_BODY_DOC)
    def post(self, args):
        """Import events from an iCalendar file (authors and up)."""
        if request.mimetype == "multipart/form-data":
            upload, param = request.files.get("file"), "file"
            data = upload.read() if upload else b""
        else:
            data, param = request.get_data(), "body"
        check_file(data, param)
        viewer = current_viewer()
        # Authorised before the whole file is parsed: nobody without the right costs the
        # server more than the check above.
        require(viewer, "import")
        return json_response(import_events(read_file(data, param), viewer, args.get("status")))


@blp.route("/events/<int:id>")
@cached
class EventById(MethodView):
    @blp.arguments(EventReadArgs, location="query")
    @blp.response(200, EventOut)
    @blp.doc(responses=CALENDAR_DOC)
    def get(self, args, id):
        """Read an event."""
        # The row as kept per data version: an event is read again and again between
        # writes (by visitors, by the same URL with other query strings).
        event = events_by_id({id}).get(id) if as_id(id) is not None else None
        if event is None:
            raise not_an_event(id)
        return read_event(event, current_viewer(), args.get("password"), wants_calendar(args))

    @blp.arguments(EventUpdate, location="json")
    @blp.response(200, EventOut)
    def post(self, body, id):
        """Update an event: omitted fields are left as they are."""
        viewer = current_viewer()
        return update_event(event_for_write(id, viewer, "edit", body), body, viewer)

    put = post
    patch = post

    @blp.arguments(EventDeleteArgs, location="query")
    @blp.response(200, EventOut)
    def delete(self, args, id):
        """Move an event to the trash, or delete it with force=true."""
        viewer = current_viewer()
        return remove_event(event_for_write(id, viewer, "delete"), args, viewer)


@blp.route("/events/by-slug/<slug>")
@cached
class EventBySlug(MethodView):
    @blp.arguments(EventReadArgs, location="query")
    @blp.response(200, EventOut)
    @blp.doc(responses=CALENDAR_DOC)
    def get(self, args, slug):
        """Read an event by its slug."""
        return read_event(
            event_by_slug(slug), current_viewer(), args.get("password"), wants_calendar(args)
        )

    @blp.arguments(EventUpdate, location="json")
    @blp.response(200, EventOut)
    def post(self, body, slug):
        """Update an event found by its slug."""
        viewer = current_viewer()
        return update_event(event_by_slug(slug, viewer, "edit", body), body, viewer)

    put = post
    patch = post

    @blp.arguments(EventDeleteArgs, location="query")
    @blp.response(200, EventOut)
    def delete(self, args, slug):
        """Trash an event found by its slug, or delete it with force=true."""
        viewer = current_viewer()
        return remove_event(event_by_slug(slug, viewer, "delete"), args, viewer)
