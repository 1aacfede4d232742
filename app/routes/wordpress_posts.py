"""WordPress's routes of the plugin's post types (``wp/v2/tribe_venue``,
``wp/v2/tribe_organizer``, ``wp/v2/tribe_events/{id}``), which writers of the plugin's era
call beside its own API: to find or make a venue or organizer by name, and to set an
event's tags, categories or image. WordPress's post shape (``title.rendered``, ``meta``
with the plugin's ``_Venue…``/``_Organizer…`` keys, ``featured_media``) is translated into
our own bodies, which go through our own write pipelines, permissions and schemas; what
they answer is our own representation (masked as ours is) in WordPress's shape."""

from __future__ import annotations

from contextlib import contextmanager
from html import escape

from flask import Blueprint, request

from app.auth import current_viewer, may_read, readable_by
from app.cache import READS
from app.errors import ApiError, invalid_params, missing_params
from app.event_input import change_event, check_event_update, not_an_event
from app.jsonresponse import json_response
from app.listing import Page
from app.reading.filters import checked_statuses
from app.reading.texts import render_events
from app.render import render_context
from app.routes.events import event_for_write, read_event
from app.routes.organizers import organizers
from app.routes.venues import venues
from app.routes.wordpress import wp_collection, wp_created, wp_loaded, wp_url
from app.smorest import query_parameters, query_values, request_body
from schemas.events import EventUpdate
from schemas.linked import OrganizerCreate, OrganizerUpdate, VenueCreate, VenueUpdate
from schemas.wordpress import WP_MAX_PER_PAGE, WpPostQueryArgs
from store.events import get_event
from store.linked import LinkedFilters, get_linked_by_slug, list_linked

blp = Blueprint("wordpress_posts", __name__)

# The plugin's meta keys of each post type, and our fields they are.
META = {
    "venue": {
        "_VenueAddress": "address",
        "_VenueCity": "city",
        "_VenueCountry": "country",
        "_VenueProvince": "province",
        "_VenueState": "state",
        "_VenueZip": "zip",
        "_VenuePhone": "phone",
        "_VenueURL": "website",
        "_VenueStateProvince": "stateprovince",
        "_VenueShowMap": "show_map",
        "_VenueShowMapLink": "show_map_link",
    },
    "organizer": {
        "_OrganizerPhone": "phone",
        "_OrganizerWebsite": "website",
        "_OrganizerEmail": "email",
    },
}
KINDS = {
    "tribe_venue": ("venue", venues, VenueCreate, VenueUpdate),
    "tribe_organizer": ("organizer", organizers, OrganizerCreate, OrganizerUpdate),
}


# Our fields and the parameters of WordPress's post they are read from, by which a refusal
# names them: a client finds the field it sent (SPEC §6), a meta key as WordPress writes it.
POST_FIELDS = {
    "description": "content",
    "excerpt": "excerpt",
    "status": "status",
    "slug": "slug",
    "image": "featured_media",
}
EVENT_FIELDS = {"title": "title", **POST_FIELDS, "tags": "tags", "categories": "tribe_events_cat"}
RAW = ("title", "content", "excerpt")  # WordPress takes these as a string or {"raw": …}


def linked_fields(kind: str) -> dict:
    meta = {field: f"meta[{key}]" for key, field in META[kind].items()}
    return {kind: "title", **POST_FIELDS, **meta}


def _raw(value):
    return value.get("raw") if isinstance(value, dict) else value


def _our_body(post: dict, fields: dict) -> dict:
    """Our body from the post's top-level parameters that ``fields`` reads."""
    body = {ours: post.get(theirs) for ours, theirs in fields.items() if "[" not in theirs}
    body = {ours: _raw(body[ours]) if fields[ours] in RAW else body[ours] for ours in body}
    return {name: value for name, value in body.items() if value is not None}


@contextmanager
def named_as_sent(fields: dict):
    """A refusal of bad or missing parameters named by the post's parameters (``fields``:
    ours → theirs), not by our fields, which the client never sent."""
    try:
        yield
    except ApiError as error:
        if error.code == "rest_invalid_param":
            params = error.data["params"]
            raise invalid_params({fields.get(n, n): m for n, m in params.items()}) from None
        if error.code == "rest_missing_callback_param":
            raise missing_params([fields.get(n, n) for n in error.data["params"]]) from None
        raise


def _image_id(image) -> int:
    return image.get("id", 0) if isinstance(image, dict) else 0


def _post(data: dict, post_type: str, title: str, extra: dict) -> dict:
    """WordPress's post shape around one of our representations."""
    return {
        "id": data["id"],
        "date": data["date"].replace(" ", "T"),
        "date_gmt": data["date_utc"].replace(" ", "T"),
        "modified": data["modified"].replace(" ", "T"),
        "modified_gmt": data["modified_utc"].replace(" ", "T"),
        "slug": data.get("slug", ""),
        "status": data["status"],
        "type": post_type,
        "link": data["url"],
        "title": {"rendered": escape(title, quote=False)},
        "content": {"rendered": data.get("description", ""), "protected": False},
        "excerpt": {"rendered": data.get("excerpt", ""), "protected": False},
        "featured_media": _image_id(data.get("image")),
        **extra,
        "_links": {
            "self": [{"href": wp_url(f"{post_type}/{data['id']}")}],
            "collection": [{"href": wp_url(post_type)}],
        },
    }


