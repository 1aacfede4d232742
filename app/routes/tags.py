"""Event tags: flat terms."""

from app.routes.terms import term_blueprint
from schemas.terms import TagCreate, TagListOut, TagQueryArgs, TagUpdate, TermOut

blp = term_blueprint(
    "tag",
    "tags",
    {"query": TagQueryArgs, "list": TagListOut, "create": TagCreate, "update": TagUpdate,
     "out": TermOut},
    "Event tags: create, read, update, delete and list.",
)
