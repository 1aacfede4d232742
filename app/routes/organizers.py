"""Organizers: people or bodies that run events."""

from flask.views import MethodView

from app.cache import cached
from app.routes.venue_organizer import VenueOrganizerRoutes
from app.smorest import Blueprint
from schemas.linked import (
    LinkedDeleteArgs,
    LinkedQueryArgs,
    OrganizerCreate,
    OrganizerListOut,
    OrganizerOut,
    OrganizerUpdate,
)

blp = Blueprint(
    "organizers", __name__, description="Organizers: create, read, update, delete and list."
)
organizers = VenueOrganizerRoutes("organizer", "organizers")


@blp.route("/organizers")
@cached
class Organizers(MethodView):
    @blp.arguments(LinkedQueryArgs, location="query", checks=organizers.check_list_args)
    @blp.response(200, OrganizerListOut)
    def get(self, args):
        """List items, newest first."""
        return organizers.listing(args)

    @blp.arguments(OrganizerCreate, location="json", checks=organizers.check_new_body)
    @blp.response(201, OrganizerOut)
    def post(self, body):
        """Create an item, or return the identical one that already exists."""
        return organizers.create(body)


@blp.route("/organizers/<int:id>")
@cached
class OrganizerById(MethodView):
    @blp.response(200, OrganizerOut)
    def get(self, id):
        """Read an item."""
        return organizers.read(organizers.by_id(id))

    @blp.arguments(OrganizerUpdate, location="json", checks=organizers.check_body)
    @blp.response(200, OrganizerOut)
    def post(self, body, id):
        """Update an item: omitted fields are left as they are."""
        return organizers.update(organizers.by_id(id), body)

    put = post
    patch = post

    @blp.arguments(LinkedDeleteArgs, location="query")
    @blp.response(200, OrganizerOut)
    def delete(self, args, id):
        """Move an item to the trash, or delete it with force=true."""
        return organizers.remove(organizers.by_id(id), args)


@blp.route("/organizers/by-slug/<slug>")
@cached
class OrganizerBySlug(MethodView):
    @blp.response(200, OrganizerOut)
    def get(self, slug):
        """Read an item by its slug."""
        return organizers.read(organizers.by_slug(slug))

    @blp.arguments(OrganizerUpdate, location="json", checks=organizers.check_body)
    @blp.response(200, OrganizerOut)
    def post(self, body, slug):
        """Update an item found by its slug."""
        return organizers.update(organizers.by_slug(slug), body)

    put = post
    patch = post

    @blp.arguments(LinkedDeleteArgs, location="query")
    @blp.response(200, OrganizerOut)
    def delete(self, args, slug):
        """Trash an item found by its slug, or delete it with force=true."""
        return organizers.remove(organizers.by_slug(slug), args)
