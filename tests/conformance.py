"""Every JSON answer the suite receives is checked against the published `/doc` document:
the response schema of its route, method and status (strict: required fields, no extra
ones, nullable only where masking makes a field null). So the document describes what the
service really sends, for every representation that any test renders."""

from __future__ import annotations

import hashlib
import re

from flask.testing import FlaskClient
from openapi_schema_validator import OAS30Validator
from werkzeug.exceptions import HTTPException

_document: dict | None = None
_CONVERTER = re.compile(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>")
# A schema's validator, made once (the schemas live as long as ``_document``), and the
# (schema, body) pairs already found to conform: checking is a pure function of both, and
# the suite receives the same body many times (a cached, a fresh and a cold answer; the
# same error). Validating every answer afresh was a fifth of a client-heavy test's time.
_validators: dict[int, OAS30Validator] = {}
_conforming: set[tuple[int, bytes]] = set()


def _inline(node, root):
    """``node`` with every local ``$ref`` replaced by what it points to."""
    if isinstance(node, dict):
        if "$ref" in node:
            target = root
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            return _inline(target, root)
        return {key: _inline(value, root) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(value, root) for value in node]
    return node


def document(client) -> dict:
    global _document
    if _document is None:
        raw = client.get("/wp-json/calendar/events/v1/doc", check_conformance=False).get_json()
        _document = _inline(raw["paths"], raw)
    return _document


def response_schema(client, path: str, method: str, status: int) -> dict | None:
    app = client.application
    languages = app.config["LANGUAGES"]
    parts = path.split("/")
    if len(parts) > 1 and parts[1] in languages:
        path = "/" + "/".join(parts[2:])
    try:
        rule, _args = app.url_map.bind("localhost").match(
            path.rstrip("/") or "/", method, return_rule=True
        )
    except HTTPException:
        return None
    prefix = app.config["NAMESPACE_URL"]
    if not rule.rule.startswith(prefix):
        return None
    template = _CONVERTER.sub(r"{\1}", rule.rule[len(prefix) :]) or "/"
    operation = document(client).get(template, {}).get(method.lower())
    if operation is None:
        return None
    answer = operation["responses"].get(str(status)) or operation["responses"].get("default")
    if answer is None:
        raise AssertionError(f"{method} {template} answered {status}, which /doc does not list")
    return answer.get("content", {}).get("application/json", {}).get("schema")


class ConformingClient(FlaskClient):
    def open(self, *args, check_conformance=True, **kwargs):
        response = super().open(*args, **kwargs)
        request = response.request
        if not check_conformance or response.mimetype != "application/json":
            return response
        if request.method in ("HEAD", "OPTIONS"):
            return response
        schema = response_schema(self, request.path, request.method, response.status_code)
        if schema is not None:
            _check(schema, response, f"{request.method} {request.path}")
        return response


def _check(schema: dict, response, what: str) -> None:
    """Fails unless ``response``'s JSON body conforms to ``schema``."""
    key = (id(schema), hashlib.blake2b(response.get_data(), digest_size=16).digest())
    if key in _conforming:
        return
    validator = _validators.get(id(schema))
    if validator is None:
        validator = _validators[id(schema)] = OAS30Validator(schema)
    errors = sorted(validator.iter_errors(response.get_json()), key=lambda e: list(e.path))
    assert not errors, f"{what} → {response.status_code} does not match /doc: " + "; ".join(
        f"{list(e.path)}: {e.message}" for e in errors[:5]
    )
    _conforming.add(key)
