"""Settings: these defaults, overridden by ``instance/config.py``, then by environment
variables of the same name, then by the ``test_config`` given to ``create_app``.

The instance folder (``instance/`` in the project, or the folder the environment variable
``CALENDAR_INSTANCE`` names) holds the site's own files: ``config.py``, the generated
``secret_key``, the templates and stylesheet that override ours, and, unless set
elsewhere, the database and the uploads. The test suite gives every run a folder of its
own, so it never reads or writes the site's."""

import difflib
import ipaddress
import math
import os
import re
import types
from datetime import timedelta
from urllib.parse import urlsplit

from flask import Config, Flask

from app.i18n import has_catalog
from app.urls import named_host
from rules.dates import WINDOW_DAYS, DateError, resolve_timezone
from rules.text import is_one_line
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
    "SITE_NAME": "Events",
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
    # Failed logins allowed within the window (seconds) before 429: per address and user
    # name, and ten times as many per address whatever the name.
    "AUTH_FAILURE_LIMIT": 10,
    "AUTH_FAILURE_WINDOW": 300,
    # Proxies whose X-Forwarded-For names the client (gunicorn's setting; "*" trusts any).
    "FORWARDED_ALLOW_IPS": "",
    # Largest page of any listing (the reference's cap).
    "MAX_PER_PAGE": 50,
    # Most events in one iCalendar feed (the soonest ones).
    "ICAL_MAX_EVENTS": 1000,
    # Public pages (SPEC §15): what a browser's GET / shows (list, month, or index for the
    # JSON index), and the origins that may frame /events/embed/ (space- or comma-separated).
    "HOME_VIEW": "list",
    "EMBED_ORIGINS": "*",
    # Signs the editor's session cookies; generated into instance/secret_key when empty.
    "SECRET_KEY": "",
    # Most events and lines of one file imported over HTTP (each event is a write of about
    # 25 ms); `flask import-ics` reads an operator's file of any size.
    "ICAL_IMPORT_MAX_EVENTS": 250,
    "ICAL_IMPORT_MAX_LINES": 25_000,
    # Recurring events: open-ended rules are materialised this many days ahead (by default
    # the default listing window, to its last day: rules/dates.py::series_horizon), and a
    # series has at most this many occurrences (itself included).
    "RECURRENCE_HORIZON_DAYS": WINDOW_DAYS,
    "RECURRENCE_MAX": 1000,
    # The server's own (gunicorn.conf.py, app/server.py): threads per worker, and seconds a
    # client may stay silent mid-request before its connection is closed. A client stalled
    # mid-headers holds a thread until GUNICORN_READ_TIMEOUT: sixteen, so that a browser's
    # worth of stalled connections (six, eight) leaves threads to the others (SPEC §10).
    # Only four of them run the app at once (app/server.py APP_THREADS): each of those holds
    # a database connection, and more took a worker over the 80 MB of SPEC §9.
    "GUNICORN_THREADS": 16,
    "GUNICORN_READ_TIMEOUT": 10.0,
    # Each worker renders a list, three months and an event page before it serves
    # (app/pages/warming.py): its first visitors do not pay for compiling templates and
    # statements (about 0.5 s of CPU per worker at its start).
    "GUNICORN_WARM_UP": True,
    # Serve every route under {API_ROOT}/tribe/events/v1 too (SPEC §17), for clients
    # written for The Events Calendar.
    "TEC_NAMESPACE_ALIAS": True,
}

# Bounds of the numeric settings (inclusive); every one is at least 1 (or above 0).
LIMITS = {
    # Open-ended series are materialised to today + this: at most a century.
    "RECURRENCE_HORIZON_DAYS": 36500,
    "GUNICORN_THREADS": 1000,
    # A socket's timeout stops near 9.2e9 s (time_t in nanoseconds): past it every request
    # failed. A day of silence is more than any client needs.
    "GUNICORN_READ_TIMEOUT": 86400,
}

