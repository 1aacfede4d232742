"""Queries of the WordPress core routes (``wp/v2``) that clients of the plugin call beside
its own (SPEC §17): WordPress's parameters, limits and defaults. The bodies of their writes
are our own routes' schemas (``schemas/terms.py``)."""

from marshmallow import validate

from rules import N_
from schemas.fields import BaseSchema, Flag, IdList, PositiveInt, StrList, Text, describe
from schemas.terms import Order, OrderBy

# WordPress's own bound of ``per_page`` on its core routes.
WP_MAX_PER_PAGE = 100


class WpPagingArgs(BaseSchema):
    page = PositiveInt(load_default=1, metadata=describe(N_("Page of the collection.")))
    per_page = PositiveInt(
        load_default=10,
        validate=validate.Range(
            1,
            WP_MAX_PER_PAGE,
            error=N_("per_page must be between 1 (inclusive) and 100 (inclusive)"),
        ),
        metadata=describe(N_("Maximum number of items per page (at most 100).")),
    )


class WpTermQueryArgs(WpPagingArgs):
    search = Text(
        max_length=200, metadata=describe(N_("Terms whose name or slug contains the string."))
    )
    slug = StrList(metadata=describe(N_("Terms with this slug.")))
    include = IdList(metadata=describe(N_("Only these term ids.")))
    exclude = IdList(metadata=describe(N_("Term ids to leave out.")))
    parent = PositiveInt(
        minimum=0, metadata=describe(N_("Terms whose parent is this category id."))
    )
    order = Order(load_default="asc", metadata=describe(N_("Sort direction: asc or desc.")))
    orderby = OrderBy(load_default="name", metadata=describe(N_("Term attribute to sort by.")))
    hide_empty = Flag(
        load_default=False, metadata=describe(N_("Hide terms not assigned to any published event."))
    )
    post = PositiveInt(metadata=describe(N_("Terms assigned to this event id.")))


class WpMediaQueryArgs(WpPagingArgs):
    search = Text(max_length=200, metadata=describe(N_("Items whose name contains the string.")))
    include = IdList(metadata=describe(N_("Only these item ids.")))


class WpPostQueryArgs(WpMediaQueryArgs):
    slug = StrList(metadata=describe(N_("Items with this slug.")))
    status = StrList(metadata=describe(N_("Post statuses to include.")))
