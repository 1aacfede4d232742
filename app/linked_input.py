"""From a validated venue or organizer body to the columns the store saves; and what every
post's body (events too, app/event_input.py) says alike: its publication dates, its author,
its image."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app, g

from app.auth import may, may_read_media
from app.errors import invalid_params
from app.i18n import _
from app.render import UPLOADS_PATH
from app.urls import site_url
from rules import dates
from rules.ids import is_digits
from rules.text import is_web_url, sanitise_html
from store.media import get_media, media_of_file
from store.users import ANONYMOUS, user_exists

VENUE_TEXT = (
    "address",
    "city",
    "country",
    "province",
    "state",
    "zip",
    "phone",
    "website",
    "stateprovince",
)
ORGANIZER_TEXT = ("phone", "website", "email")
GEO = ("geo_lat", "geo_lng")


def derive_stateprovince(values: dict) -> str:
    """The reference's rule: the state for US addresses (or no country), else the province."""
    country = (values.get("country") or "").strip().lower()
    if country in ("", "us", "usa", "united states", "united states of america"):
        return values.get("state") or values.get("province") or ""
    return values.get("province") or values.get("state") or ""


def publication_columns(body: dict, existing, values: dict, errors: dict) -> None:
    """The publication dates a post's body decides (``date``/``date_utc``, read in the
    site's zone), into ``values``; into ``errors``, a date that cannot be read or an author
    who does not exist."""
    site_zone = dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0]
    try:
        values.update(dates.publication_dates(body, site_zone, existing is None))
    except dates.DateError:
        errors["date" if "date" in body else "date_utc"] = _(
            "Must be a date such as 2025-06-01 18:30:00."
        )
    if "author" in body and not user_exists(body["author"]):
        errors["author"] = _("%(id)s is not the id of an existing user.", id=body["author"])


def check_image(value, viewer, param: str = "image") -> str:
    """The stored ``image``: a media id (number, numeric string, or an image object with
    its ``id``, as clients send back what they read) kept as a numeric string, or an
    absolute http(s) image URL; "", 0 and "0" clear it. The URL of one of our own uploads
    is that upload, as the reference reuses an attachment its URL names: the event keeps
    its sizes, and loses it when the image is deleted (SPEC §13)."""
    if isinstance(value, dict):
        value = value.get("id") or value.get("url")
    upload = _own_upload(value)
    if upload is not None:
        value = upload.id
    if value in ("", None, False) or (isinstance(value, str) and value.strip() == "0"):
        return ""
    is_number = isinstance(value, int) and not isinstance(value, bool)
    if is_number or (isinstance(value, str) and is_digits(value.strip())):
        media = get_media(value)
        # One the caller may not read (shown only by another's draft) is no image to it:
        # attaching it would show it to everyone.
        if media is None or not may_read_media(viewer, media):
            raise invalid_params({param: _("%(id)s is not the id of an image.", id=value)})
        if not may(viewer, "use_media", media):
            raise invalid_params({param: _("Sorry, you are not allowed to add images.")})
        return str(media.id)
    if not isinstance(value, str):
        raise invalid_params({param: _("Must be an image id, or an absolute http or https URL.")})
    if not is_web_url(value.strip()):
        raise invalid_params({param: _("Must be an image id, or an absolute http or https URL.")})
    if not viewer.has("upload_files"):
        raise invalid_params({param: _("Sorry, you are not allowed to add images.")})
    return value.strip()


def _own_upload(value):
    """The media row an image URL of this site's upload folder names, else None."""
    if not isinstance(value, str) or not is_web_url(value.strip()):
        return None
    parts, site = urlsplit(value.strip()), urlsplit(site_url())
    folder, _slash, name = parts.path.rpartition("/")
    same_site = (parts.scheme, parts.netloc.lower()) == (site.scheme, site.netloc.lower())
    if not same_site or folder != site.path.rstrip("/") + UPLOADS_PATH or parts.query:
        return None
    return media_of_file(name)


def check_linked_body(kind: str, body: dict) -> None:
    """The 400s of an update's ``body`` read alone, for a caller who may not edit the item
    (``require_edit``): its coordinates are paired with the stored ones (a lone ``geo_lat``
    is fine beside a stored ``geo_lng``) only for one who may."""
    linked_columns(kind, {k: v for k, v in body.items() if k not in GEO}, None)


def linked_columns(kind: str, body: dict, existing) -> dict:
    """Columns for a venue or organizer from its validated body (create or update)."""
    viewer = g.get("viewer", ANONYMOUS)
    values: dict = {}
    errors: dict = {}
    if kind in body:
        values["title"] = body[kind].strip()
    for key in ("slug", "status", "password"):
        if key in body:
            values[key] = body[key]
    for key in ("description", "excerpt"):
        if key in body:
            values[key] = sanitise_html(body[key])
    if "author" in body:
        values["author"] = body["author"]
    publication_columns(body, existing, values, errors)
    if "image" in body:
        values["image"] = check_image(body["image"], viewer)
    for key in VENUE_TEXT if kind == "venue" else ORGANIZER_TEXT:
        if key in body:
            values[key] = body[key].strip()
    if kind == "venue":
        for key in ("show_map", "show_map_link"):
            if key in body:
                values[key] = body[key]
        for key in GEO:
            if key in body:  # "": removed
                values[key] = None if body[key] == "" else body[key]
        lat, lng = (values.get(k, getattr(existing, k, None)) for k in GEO)
        if (lat is None) != (lng is None):  # both or neither, as the venue is saved
            errors["geo_lat" if lat is None else "geo_lng"] = _(
                "geo_lat and geo_lng must be given together."
            )
        if "stateprovince" not in body and any(k in body for k in ("state", "province", "country")):
            merged = {k: getattr(existing, k, "") for k in ("state", "province", "country")}
            merged.update({k: values[k] for k in ("state", "province", "country") if k in values})
            values["stateprovince"] = derive_stateprovince(merged)
    if errors:
        raise invalid_params(errors)
    return values