# Above any bound a setting needs (a 401-digit number would not even convert to a float).
HUGE = 10**15
# API_ROOT: a plain path, segments of the characters a URL path takes as they are.
API_PATH = re.compile(r"(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+")

# The first segments of the site's own addresses (pages, editor, feeds, files; a test keeps
# them those of the routes): API_ROOT or a language root on one of them would hide it.
SITE_ROOTS = (
    "events",
    "event",
    "venue",
    "organizer",
    "manage",
    "healthz",
    "static",
    "wp-content",
    "robots.txt",
    "widget.js",
    "sitemap.xml",
)
# What EMBED_ORIGINS may list: CSP sources naming origins, never another directive.
EMBED_SOURCE = re.compile(
    r"\*|'self'|'none'|https?:"
    r"|(https?://)?(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:(?P<port>\d{1,5}|\*))?"
)
# CSP's keywords are quoted: written bare, none or self would name a host of that name.
BARE_KEYWORDS = ("none", "self")

TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class SettingError(ValueError):
    """A setting that cannot work: the start stops with this message (no traceback)."""


# Settings that are lists: one text (comma-separated) or a Python list of texts.
LISTS = ("LANGUAGES", "FORWARDED_ALLOW_IPS", "EMBED_ORIGINS", "CORS_ORIGINS")


def _coerce(key: str, default, raw):
    """``raw`` (a string from the environment or ``instance/config.py``, or a value) as the
    type of ``default``; a SettingError naming ``key`` when it is not one."""
    if isinstance(default, str):
        if key in LISTS and isinstance(raw, list | tuple):
            if not all(isinstance(item, str) for item in raw):
                raise SettingError(f"{key}: {raw!r} is not a list of texts")
            return [item.strip() for item in raw if item.strip()]
        if not isinstance(raw, str):
            raise SettingError(f"{key}: {raw!r} is not a text")
        return raw
    if not isinstance(raw, str):
        if isinstance(default, bool):
            if not isinstance(raw, bool):
                raise SettingError(f"{key}: {raw!r} is not true or false")
        elif isinstance(raw, bool) or not isinstance(raw, int | float):
            raise SettingError(f"{key}: {raw!r} is not a number")
        elif isinstance(default, int) and isinstance(raw, float):
            if not raw.is_integer():  # 10.5 pages, 2.5 threads: no value such a setting has
                raise SettingError(f"{key}: {raw!r} is not a whole number")
            return int(raw)
        return raw
    text = raw.strip().lower()
    if isinstance(default, bool):
        if text not in TRUE + FALSE:
            raise SettingError(f"{key}: {raw!r} is not true or false")
        return text in TRUE
    try:
        return int(text) if isinstance(default, int) else float(text)
    except ValueError:
        kind = "a whole number" if isinstance(default, int) else "a number"
        raise SettingError(f"{key}: {raw!r} is not {kind}") from None


# Flask's own settings (SESSION_COOKIE_SECURE…) and Flask-WTF's may be set in
# instance/config.py too.
KNOWN = set(DEFAULTS) | set(Flask.default_config)
KNOWN_PREFIXES = ("WTF_",)

