"""What the venue and organizer routes share: lookups, permission checks, listing and
writes. ``app/routes/venues.py`` and ``organizers.py`` declare the routes themselves."""

from __future__ import annotations

from flask import current_app, request

from app.auth import (
    apply_write_rules,
    current_viewer,
    may_read,
    readable_by,
    require,
    require_edit,
    require_removal,
)
from app.errors import ApiError, ParamErrors, invalid_params, require_in_trash
from app.i18n import N_, _
from app.i18n import _ as say  # for messages chosen at run time (marked with N_ below)
from app.jsonresponse import json_response
from app.linked_input import check_linked_body, linked_columns
from app.listing import Page, listing_response
from app.reading.filters import checked_statuses
from app.render import organizer_out, preload_images, render_context, venue_out
from app.urls import namespace_url
from store.db import write_decided
from store.errors import Vanished
from store.events import event_exists
from store.linked import (
    LinkedFilters,
    delete_linked,
    get_linked,
    get_linked_by_slug,
    list_linked,
    save_linked,
    trash_linked,
)
from store.posts import node_kind

RENDER = {"venue": venue_out, "organizer": organizer_out}
MESSAGES = {
    "venue": {
        "not_accessible": N_("The requested venue is not accessible"),
        "in_trash": N_("The venue is already trashed"),
        "page": N_("The requested venue archive page does not exist"),
        "invalid": N_("%(id)s is not the id of a venue."),
        "slug": N_("No venue has the slug %(slug)s."),
    },
    "organizer": {
        "not_accessible": N_("The requested organizer is not accessible"),
        "in_trash": N_("The organizer is already trashed"),
        "page": N_("The requested organizer archive page does not exist"),
        "invalid": N_("%(id)s is not the id of an organizer."),
        "slug": N_("No organizer has the slug %(slug)s."),
    },
}


