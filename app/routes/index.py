"""The REST index, the namespace index and the OpenAPI document, built from the
registered routes and their schemas so each new route appears without extra work."""

from __future__ import annotations

import re
from html import escape

from flask import Response, current_app, request, send_from_directory
from marshmallow import fields as ma_fields
from swagger_ui_bundle import swagger_ui_path

from app.errors import ApiError, invalid_params, no_route
from app.headers import DOC_UI_POLICY
from app.i18n import _, current_language, translate
from app.jsonresponse import json_response
from app.openapi import NAMESPACE_ARGS, PATH_ARG_DESCRIPTIONS, complete, localise
from app.pages import home_page, tec_home_address, wants_page
from app.reading.filters import site_window_defaults
from app.urls import (
    TEC_NAMESPACE,
    api_root_url,
    asked_namespace,
    language_root,
    namespace_url,
    site_url,
)
from rules.clock import utcnow
from rules.dates import resolve_timezone, utc_offset

_CONVERTER = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
WP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# The HTML rendering of /doc is not part of the interface: left out of the namespace index.
UNLISTED = {"doc_ui", "doc_ui_asset"}
DOC_UI_ASSETS = {
    "swagger-ui.css",
    "swagger-ui-bundle.js",
    "swagger-ui-standalone-preset.js",
    "favicon-32x32.png",
    "favicon-16x16.png",
}
DOC_UI_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Events Calendar REST API</title>
  <link rel="stylesheet" href="{base}/doc/ui/swagger-ui.css">
  <link rel="icon" type="image/png" href="{base}/doc/ui/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui" data-url="{base}/doc"></div>
  <script src="{base}/doc/ui/swagger-ui-bundle.js"></script>
  <script src="{base}/doc/ui/swagger-ui-standalone-preset.js"></script>
  <script src="{base}/doc/ui/init.js"></script>
</body>
</html>
"""


# No inline script, so the page's Content-Security-Policy can forbid them.
DOC_UI_INIT = """window.ui = SwaggerUIBundle({
  url: document.getElementById("swagger-ui").dataset.url, dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "BaseLayout"});
