"""The Flask application factory."""

from __future__ import annotations

import gc

# Importing the service makes some 100,000 objects that live as long as the process, and the
# cyclic collector walked them all twice on the way: two full collections, about 0.1 s of
# each start (every worker, every CLI command, each of the suite's servers). It is paused
# while the modules load (the end of this file starts it again, unless the program that
# imports the service had it stopped); they make no cycles to free.
_COLLECTING = gc.isenabled()
gc.disable()

import io
import logging
import os
from contextlib import contextmanager
from inspect import iscoroutinefunction

import orjson
import peewee
from flask import Flask, abort, current_app, g, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from app import cache, errors
from app.arrival import close_after as close_connection_after
from app.arrival import current as current_arrival
from app.auth import authenticate_request, check_item_password, current_viewer, usable_methods
from app.cli import register_cli
from app.config import SettingError, load_settings
from app.editor import EDITOR_PATH, register_editor
from app.errors import ApiError
from app.forms import CalendarRequest
from app.headers import StandardHeaders, first_value
from app.i18n import N_, LanguageRoots, _, load_catalogs
from app.jsonresponse import as_jsonp, is_jsonp_callback, only_fields
from app.openapi import BASIC_AUTH
from app.pages import is_page_path, register_pages, wants_page
from app.render import texts_maker
from app.routes import blueprints
from app.routes.index import register_index, route_description
from app.routes.media import API_UPLOAD_ENDPOINTS, body_limit, read_at_most, register_uploads
from app.routes.wordpress import register_wordpress
from app.routes.wordpress_posts import register_wordpress_posts
from app.smorest import Api
from app.urls import (
    AsciiInt,
    CheckedHost,
    MethodOverride,
    MountedAt,
    NamespaceAlias,
    RestRoute,
)
from store import texts
from store.db import (
    UnsupportedDatabase,
    bind_database,
    database,
    failure_reason,
    open_database,
    pin_data_version,
    refuse_read_only,
    shown_database,
    unpin_data_version,
)
from store.schema import migrate, schema_version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACE = "calendar/events/v1"

API_DESCRIPTION = N_(
    "Events, venues, organizers, categories and tags of the calendar. Reads are public; "
    "writes need HTTP Basic with a user name and an application password."
)

# Endpoints that must answer without touching the database (liveness checks, the landing,
# the documentation page, uploaded files).
NO_DATABASE = {"health", "home", "doc_ui", "doc_ui_asset", "uploads"}


class CalendarFlask(Flask):
    """Flask, asking once per function whether it is a coroutine function: ``ensure_sync``
    asks it of every hook and view on every request (eleven ``inspect`` calls a read)."""

    request_class = CalendarRequest  # PHP's reading of forms and queries (app/forms.py)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._coroutine_functions: dict = {}

    def ensure_sync(self, func):
        plain = getattr(func, "__func__", func)  # a view's method is bound anew per request
        is_coroutine = self._coroutine_functions.get(plain)
        if is_coroutine is None:
            is_coroutine = self._coroutine_functions[plain] = iscoroutinefunction(func)
        return self.async_to_sync(func) if is_coroutine else func

    def make_default_options_response(self):
        """OPTIONS at a page's or the editor's address is answered as a HEAD there (a 404 or
        400 page when the address names nothing or is bad; the view runs as a HEAD, and only
        where the address takes a GET: a write's view must never run), with no body and the
        methods it takes in ``Allow``. JSON is the API's alone: there Flask's answer, which
        ``_describe_route`` fills with the route's description, as WordPress does."""
        req = request._get_current_object()
        answer = super().make_default_options_response()
        rule = req.url_rule
        if req.path.startswith(self.config["API_ROOT"] + "/"):
            return answer
        answer.allow.update(rule.methods or ())  # the router misses a page's trailing slash
        if "GET" not in answer.allow:
            return answer
        req.method = "HEAD"
        try:
            view = self.view_functions[rule.endpoint]
            head = self.make_response(self.ensure_sync(view)(**req.view_args))
        finally:
            req.method = "OPTIONS"
        if head.status_code != 200:
            return head
        return answer


