"""Venues: places where events happen."""

from app.routes.linked import linked_blueprint
from schemas.linked import VenueCreate, VenueListOut, VenueOut, VenueUpdate

blp = linked_blueprint(
    "venue",
    "venues",
    {"list": VenueListOut, "create": VenueCreate, "update": VenueUpdate, "out": VenueOut},
    "Venues: create, read, update, delete and list.",
)
