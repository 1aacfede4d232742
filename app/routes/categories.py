"""Event categories: nested terms."""

from flask.views import MethodView

from app.cache import cached
from app.routes.taxonomy import TaxonomyRoutes
from app.smorest import Blueprint
from schemas.terms import (
    CategoryCreate,
    CategoryListOut,
    CategoryQueryArgs,
    CategoryUpdate,
    TermOut,
)

blp = Blueprint(
    "categories", __name__, description="Event categories: create, read, update, delete and list."
)
categories = TaxonomyRoutes("category", "categories")


@blp.route("/categories")
@cached
class CategoryList(MethodView):
    @blp.arguments(CategoryQueryArgs, location="query", checks=categories.check_list_args)
    @blp.response(200, CategoryListOut)
    def get(self, args):
        """List terms."""
        return categories.listing(args)

    @blp.arguments(CategoryCreate, location="json", checks=categories.check_body)
    @blp.response(201, TermOut)
    def post(self, body):
        """Create a term (editors and administrators)."""
        return categories.create(body)


@blp.route("/categories/<int:id>")
@cached
class CategoryById(MethodView):
    @blp.response(200, TermOut)
    def get(self, id):
        """Read a term."""
        return categories.one(categories.by_id(id))

    @blp.arguments(CategoryUpdate, location="json", checks=categories.check_body)
    @blp.response(200, TermOut)
    def post(self, body, id):
        """Update a term (editors and administrators)."""
        return categories.one(categories.save(body, categories.by_id(id)))

    put = post
    patch = post

    @blp.response(200, TermOut)
    def delete(self, id):
        """Delete a term permanently; it is removed from its events."""
        return categories.delete(categories.by_id(id))