"""


def wp_route(rule: str, api_root: str) -> str:
    """Flask's ``/wp-json/ns/events/<int:id>`` as WordPress's ``/ns/events/(?P<id>\\d+)``."""

    def convert(match):
        converter, name = match.group(1), match.group(2)
        pattern = r"\d+" if converter == "int" else "[^/]+"
        return f"(?P<{name}>{pattern})"

    return _CONVERTER.sub(convert, rule[len(api_root) :])


def wp_type(field) -> str:
    explicit = getattr(field, "wp_type", None) or field.metadata.get("wp_type")
    if explicit:
        return explicit
    if isinstance(field, ma_fields.Boolean):
        return "boolean"
    if isinstance(field, ma_fields.Integer):
        return "integer"
    if isinstance(field, ma_fields.Number):
        return "number"
    if isinstance(field, ma_fields.List):
        return "array"
    if isinstance(field, ma_fields.Dict | ma_fields.Nested):
        return "object"
    return "string"


def _schema_args(schema) -> dict:
    if isinstance(schema, type):
        schema = schema()
    args = {}
    for name, field in schema.fields.items():
        if field.dump_only:
            continue
        arg = {"type": wp_type(field), "required": bool(field.required)}
        default = field.metadata.get("default", field.load_default)  # as apispec reads it
        if field.metadata.get("window"):
            default = site_window_defaults()[field.data_key or name]
        if default is not ma_fields.missing_ and not callable(default):
            arg["default"] = default
        description = field.metadata.get("description")
        if description:
            arg["description"] = translate(description)
        args[field.data_key or name] = arg
    return args


def _endpoint_args(rule, view_func, method: str) -> dict:
    if rule.endpoint == "namespace_index":
        args = {
            name: {**arg, "description": translate(arg["description"])}
            for name, arg in NAMESPACE_ARGS.items()
        }
        args["namespace"]["default"] = asked_namespace()
        return args
    args = {}
    for converter, name in _CONVERTER.findall(rule.rule):
        args[name] = {"type": "integer" if converter == "int" else "string", "required": True}
        if name in PATH_ARG_DESCRIPTIONS:
            args[name]["description"] = translate(PATH_ARG_DESCRIPTIONS[name])
    view_class = getattr(view_func, "view_class", None)
    handler = getattr(view_class, method.lower(), None) if view_class else view_func
    path_names = set(args)
    for schema in getattr(handler, "argument_schemas", ()):
        schema = schema() if isinstance(schema, type) else schema
        for name, arg in _schema_args(schema).items():
            field = schema.fields.get(name)
            if name in path_names and not (field and field.metadata.get("optional_in_path")):
                continue  # a path parameter is required (interface.md 4.3, 4.4)
            args[name] = arg
    return args


def namespace_routes(namespace: str | None = None) -> dict:
    """The routes of a namespace as WordPress lists them: ours, in the namespace the request
    asked in (ours, or the plugin's alias), unless another (``wp/v2``) is named."""
    app = current_app
    api_root = app.config["API_ROOT"]
    own = "/" + (namespace or app.config["NAMESPACE"])
    asked = "/" + (namespace or asked_namespace())
    prefix = api_root + own
    routes: dict = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.rule.startswith(prefix) or rule.endpoint in UNLISTED:
            continue
        methods = [m for m in WP_METHODS if m in rule.methods]
        route = asked + wp_route(rule.rule, api_root)[len(own) :]
        entry = routes.setdefault(route, {"namespace": asked[1:], "methods": [], "endpoints": []})
        view_func = app.view_functions[rule.endpoint]
        by_args: dict = {}
        for method in methods:
            args = _endpoint_args(rule, view_func, method)
            key = repr(sorted(args.items(), key=lambda kv: kv[0]))
            by_args.setdefault(key, {"methods": [], "args": args})["methods"].append(method)
            if method not in entry["methods"]:
                entry["methods"].append(method)
        entry["endpoints"].extend(by_args.values())
    return routes


def route_description(rule) -> dict | None:
    """What ``OPTIONS`` on a namespace route answers, as WordPress does: the route's entry
    in the namespace index (methods and the arguments of each endpoint)."""
    config = current_app.config
    if not rule.rule.startswith(config["NAMESPACE_URL"]):
        return None
    route = wp_route(rule.rule, config["API_ROOT"])[len(config["NAMESPACE"]) + 1 :]
    return namespace_routes().get(f"/{asked_namespace()}{route}")


def gmt_offset(site_timezone: str) -> int | float:
    """The site zone's offset from UTC now, in hours, as WordPress derives its
    ``gmt_offset`` option from ``timezone_string``: ``-5``, ``5.5``."""
    tz, _name = resolve_timezone(site_timezone)
    hours = round(utc_offset(utcnow().replace(tzinfo=None), tz).total_seconds() / 3600, 2)
    return int(hours) if hours == int(hours) else hours


def namespaces() -> list[str]:
    """The REST index's namespaces: ours, the plugin's alias of it, WordPress's core routes."""
    config = current_app.config
    alias = [TEC_NAMESPACE] if config["TEC_NAMESPACE_ALIAS"] else []
    return [config["NAMESPACE"], *alias, "wp/v2"]


def rest_index():
    config = current_app.config
    return json_response(
        {
            "name": config["SITE_NAME"],
            "description": config["SITE_DESCRIPTION"],
            "url": site_url(),
            "home": site_url(),
            "gmt_offset": gmt_offset(config["SITE_TIMEZONE"]),
            "timezone_string": config["SITE_TIMEZONE"],
            "namespaces": namespaces(),
            "authentication": {"application-passwords": {"endpoints": {}}},
            "routes": {},
        }
    )


def namespace_index(namespace: str | None = None):
    """A namespace's index: ours (or the plugin's alias of it), or ``wp/v2``."""
    context = request.args.get("context", "view")
    if context not in ("view", "embed", "edit"):
        raise invalid_params(
            {"context": _("context is not one of %(values)s.", values="view, embed, edit")}
        )
    asked = namespace or asked_namespace()
    if request.args.get("namespace", asked) != asked:
        raise ApiError(
            "rest_invalid_namespace", _("The specified namespace could not be found."), 404
        )
    return json_response(
        {
            "namespace": asked,
            "routes": namespace_routes(namespace),
            "_links": {"up": [{"href": api_root_url() + "/"}]},
        }
    )


def openapi_document():
    """The document, completed once and translated once per language (per app)."""
    documents = current_app.extensions.setdefault("calendar.documents", {})
    lang = current_language()
    if lang not in documents:
        documents[lang] = localise(neutral_document(), lang)
    document = dict(documents[lang])
    document["servers"] = [{"url": namespace_url() + "/"}]
    document["paths"] = _with_window_defaults(document["paths"])
    return json_response(document)


def _with_window_defaults(paths: dict) -> dict:
    """The paths with today's defaults of the listing's ``start_date`` and ``end_date``
    (SPEC §7: /doc shows every default): the document is made once, these move each day."""
    defaults = site_window_defaults()
    paths = dict(paths)
    for path, item in paths.items():
        reading = item.get("get", {})
        if not any(p.get("name") in defaults for p in reading.get("parameters", ())):
            continue
        parameters = [
            {**p, "schema": {**p["schema"], "default": defaults[p["name"]]}}
            if p.get("in") == "query" and p.get("name") in defaults
            else p
            for p in reading["parameters"]
        ]
        paths[path] = {**item, "get": {**reading, "parameters": parameters}}
    return paths


def neutral_document() -> dict:
    """The document completed, untranslated, made once per app: what ``/doc`` translates
    and ``calendar openapi`` prints."""
    documents = current_app.extensions.setdefault("calendar.documents", {})
    if "neutral" not in documents:
        spec = current_app.extensions["calendar.api"].document().to_dict()
        documents["neutral"] = complete(spec, current_app.config["NAMESPACE_URL"])
    return documents["neutral"]


def doc_ui():
    base = escape(request.script_root + current_app.config["NAMESPACE_URL"])
    response = Response(DOC_UI_PAGE.format(base=base), mimetype="text/html")
    response.headers["Content-Security-Policy"] = DOC_UI_POLICY
    response.headers["X-Frame-Options"] = "DENY"
    return response


def doc_ui_asset(filename):
    if filename == "init.js":
        response = Response(DOC_UI_INIT, mimetype="text/javascript")
    elif filename in DOC_UI_ASSETS:
        response = send_from_directory(swagger_ui_path, filename, max_age=86400)
    else:
        raise no_route()
    response.headers["Content-Security-Policy"] = DOC_UI_POLICY
    return response


def home():
    """What a person who opens the server's address finds: in a browser the calendar
    (``HOME_VIEW``), for programs where everything is."""
    config = current_app.config
    moved = tec_home_address()  # the plugin's addresses, kept (SPEC §17)
    if moved is not None:
        return moved
    if config["HOME_VIEW"] != "index" and wants_page(request):
        return home_page(config["HOME_VIEW"])
    root = site_url() + language_root()  # SITE_URL when set, as every other link
    ns_url = root + config["NAMESPACE_URL"]
    return json_response(
        {
            "name": config["SITE_NAME"],
            "description": config["SITE_DESCRIPTION"],
            "api": root + config["API_ROOT"] + "/",
            "namespace": ns_url + "/",
            "doc": ns_url + "/doc",
            "doc_ui": ns_url + "/doc/ui",
            "health": root + "/healthz",
        }
    )


def health():
    return json_response({"status": "ok"})


def register_index(app) -> None:
    api_root = app.config["API_ROOT"]
    ns_url = app.config["NAMESPACE_URL"]
    app.add_url_rule(api_root, "rest_index", rest_index, methods=["GET"])
    app.add_url_rule(ns_url, "namespace_index", namespace_index, methods=["GET"])
    app.add_url_rule(
        f"{api_root}/wp/v2",
        "wordpress_index",
        namespace_index,
        methods=["GET"],
        defaults={"namespace": "wp/v2"},
    )
    app.add_url_rule(f"{ns_url}/doc", "openapi_document", openapi_document, methods=["GET"])
    app.add_url_rule(f"{ns_url}/doc/ui", "doc_ui", doc_ui, methods=["GET"])
    app.add_url_rule(f"{ns_url}/doc/ui/<filename>", "doc_ui_asset", doc_ui_asset, methods=["GET"])
    app.add_url_rule("/healthz", "health", health, methods=["GET"])
    app.add_url_rule("/", "home", home, methods=["GET"])
