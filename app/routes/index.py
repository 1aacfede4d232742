"""The REST index, the namespace index and the OpenAPI document, built from the
registered routes and their schemas so each new route appears without extra work."""

from __future__ import annotations

import copy
import re

from flask import current_app, request
from marshmallow import fields as ma_fields

from app.errors import invalid_params
from app.i18n import _, translate
from app.jsonresponse import json_response
from app.urls import api_root_url, namespace_url, site_url

_CONVERTER = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
WP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


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
        default = field.load_default
        if default is not ma_fields.missing_ and not callable(default):
            arg["default"] = default
        description = field.metadata.get("description")
        if description:
            arg["description"] = translate(description)
        args[field.data_key or name] = arg
    return args


def _endpoint_args(rule, view_func, method: str) -> dict:
    args = {}
    for name in rule.arguments:
        converter = rule._converters.get(name)
        is_int = converter is not None and converter.__class__.__name__ == "IntegerConverter"
        args[name] = {"type": "integer" if is_int else "string", "required": True}
    view_class = getattr(view_func, "view_class", None)
    handler = getattr(view_class, method.lower(), None) if view_class else view_func
    apidoc = getattr(handler, "_apidoc", {}) if handler else {}
    for param in apidoc.get("arguments", {}).get("parameters", []):
        args.update(_schema_args(param["schema"]))
    return args


def namespace_routes() -> dict:
    app = current_app
    api_root = app.config["API_ROOT"]
    prefix = app.config["NAMESPACE_URL"]
    routes: dict = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.rule.startswith(prefix):
            continue
        methods = [m for m in WP_METHODS if m in rule.methods]
        route = wp_route(rule.rule, api_root)
        entry = routes.setdefault(
            route, {"namespace": app.config["NAMESPACE"], "methods": [], "endpoints": []}
        )
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


def register_index(app, api) -> None:
    api_root = app.config["API_ROOT"]
    ns_url = app.config["NAMESPACE_URL"]

    def rest_index():
        return json_response(
            {
                "name": app.config["SITE_NAME"],
                "description": app.config["SITE_DESCRIPTION"],
                "url": site_url(),
                "home": site_url(),
                "gmt_offset": 0,
                "timezone_string": app.config["SITE_TIMEZONE"],
                "namespaces": [app.config["NAMESPACE"]],
                "authentication": {"application-passwords": {"endpoints": {}}},
                "routes": {},
            }
        )

    def namespace_index():
        context = request.args.get("context", "view")
        if context not in ("view", "embed", "edit"):
            raise invalid_params(
                {"context": _("context is not one of %(values)s.", values="view, embed, edit")}
            )
        namespace = request.args.get("namespace", app.config["NAMESPACE"])
        if namespace != app.config["NAMESPACE"]:
            from app.errors import ApiError

            raise ApiError("rest_invalid_namespace", _("The specified namespace could not be found."), 404)
        return json_response(
            {
                "namespace": app.config["NAMESPACE"],
                "routes": namespace_routes(),
                "_links": {"up": [{"href": api_root_url() + "/"}]},
            }
        )

    def openapi_document():
        spec = copy.deepcopy(api.spec.to_dict())
        spec["servers"] = [{"url": namespace_url() + "/"}]
        # Paths are relative to the server URL, which is the namespace.
        spec["paths"] = {
            (path[len(ns_url):] or "/"): item for path, item in spec["paths"].items()
        }
        return json_response(spec)

    def health():
        return json_response({"status": "ok"})

    app.add_url_rule(api_root, "rest_index", rest_index, methods=["GET"])
    app.add_url_rule(ns_url, "namespace_index", namespace_index, methods=["GET"])
    app.add_url_rule(f"{ns_url}/doc", "openapi_document", openapi_document, methods=["GET"])
    app.add_url_rule("/healthz", "health", health, methods=["GET"])
