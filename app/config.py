"""Settings: these defaults, overridden by ``instance/config.py``, then by environment
variables of the same name, then by the ``test_config`` given to ``create_app``."""

import os

from flask import Config

from store.db import is_url
from store.images import DEFAULT_MAX_PIXELS

DEFAULTS = {
    # SQLite file (relative paths are relative to the project root), or a PostgreSQL URL:
    # postgresql://user:password@host:port/name (SPEC §14).
    "CALENDAR_DATABASE": "instance/calendar.db",
    # Timezone of the site: default event timezone and the zone of listing filters.
    "SITE_TIMEZONE": "UTC",
    # Base of absolute links; empty means the request's own scheme and host.
    "SITE_URL": "",
    "SITE_NAME": "Events Calendar",
    "SITE_DESCRIPTION": "A calendar of events, venues and organizers.",
    "API_ROOT": "/wp-json",
    "LANGUAGES": "en,fr,de,es",
    "DEFAULT_LANGUAGE": "en",
    # Origins allowed to send credentials (comma-separated); others get "*".
    "CORS_ORIGINS": "",
    "GEOLOCATION": True,
    "GEOFENCE_KM": 25.0,
    # Request bodies above this many bytes are refused with 413 before being read.
    "MAX_CONTENT_LENGTH": 1024 * 1024,
    # Uploaded images: where their files are written (relative paths are relative to the
    # project root), the largest upload in bytes, and the most pixels an image may have
    # (below Pillow's own bomb limit, to bound the memory a worker needs to decode one).
    "UPLOAD_FOLDER": "instance/uploads",
    "MAX_UPLOAD_BYTES": 10 * 1024 * 1024,
    "MAX_IMAGE_PIXELS": DEFAULT_MAX_PIXELS,
    # Failed logins allowed per client within the window before 429.
    "AUTH_FAILURE_LIMIT": 10,
    "AUTH_FAILURE_WINDOW": 300,
    # Proxies whose X-Forwarded-For names the client (gunicorn's setting; "*" trusts any).
    "FORWARDED_ALLOW_IPS": "",
    # Largest page of any listing (the reference's cap).
    "MAX_PER_PAGE": 50,
    # Most events in one iCalendar feed (the soonest ones).
    "ICAL_MAX_EVENTS": 1000,
    # Recurring events: open-ended rules are materialised this many days ahead (the default
    # listing window), and a series has at most this many occurrences (itself included).
    "RECURRENCE_HORIZON_DAYS": 730,
    "RECURRENCE_MAX": 1000,
}


def _coerce(default, raw: str):
    if isinstance(default, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    return raw


def load_settings(root: str, test_config: dict | None = None) -> dict:
    settings = Config(root, DEFAULTS)
    settings.from_pyfile(os.path.join(root, "instance", "config.py"), silent=True)
    for key, default in DEFAULTS.items():
        if key in os.environ:
            settings[key] = _coerce(default, os.environ[key])
    if test_config:
        settings.update(test_config)
    database = settings["CALENDAR_DATABASE"]
    if database != ":memory:" and not is_url(database) and not os.path.isabs(database):
        settings["CALENDAR_DATABASE"] = os.path.join(root, database)
    if not os.path.isabs(settings["UPLOAD_FOLDER"]):
        settings["UPLOAD_FOLDER"] = os.path.join(root, settings["UPLOAD_FOLDER"])
    settings["API_ROOT"] = "/" + settings["API_ROOT"].strip("/")
    if isinstance(settings["LANGUAGES"], str):
        settings["LANGUAGES"] = [x.strip() for x in settings["LANGUAGES"].split(",") if x.strip()]
    if isinstance(settings["FORWARDED_ALLOW_IPS"], str):
        settings["FORWARDED_ALLOW_IPS"] = [
            x.strip() for x in settings["FORWARDED_ALLOW_IPS"].split(",") if x.strip()
        ]
    if isinstance(settings["CORS_ORIGINS"], str):
        settings["CORS_ORIGINS"] = [
            x.strip() for x in settings["CORS_ORIGINS"].split(",") if x.strip()
        ]
    return settings
