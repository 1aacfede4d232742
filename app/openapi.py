"""The ``/doc`` document: flask-smorest's spec, completed once per language.

flask-smorest generates paths, parameters, bodies and success responses from the same
schemas that validate requests. Here it is completed with what is the same for every
route (Basic authentication, form-encoded bodies, the error responses) and its
descriptions are translated; everything else is left byte-for-byte as generated.
"""

from __future__ import annotations

import copy

from app.i18n import N_, translate

PATH_ARG_DESCRIPTIONS = {
    "id": N_("Unique identifier of the item."),
    "slug": N_("Slug of the item."),
}
TRANSLATED_KEYS = ("description", "summary")
ERRORS_BY_METHOD = {
    "get": ("400", "401", "403", "404", "429", "500", "503"),
    "post": ("400", "401", "403", "404", "413", "429", "500", "503"),
    "put": ("400", "401", "403", "404", "413", "429", "500", "503"),
    "patch": ("400", "401", "403", "404", "413", "429", "500", "503"),
    "delete": ("400", "401", "403", "404", "410", "429", "500", "503"),
}
ERROR_DESCRIPTIONS = {
    "400": "Invalid or missing parameters (rest_invalid_param, rest_missing_callback_param, rest_invalid_json).",
    "401": "Not logged in, or bad credentials (rest_forbidden, incorrect_password).",
    "403": "Logged in without the right, or the item is not accessible.",
    "404": "No such route or item, or a page past the end of a listing.",
    "410": "The item is already in the trash.",
    "413": "The request body is larger than allowed.",
    "429": "Too many failed login attempts.",
    "500": "Unexpected server error (no details are disclosed).",
    "503": "The database cannot answer now (database_unavailable, with Retry-After).",
}


BASIC_AUTH = {
    "type": "http",
    "scheme": "basic",
    "description": "A user name and an application password (flask --app wsgi users create).",
}


DOC_PATH = {
    "get": {
        "summary": N_("This OpenAPI document."),
        "responses": {
            "200": {
                "description": N_("This OpenAPI document."),
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        },
    }
}


# GET {ns}'s own arguments: listed by the namespace index (app/routes/index.py) and in /doc.
NAMESPACE_ARGS = {
    "namespace": {
        "type": "string",
        "required": False,
        "default": "calendar/events/v1",
        "description": N_("The namespace to describe."),
    },
    "context": {
        "type": "string",
        "required": False,
        "default": "view",
        "description": N_("Scope of the request: view, embed or edit."),
    },
}
_ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
INDEX_PATH = {
    "get": {
        "summary": N_("The routes of this namespace and the arguments of each."),
        "parameters": [
            {
                "in": "query",
                "name": name,
                "description": arg["description"],
                "schema": {"type": arg["type"], "default": arg["default"]},
                "required": arg["required"],
            }
            for name, arg in NAMESPACE_ARGS.items()
        ],
        "responses": {
            "200": {
                "description": "OK",
                "content": {"application/json": {"schema": {"type": "object"}}},
            },
            **{
                status: {"description": ERROR_DESCRIPTIONS[status], "content": _ERROR_CONTENT}
                # Any caller may read it; bad Basic credentials are refused here too (401,
                # then 429), as on every route of WordPress's REST API.
                for status in ("400", "401", "404", "429", "500")
            },
        },
        "security": [],
    }
}


def complete(spec: dict, namespace_prefix: str) -> dict:
    """Paths relative to the namespace (its URL is ``servers[0]``) with their path
    parameters described. Operations are completed as they are documented, by
    ``app.smorest.document_conventions``; the security scheme is registered on the spec."""
    spec = copy.deepcopy(spec)
    # This document is a route too, listed first as the reference lists it (samples/doc.json).
    # The namespace index is one of them too (the first of its own `routes`).
    spec["paths"] = {
        "/doc": DOC_PATH,
        "/": INDEX_PATH,
        **{(path[len(namespace_prefix) :] or "/"): item for path, item in spec["paths"].items()},
    }
    spec.get("components", {}).get("responses", {}).pop("DEFAULT_ERROR", None)
    for item in spec["paths"].values():
        for parameter in item.get("parameters", []):
            if parameter.get("in") == "path" and parameter["name"] in PATH_ARG_DESCRIPTIONS:
                parameter.setdefault("description", PATH_ARG_DESCRIPTIONS[parameter["name"]])
    return spec


def localise(document, lang: str):
    """A copy of ``document`` with every description and summary translated."""
    if isinstance(document, dict):
        return {
            key: (
                translate(value, lang)
                if key in TRANSLATED_KEYS and isinstance(value, str)
                else localise(value, lang)
            )
            for key, value in document.items()
        }
    if isinstance(document, list):
        return [localise(item, lang) for item in document]
    return document


def doc_strings(document) -> set[str]:
    """Every description and summary in a document (for the catalogs)."""
    found: set[str] = set()
    if isinstance(document, dict):
        for key, value in document.items():
            if key in TRANSLATED_KEYS and isinstance(value, str) and value:
                found.add(value)
            else:
                found |= doc_strings(value)
    elif isinstance(document, list):
        for item in document:
            found |= doc_strings(item)
    return found
