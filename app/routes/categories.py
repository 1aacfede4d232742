"""Event categories: nested terms."""

from app.routes.terms import term_blueprint
from schemas.terms import (
    CategoryCreate,
    CategoryListOut,
    CategoryQueryArgs,
    CategoryUpdate,
    TermOut,
)

blp = term_blueprint(
    "category",
    "categories",
    {"query": CategoryQueryArgs, "list": CategoryListOut, "create": CategoryCreate,
     "update": CategoryUpdate, "out": TermOut},
    "Event categories: create, read, update, delete and list.",
)