# What Flask's own settings (but SECRET_KEY and MAX_CONTENT_LENGTH, ours) must be, and
# whether None ("not set") is one: Flask reads them on a request, where a value of another
# type was a 500 on every page (`PERMANENT_SESSION_LIFETIME = "x"`, `APPLICATION_ROOT = 5`).
# Its flags are flags: Werkzeug writes any true value of SESSION_COOKIE_SECURE, "false"
# included, as the cookie's Secure attribute, and a browser then drops the cookie on http.
FLASK_KINDS = {
    **{
        key: ("flag", False)
        for key, value in Flask.default_config.items()
        if isinstance(value, bool)
    },
    **dict.fromkeys(
        ("DEBUG", "PROPAGATE_EXCEPTIONS", "TRAP_BAD_REQUEST_ERRORS", "TEMPLATES_AUTO_RELOAD"),
        ("flag", True),
    ),
    "PERMANENT_SESSION_LIFETIME": ("seconds", False),
    "SEND_FILE_MAX_AGE_DEFAULT": ("seconds", True),
    "MAX_COOKIE_SIZE": ("count", False),
    "MAX_FORM_MEMORY_SIZE": ("count", True),
    "MAX_FORM_PARTS": ("count", True),
    "SESSION_COOKIE_NAME": ("cookie name", False),
    "APPLICATION_ROOT": ("path", False),
    "SESSION_COOKIE_PATH": ("path", True),
    "SERVER_NAME": ("host", True),
    "SESSION_COOKIE_DOMAIN": ("host", True),
    "PREFERRED_URL_SCHEME": ("scheme", False),
    "SESSION_COOKIE_SAMESITE": ("samesite", True),
    "SECRET_KEY_FALLBACKS": ("texts", True),
    "TRUSTED_HOSTS": ("texts", True),
}
# Seconds of a session or a file's max-age: a century at most (a cookie's expiry date past
# the year 9999 cannot be written).
CENTURY = 36500 * 86400
# A cookie's name: an RFC 6265 token.
COOKIE_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# What each of FLASK_KINDS's texts may be: Werkzeug titles SameSite, a path has no space.
FLASK_TEXTS = {
    "cookie name": ("a cookie name such as session", COOKIE_NAME.fullmatch),
    "path": (
        "a path such as /",
        lambda text: text.startswith("/") and not re.search(r"[\s;]", text),
    ),
    "host": (
        "a host name such as events.example.org",
        lambda text: named_host("http", text.removeprefix(".")),
    ),
    "scheme": ("http or https", lambda text: text in ("http", "https")),
    # SameSite=None would send the editor's cookie with another site's post.
    "samesite": ("Lax or Strict", lambda text: text.title() in ("Lax", "Strict")),
}


def _flask_setting(key: str, raw):
    """Flask's own setting ``key`` (FLASK_KINDS) as Flask reads it, written as ``raw``: numbers
    and flags may be text, as ours may; a SettingError naming it when it is not one."""
    kind, may_be_none = FLASK_KINDS[key]
    if raw is None and may_be_none:
        return None
    if kind == "flag":
        return _coerce(key, False, raw)
    if kind == "texts":
        if not isinstance(raw, list | tuple) or not all(isinstance(x, str) for x in raw):
            raise SettingError(f"{key}: {raw!r} is not a list of texts")
        return list(raw)
    if kind in ("seconds", "count"):
        is_span = kind == "seconds" and isinstance(raw, timedelta)
        number = raw.total_seconds() if is_span else _coerce(key, 0, raw)
        most = CENTURY if kind == "seconds" else HUGE
        if not 0 <= number <= most:
            raise SettingError(f"{key}: a whole number from 0 to {most} (is {raw!r})")
        return raw if is_span else number
    wanted, fits = FLASK_TEXTS[kind]
    if not isinstance(raw, str) or not fits(raw):
        raise SettingError(f"{key}: {raw!r} is not {wanted}")
    return raw


def instance_folder(root: str) -> str:
    """The site's own folder: ``CALENDAR_INSTANCE`` when set (a relative path is taken
    from the project root, as the other paths are; it must exist: a mistyped one would
    start an empty site), else ``instance/``."""
    named = os.environ.get("CALENDAR_INSTANCE", "")
    if not named:
        return os.path.join(root, "instance")
    folder = os.path.abspath(os.path.join(root, named))
    if not os.path.isdir(folder):
        raise SettingError(f"CALENDAR_INSTANCE: no folder {folder}")
    return folder


