"""The Flask application factory."""

from __future__ import annotations

import os

from flask import Flask, g, request

from app import errors
from app.auth import authenticate_request
from app.config import load_settings
from app.i18n import N_, LanguageRoots, load_catalogs
from app.smorest import Api
from store.db import bind_database, database, open_database
from store.schema import migrate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACE = "calendar/events/v1"

API_DESCRIPTION = N_(
    "Events, venues, organizers, categories and tags of the calendar. Reads are public; "
    "writes need HTTP Basic with a user name and an application password."
)

# Endpoints that must answer without touching the database (liveness checks).
NO_DATABASE = {"health", "uploads"}


def create_app(test_config: dict | None = None) -> Flask:
    settings = load_settings(ROOT, test_config)
    app = Flask(__name__, instance_path=os.path.join(ROOT, "instance"))
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

    db = open_database(app.config["CALENDAR_DATABASE"])
    bind_database(db)
    with db.connection_context():
        migrate()
    app.extensions["calendar.db"] = db
    app.extensions["calendar.catalogs"] = load_catalogs(app.config["LANGUAGES"])

    errors.register(app)
    _register_hooks(app)
    from app import cache

    cache.register(app)
    _register_routes(app)

    from app.cli import register_cli

    register_cli(app)
    app.wsgi_app = LanguageRoots(
        app.wsgi_app,
        app.config["LANGUAGES"],
        app.config["DEFAULT_LANGUAGE"],
        app.config["API_ROOT"],
    )
    return app


def _register_hooks(app: Flask) -> None:
    @app.before_request
    def open_connection():
        from app.routes.media import body_limit

        limit = body_limit(request.endpoint)
        # Bodies without a length (chunked) stop with a 413 once they pass the limit.
        request.max_content_length = limit
        length = request.content_length
        if length is not None and length > limit:
            # Refused from the header alone: the body is never read.
            from werkzeug.exceptions import RequestEntityTooLarge

            raise RequestEntityTooLarge()
        if request.endpoint in NO_DATABASE:
            return
        bind_database(app.extensions["calendar.db"])
        database.connect(reuse_if_open=True)
        g.db_open = True
        authenticate_request()

    @app.teardown_request
    def close_connection(_exc):
        if g.pop("db_open", False) and not database.is_closed():
            database.close()

    @app.after_request
    def standard_headers(response):
        headers = response.headers
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("Referrer-Policy", "no-referrer")
        headers.setdefault("X-Robots-Tag", "noindex")
        # Shared caches must not hand one user's view of the calendar to another.
        headers.add("Vary", "Authorization")
        origin = request.headers.get("Origin")
        if origin and origin in app.config["CORS_ORIGINS"]:
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Allow-Credentials"] = "true"
            headers.add("Vary", "Origin")
        else:
            headers["Access-Control-Allow-Origin"] = "*"
        headers["Access-Control-Allow-Methods"] = "OPTIONS, GET, POST, PUT, PATCH, DELETE"
        headers["Access-Control-Allow-Headers"] = (
            "Authorization, Content-Type, If-None-Match, X-WP-Nonce"
        )
        headers["Access-Control-Expose-Headers"] = (
            "X-TEC-Total, X-TEC-TotalPages, X-WP-Total, X-WP-TotalPages, Link, ETag"
        )
        return response


def _register_routes(app: Flask) -> None:
    from app.routes import blueprints
    from app.routes.index import register_index
    from app.routes.media import register_uploads

    api = Api(app)
    app.extensions["calendar.api"] = api
    prefix = app.config["NAMESPACE_URL"]
    for blueprint in blueprints():
        api.register_blueprint(blueprint, url_prefix=prefix)
    register_index(app, api)
    register_uploads(app)
