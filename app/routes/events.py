"""Events: listing, create, read, update and delete by id and by slug."""

from __future__ import annotations

from flask import current_app, request
from flask.views import MethodView

from app.auth import current_viewer, readable_by, require
from app.cache import cached
from app.errors import ApiError, forbidden, invalid_params
from app.event_input import (
    change_event,
    check_event_body,
    check_event_update,
    create_event,
    discard_event,
    not_an_event,
)
from app.i18n import N_, _
from app.ical import wants_calendar
from app.ical_import import check_file, import_events, read_file
from app.jsonresponse import json_response
from app.listing import Page, listing_response
from app.reading.feed import event_feed, events_feed
from app.reading.filters import event_filters
from app.reading.texts import event_texts, listed_texts, render_events, single_read_refusal
from app.smorest import Blueprint
from app.urls import namespace_url
from rules.ids import as_id
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
from store.events import events_by_id, get_event, get_event_by_slug

blp = Blueprint("events", __name__, description="Events: create, read, update, delete and list.")


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
    event = get_event_by_slug(slug, readable_by(viewer or current_viewer()))
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
        check_event_body(body, viewer)
    if not viewer.has(WRITE_CAPABILITY[action]):
        raise forbidden(viewer.logged_in)


def _body_checks(body) -> None:
    """What the write pipeline says of an update's body (``Blueprint.arguments``' checks),
    of the event its address names (by id or slug)."""
    address = request.view_args
    viewer = current_viewer()
    if "id" in address:
        event = get_event(address["id"])
    else:
        event = get_event_by_slug(address["slug"], readable_by(viewer))
    check_event_update(body, event, viewer)


def _new_body_checks(body) -> None:
    """What the write pipeline says of a new event's body (``Blueprint.arguments``' checks)."""
    check_event_body(body, current_viewer(), new=True)


def _listing_checks(args) -> None:
    """What a listing's reading says of its arguments (``Blueprint.arguments``' checks)."""
    event_filters(args, current_viewer())


def update_event(event, body, viewer):
    saved = change_event(event, body, viewer)
    return json_response(render_events([saved], viewer)[0])


def remove_event(event, args, viewer):
    # Shown as it was before it goes (``discard_event`` refuses before anything is written).
    body = render_events([event], viewer)[0] if args["force"] else None
    trashed = discard_event(event, viewer, args["force"])
    return json_response(body if trashed is None else render_events([trashed], viewer)[0])


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
    @blp.arguments(EventQueryArgs, location="query", checks=_listing_checks)
    @blp.response(200, EventListOut)
    @blp.doc(responses=CALENDAR_DOC)
    def get(self, args):
        """List events, ordered by start date."""
        viewer = current_viewer()
        filters, echo = event_filters(args, viewer)
        if wants_calendar(args):
            return events_feed(filters, viewer, args.get("password"))
        page = Page(args["page"], args["per_page"], current_app.config["MAX_PER_PAGE"])
        ids, total, items = listed_texts(
            filters, viewer, page.offset, page.size, args.get("password")
        )
        if not ids and page.number > 1:
            raise ApiError(
                "event-archive-page-not-found",
                _("The requested event archive page does not exist"),
                404,
            )
        if len(items) < len(ids):  # hidden or deleted by a write since the page was read
            total = max(total - (len(ids) - len(items)), page.offset + len(items))
        return listing_response("events", items, total, page, f"{namespace_url()}/events", echo)

    @blp.arguments(EventCreate, location="json", checks=_new_body_checks)
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

    @blp.arguments(EventUpdate, location="json", checks=_body_checks)
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

    @blp.arguments(EventUpdate, location="json", checks=_body_checks)
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


def read_event(event, viewer, password, as_calendar=False):
    refused = single_read_refusal(event, viewer, password)
    if refused is not None:
        raise refused
    if as_calendar:
        return event_feed(event, viewer, password)
    text = event_texts([event.id], viewer, rows=[event], single=True, password=password)
    return json_response(text[0])
