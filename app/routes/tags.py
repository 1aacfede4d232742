"""Event tags: flat terms."""

from flask.views import MethodView

from app.cache import cached
from app.routes.taxonomy import TaxonomyRoutes
from app.smorest import Blueprint
from schemas.terms import TagCreate, TagListOut, TagQueryArgs, TagUpdate, TermOut

blp = Blueprint("tags", __name__, description="Event tags: create, read, update, delete and list.")
tags = TaxonomyRoutes("tag", "tags")


@blp.route("/tags")
@cached
class TagList(MethodView):
    @blp.arguments(TagQueryArgs, location="query", checks=tags.check_list_args)
    @blp.response(200, TagListOut)
    def get(self, args):
        """List terms."""
        return tags.listing(args)

    @blp.arguments(TagCreate, location="json", checks=tags.check_body)
    @blp.response(201, TermOut)
    def post(self, body):
        """Create a term (editors and administrators)."""
        return tags.create(body)


@blp.route("/tags/<int:id>")
@cached
class TagById(MethodView):
    @blp.response(200, TermOut)
    def get(self, id):
        """Read a term."""
        return tags.one(tags.by_id(id))

    @blp.arguments(TagUpdate, location="json", checks=tags.check_body)
    @blp.response(200, TermOut)
    def post(self, body, id):
        """Update a term (editors and administrators)."""
        return tags.one(tags.save(body, tags.by_id(id)))

    put = post
    patch = post

    @blp.response(200, TermOut)
    def delete(self, id):
        """Delete a term permanently; it is removed from its events."""
        return tags.delete(tags.by_id(id))