def create_app(test_config: dict | None = None) -> Flask:
    settings = load_settings(ROOT, test_config)
    app = CalendarFlask(__name__, instance_path=settings["INSTANCE_FOLDER"])
    app.config.update(settings)
    app.config.update(
        API_TITLE="Events Calendar REST API",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX=None,
        API_SPEC_OPTIONS={"info": {"description": API_DESCRIPTION}},
        NAMESPACE=NAMESPACE,
        NAMESPACE_URL=f"{settings['API_ROOT']}/{NAMESPACE}",
    )
    app.json.sort_keys = False
    app.url_map.strict_slashes = False
    app.url_map.merge_slashes = False  # `//x` is no route (JSON 404), not an HTML redirect
    app.url_map.converters["int"] = AsciiInt

    app.extensions["calendar.db"], migrated_from = _opened(
        app.config["CALENDAR_DATABASE"], app.config["GUNICORN_THREADS"]
    )
    app.extensions["calendar.migrated_from"] = migrated_from
    texts.register(texts_maker)  # store/texts.py asks it for the app at work
    app.extensions["calendar.catalogs"] = load_catalogs(app.config["LANGUAGES"])

    errors.register(app)
    _register_hooks(app)
    _register_drain(app)
    cache.register(app)
    _register_fields(app)  # after the cache's: cuts an answer before it is kept
    _register_allow(app)
    _register_routes(app)

    register_cli(app)
    inner = StandardHeaders(app.wsgi_app, is_page_path, EDITOR_PATH)
    if app.config["TEC_NAMESPACE_ALIAS"]:
        inner = NamespaceAlias(inner, app.config["API_ROOT"], NAMESPACE)
    inner = MethodOverride(inner, app.config["API_ROOT"])
    inner = RestRoute(inner, app.config["API_ROOT"])
    inner = LanguageRoots(
        inner,
        app.config["LANGUAGES"],
        app.config["DEFAULT_LANGUAGE"],
        app.config["API_ROOT"],
    )
    app.wsgi_app = MountedAt(CheckedHost(inner), app.config)
    return app


def _opened(setting: str, threads: int):
    """The database, bound and migrated, with a connection for each of a worker's
    ``threads`` at least, and the schema version it had when a migration was made (else
    None; logged, and said by `calendar migrate`); a SettingError saying why it cannot be
    (an engine it does not speak, a file that is not a database, a server that refuses)."""
    with _database_errors(setting):
        refuse_read_only(setting)
        db = open_database(setting, connections=threads)
        bind_database(db)
        with db.connection_context():
            before = schema_version()
            after = migrate()
    if after == before:
        return db, None
    logging.getLogger("app").info(
        "migrated the database from schema version %d to %d", before, after
    )
    return db, before


def check_database(setting: str) -> None:
    """A SettingError, as ``_opened`` says it, when the database cannot be opened and read;
    nothing is migrated and no connection is kept. gunicorn's master calls it before any
    worker starts (gunicorn.conf.py): a worker failing on it would be started again for
    ever. A PostgreSQL server that is down stops the start too (systemd starts it again)."""
    with _database_errors(setting):
        refuse_read_only(setting)
        db = open_database(setting, connections=1)
        bind_database(db)
        try:
            with db.connection_context():
                schema_version()
        finally:
            db.close_all()  # nothing open is inherited by the workers


@contextmanager
def _database_errors(setting: str):
    try:
        yield
    except UnsupportedDatabase as error:
        raise SettingError(str(error)) from None
    except (peewee.DatabaseError, OSError) as error:
        raise SettingError(
            f"CALENDAR_DATABASE: cannot use {shown_database(setting)}: {failure_reason(error)}"
        ) from None


def _register_hooks(app: Flask) -> None:
    db = app.extensions["calendar.db"]

    @app.before_request
    def open_connection():
        req = request._get_current_object()
        if errors.REFUSED in req.environ:  # refused by gunicorn (app/server.py): its error alone
            abort(req.environ[errors.REFUSED])
        _hurry_anonymous_body(req)
        _limit_body(req, body_limit(req.endpoint))
        _raw_upload(req)
        if req.endpoint in NO_DATABASE and not (req.endpoint == "home" and wants_page(req)):
            return
        bind_database(db)
        database.connect(reuse_if_open=True)
        context = g._get_current_object()
        context.db_open = True
        context.version_pin = pin_data_version()  # one data-version read per request
        authenticate_request()
        check_item_password()

    @app.teardown_request
    def close_connection(_exc):
        context = g._get_current_object()
        pin = context.pop("version_pin", None)
        if pin is not None:
            unpin_data_version(pin)
        if context.pop("db_open", False) and not database.is_closed():
            database.close()

    @app.after_request
    def standard_headers(response):
        req = request._get_current_object()
        headers = response.headers
        environ = req.environ
        allowed = app.config["CORS_ORIGINS"]
        vary_by_origin = ", Origin" if allowed else ""  # the CORS answer depends on it
        if req.method == "OPTIONS" and req.url_rule and not response.get_data():
            response = _describe_route(response)
            headers = response.headers
        # Shared caches must not hand one user's view of the calendar to another; the
        # events answer iCalendar or JSON by Accept (SPEC §11), ``GET /`` and an address
        # no route serves a page or JSON by it (app/pages: wants_page).
        by_accept = req.blueprint == "events" or req.endpoint == "home" or req.url_rule is None
        vary = "Authorization, Accept" if by_accept else "Authorization"
        own = first_value(headers, "Vary")
        if own is not None:  # a view's own first
            headers["Vary"] = f"{own}, {vary}{vary_by_origin}"
        else:
            headers.add("Vary", vary + vary_by_origin)
        if req.path.startswith(EDITOR_PATH):  # every answer of the editor, errors too
            headers["Cache-Control"] = "private, no-store"
        elif "HTTP_AUTHORIZATION" in environ:
            headers["Cache-Control"] = _private(headers.get("Cache-Control", ""))
        _allow_origin(req, headers, allowed)
        return response


