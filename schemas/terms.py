"""Category and tag schemas: listing arguments, bodies and representations."""

from marshmallow import ValidationError, fields

from schemas.fields import N_, BaseSchema, Flag, IdList, PagingArgs, PositiveInt, StrList, Text
from store.terms import ORDERBY


def _d(text):
    return {"description": text}


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
                N_("Must be one of id, name, slug, count, term_group, description, include, include_slugs.")
            )
        return value


class TagQueryArgs(PagingArgs):
    search = Text(non_empty=True, max_length=200, metadata=_d(N_("Terms whose name or slug contains the string.")))
    exclude = IdList(metadata=_d(N_("Term ids to leave out.")))
    include = IdList(metadata=_d(N_("Only these term ids.")))
    order = Order(load_default="asc", metadata=_d(N_("Sort direction: asc or desc.")))
    orderby = OrderBy(load_default="name", metadata=_d(N_("Term attribute to sort by.")))
    hide_empty = Flag(load_default=True, metadata=_d(N_("Hide terms not assigned to any published event.")))
    post = PositiveInt(metadata=_d(N_("Terms assigned to this event id.")))
    event = PositiveInt(metadata=_d(N_("Terms assigned to this event id (wins over post).")))
    slug = StrList(metadata=_d(N_("Terms with this slug.")))


class CategoryQueryArgs(TagQueryArgs):
    parent = PositiveInt(minimum=0, metadata=_d(N_("Terms whose parent is this category id.")))


class TagUpdate(BaseSchema):
    name = Text(non_empty=True, max_length=200, metadata=_d(N_("Term name.")))
    description = Text(non_empty=True, metadata=_d(N_("Term description.")))
    slug = Text(non_empty=True, max_length=190, metadata=_d(N_("Term slug.")))


class TagCreate(TagUpdate):
    name = Text(non_empty=True, max_length=200, required=True, metadata=_d(N_("Term name.")))


class CategoryUpdate(TagUpdate):
    parent = PositiveInt(minimum=0, metadata=_d(N_("Parent category id, 0 for none.")))


class CategoryCreate(CategoryUpdate):
    name = Text(non_empty=True, max_length=200, required=True, metadata=_d(N_("Term name.")))


class TermUrls(BaseSchema):
    self_ = fields.String(data_key="self")
    collection = fields.String()
    up = fields.String()


class TermOut(BaseSchema):
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


class CategoryListOut(BaseSchema):
    rest_url = fields.String()
    total = fields.Integer()
    total_pages = fields.Integer()
    categories = fields.List(fields.Nested(TermOut))
    next_rest_url = fields.String()
    previous_rest_url = fields.String()


class TagListOut(BaseSchema):
    rest_url = fields.String()
    total = fields.Integer()
    total_pages = fields.Integer()
    tags = fields.List(fields.Nested(TermOut))
    next_rest_url = fields.String()
    previous_rest_url = fields.String()
