"""What the category and tag routes share: lookups, the parent rule, listing and writes.
``app/routes/categories.py`` and ``tags.py`` declare the routes themselves."""

from __future__ import annotations

from flask import current_app, request

from app.auth import current_viewer, require
from app.errors import ApiError, ParamErrors, invalid_params
from app.i18n import _
from app.jsonresponse import json_response
from app.listing import Page, listing_response
from app.render import render_context, term_out
from app.smorest import request_body
from app.urls import namespace_url
from rules.text import sanitise_html
from store.db import write_decided
from store.errors import Conflict, Vanished
from store.events import event_exists
from store.terms import (
    TermFilters,
    ancestors,
    delete_term,
    get_term,
    list_terms,
    save_term,
    term_count,
)


class TaxonomyRoutes:
    """The behaviour behind the routes of one taxonomy, ``category`` or ``tag``."""

    def __init__(self, taxonomy: str, plural: str):
        self.taxonomy = taxonomy
        self.plural = plural
        self.hierarchical = taxonomy == "category"

    def by_id(self, term_id: int, param: str = "id"):
        term = get_term(term_id, self.taxonomy)
        if term is None:
            raise unknown_term(term_id, param)
        return term

    def one(self, term, status=200, headers=None):
        ctx = render_context(current_viewer())
        return json_response(term_out(term, ctx, term_count(term.id)), status, headers)

    def check_body(self, body) -> None:
        """What the write pipeline's validate → permit says of a body (``Blueprint.arguments``'
        checks), for the term the address names (none: a new one): a missing parent is
        named beside the schema's refusals for anyone, a parent loop to one who may manage
        terms (SPEC §6)."""
        address = request.view_args or {}
        term = get_term(address["id"], self.taxonomy) if "id" in address else None
        self._validated(body, term, current_viewer())

    def _validated(self, body, existing, viewer) -> None:
        """The body's checks → permission → the parent loop (``existing``: the stored term)."""
        self._check_alone(body)
        require(viewer, "create")
        require(viewer, "manage_terms")
        self._check_loop(body, existing)

    def _check_alone(self, body) -> None:
        """What the write pipeline says of a body alone, before permission: a parent must
        be an existing category (an argument's validator in the reference, so a 400 for
        anyone)."""
        if not self.hierarchical:
            if "parent" in body or "parent" in request_body(request) or "parent" in request.args:
                raise ApiError(
                    "rest_taxonomy_not_hierarchical",
                    _("Cannot set parent term, taxonomy is not hierarchical."),
                    400,
                )
            return
        if body.get("parent"):
            self.by_id(body["parent"], "parent")

    @staticmethod
    def _check_loop(body, existing) -> None:
        """A category never takes itself or one of its descendants as its parent: read from
        the stored hierarchy, so after permission (the reference's wp_update_term, in the
        handler), as a duplicate name is."""
        parent = body.get("parent")
        if parent and existing is not None:
            if parent == existing.id or existing.id in ancestors(parent):
                raise invalid_params({"parent": _("A category cannot be its own ancestor.")})

    def save(self, body, existing):
        """The write pipeline of a term, for every face (the API, the editor, import-tec):
        the body's checks → permission → the parent loop (``_validated``) → save, decided
        from the term and its parent chain as they are when written (``write_decided``)."""
        viewer = current_viewer()
        values = self._columns(body)  # the same whatever is read: made once, outside

        def decide():
            current = None if existing is None else self.by_id(existing.id)
            self._validated(body, current, viewer)
            return current

        def write(current):
            try:
                return save_term(self.taxonomy, values, current)
            except Conflict as conflict:
                error = ApiError(conflict.code, _(conflict.message), 400, **conflict.data)
                error.param = conflict.param  # for the editor to show it beside the field
                raise error from None
            except Vanished:  # deleted by a concurrent request: as a read after it answers
                raise unknown_term(existing.id) from None

        return write_decided(decide, write)

    @staticmethod
    def _columns(body) -> dict:
        values = {k: body[k] for k in ("name", "description", "slug", "parent") if k in body}
        if "name" in values:
            values["name"] = values["name"].strip()
        if "description" in values:  # HTML, sanitised like event descriptions
            values["description"] = sanitise_html(values["description"])
        return values

    def create(self, body):
        term = self.save(body, None)
        location = f"{namespace_url()}/{self.plural}/{term.id}"
        return self.one(term, 201, {"Location": location})

    def delete(self, term):
        # Shown as it was before it goes (``discard`` refuses before anything is written).
        body = term_out(term, render_context(current_viewer()), term_count(term.id))
        self.discard(term)
        return json_response(body)

    def discard(self, term) -> None:
        """The deletion of a term, for every face (the API, the editor), decided from the
        term as it is when written (``write_decided``): of deletions at once, one deletes
        it, the others answer as a deletion of a missing term does."""
        viewer = current_viewer()

        def decide():
            current = self.by_id(term.id)
            require(viewer, "create")
            require(viewer, "manage_terms")
            return current

        write_decided(decide, delete_term)

    def check_list_args(self, args) -> None:
        """The list filters that name stored items must name existing ones (reference-
        behaviour §3.6: arguments' validators), every bad one named at once, also beside
        the schema's refusals (``Blueprint.arguments``' checks)."""
        found = ParamErrors()
        for param in ("include", "exclude"):
            for term_id in args.get(param, ()):
                with found.check():
                    self.by_id(term_id, param)
        if args.get("parent"):
            with found.check():
                self.by_id(args["parent"], "parent")
        found.params.update(event_filter_errors(args))
        found.raise_any()

    def listing(self, args):
        viewer = current_viewer()
        filters = TermFilters(
            search=args.get("search"),
            order=args["order"],
            orderby=args["orderby"],
            hide_empty=args["hide_empty"],
            slug=args.get("slug"),
        )
        self.check_list_args(args)
        for param in ("include", "exclude", "parent"):
            if param in args:
                setattr(filters, param, args[param])
        filters.event = event_filter(args)
        page = Page(args["page"], args["per_page"], current_app.config["MAX_PER_PAGE"])
        rows, total = list_terms(self.taxonomy, filters, viewer, page.offset, page.size)
        ctx = render_context(viewer)
        items = [term_out(row, ctx, row.n) for row in rows]
        # Next/previous keep the filters the request gave (not the defaults it did not).
        sent = {key.removesuffix("[]") for key in request.args}
        echo = {key: value for key, value in args.items() if key in sent and key != "page"}
        if "per_page" in echo:
            echo["per_page"] = page.size
        url = f"{namespace_url()}/{self.plural}"
        return listing_response(self.plural, items, total, page, url, echo, terms=True)


def event_filter_errors(args: dict) -> dict:
    """``post`` (WordPress's name) and ``event`` must name an event: on our listings and on
    WordPress's term routes alike."""
    return {
        param: _("%(id)s is not the id of an event.", id=args[param])
        for param in ("post", "event")
        if param in args and not event_exists(args[param])
    }


def event_filter(args: dict) -> int | None:
    """The event whose terms a listing asks (``event_filter_errors`` checked it): ``event``
    wins over ``post``."""
    return args.get("event", args.get("post"))


def unknown_term(term_id: int, param: str = "id") -> ApiError:
    return invalid_params({param: _("%(id)s is not the id of an existing term.", id=term_id)})
