"""Credentials, throttling, and the one answer to "may this viewer do this to this item".

HTTP Basic with a user name and an application password, as WordPress does. A request
with bad credentials is refused whatever route it asks for (WordPress authenticates
before dispatch); a request without credentials is anonymous.
"""

from __future__ import annotations

import base64
import binascii
import hmac

from flask import current_app, g, request

from app.errors import ApiError, forbidden
from app.i18n import _
from store import users
from store.users import ANONYMOUS, Viewer

PUBLISHED = ("publish",)


def _client_key() -> str:
    return request.remote_addr or "unknown"


def _bad_credentials() -> ApiError:
    return ApiError(
        "incorrect_password",
        _("The provided password is an invalid application password."),
        401,
        headers={"WWW-Authenticate": 'Basic realm="calendar"'},
    )


def _parse_basic(header: str) -> tuple[str, str] | None:
    scheme, _sep, token = header.partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        return None
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    login, sep, password = decoded.partition(":")
    return (login, password) if sep else None


def authenticate_request() -> None:
    """Sets ``g.viewer``; raises 401 for bad credentials and 429 when throttled.

    Failures are counted per client address and user name (guessing one account's
    password), and per client address alone with a limit ten times higher (trying many
    accounts), so one mistyped account does not lock out the others behind the same address.
    """
    g.viewer = ANONYMOUS
    header = request.headers.get("Authorization")
    if not header:
        return
    config = current_app.config
    credentials = _parse_basic(header)
    address = _client_key()
    keys = [
        (f"{address} {credentials[0] if credentials else ''}", config["AUTH_FAILURE_LIMIT"]),
        (address, config["AUTH_FAILURE_LIMIT"] * 10),
    ]
    window = config["AUTH_FAILURE_WINDOW"]
    if any(users.is_throttled(key, limit, window) for key, limit in keys):
        raise ApiError(
            "too_many_attempts",
            _("Too many failed login attempts. Try again later."),
            429,
            headers={"Retry-After": str(window)},
        )
    user = users.authenticate(*credentials) if credentials else None
    if user is None:
        for key, _limit in keys:
            users.record_failure(key, window)
        raise _bad_credentials()
    users.clear_failures(keys[0][0])
    g.viewer = Viewer(user)


def current_viewer() -> Viewer:
    return g.get("viewer", ANONYMOUS)


# --- capabilities on one item ------------------------------------------------------------


def _own(viewer: Viewer, item) -> bool:
    return viewer.logged_in and item.author == viewer.id


def may(viewer: Viewer, action: str, item=None, status: str | None = None) -> bool:
    """WordPress's capability rules for ``action`` ("create", "read", "edit", "delete",
    "publish", "manage_terms", "upload_files"; "upload_media", "use_media", "delete_media")
    on ``item`` (an event, venue, organizer or media row), by role and ownership.
    ``status`` overrides the item's status (an effective status such as a past ``future``
    served as ``publish``)."""
    if action == "create":
        return viewer.has("edit_posts")
    if action == "publish":
        return viewer.has("publish_posts")
    if action in ("manage_terms", "upload_files"):
        return viewer.has(action)
    if action in ("upload_media", "use_media", "delete_media"):
        return _may_media(viewer, action, item)
    status = status or item.status
    if action == "read":
        if status == "publish":
            return True
        if status == "private":
            return _own(viewer, item) or viewer.has("read_private_posts")
        if _own(viewer, item):
            return viewer.has("edit_posts")
        return viewer.has("edit_others_posts")
    verb = {"edit": "edit", "delete": "delete"}[action]
    if _own(viewer, item):
        if status in ("publish", "future"):
            return viewer.has(f"{verb}_published_posts")
        if status == "private":
            return viewer.has(f"{verb}_private_posts")
        return viewer.has(f"{verb}_posts")
    needed = [f"{verb}_others_posts"]
    if status in ("publish", "future"):
        needed.append(f"{verb}_published_posts")
    if status == "private":
        needed.append(f"{verb}_private_posts")
    return all(viewer.has(cap) for cap in needed)


def _may_media(viewer: Viewer, action: str, media) -> bool:
    """Uploading is for authors and up (``upload_files``), and for contributors, whose
    images can only go on what they may edit: their own drafts. Authors and up may show
    any image; contributors their own. Deleting is for editors, or the image's owner."""
    if action == "upload_media":
        return viewer.has("upload_files") or viewer.has("edit_posts")
    if action == "use_media":
        return viewer.has("upload_files") or (viewer.has("edit_posts") and _own(viewer, media))
    return viewer.has("delete_others_posts") or (viewer.has("edit_posts") and _own(viewer, media))


def require(viewer: Viewer, action: str, item=None, status: str | None = None) -> None:
    """Raises 401 (anonymous) or 403 (logged in) unless ``may`` says yes."""
    if not may(viewer, action, item, status):
        raise forbidden(viewer.logged_in)


def may_see_protected(
    viewer: Viewer, item, password: str | None, status: str | None = None
) -> bool:
    """A password-protected item is visible to those who may edit it, or with its password
    (compared in constant time)."""
    if not item.password:
        return True
    if password is not None and hmac.compare_digest(password.encode(), item.password.encode()):
        return True
    return may(viewer, "edit", item, status)


# --- what a write may set ----------------------------------------------------------------


def scale_status(values: dict, viewer: Viewer, existing) -> None:
    """Contributors cannot publish: publish/future/private become pending; a new item
    without a status is published by publishers and a draft for others."""
    requested = values.get("status")
    if requested is None and existing is None:
        values["status"] = "publish" if viewer.has("publish_posts") else "draft"
    elif requested in ("publish", "future", "private") and not viewer.has("publish_posts"):
        values["status"] = "pending"


def check_author(values: dict, viewer: Viewer, existing) -> None:
    """A new item belongs to its creator; only editors and up may name another author."""
    author = values.get("author")
    if author is None:
        if existing is None:
            values["author"] = viewer.id
        return
    if author != viewer.id and not viewer.has("edit_others_posts"):
        raise forbidden(viewer.logged_in)


def apply_write_rules(values: dict, viewer: Viewer, existing) -> None:
    """The rules every write of an event, venue or organizer obeys, whatever route or
    embedding it comes through: status scaling, then who may set the author."""
    scale_status(values, viewer, existing)
    check_author(values, viewer, existing)


def require_force_delete(viewer: Viewer) -> None:
    """Deleting permanently (``force=true``) is for editors and up, whoever owns the item."""
    if not viewer.has("delete_others_posts"):
        raise forbidden(viewer.logged_in)
