"""Venues: places where events happen."""

from flask.views import MethodView

from app.cache import cached
from app.routes.venue_organizer import VenueOrganizerRoutes
from app.smorest import Blueprint
from schemas.linked import (
    LinkedDeleteArgs,
    LinkedQueryArgs,
    VenueCreate,
    VenueListOut,
    VenueOut,
    VenueUpdate,
)

blp = Blueprint("venues", __name__, description="Venues: create, read, update, delete and list.")
venues = VenueOrganizerRoutes("venue", "venues")


@blp.route("/venues")
@cached
class Venues(MethodView):
    @blp.arguments(LinkedQueryArgs, location="query", checks=venues.check_list_args)
    @blp.response(200, VenueListOut)
    def get(self, args):
        """List items, newest first."""
        return venues.listing(args)

    @blp.arguments(VenueCreate, location="json", checks=venues.check_new_body)
    @blp.response(201, VenueOut)
    def post(self, body):
        """Create an item, or return the identical one that already exists."""
        return venues.create(body)


@blp.route("/venues/<int:id>")
@cached
class VenueById(MethodView):
    @blp.response(200, VenueOut)
    def get(self, id):
        """Read an item."""
        return venues.read(venues.by_id(id))

    @blp.arguments(VenueUpdate, location="json", checks=venues.check_body)
    @blp.response(200, VenueOut)
    def post(self, body, id):
        """Update an item: omitted fields are left as they are."""
        return venues.update(venues.by_id(id), body)

    put = post
    patch = post

    @blp.arguments(LinkedDeleteArgs, location="query")
    @blp.response(200, VenueOut)
    def delete(self, args, id):
        """Move an item to the trash, or delete it with force=true."""
        return venues.remove(venues.by_id(id), args)


@blp.route("/venues/by-slug/<slug>")
@cached
class VenueBySlug(MethodView):
    @blp.response(200, VenueOut)
    def get(self, slug):
        """Read an item by its slug."""
        return venues.read(venues.by_slug(slug))

    @blp.arguments(VenueUpdate, location="json", checks=venues.check_body)
    @blp.response(200, VenueOut)
    def post(self, body, slug):
        """Update an item found by its slug."""
        return venues.update(venues.by_slug(slug), body)

    put = post
    patch = post

    @blp.arguments(LinkedDeleteArgs, location="query")
    @blp.response(200, VenueOut)
    def delete(self, args, slug):
        """Trash an item found by its slug, or delete it with force=true."""
        return venues.remove(venues.by_slug(slug), args)