def _site_config(folder: str) -> Config:
    """``config.py`` of the instance folder; a SettingError naming any name in it that is
    no setting (a misspelling, or a setting in small letters, would otherwise be ignored),
    with the closest one."""
    path = os.path.join(folder, "config.py")
    site = Config(folder)
    names = {}
    if os.path.exists(path):
        module = types.ModuleType("config")
        module.__file__ = path
        try:
            with open(path, "rb") as handle:
                exec(compile(handle.read(), path, "exec"), module.__dict__)  # noqa: S102
        except Exception as error:  # its own code: a SyntaxError, a NameError…
            raise SettingError(f"{path}: {type(error).__name__}: {error}") from None
        names = {
            key: value
            for key, value in vars(module).items()
            if not key.startswith("_")
            and not isinstance(value, types.ModuleType)
            and not callable(value)
        }
    for key in sorted(names):
        if key in KNOWN or key.startswith(KNOWN_PREFIXES):
            site[key] = names[key]
            continue
        if key.upper() in KNOWN:
            raise SettingError(f"{path}: {key} is written {key.upper()} (settings are in capitals)")
        close = difflib.get_close_matches(key.upper(), sorted(KNOWN), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise SettingError(f"{path}: {key} is no setting{hint}; the README lists them")
    return site


def load_settings(root: str, test_config: dict | None = None) -> dict:
    folder = instance_folder(root)
    settings = Config(root, DEFAULTS)
    settings.update(_site_config(folder))
    for key in DEFAULTS:
        if key in os.environ:
            settings[key] = os.environ[key]
    if test_config:
        settings.update(test_config)
    for key, default in DEFAULTS.items():
        settings[key] = _coerce(key, default, settings[key])
    for key in FLASK_KINDS.keys() & settings.keys():
        settings[key] = _flask_setting(key, settings[key])
    # The defaults are files of the instance folder; other relative paths are taken from the
    # project root.
    for key, name in (("CALENDAR_DATABASE", "calendar.db"), ("UPLOAD_FOLDER", "uploads")):
        if settings[key] == DEFAULTS[key]:
            settings[key] = os.path.join(folder, name)
    settings["INSTANCE_FOLDER"] = folder
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
    if isinstance(settings["EMBED_ORIGINS"], str):
        settings["EMBED_ORIGINS"] = settings["EMBED_ORIGINS"].replace(",", " ").split()
    if isinstance(settings["CORS_ORIGINS"], str):
        settings["CORS_ORIGINS"] = [
            x.strip() for x in settings["CORS_ORIGINS"].split(",") if x.strip()
        ]
    check_settings(settings)
    return settings


def check_settings(settings) -> None:
    """Refuses, with a SettingError naming it, a setting the service cannot work with:
    found at start rather than as a 500 on every request that reads it."""
    for key, default in DEFAULTS.items():
        value = settings[key]
        if isinstance(default, int | float) and not isinstance(default, bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise SettingError(f"{key}: must be a finite number (is {value})")
            if value <= 0:
                raise SettingError(f"{key}: must be above 0 (is {str(value)[:30]})")
            if value > LIMITS.get(key, HUGE):
                raise SettingError(f"{key}: at most {LIMITS.get(key, HUGE)} (is {str(value)[:30]})")
    if settings["HOME_VIEW"] not in ("list", "month", "index"):
        raise SettingError(f"HOME_VIEW: list, month or index (is {settings['HOME_VIEW']!r})")
    try:
        resolve_timezone(settings["SITE_TIMEZONE"])
    except DateError:
        raise SettingError(
            f"SITE_TIMEZONE: unknown timezone {settings['SITE_TIMEZONE']!r} (an IANA name "
            "such as Europe/Paris, UTC, or UTC+2)"
        ) from None
    if settings["SITE_URL"] and not _is_site_url(settings["SITE_URL"]):
        raise SettingError(
            f"SITE_URL: {settings['SITE_URL']!r} is not an absolute http(s) URL such as "
            "https://events.example.org"
        )
    if not API_PATH.fullmatch(settings["API_ROOT"]):
        raise SettingError(
            "API_ROOT: must name a path of letters, digits, -, _, . and ~ between slashes, "
            f"such as /wp-json (is {settings['API_ROOT']!r})"
        )
    folder = settings["UPLOAD_FOLDER"]
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise SettingError(
            f"UPLOAD_FOLDER: {folder} cannot be a folder ({error.strerror})"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SettingError(f"UPLOAD_FOLDER: {folder} is not writable")
    _check_roots(settings)
    _check_lists(settings)
    _check_texts(settings)
    if settings["DEFAULT_LANGUAGE"] not in settings["LANGUAGES"]:
        raise SettingError(
            f"DEFAULT_LANGUAGE: {settings['DEFAULT_LANGUAGE']!r} is not one of LANGUAGES"
        )


def _check_texts(settings) -> None:
    """Every text setting is text (an environment or config.py saved in another encoding
    than UTF-8 gives Python lone surrogates, which no page can be written in), and
    SITE_NAME, which heads every page and feed, one line without control characters."""
    for key, default in DEFAULTS.items():
        values = settings[key] if key in LISTS else [settings[key]]
        for value in values if isinstance(default, str) else ():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise SettingError(
                    f"{key}: {value!r} is not UTF-8 text (set it from a file in UTF-8)"
                ) from None
    if not is_one_line(settings["SITE_NAME"]):
        raise SettingError(
            f"SITE_NAME: one line without control characters (is {settings['SITE_NAME']!r})"
        )


def _is_site_url(site: str) -> bool:
    """Whether ``site`` is a base for links: http(s), a host the Host check would take
    (``app/urls.py::named_host``), no user (it would be in every public link), query or
    fragment."""
    try:
        parts = urlsplit(site)
    except ValueError:  # a bracketed host that is no IPv6 address: `http://[::1`
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(named_host(parts.scheme, parts.netloc))
        and "@" not in parts.netloc
        and not parts.query
        and "#" not in site
    )


def _check_lists(settings) -> None:
    """The list settings' items: addresses gunicorn can read, origins, languages we have."""
    for item in settings["FORWARDED_ALLOW_IPS"]:
        try:
            if item != "*":
                ipaddress.ip_network(item)  # gunicorn's own reading
        except ValueError:
            raise SettingError(
                f"FORWARDED_ALLOW_IPS: {item!r} is not an IP address or network (or *)"
            ) from None
    for item in settings["EMBED_ORIGINS"]:
        if not _is_embed_source(item):
            raise SettingError(
                f"EMBED_ORIGINS: {item!r} is not an origin (such as https://example.org, or *)"
            )
    for item in settings["CORS_ORIGINS"]:
        # Compared with a browser's Origin header as written: a path, even "/", never matches.
        if not _is_site_url(item) or urlsplit(item).path:
            raise SettingError(
                f"CORS_ORIGINS: {item!r} is not an origin (a scheme and a host, and a port "
                "if not the default one, such as https://app.example.org)"
            )
    for code in settings["LANGUAGES"]:
        if not has_catalog(code):
            raise SettingError(f"LANGUAGES: {code!r} has no catalog in app/translations")


def _is_embed_source(item: str) -> bool:
    """Whether ``item`` names origins as CSP's frame-ancestors reads them (a port of 1 to
    65535, a keyword in quotes)."""
    match = EMBED_SOURCE.fullmatch(item)
    if not match or item.lower() in BARE_KEYWORDS:
        return False
    port = match.group("port")
    return port in (None, "*") or 0 < int(port) < 65536


def _check_roots(settings) -> None:
    """API_ROOT and the language roots leave the site's own addresses (SITE_ROOTS) and each
    other alone."""
    api_head = settings["API_ROOT"].split("/")[1]
    if api_head in SITE_ROOTS or api_head.startswith("sitemap-"):
        raise SettingError(
            f"API_ROOT: {settings['API_ROOT']} would hide the site's own /{api_head}/ addresses"
        )
    for code in settings["LANGUAGES"]:
        if code in SITE_ROOTS or code == api_head:
            raise SettingError(f"LANGUAGES: {code!r} would hide the site's own /{code}/ addresses")
