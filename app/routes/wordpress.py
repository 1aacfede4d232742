"""The few WordPress core routes (``{api_root}/wp/v2``) that clients of the plugin call
beside its own (SPEC §17): media, event tags and categories, and the signed-in user. They
answer in WordPress's shapes, with the ids of our own routes, and every rule behind them
(validation, permissions, visibility, the upload limits) is our own routes' rule.

Outside ``/doc`` (which documents our namespace) and outside the response cache."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, request
from marshmallow import ValidationError
from marshmallow import fields as ma_fields

from app.auth import current_viewer, may, may_read_media
from app.errors import ApiError, from_validation_error, invalid_params
from app.i18n import _
from app.jsonresponse import json_response
from app.listing import Page
from app.render import media_out, render_context, term_out
from app.routes.categories import categories
from app.routes.media import decode, upload_folder, uploaded_bytes, uploaded_name
from app.routes.tags import tags
from app.routes.taxonomy import event_filter, event_filter_errors
from app.smorest import loaded_part, query_parameters, raise_joined, request_body
from app.urls import api_root_url, site_url
from schemas.terms import CategoryCreate, TagCreate
from schemas.wordpress import WP_MAX_PER_PAGE, WpMediaQueryArgs, WpTermQueryArgs
from store.media import get_media, list_media, save_media
from store.posts import slugify
from store.terms import TermFilters, get_term, list_terms, term_count

blp = Blueprint("wordpress", __name__)

# Per WordPress route of a taxonomy: our routes, the schema of a new term.
TAXONOMIES = {
    "tags": (tags, TagCreate),
    "tribe_events_cat": (categories, CategoryCreate),
}


def cannot_create(viewer, message: str) -> ApiError:
    """WordPress's refusal of a write: 401 when nobody is logged in, 403 when the user lacks
    the right."""
    return ApiError("rest_cannot_create", message, 403 if viewer.logged_in else 401)


def wp_loaded(schema, data, checks=None):
    """``data`` loaded by ``schema``; its refusal joined by what ``checks`` says of the rest,
    as our own routes' (``Blueprint.arguments``)."""
    try:
        return schema.load(data)
    except ValidationError as error:
        answer = from_validation_error(error, schema)
        if checks is not None and answer.code == "rest_invalid_param":
            raise_joined(answer, loaded_part(schema, error), checks)
        raise answer from None


def wp_url(path: str) -> str:
    return f"{api_root_url()}/wp/v2/{path}"


def wp_created(item: dict, path: str):
    """WordPress's answer to a creation: 201, the item, and where it now is (``path``
    under ``wp/v2``)."""
    response = json_response(item, 201)
    response.headers["Location"] = wp_url(path)
    return response


def wp_collection(items: list, total: int, page: Page, path: str):
    """WordPress's collection answer: the items as a list, the totals and links in headers."""
    pages = page.total_pages(total)
    headers = {"X-WP-Total": str(total), "X-WP-TotalPages": str(pages)}
    kept = [(key, value) for key, value in request.args.items(multi=True) if key != "page"]

    def link(number: int, rel: str) -> str:
        return f'<{wp_url(path)}?{urlencode([*kept, ("page", number)])}>; rel="{rel}"'

    following, preceding = page.linked_neighbours(pages)
    links = []
    if preceding:
        links.append(link(preceding, "prev"))
    if following:
        links.append(link(following, "next"))
    if links:
        headers["Link"] = ", ".join(links)
    return json_response(items, 200, headers)


# --- terms --------------------------------------------------------------------------------


def wp_term(term, count: int, path: str) -> dict:
    ours = term_out(term, render_context(current_viewer()), count)
    return {
        "id": term.id,
        "count": count,
        "description": term.description,
        "link": ours["url"],
        "name": term.name,
        "slug": term.slug,
        "taxonomy": ours["taxonomy"],
        "parent": term.parent,
        "meta": [],
        "_links": {
            "self": [{"href": wp_url(f"{path}/{term.id}")}],
            "collection": [{"href": wp_url(path)}],
        },
    }


def term_listing(path: str):
    routes, _schema = TAXONOMIES[path]
    schema = WpTermQueryArgs()
    lists = frozenset(name for name, f in schema.fields.items() if isinstance(f, ma_fields.List))
    args = wp_loaded(schema, query_parameters(request, schema, lists))  # x[]=1&x[]=2, x=1,2…
    filters = TermFilters(
        search=args.get("search") or None,
        order=args["order"],
        orderby=args["orderby"],  # WordPress's names are ours (``store.terms.ORDERBY``)
        hide_empty=args["hide_empty"],
        slug=args.get("slug"),
        include=args.get("include"),
        exclude=args.get("exclude"),
        event=event_filter(args),  # the terms of one event, as our /tags?post= (SPEC §17)
    )
    if errors := event_filter_errors(args):
        raise invalid_params(errors)
    if routes.hierarchical and "parent" in args:  # WordPress's tags take no parent
        filters.parent = args["parent"]
    page = Page(args["page"], args["per_page"], WP_MAX_PER_PAGE)
    rows, total = list_terms(routes.taxonomy, filters, current_viewer(), page.offset, page.size)
    return wp_collection([wp_term(row, row.n, path) for row in rows], total, page, path)


