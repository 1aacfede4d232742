"""From a validated venue or organizer body to the columns the store saves."""

from __future__ import annotations

from flask import current_app, g

from app.errors import invalid_params
from app.i18n import _
from rules import dates
from rules.text import sanitise_html
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


def derive_stateprovince(values: dict) -> str:
    """The reference's rule: the state for US addresses (or no country), else the province."""
    country = (values.get("country") or "").strip().lower()
    if country in ("", "us", "usa", "united states", "united states of america"):
        return values.get("state") or values.get("province") or ""
    return values.get("province") or values.get("state") or ""


def linked_columns(kind: str, body: dict, existing) -> dict:
    """Columns for a venue or organizer from its validated body (create or update)."""
    from app.event_input import check_image  # event_input imports this module

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
        if not user_exists(body["author"]):
            errors["author"] = _("%(id)s is not the id of an existing user.", id=body["author"])
        values["author"] = body["author"]
    site_zone = dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0]
    try:
        values.update(dates.publication_dates(body, site_zone, existing is None))
    except dates.DateError:
        errors["date" if "date" in body else "date_utc"] = _(
            "Must be a date such as 2025-06-01 18:30:00."
        )
    if "image" in body:
        values["image"] = check_image(body["image"], viewer)
    for key in VENUE_TEXT if kind == "venue" else ORGANIZER_TEXT:
        if key in body:
            values[key] = body[key].strip()
    if kind == "venue":
        for key in ("show_map", "show_map_link"):
            if key in body:
                values[key] = body[key]
        if ("geo_lat" in body) != ("geo_lng" in body):
            if existing is None or existing.geo_lat is None:
                errors["geo_lat" if "geo_lat" not in body else "geo_lng"] = _(
                    "geo_lat and geo_lng must be given together."
                )
        for key in ("geo_lat", "geo_lng"):
            if key in body:
                values[key] = body[key]
        if "stateprovince" not in body and any(k in body for k in ("state", "province", "country")):
            merged = {k: getattr(existing, k, "") for k in ("state", "province", "country")}
            merged.update({k: values[k] for k in ("state", "province", "country") if k in values})
            values["stateprovince"] = derive_stateprovince(merged)
    if errors:
        raise invalid_params(errors)
    return values
