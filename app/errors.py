"""The one error body, ``{"code", "message", "data": {"status", ...}}``, and every handler.

Views raise ``ApiError``; everything else (unknown routes and methods, webargs
validation, malformed JSON, oversized bodies, unexpected exceptions) is turned into
the same shape here, so no failure can produce an HTML page or a stack trace.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

from flask import has_request_context, request
from flask.globals import request_ctx
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from app.i18n import N_, _, translate
from app.jsonresponse import json_response
from store.db import unavailable

RETRY_AFTER = 5  # seconds: a database server restarting is usually back by then

log = logging.getLogger(__name__)

MISSING_MESSAGE = "Missing data for required field."
# marshmallow's own messages, which reach clients through ``first_message``.
LIBRARY_MESSAGES = (
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Invalid value."),
    N_("Missing data for required field."),
)
LOCATIONS = ("json", "query", "querystring", "form", "json_or_form", "view_args", "path")


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int, headers=None, **data):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.headers = headers or {}
        self.data = data


# The WSGI environ's key of a request gunicorn refused (an address or headers too large):
# app/server.py asks the app for its answer to that error, with the status under this key.
REFUSED = "calendar.refused"

# The public pages answer their errors as pages (SPEC §15): set by app/pages.
_PAGES: dict = {}


def page_errors(is_page_path, render) -> None:
    """Errors of requests to ``is_page_path(path)`` addresses are ``render(status,
    message, headers, code)``: an HTML page in the site's look, which may say a visitor's
    message instead of the API's for the error's ``code``."""
    _PAGES.update(is_page=is_page_path, render=render)


def answers_a_page() -> bool:
    """Whether the error of the request being served is answered as a page."""
    return bool(_PAGES) and has_request_context() and _PAGES["is_page"](request.path)


def error_response(code: str, message: str, status: int, headers=None, **data):
    """The one error answer: JSON (SPEC §6), or for the public pages an HTML page."""
    if answers_a_page():
        return _PAGES["render"](status, message, headers, code)
    body = {"code": code, "message": message, "data": {"status": status, **data}}
    return json_response(body, status, headers)


def invalid_params(params: dict[str, str]) -> ApiError:
    """400 ``rest_invalid_param`` naming each bad parameter and what is wrong with it."""
    return ApiError(
        "rest_invalid_param",
        _("Invalid parameter(s): %(params)s", params=", ".join(params)),
        400,
        params=params,
        details={},
    )


class ParamErrors:
    """The bad parameters of one request, from checks run one after another (the schema's,
    then those that read the database), answered together: ``data.params`` names every
    bad parameter at once (SPEC §6), as the reference runs every argument's validator
    before it answers. A parameter keeps the first message found for it; a check's other
    refusal (an inline venue's ``author`` the caller may not set: 403) is answered only
    when no parameter is bad, as validation comes before permission (SPEC §5)."""

    def __init__(self, params: dict[str, str] | None = None):
        self.params: dict[str, str] = dict(params or {})
        self.inline = None  # a new venue's own field at fault, for the editor (event_input)
        self.refusal: ApiError | None = None

    @contextmanager
    def check(self):
        """Runs a check that raises ``rest_invalid_param``: its parameters are kept here."""
        try:
            yield
        except ApiError as error:
            if error.code != "rest_invalid_param":
                self.refusal = self.refusal or error
                return
            for name, message in error.data["params"].items():
                self.params.setdefault(name, message)
            self.inline = self.inline or getattr(error, "inline", None)

    def raise_any(self) -> None:
        if self.params:
            error = invalid_params(self.params)
            if self.inline is not None:
                error.inline = self.inline
            raise error
        if self.refusal is not None:
            raise self.refusal


def missing_params(names: list[str]) -> ApiError:
    return ApiError(
        "rest_missing_callback_param",
        _("Missing parameter(s): %(params)s", params=", ".join(names)),
        400,
        params=names,
    )


def forbidden(logged_in: bool) -> ApiError:
    """WordPress's rule: 401 when nobody is logged in, 403 when the user lacks the right."""
    return ApiError(
        "rest_forbidden", _("Sorry, you are not allowed to do that."), 403 if logged_in else 401
    )


class NotInTrash(Exception):
    """What the editor restores or deletes for good was taken out of the trash by another
    write since the user's page was read: refused (the editor answers as for an item that is
    not the user's), never a restore or deletion of the item as it is now."""


def require_in_trash(item) -> None:
    """The one check of the editor's restore and delete for good, made in the write
    (``write_decided``) from the item as it is then."""
    if item.status != "trash":
        raise NotInTrash(item.id)


def no_route() -> ApiError:
    return ApiError(
        "rest_no_route", _("No route was found matching the URL and request method."), 404
    )


def method_not_allowed(allowed) -> ApiError:
    """A page's address asked with a method it does not take (the API answers WordPress's
    404 ``rest_no_route`` instead, SPEC §6)."""
    return ApiError(
        "rest_method_not_allowed",
        _("This address does not take a %(method)s request.", method=request.method),
        405,
        {"Allow": ", ".join(sorted(allowed))},
    )


def _methods_of_address(error: HTTPException) -> set[str]:
    """The methods the router takes at the request's address (none: no such address).
    Werkzeug's router says 404, not 405, for an address without its trailing slash
    (app/i18n.py's ``LanguageRoots`` drops it) asked with a method its route does not
    take: such a 404 asks the router again with the slash."""
    if error.code == 405:
        return set(getattr(error, "valid_methods", None) or ())
    adapter = request_ctx.url_adapter
    if request.url_rule is not None or adapter is None:  # a route took it: its own 404
        return set()
    return set(adapter.allowed_methods(request.path + "/"))


def first_message(messages) -> str:
    """The first human message in a marshmallow error structure, translated."""
    while isinstance(messages, dict | list):
        if not messages:
            return translate(N_("Invalid parameter."))
        messages = next(iter(messages.values())) if isinstance(messages, dict) else messages[0]
    placeholders = getattr(messages, "placeholders", None)  # rules.Filled
    text = translate(str(messages))
    return text % placeholders if placeholders else text


def from_validation_error(error: ValidationError, schema=None) -> ApiError:
    """webargs/marshmallow errors in WordPress's terms: missing params first, else invalid."""
    messages = error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
    if len(messages) == 1:  # webargs nests messages under the location: unwrap it
        ((location, inner),) = messages.items()
        if location in LOCATIONS and isinstance(inner, dict):
            messages = inner
    order = list(schema.fields) if schema is not None else []
    names = sorted(messages, key=lambda n: order.index(n) if n in order else len(order))
    if "_schema" in names and len(names) == 1:
        return ApiError("rest_invalid_json", _("The request body must be a JSON object."), 400)
    missing = [n for n in names if isinstance(messages[n], list) and MISSING_MESSAGE in messages[n]]
    if missing:
        return missing_params([_data_key(schema, n) for n in missing])
    return invalid_params(
        {_data_key(schema, n): first_message(messages[n]) for n in names if n != "_schema"}
    )


def _data_key(schema, name: str) -> str:
    field = schema.fields.get(name) if schema is not None else None
    return (field.data_key or name) if field is not None else name


def _from_http_exception(error: HTTPException) -> ApiError:
    if error.code == 422 or (error.code == 400 and getattr(error, "data", None)):
        data = getattr(error, "data", {}) or {}
        exc = data.get("exc")
        if isinstance(exc, ValidationError):
            return from_validation_error(exc, data.get("schema"))
        return ApiError("rest_invalid_json", _("The request body is not valid JSON."), 400)
    if error.code in (404, 405) and answers_a_page():
        allowed = _methods_of_address(error)
        if allowed:
            return method_not_allowed(allowed)
    if error.code in (404, 405):
        return no_route()
    if error.code == 413:
        return ApiError(
            "rest_payload_too_large", _("The request body is larger than allowed."), 413
        )
    if error.code == 400:
        return ApiError("rest_invalid_request", _("The request could not be understood."), 400)
    if error.code == 401:
        return forbidden(False)
    if error.code == 500:  # an exception outside a view (an after_request hook), logged by Flask
        return internal_error()
    return ApiError("http_error", error.name, error.code or 500)


def internal_error() -> ApiError:
    """SPEC §6's 500: no detail disclosed."""
    return ApiError("internal_server_error", _("The server could not complete the request."), 500)


def handle_api_error(error: ApiError):
    return error_response(error.code, error.message, error.status, error.headers, **error.data)


def handle_http_exception(error: HTTPException):
    if isinstance(error.__cause__, ApiError):  # pragma: no cover - defensive
        return handle_api_error(error.__cause__)
    return handle_api_error(_from_http_exception(error))


def handle_unexpected(error: Exception):
    if isinstance(error, HTTPException):
        return handle_http_exception(error)
    if isinstance(error, TimeoutError):  # the client stopped sending its body (app/server.py)
        return error_response(
            "rest_request_timeout", _("The request body did not arrive in time."), 408
        )
    if unavailable(error):  # the database server down or busy: worth a retry
        log.warning("database unavailable: %s", error)
        return error_response(
            "database_unavailable",
            _("The database cannot answer now. Try again in a moment."),
            503,
            {"Retry-After": str(RETRY_AFTER)},
        )
    log.exception("unhandled exception")
    return handle_api_error(internal_error())


def register(app) -> None:
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(Exception, handle_unexpected)
