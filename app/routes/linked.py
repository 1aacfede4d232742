"""Venues and organizers share their routes' shape; ``linked_blueprint`` builds one."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView

from app.auth import apply_write_rules, current_viewer, may, require
from app.errors import ApiError, forbidden, invalid_params
from app.i18n import N_, _
from app.i18n import _ as say  # for messages chosen at run time (marked with N_ below)
from app.jsonresponse import json_response
from app.linked_input import linked_columns
from app.listing import Page, listing_response
from app.render import organizer_out, render_context, venue_out
from app.routes.events import checked_statuses
from app.smorest import Blueprint
from app.urls import namespace_url
from schemas.linked import LinkedDeleteArgs, LinkedQueryArgs
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
from store.posts import effective_status, node_kind

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


def linked_blueprint(kind: str, plural: str, schemas: dict, description: str) -> Blueprint:
    blp = Blueprint(plural, __name__, description=description)
    messages = MESSAGES[kind]
    render = RENDER[kind]

    def by_id(item_id: int):
        item = get_linked(kind, item_id) if node_kind(item_id) == kind else None
        if item is None:
            raise invalid_params({"id": say(messages["invalid"], id=item_id)})
        return item

    def by_slug(slug: str):
        item = get_linked_by_slug(kind, slug)
        if item is None:
            raise invalid_params({"slug": say(messages["slug"], slug=slug)})
        return item

    def one(item, viewer, status=200, single=True):
        ctx = render_context(viewer, single=single)
        return json_response(render(item, ctx), status)

    def read(item, viewer):
        status = effective_status(item)
        if not may(viewer, "read", item, status):
            raise ApiError(f"{kind}-not-accessible", say(messages["not_accessible"]), 403)
        return one(item, viewer)

    def update(item, body, viewer):
        values = linked_columns(kind, body, item)
        require(viewer, "edit", item, effective_status(item))
        apply_write_rules(values, viewer, item)
        saved, _created = save_linked(kind, values, viewer, item)
        return one(saved, viewer, single=False)

    def remove(item, args, viewer):
        require(viewer, "delete", item, effective_status(item))
        if args["force"]:
            if not viewer.has("delete_others_posts"):
                raise forbidden(viewer.logged_in)
            body = render(item, render_context(viewer))
            delete_linked(kind, item)
            return json_response(body)
        if item.status == "trash":
            raise ApiError(f"{kind}-is-in-trash", say(messages["in_trash"]), 410)
        return one(trash_linked(kind, item), viewer, single=False)

    @blp.route(f"/{plural}")
    class Collection(MethodView):
        @blp.arguments(LinkedQueryArgs, location="query")
        @blp.response(200, schemas["list"])
        def get(self, args):
            """List items, newest first."""
            viewer = current_viewer()
            filters = LinkedFilters(
                statuses=checked_statuses(args.get("status"), viewer),
                search=args.get("search"),
                has_events=args.get("has_events"),
                only_with_upcoming=args["only_with_upcoming"],
                password=args.get("password"),
            )
            if "event" in args:
                if not event_exists(args["event"]):
                    raise invalid_params({"event": _("%(id)s is not the id of an event.", id=args["event"])})
                filters.event = args["event"]
            page = Page(args["page"], args["per_page"], current_app.config["MAX_PER_PAGE"])
            rows, total = list_linked(kind, filters, viewer, page.offset, page.size)
            if not rows and page.number > 1:
                raise ApiError(f"{kind}-archive-page-not-found", say(messages["page"]), 404)
            ctx = render_context(viewer, password=args.get("password"))
            echo = {"per_page": page.size}
            for key in ("search", "event", "has_events"):
                if key in args:
                    echo[key] = args[key]
            if args["only_with_upcoming"]:
                echo["only_with_upcoming"] = True
            echo["status"] = args.get("status") or (None if viewer.has("edit_posts") else "publish")
            items = [render(row, ctx) for row in rows]
            return listing_response(plural, items, total, page, f"{namespace_url()}/{plural}", echo)

        @blp.arguments(schemas["create"], location="json")
        @blp.response(201, schemas["out"])
        def post(self, body):
            """Create an item, or return the identical one that already exists."""
            viewer = current_viewer()
            values = linked_columns(kind, body, None)
            require(viewer, "create")
            apply_write_rules(values, viewer, None)
            item, _created = save_linked(kind, values, viewer)
            return one(item, viewer, 201, single=False)

    @blp.route(f"/{plural}/<int:id>")
    class ById(MethodView):
        @blp.response(200, schemas["out"])
        def get(self, id):
            """Read an item."""
            return read(by_id(id), current_viewer())

        @blp.arguments(schemas["update"], location="json")
        @blp.response(200, schemas["out"])
        def post(self, body, id):
            """Update an item: omitted fields are left as they are."""
            return update(by_id(id), body, current_viewer())

        put = post
        patch = post

        @blp.arguments(LinkedDeleteArgs, location="query")
        @blp.response(200, schemas["out"])
        def delete(self, args, id):
            """Move an item to the trash, or delete it with force=true."""
            return remove(by_id(id), args, current_viewer())

    @blp.route(f"/{plural}/by-slug/<slug>")
    class BySlug(MethodView):
        @blp.response(200, schemas["out"])
        def get(self, slug):
            """Read an item by its slug."""
            return read(by_slug(slug), current_viewer())

        @blp.arguments(schemas["update"], location="json")
        @blp.response(200, schemas["out"])
        def post(self, body, slug):
            """Update an item found by its slug."""
            return update(by_slug(slug), body, current_viewer())

        put = post
        patch = post

        @blp.arguments(LinkedDeleteArgs, location="query")
        @blp.response(200, schemas["out"])
        def delete(self, args, slug):
            """Trash an item found by its slug, or delete it with force=true."""
            return remove(by_slug(slug), args, current_viewer())

    return blp