def term_create(path: str):
    routes, schema = TAXONOMIES[path]
    # Validated first, as our own namespaces and WordPress core (its args and JSON before the
    # permission callback): a malformed write is a 400 even when anonymous (SPEC §5).
    body = wp_loaded(schema(), request_body(request), routes.check_body)
    viewer = current_viewer()
    if not (may(viewer, "create") and may(viewer, "manage_terms")):  # our routes' rule
        raise cannot_create(
            viewer, _("Sorry, you are not allowed to create terms in this taxonomy.")
        )
    term = routes.save(body, None)
    return wp_created(wp_term(term, term_count(term.id), path), f"{path}/{term.id}")


def term_one(path: str, term_id: int):
    routes, _schema = TAXONOMIES[path]
    term = get_term(term_id, routes.taxonomy)
    if term is None:
        raise ApiError("rest_term_invalid", _("Term does not exist."), 404)
    return json_response(wp_term(term, term_count(term.id), path))


for _path in TAXONOMIES:
    blp.add_url_rule(
        f"/{_path}", f"{_path}_list", term_listing, methods=["GET"], defaults={"path": _path}
    )
    blp.add_url_rule(
        f"/{_path}", f"{_path}_create", term_create, methods=["POST"], defaults={"path": _path}
    )
    blp.add_url_rule(
        f"/{_path}/<int:term_id>",
        f"{_path}_one",
        term_one,
        methods=["GET"],
        defaults={"path": _path},
    )


# --- media --------------------------------------------------------------------------------


def wp_media(row) -> dict:
    """A WordPress attachment: our image object's files, in WordPress's members."""
    ours = media_out(row, render_context(current_viewer()))
    sizes = {
        name: {
            "file": size["url"].rsplit("/", 1)[-1],
            "width": size["width"],
            "height": size["height"],
            "filesize": size["filesize"],
            "mime_type": size["mime-type"],
            "source_url": size["url"],
        }
        for name, size in ours.get("sizes", {}).items()
    }
    sizes["full"] = {
        "file": ours["url"].rsplit("/", 1)[-1],
        "width": row.width,
        "height": row.height,
        "filesize": row.filesize,
        "mime_type": row.mime_type,
        "source_url": ours["url"],
    }
    return {
        "id": row.id,
        "date": row.date.replace(" ", "T"),
        "date_gmt": row.date_utc.replace(" ", "T"),
        "guid": {"rendered": ours["url"]},
        "modified": row.date.replace(" ", "T"),
        "modified_gmt": row.date_utc.replace(" ", "T"),
        "slug": str(row.id),
        "status": "inherit",
        "type": "attachment",
        "link": ours["url"],
        "title": {"rendered": ""},
        "author": row.author,
        "alt_text": "",
        "caption": {"rendered": ""},
        "description": {"rendered": ""},
        "media_type": "image",
        "mime_type": row.mime_type,
        "media_details": {
            "width": row.width,
            "height": row.height,
            "file": sizes["full"]["file"],
            "filesize": row.filesize,
            "sizes": sizes,
        },
        "post": None,
        "source_url": ours["url"],
        "_links": {
            "self": [{"href": wp_url(f"media/{row.id}")}],
            "collection": [{"href": wp_url("media")}],
        },
    }


@blp.get("/media")
def media_listing():
    schema = WpMediaQueryArgs()
    args = wp_loaded(schema, query_parameters(request, schema, frozenset({"include"})))
    page = Page(args["page"], args["per_page"], WP_MAX_PER_PAGE)
    found = {"include": args.get("include"), "search": args.get("search")}
    rows, total = list_media(current_viewer(), page.offset, page.size, **found)
    if not rows and page.number > 1 and total:
        raise ApiError(
            "rest_post_invalid_page_number",
            _("The page number requested is larger than the number of pages available."),
            400,
        )
    return wp_collection([wp_media(row) for row in rows], total, page, "media")


@blp.post("/media")
def media_upload():
    """As ``POST {namespace}/media``: a multipart ``file`` or the raw body."""
    viewer = current_viewer()
    if not may(viewer, "upload_media"):  # before reading the body, as WordPress
        raise cannot_create(viewer, _("Sorry, you are not allowed to create posts as this user."))
    try:
        data = uploaded_bytes(request.files)
    except ApiError as error:
        if error.code != "rest_missing_callback_param":
            raise
        raise ApiError("rest_upload_no_data", _("No data supplied."), 400) from None
    media = save_media(decode(data), viewer.id, upload_folder(), uploaded_name(request.files))
    return wp_created(wp_media(media), f"media/{media.id}")


@blp.get("/media/<int:media_id>")
def media_one(media_id: int):
    media = get_media(media_id)
    if media is None or not may_read_media(current_viewer(), media):
        raise ApiError("rest_post_invalid_id", _("Invalid post ID."), 404)
    return json_response(wp_media(media))


# --- users --------------------------------------------------------------------------------


@blp.get("/users/me")
def users_me():
    viewer = current_viewer()
    if not viewer.logged_in:
        raise ApiError("rest_not_logged_in", _("You are not currently logged in."), 401)
    return json_response(
        {
            "id": viewer.id,
            "name": viewer.login,
            "url": "",
            "description": "",
            "link": f"{site_url()}/",
            # user_nicename: WordPress's sanitize_title of the login's first 50 characters
            "slug": slugify(viewer.login[:50]),
            "avatar_urls": {},
            "meta": [],
            "_links": {"self": [{"href": wp_url("users/me")}]},
        }
    )


def register_wordpress(app) -> None:
    app.register_blueprint(blp, url_prefix=f"{app.config['API_ROOT']}/wp/v2")
