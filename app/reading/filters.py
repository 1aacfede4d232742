"""A listing's arguments read into ``store.events.EventFilters``: the one reading of the
listing's query for the API, the feed, the pages and the editor (step 1 of the read path,
app/reading/__init__.py)."""

from __future__ import annotations

from flask import current_app

from app.cache import leave_undated
from app.errors import ParamErrors, invalid_params
from app.event_input import raise_invalid, unknown_linked
from app.i18n import _
from rules import dates
from rules.clock import utcnow
from schemas.fields import STATUSES
from store.errors import InvalidInput
from store.events import (
    EventFilters,
    event_exists,
)
from store.linked import existing_linked
from store.terms import resolve_filter_terms

DATE_PARAMS = (
    "start_date",
    "end_date",
    "starts_before",
    "starts_after",
    "ends_before",
    "ends_after",
)


def checked_statuses(requested, viewer, param="status"):
    """The ``status`` filter: callers who cannot edit may ask for ``publish`` alone."""
    if requested is None:
        return None
    requested = list(dict.fromkeys(requested))  # "publish,publish" asks for publish
    unknown = [s for s in requested if s not in STATUSES and s != "any"]
    if unknown or (not viewer.has("edit_posts") and requested != ["publish"]):
        raise invalid_params(
            {param: _("Status must be publish, or a list of statuses that you may read.")}
        )
    if "any" in requested:
        return [s for s in STATUSES if s != "trash"]
    return requested


def default_window_texts(site_tz) -> tuple[str, str]:
    """The default window's bounds in the site zone, whole days (yesterday 00:00:00, two
    years ahead 23:59:59): what a listing without dates reads, and the ``start_date`` and
    ``end_date`` defaults the namespace index and ``/doc`` show (interface.md 4.2.1)."""
    now_local = dates.utc_to_local(utcnow().replace(tzinfo=None), site_tz)
    start, end = dates.default_window(now_local)
    return dates.fmt(dates.snap_to_day_start(start)), dates.fmt(dates.snap_to_day_end(end))


def site_window_defaults() -> dict[str, str]:
    """``default_window_texts`` by parameter name, in the configured site zone."""
    site_tz = dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0]
    return dict(zip(("start_date", "end_date"), default_window_texts(site_tz), strict=True))


def _window(args, site_tz):
    """UTC bounds for the date filters and the local values echoed in ``rest_url``.

    Inclusive (default) dates snap to whole days: ``start_date`` to 00:00:00, the others
    to 23:59:59. Without any date the default window runs from yesterday 00:00 to the end
    of the day two years ahead; relative filters alone drop it. A bound that moves with
    the clock between the moments a feed is dated by leaves the answer undated
    (``app.cache.leave_undated``).
    """
    strict = args["strict_dates"]
    given = {p: args[p] for p in DATE_PARAMS if p in args}
    relative = any(p in given for p in DATE_PARAMS[2:])
    if not relative and ("start_date" not in given or "end_date" not in given):
        window_start, window_end = default_window_texts(site_tz)
        given.setdefault("start_date", window_start)
        given.setdefault("end_date", window_end)
    bounds, echo, errors = {}, {}, {}
    for param, raw in given.items():
        try:
            local = dates.parse_datetime(raw, site_tz)
            is_default = param not in args
            if not strict or is_default:
                local = (
                    dates.snap_to_day_start(local)
                    if param == "start_date"
                    else dates.snap_to_day_end(local)
                )
            bounds[param] = dates.fmt(dates.local_to_utc(local, site_tz))
            if not is_default and dates.moves_untracked(raw, site_tz):
                leave_undated()
        except dates.DateError:
            errors[param] = _("Must be a date such as 2025-06-01 18:30:00.")
            continue
        echo[param] = dates.fmt(local)
    if errors:
        raise invalid_params(errors)
    return bounds, echo


def _linked_ids(ids, kind, param):
    existing = existing_linked(kind, ids)
    for item_id in ids:
        if item_id not in existing:
            raise invalid_params({param: unknown_linked(kind, item_id)})
    return ids


