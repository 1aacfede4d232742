"""Category and tag schemas: listing arguments, bodies and representations."""

from marshmallow import ValidationError, fields

from rules import N_
from rules.posts import SLUG_MAX, TERM_NAME_MAX
from schemas.fields import (
    BaseSchema,
    Flag,
    IdList,
    ListingOut,
    OutSchema,
    PagingArgs,
    PlainText,
    PositiveInt,
    StrList,
    Text,
    describe,
)
from store.terms import ORDERBY


class Order(Text):
    def _deserialize(self, value, attr, data, **kwargs):
        value = super()._deserialize(value, attr, data, **kwargs).strip().lower()
        if value not in ("asc", "desc"):
            raise ValidationError(N_("Must be asc or desc."))
        return value


class OrderBy(Text):
    def _deserialize(self, value, attr, data, **kwargs):
        value = super()._deserialize(value, attr, data, **kwargs).strip().lower()
        if value not in ORDERBY:
            raise ValidationError(
                N_(
                    "Must be one of id, name, slug, count, term_group, description, include, include_slugs."
                )
            )
        return value


class TagQueryArgs(PagingArgs):
    search = Text(
        non_empty=True,
        max_length=200,
        metadata=describe(N_("Terms whose name or slug contains the string.")),
    )
    exclude = IdList(metadata=describe(N_("Term ids to leave out.")))
    include = IdList(metadata=describe(N_("Only these term ids.")))
    order = Order(load_default="asc", metadata=describe(N_("Sort direction: asc or desc.")))
    orderby = OrderBy(load_default="name", metadata=describe(N_("Term attribute to sort by.")))
    hide_empty = Flag(
        load_default=True, metadata=describe(N_("Hide terms not assigned to any published event."))
    )
    post = PositiveInt(metadata=describe(N_("Terms assigned to this event id.")))
    event = PositiveInt(metadata=describe(N_("Terms assigned to this event id (wins over post).")))
    slug = StrList(metadata={**describe(N_("Terms with this slug.")), "wp_type": "string"})


class CategoryQueryArgs(TagQueryArgs):
    parent = PositiveInt(
        minimum=0, metadata=describe(N_("Terms whose parent is this category id."))
    )


class TagUpdate(BaseSchema):
    name = PlainText(non_empty=True, max_length=TERM_NAME_MAX, metadata=describe(N_("Term name.")))
    description = Text(non_empty=True, metadata=describe(N_("Term description.")))
    slug = Text(non_empty=True, max_length=SLUG_MAX, metadata=describe(N_("Term slug.")))


class TagCreate(TagUpdate):
    name = PlainText(
        non_empty=True, max_length=TERM_NAME_MAX, required=True, metadata=describe(N_("Term name."))
    )


class CategoryUpdate(TagUpdate):
    parent = PositiveInt(minimum=0, metadata=describe(N_("Parent category id, 0 for none.")))


class CategoryCreate(CategoryUpdate):
    name = PlainText(
        non_empty=True, max_length=TERM_NAME_MAX, required=True, metadata=describe(N_("Term name."))
    )


class TermUrls(OutSchema):
    optional = ("up",)  # only categories with a parent
    self_ = fields.String(data_key="self")
    collection = fields.String()
    up = fields.String()


class TermOut(OutSchema):
    optional = ("parent",)  # tags have no parent
    id = fields.Integer()
    count = fields.Integer()
    description = fields.String()
    name = fields.String()
    slug = fields.String()
    taxonomy = fields.String()
    parent = fields.Integer()
    meta = fields.List(fields.Raw())
    url = fields.String()
    urls = fields.Nested(TermUrls)


class EventTermOut(OutSchema):
    """A term inside an event: WordPress's term object, as the reference embeds it."""

    name = fields.String()
    slug = fields.String()
    term_group = fields.Integer()
    term_taxonomy_id = fields.Integer()
    taxonomy = fields.String()
    description = fields.String()
    parent = fields.Integer()
    count = fields.Integer()
    filter = fields.String()
    id = fields.Integer()
    urls = fields.Nested(TermUrls)


class CategoryListOut(ListingOut):
    categories = fields.List(fields.Nested(TermOut))


class TagListOut(ListingOut):
    tags = fields.List(fields.Nested(TermOut))