def _private(policy: str) -> str:
    """An answer to a caller with credentials, for no shared cache: ``private``, keeping
    what the view said of revalidating or storing it (a feed's ``no-cache``, the editor's
    ``no-store``)."""
    kept = [d for d in policy.split(", ") if d in ("no-cache", "no-store")]
    return ", ".join(["private", *kept])


def _register_fields(app: Flask) -> None:
    api_prefix = app.config["API_ROOT"] + "/"

    def check_callback():
        if "_jsonp" not in request.environ.get("QUERY_STRING", ""):
            return  # every other request: no parsing of its query here
        callback = request.args.get("_jsonp")
        # WordPress enters JSONP only ``if ( $jsonp_callback )``: an empty one (PHP falsy)
        # asks none, for the clients that always append the parameter.
        if callback and request.path.startswith(api_prefix):
            if not is_jsonp_callback(callback):
                message = _("Invalid JSONP callback function.")
                raise ApiError("rest_callback_invalid", message, 400)

    # First of all: the response cache must not answer it first.
    app.before_request_funcs.setdefault(None, []).insert(0, check_callback)

    @app.after_request
    def wordpress_globals(response):
        """``?_fields=`` and ``?_jsonp=`` on any route of the API, as WordPress
        (``only_fields``, ``as_jsonp``); an answer from the response cache was cut before
        it was kept."""
        req = request._get_current_object()
        query = req.environ.get("QUERY_STRING", "")
        if ("_fields" not in query and "_jsonp" not in query) or not req.path.startswith(
            api_prefix
        ):
            return response
        if "_fields" in query and 200 <= response.status_code < 300 and not g.get("cache_hit"):
            asked = req.args.getlist("_fields") + req.args.getlist("_fields[]")
            response = only_fields(response, asked)
        callback = req.args.get("_jsonp")
        return as_jsonp(response, callback) if is_jsonp_callback(callback or "") else response


def _register_allow(app: Flask) -> None:
    api_prefix = app.config["API_ROOT"] + "/"
    # A WordPress route is its pattern, whatever views serve it (wp/v2's collections have one
    # view a method): pattern → the methods of all its rules, read once the map is complete.
    route_methods: dict[str, frozenset] = {}

    def methods_of_route(rule) -> frozenset:
        if not route_methods:  # filled in one step: a worker's other threads see all or none
            built: dict[str, frozenset] = {}
            for each in app.url_map.iter_rules():
                built[each.rule] = built.get(each.rule, frozenset()) | frozenset(each.methods or ())
            route_methods.update(built)
        return route_methods.get(rule.rule) or frozenset(rule.methods or ())

    @app.after_request
    def allow_header(response):
        """WordPress's ``Allow`` on every answer of an API route (``rest_send_allow_header``):
        the route's methods this caller may use; a cached answer gets it here too."""
        req = request._get_current_object()
        if req.url_rule is not None and req.path.startswith(api_prefix):
            methods = methods_of_route(req.url_rule)
            response.headers["Allow"] = usable_methods(current_viewer(), methods, req.blueprint)
        return response


def _allow_origin(req, headers, allowed: list[str]) -> None:
    """CORS (SPEC §1): a listed origin with credentials, anyone else without. It is the
    API's: another origin never reads an editor page, whose forms carry the user's CSRF
    token."""
    if req.blueprint == "editor" or req.path.startswith(EDITOR_PATH):
        return
    origin = req.environ.get("HTTP_ORIGIN")
    if origin and origin in allowed:
        headers.add("Access-Control-Allow-Origin", origin)
        headers.add("Access-Control-Allow-Credentials", "true")
    else:
        headers.add("Access-Control-Allow-Origin", "*")


def _register_drain(app: Flask) -> None:
    @app.after_request
    def drain_body(response):
        _drain(request._get_current_object())
        return response