def event_filters(args, viewer):
    """Validated query arguments as store filters, and the effective arguments to echo."""
    config = current_app.config
    site_tz = dates.resolve_timezone(config["SITE_TIMEZONE"])[0]
    filters = EventFilters()
    echo: dict = {"per_page": min(args["per_page"], config["MAX_PER_PAGE"])}
    found = ParamErrors()  # every bad argument named at once (SPEC §6)
    with found.check():
        filters.statuses = checked_statuses(args.get("status"), viewer)
    filters.password = args.get("password")
    if "include" in args:
        filters.include = args["include"]
    else:
        with found.check():
            bounds, dates_echo = _window(args, site_tz)
            filters.start_min = bounds.get("start_date")
            filters.end_max = bounds.get("end_date")
            filters.starts_before = bounds.get("starts_before")
            filters.starts_after = bounds.get("starts_after")
            filters.ends_before = bounds.get("ends_before")
            filters.ends_after = bounds.get("ends_after")
            echo.update(dates_echo)
    if args.get("strict_dates"):
        echo["strict_dates"] = True
    _linked_filters(args, filters, found)
    for key in ("search", "featured", "ticketed"):
        if key in args:
            setattr(filters, key, args[key])
    with found.check():
        _geo_filters(args, filters, config)
    found.raise_any()
    for key in ECHOED:
        if key in args:
            echo[key] = args[key]
    echo["status"] = (
        args["status"] if "status" in args else (None if viewer.has("edit_posts") else "publish")
    )
    return filters, echo


TERM_FILTERS = (("categories", "category", "category_ids"), ("tags", "tag", "tag_ids"))


def _linked_filters(args, filters, found: ParamErrors) -> None:
    """The term, venue, organizer and parent filters: ids that exist (or term names);
    what is wrong with each, into ``found``."""
    for param, taxonomy, column in TERM_FILTERS:
        if param in args:
            with found.check():
                setattr(filters, column, _filter_terms(args[param], taxonomy, param))
    for kind, column in (("venue", "venue_ids"), ("organizer", "organizer_ids")):
        if kind in args:
            with found.check():
                setattr(filters, column, _linked_ids(args[kind], kind, kind))
    if "post_parent" in args:
        if not event_exists(args["post_parent"]):
            found.params.setdefault(
                "post_parent", _("%(id)s is not the id of an event.", id=args["post_parent"])
            )
        filters.post_parent = args["post_parent"]


def _filter_terms(values, taxonomy: str, param: str) -> list[int]:
    try:
        return resolve_filter_terms(values, taxonomy, param)
    except InvalidInput as error:
        raise_invalid(error)


def _geo_filters(args, filters, config) -> None:
    """The geolocation filters: only where the site has them, a latitude with a longitude."""
    geo_params = [p for p in ("geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius") if p in args]
    if geo_params and not config["GEOLOCATION"]:
        raise invalid_params(
            {p: _("The geolocation module is disabled on this site.") for p in geo_params}
        )
    if ("geoloc_lat" in args) != ("geoloc_lng" in args):
        missing = "geoloc_lng" if "geoloc_lat" in args else "geoloc_lat"
        raise invalid_params({missing: _("geoloc_lat and geoloc_lng must be given together.")})
    if "geoloc_radius" in args and "geoloc_lat" not in args:
        raise invalid_params({"geoloc_radius": _("geoloc_radius needs geoloc_lat and geoloc_lng.")})
    if "geoloc" in args:
        filters.geoloc = args["geoloc"]
    if "geoloc_lat" in args:
        radius = args.get("geoloc_radius", config["GEOFENCE_KM"])
        filters.near = (args["geoloc_lat"], args["geoloc_lng"], radius)


# The filters a listing's links repeat, when the request gave them.
ECHOED = (
    "search", "categories", "tags", "venue", "organizer", "featured", "include", "post_parent",
    "ticketed", "geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius",
)  # fmt: skip