# --- venues and organizers ---------------------------------------------------------------


def linked_post(kind: str, data: dict) -> dict:
    meta = {key: data.get(field, "") for key, field in META[kind].items()}
    post_type = "tribe_venue" if kind == "venue" else "tribe_organizer"
    return _post(data, post_type, data.get(kind, ""), {"meta": meta})


def _linked_body(kind: str, post: dict) -> dict:
    body = _our_body(post, linked_fields(kind))
    meta = post.get("meta")
    for key, field in META[kind].items():
        if isinstance(meta, dict) and meta.get(key) is not None:
            body[field] = meta[key]
    return body


def linked_listing(post_type: str):
    kind, routes, _create, _update = KINDS[post_type]
    schema = WpPostQueryArgs()
    lists = frozenset({"slug", "status", "include"})
    args = wp_loaded(schema, query_parameters(request, schema, lists))
    viewer = current_viewer()
    page = Page(args["page"], args["per_page"], WP_MAX_PER_PAGE)
    if "slug" in args:  # each slug's item, when the caller may read it
        readable = readable_by(viewer)
        found = (get_linked_by_slug(kind, s, readable) for s in dict.fromkeys(args["slug"]))
        chosen = set(args.get("include") or ())  # and among the ids asked, as WordPress
        rows = [r for r in found if r and may_read(viewer, r) and (not chosen or r.id in chosen)]
        total, rows = len(rows), rows[page.offset : page.offset + page.size]
    else:
        filters = LinkedFilters(
            statuses=checked_statuses(args.get("status"), viewer),
            search=args.get("search"),
            include=args.get("include"),
        )
        rows, total = list_linked(kind, filters, viewer, page.offset, page.size)
    ctx = render_context(viewer)
    return wp_collection(
        [linked_post(kind, routes.render(row, ctx)) for row in rows], total, page, post_type
    )


def linked_create(post_type: str):
    kind, routes, create, _update = KINDS[post_type]
    with named_as_sent(linked_fields(kind)):
        body = wp_loaded(create(), _linked_body(kind, request_body(request)), routes.check_new_body)
        saved = routes.write(body)
    data = routes.render(saved, render_context(current_viewer(), single=True))
    return wp_created(linked_post(kind, data), f"{post_type}/{saved.id}")


def linked_one(post_type: str, item_id: int):
    kind, routes, _create, update = KINDS[post_type]
    item = routes.by_id(item_id)
    if request.method not in READS:  # WordPress's EDITABLE: POST, PUT and PATCH all write
        with named_as_sent(linked_fields(kind)):
            sent = _linked_body(kind, request_body(request))
            body = wp_loaded(update(), sent, lambda loaded: routes.check_body(loaded, item))
            item = routes.write(body, item)
        data = routes.render(item, render_context(current_viewer(), single=True))
        return json_response(linked_post(kind, data))
    response = routes.read(item)
    return json_response(linked_post(kind, response.get_json()))


for _type in KINDS:
    blp.add_url_rule(f"/{_type}", f"{_type}_list", linked_listing, methods=["GET"],
                     defaults={"post_type": _type})  # fmt: skip
    blp.add_url_rule(f"/{_type}", f"{_type}_create", linked_create, methods=["POST"],
                     defaults={"post_type": _type})  # fmt: skip
    blp.add_url_rule(f"/{_type}/<int:item_id>", f"{_type}_one", linked_one,
                     methods=["GET", "POST", "PUT", "PATCH"], defaults={"post_type": _type})  # fmt: skip


# --- events ------------------------------------------------------------------------------


def event_post(data: dict) -> dict:
    extra = {
        "featured_media": _image_id(data.get("image")),
        "tags": [term["id"] for term in data.get("tags") or []],
        "tribe_events_cat": [term["id"] for term in data.get("categories") or []],
    }
    return _post(data, "tribe_events", data.get("title", ""), extra)


@blp.route("/tribe_events/<int:event_id>", methods=["GET", "POST", "PUT", "PATCH"])
def event_one(event_id: int):
    viewer = current_viewer()
    if request.method in READS:  # HEAD is a GET without its body: it writes nothing
        event = get_event(event_id)
        if event is None:
            raise not_an_event(event_id)
        password = query_values(request.args, frozenset()).get("password")
        return json_response(event_post(read_event(event, viewer, password).get_json()))
    with named_as_sent(EVENT_FIELDS):  # our update route's checks, all at once (SPEC §6)
        body = wp_loaded(
            EventUpdate(),
            _our_body(request_body(request), EVENT_FIELDS),
            lambda loaded: check_event_update(loaded, get_event(event_id), viewer),
        )
        event = event_for_write(event_id, viewer, "edit", body)
        saved = change_event(event, body, viewer)
    return json_response(event_post(render_events([saved], viewer)[0]))


def register_wordpress_posts(app) -> None:
    app.register_blueprint(blp, url_prefix=f"{app.config['API_ROOT']}/wp/v2")
