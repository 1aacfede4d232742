"""Organizers: people or bodies that run events."""

from app.routes.linked import linked_blueprint
from schemas.linked import OrganizerCreate, OrganizerListOut, OrganizerOut, OrganizerUpdate

blp = linked_blueprint(
    "organizer",
    "organizers",
    {"list": OrganizerListOut, "create": OrganizerCreate, "update": OrganizerUpdate,
     "out": OrganizerOut},
    "Organizers: create, read, update, delete and list.",
)