class VenueOrganizerRoutes:
    """The behaviour behind the routes of one kind, ``venue`` or ``organizer``."""

    def __init__(self, kind: str, plural: str):
        self.kind = kind
        self.plural = plural
        self.messages = MESSAGES[kind]
        self.render = RENDER[kind]

    def by_id(self, item_id: int):
        kind = self.kind
        item = get_linked(kind, item_id) if node_kind(item_id) == kind else None
        if item is None:
            raise self.unknown(item_id)
        return item

    def unknown(self, item_id: int) -> ApiError:
        return invalid_params({"id": say(self.messages["invalid"], id=item_id)})

    def by_slug(self, slug: str):
        item = get_linked_by_slug(self.kind, slug, readable_by(current_viewer()))
        if item is None:
            raise invalid_params({"slug": say(self.messages["slug"], slug=slug)})
        return item

    def _one(self, item, viewer, status=200, single=True):
        ctx = render_context(viewer, single=single)
        return json_response(self.render(item, ctx), status)

    def read(self, item):
        viewer = current_viewer()
        if not may_read(viewer, item):
            raise ApiError(f"{self.kind}-not-accessible", say(self.messages["not_accessible"]), 403)
        return self._one(item, viewer)

    def write(self, body, item=None, stamp=None, dedupe: bool = True, from_trash: bool = False):
        """The item the write pipeline (``written``) saved, or found for a new one."""
        return self.written(body, item, stamp, dedupe, from_trash)[0]

    def written(self, body, item=None, stamp=None, dedupe: bool = True, from_trash: bool = False):
        """The write pipeline of a venue or organizer, for every face (the API, the editor,
        import-tec): columns from the loaded body → permission (``require_edit``: the body
        alone for one who may not edit the item) → write rules → save
        (a new one de-duplicated, unless ``dedupe`` is false: an importer's items are known
        by their origin). ``stamp``: columns only an importer sets (the origin);
        ``from_trash``: the editor's restore, of an item still in the trash only.
        Returns (item, created): created is false for an update, and for a new one whose
        de-duplication found an existing item, which the editor must tell its user."""
        viewer = current_viewer()

        def decide():  # from the item as it is when written (``write_decided``)
            current = None if item is None else self.fresh(item)
            if from_trash:
                require_in_trash(current)
            if current is None:
                values = linked_columns(self.kind, body, None)
                require(viewer, "create")
            else:  # the body against the stored item (its coordinates) only once it may
                values = self._validated_update(body, current, viewer)
            apply_write_rules(values, viewer, current)
            values.update(stamp or {})
            return values, current

        def write(decision):
            values, current = decision
            try:
                return save_linked(self.kind, values, viewer, current, dedupe=dedupe)
            except Vanished:  # deleted by a concurrent request: as a read after it answers
                raise self.unknown(item.id) from None

        return write_decided(decide, write)

    def _validated_update(self, body, item, viewer) -> dict:
        """Validate → permit of an update: the columns of ``body`` checked against the
        stored ``item`` (its coordinates) once the caller may edit it; anyone else is
        answered for the body alone, then refused (``require_edit``)."""
        require_edit(viewer, item, lambda: check_linked_body(self.kind, body))
        return linked_columns(self.kind, body, item)

    def check_body(self, body, item=None) -> None:
        """What the write pipeline says of an update's body (``Blueprint.arguments``'
        checks), of ``item`` or the one its address names (by id or slug): as its validate
        step, so that a lone coordinate paired with the stored one is named beside the
        schema's refusals (SPEC §6); the body alone when none answers."""
        item = item or self._addressed()
        if item is None:
            check_linked_body(self.kind, body)
        else:
            self._validated_update(body, item, current_viewer())

    def _addressed(self):
        """The item the request's address names by id or slug, or None."""
        address = request.view_args or {}
        if "id" in address:
            found = address["id"]
            return get_linked(self.kind, found) if node_kind(found) == self.kind else None
        if "slug" not in address:
            return None
        return get_linked_by_slug(self.kind, address["slug"], readable_by(current_viewer()))

    def check_new_body(self, body) -> None:
        """What the write pipeline says of a new item's body: all of it, a lone coordinate
        too (there are no stored ones to pair it with)."""
        linked_columns(self.kind, body, None)

    def fresh(self, item):
        """The item as stored now; deleted since it was read, as a read after it answers."""
        current = get_linked(self.kind, item.id)
        if current is None:
            raise self.unknown(item.id)
        return current

    def create(self, body):
        return self._one(self.write(body), current_viewer(), 201, single=False)

    def update(self, item, body):
        return self._one(self.write(body, item), current_viewer(), single=False)

    def remove(self, item, args):
        viewer = current_viewer()
        # Shown as it was before it goes (``discard`` refuses before anything is written).
        body = self.render(item, render_context(viewer)) if args["force"] else None
        trashed = self.discard(item, args["force"])
        return json_response(body) if trashed is None else self._one(trashed, viewer, single=False)

    def discard(self, item, force: bool, from_trash: bool = False):
        """The removal of a venue or organizer, for every face (the API, the editor):
        permission → to the trash (a 410 when it is there already), or deleted with
        ``force`` (editors and up; ``from_trash``: the editor's, of one still in the trash
        only), decided from the item as it is when written (``write_decided``). Returns
        the trashed item, None when deleted."""
        viewer = current_viewer()

        def in_trash():
            return ApiError(f"{self.kind}-is-in-trash", say(self.messages["in_trash"]), 410)

        def decide():
            current = self.fresh(item)
            require_removal(viewer, current, force, from_trash, in_trash)
            return current

        def write(current):
            if force:
                return delete_linked(self.kind, current)
            try:
                return trash_linked(self.kind, current)
            except Vanished:  # deleted by a concurrent request: as a read after it answers
                raise self.unknown(item.id) from None

        return write_decided(decide, write)

    @staticmethod
    def list_filters(args, viewer) -> LinkedFilters:
        """The store's filters of a list; every bad argument named at once, also beside
        the schema's refusals (``check_list_args``: ``Blueprint.arguments``' checks)."""
        filters = LinkedFilters(
            search=args.get("search"),
            has_events=args.get("has_events"),
            only_with_upcoming=args.get("only_with_upcoming", False),
            password=args.get("password"),
        )
        found = ParamErrors()
        with found.check():
            filters.statuses = checked_statuses(args.get("status"), viewer)
        if "event" in args:
            if not event_exists(args["event"]):
                found.params["event"] = _("%(id)s is not the id of an event.", id=args["event"])
            filters.event = args["event"]
        found.raise_any()
        return filters

    def check_list_args(self, args) -> None:
        self.list_filters(args, current_viewer())

    def listing(self, args):
        viewer = current_viewer()
        filters = self.list_filters(args, viewer)
        page = Page(args["page"], args["per_page"], current_app.config["MAX_PER_PAGE"])
        rows, total = list_linked(self.kind, filters, viewer, page.offset, page.size)
        if not rows and page.number > 1:
            raise ApiError(f"{self.kind}-archive-page-not-found", say(self.messages["page"]), 404)
        ctx = render_context(viewer, password=args.get("password"))
        echo = {"per_page": page.size}
        for key in ("search", "event", "has_events"):
            if key in args:
                echo[key] = args[key]
        if args["only_with_upcoming"]:
            echo["only_with_upcoming"] = True
        echo["status"] = args.get("status") or (None if viewer.has("edit_posts") else "publish")
        preload_images(ctx, rows)
        items = [self.render(row, ctx) for row in rows]
        url = f"{namespace_url()}/{self.plural}"
        return listing_response(self.plural, items, total, page, url, echo)