def _drain(req) -> None:
    """The rest of a body the app did not read (a write refused before its body), read and
    dropped, when within the route's limit: gunicorn drains only 64 kB of it before the
    connection's next request, and closes the connection past that although its answer
    said keep-alive. A body over the limit (its 413) is not read: its answer closes the
    connection (``_limit_body``)."""
    length = req.content_length
    if not length or length > (req.max_content_length or length):
        return
    try:
        while req.stream.read(65536):
            pass
    except Exception:  # a client that stops sending: gunicorn closes the connection
        return


def _raw_upload(req) -> None:
    """An image sent as the raw body of an upload route, named by its Content-Disposition,
    is read as such whatever type the client named (WordPress reads it so): ``curl
    --data-binary @poster.jpg`` sends it as a form (``application/x-www-form-urlencoded``),
    which would otherwise be parsed away."""
    environ = req.environ
    if (
        req.endpoint in API_UPLOAD_ENDPOINTS
        and environ.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded")
        and "filename" in environ.get("HTTP_CONTENT_DISPOSITION", "")
    ):
        req.environ["CONTENT_TYPE"] = "application/octet-stream"
        req.__dict__.pop("_parsed_content_type", None)


def _limit_body(req, limit: int) -> None:
    """413 for a body over ``limit``: from the header alone when there is a
    ``Content-Length``; a chunked body is read up to the limit and refused past it, never
    cut short (a cut body would silently drop the fields after the cut). The rest of a
    refused body is not read: the connection closes after the 413, which says so."""
    req.max_content_length = limit  # what Werkzeug's form and file parsing allow
    environ = req.environ
    if "CONTENT_LENGTH" in environ:
        length = req.content_length
        if length is not None:
            if length > limit:
                close_connection_after()
                raise RequestEntityTooLarge()
            return
    if not environ.get("wsgi.input_terminated"):
        return  # no length and no chunking: there is no body
    try:
        body = read_at_most(environ["wsgi.input"], limit)
    except TimeoutError:
        raise  # a stalled client: app/errors.py answers 408
    except Exception as error:  # the server's own parse errors: bad chunk sizes, cut bodies
        raise BadRequest() from error
    if len(body) > limit:
        close_connection_after()
        raise RequestEntityTooLarge()
    # From here on the request reads as if it had been sent with a Content-Length.
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    del environ["wsgi.input_terminated"]
    for cached in ("stream", "content_length"):
        req.__dict__.pop(cached, None)


WRITE_METHODS = frozenset(("POST", "PUT", "PATCH", "DELETE"))
# Seconds the body of a write without credentials may take to arrive (under gunicorn).
ANONYMOUS_BODY_SECONDS = 1.0


def _hurry_anonymous_body(req) -> None:
    """A write without credentials cannot be accepted; its body is still read, so that a
    malformed one answers its 400 (validation before authorisation, SPEC §5), but it must
    arrive within a second, or the answer is a 408 without waiting for the rest: clients
    dripping such bodies held every thread (issue 28)."""
    arrival = current_arrival()
    if arrival is None or req.method not in WRITE_METHODS:
        return
    if req.path.startswith("/manage"):
        return  # the editor's forms sign in by session (an image may take its time to arrive)
    if req.environ.get("HTTP_AUTHORIZATION", "").strip()[:6].lower() != "basic ":
        arrival.tighten(ANONYMOUS_BODY_SECONDS)


def _describe_route(response):
    """Flask's automatic OPTIONS answer at an API route is empty HTML; WordPress describes
    the route. (A page's or the editor's is a page's answer: ``make_default_options_response``.)"""
    if not request.path.startswith(current_app.config["API_ROOT"] + "/"):
        return response
    description = route_description(request.url_rule) or {}
    response.set_data(orjson.dumps(description))
    response.mimetype = "application/json"
    return response


def _register_routes(app: Flask) -> None:
    api = Api(app)
    api.spec.components.security_scheme("basicAuth", BASIC_AUTH)
    app.extensions["calendar.api"] = api
    prefix = app.config["NAMESPACE_URL"]
    for blueprint in blueprints():
        api.register_blueprint(blueprint, url_prefix=prefix)
    register_index(app)
    register_uploads(app)
    register_wordpress(app)
    register_wordpress_posts(app)
    register_pages(app)
    register_editor(app)


# Every module is loaded: what they made is set aside for good (``gc.freeze``: no later
# collection walks it again; merely started again, the collector's first pass walked all
# of it, 60 ms), and the collector runs again.
gc.freeze()
if _COLLECTING:
    gc.enable()
