"""Credentials, throttling, and the one answer to "may this viewer do this to this item".

HTTP Basic with a user name and an application password, as WordPress does. A request
with bad credentials is refused whatever route it asks for (WordPress authenticates
before dispatch); a request without credentials is anonymous.
"""

from __future__ import annotations

import hmac
import ipaddress
from functools import partial

from flask import current_app, g, request

from app.errors import ApiError, forbidden, require_in_trash
from app.i18n import _
from app.smorest import query_values
from rules.posts import effective_status
from rules.text import fold
from store import users
from store.media import is_visible_to, shown_by_others
from store.posts import password_in_use
from store.users import ANONYMOUS, Viewer


def client_address() -> str:
    """The address that throttling counts. Behind proxies listed in ``FORWARDED_ALLOW_IPS``
    (gunicorn's setting; ``*`` trusts any), it is the nearest ``X-Forwarded-For`` entry that
    is not itself a trusted proxy: entries further left were written by the client and
    could be forged."""
    return forwarded_client(
        request.remote_addr or "unknown",
        request.headers.get("X-Forwarded-For", ""),
        current_app.config["FORWARDED_ALLOW_IPS"],
    )


def forwarded_client(peer: str, forwarded_for: str, trusted) -> str:
    """The client's address (the rule of ``client_address``; gunicorn's access log names
    the client by it too, app/server.py). A hop that is no IP address (no proxy writes
    one) ends the walk at the last address known good."""
    if not trusted or ("*" not in trusted and peer not in trusted):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",")]
    for hop in reversed([hop for hop in hops if hop]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer
        if "*" in trusted or hop not in trusted:
            return hop
        peer = hop
    return peer


def _too_many(message: str, seconds: int) -> ApiError:
    return ApiError("too_many_attempts", message, 429, headers={"Retry-After": str(seconds)})


def _throttle(keys: list[tuple[str, int]], window: int, message: str) -> dict:
    """429 while any of ``keys`` is over its limit, with the seconds that remain; else the
    failures found (``users.failures_of``)."""
    found = users.failures_of([key for key, _limit in keys])
    _check_throttle(found, keys, window, message)
    return found


def _check_throttle(found: dict, keys: list[tuple[str, int]], window: int, message) -> None:
    wait = max(users.throttled_for(found.get(key), limit, window) for key, limit in keys)
    if wait:
        raise _too_many(message, wait)


def _bad_credentials() -> ApiError:
    return ApiError(
        "incorrect_password",
        _("The provided password is an invalid application password."),
        401,
        headers={"WWW-Authenticate": 'Basic realm="calendar"'},
    )


def _basic_credentials() -> tuple[str, str] | None:
    """(user name, password) from HTTP Basic, as Werkzeug parses it; None when it is
    malformed (which is a 401 like a wrong password). Werkzeug raises ValueError for
    bytes of the header past ASCII: malformed too."""
    try:
        auth = request.authorization
    except ValueError:
        return None
    if auth is None or auth.type != "basic" or auth.username is None:
        return None
    return auth.username, auth.password or ""


def authenticate_request() -> None:
    """Sets ``g.viewer``; raises 401 for bad credentials and 429 when throttled.

    Failures are counted per client address and user name (guessing one account's
    password), and per client address alone with a limit ten times higher (trying many
    accounts), so one mistyped account does not lock out the others behind the same address.
    """
    g.viewer = ANONYMOUS
    if "_jsonp=" in request.environ.get("QUERY_STRING", "") and request.args.get("_jsonp"):
        # Any site's <script> element asks it, with the browser's credentials: anonymous.
        return
    header = request.environ.get("HTTP_AUTHORIZATION")
    scheme = header.split(None, 1)[0].lower() if header and header.strip() else ""
    if scheme != "basic":
        # As WordPress: another scheme (Bearer, Digest…) is not credentials of this API,
        # so the caller is anonymous (a write then answers 401 rest_forbidden).
        return
    credentials = _basic_credentials()
    if credentials is None:
        attempt, user = throttle_sign_in(""), None
    else:
        login, password = credentials
        attempt = SignInAttempt(login)
        found, owner = users.failures_and_owner(attempt.clients(), password)
        attempt.check(found)  # 429 before the password's owner is looked at
        user = users.signed_in(owner, login) if owner is not None else None
    if user is None:
        attempt.failed()
        raise _bad_credentials()
    attempt.succeeded()
    g.viewer = Viewer(user)


class SignInAttempt:
    """The counters of one sign-in by user name and password (the editor's form): the same
    keys, limits and window as the API's Basic credentials."""

    def __init__(self, login: str):
        config = current_app.config
        address = self.address = client_address()
        self.login = login
        self.window = config["AUTH_FAILURE_WINDOW"]
        self.found: dict = {}  # the failures counted before this attempt
        # Per user, not per spelling: a name counts in any case, and a failure counts
        # under every name of the user it names (users.names_of).
        self.keys = [
            (f"{address} {fold(login)}", config["AUTH_FAILURE_LIMIT"]),
            (address, config["AUTH_FAILURE_LIMIT"] * 10),
        ]

    def clients(self) -> list[str]:
        return [key for key, _limit in self.keys]

    def check(self, found: dict) -> None:
        """429 while ``found`` (``users.failures_of(self.clients())``) puts any of the
        attempt's keys over its limit."""
        self.found = found
        message = _("Too many failed login attempts. Try again later.")
        _check_throttle(found, self.keys, self.window, message)

    def failed(self) -> None:
        names = users.names_of(self.login) if self.login else [""]
        for key in [f"{self.address} {name}" for name in names] + [self.address]:
            users.record_failure(key, self.window)

    def succeeded(self) -> None:
        if self.keys[0][0] in self.found:
            users.clear_failures(self.keys[0][0])


def throttle_sign_in(login: str) -> SignInAttempt:
    """429 while this client (and user name) is over its limit; else the attempt's counters."""
    attempt = SignInAttempt(login)
    attempt.check(users.failures_of(attempt.clients()))
    return attempt


def check_item_password() -> None:
    """Guesses of an item's access password (``?password=``) are throttled like logins:
    a password that opens no item counts as a failure of the client's address, whatever
    route, listing or filter it was tried through."""
    query = request.environ.get("QUERY_STRING", "")
    if "password" not in query and "%" not in query:
        return  # not named, even percent-encoded: no guess to count
    # As the views read it (app/smorest.py::query_values): ``password[]`` opens items too.
    count_item_password(query_values(request.args, frozenset()).get("password"))


def count_item_password(password: str | None) -> None:
    """A guess of an item's password, from any face (the API's ``?password=``, a page's
    password form): 429 while the client's address is over its limit, and counted as a
    failure when it opens no item."""
    if not password:
        return
    config = current_app.config
    key = f"{client_address()} item-password"
    window = config["AUTH_FAILURE_WINDOW"]
    _throttle(
        [(key, config["AUTH_FAILURE_LIMIT"])],
        window,
        _("Too many wrong passwords. Try again later."),
    )
    if not password_in_use(password):
        users.record_failure(key, window)


def password_mark(password: str) -> str:
    """What a page may carry of an item's password (never the password: SPEC §2): a keyed
    digest, which tells that it changed and gives nothing to guess it from. An edit form
    carries it (app/editor/event_form.py), and so does an unlocked event page's .ics link
    (app/pages/__init__.py::_event_ics)."""
    if not password:
        return ""
    key = current_app.secret_key.encode() if current_app.secret_key else b""
    return hmac.new(key, password.encode(), "sha256").hexdigest()[:16]


def current_viewer() -> Viewer:
    return g.get("viewer", ANONYMOUS)


# The generic capability a route's writes ask, by blueprint (the posts': edit_posts).
_WRITES_ASK = {"categories": "manage_terms", "tags": "manage_terms", "media": "upload_files"}
# In the order WordPress registers a route's handlers: read, then edit, then delete.
_METHOD_ORDER = ("GET", "POST", "PUT", "PATCH", "DELETE")


def usable_methods(viewer: Viewer, methods, blueprint: str | None) -> str:
    """The ``Allow`` header of an API answer, as WordPress's ``rest_send_allow_header``: the
    route's methods this caller may use. Reads are anyone's; a write is listed for a caller
    with the generic capability it asks (WordPress runs each handler's permission check;
    ours are per item, so an author sees PUT on another's event and is refused sending it)."""
    writes = _WRITES_ASK.get(blueprint or "")
    usable = [
        method
        for method in _METHOD_ORDER
        if method in methods
        and (
            method == "GET"
            or viewer.has(writes or ("delete_posts" if method == "DELETE" else "edit_posts"))
        )
    ]
    return ", ".join(usable)


# --- capabilities on one item ------------------------------------------------------------


def _own(viewer: Viewer, item) -> bool:
    return viewer.logged_in and item.author == viewer.id


def may_read(viewer: Viewer, item) -> bool:
    """Whether ``viewer`` may read ``item`` (an event, venue or organizer) as it stands now:
    in its effective status, a scheduled item whose date has passed being published."""
    return may(viewer, "read", item, effective_status(item))


def readable_by(viewer: Viewer):
    """``may_read`` for ``viewer``: what a read by slug takes an older dashed slug's item
    by (store/posts.py::found_by_slug), so a draft's never hides a published item."""
    return partial(may_read, viewer)


def may(viewer: Viewer, action: str, item=None, status: str | None = None) -> bool:
    """WordPress's capability rules for ``action`` ("create", "read", "edit", "delete",
    "publish", "import", "manage_terms", "upload_files"; "upload_media", "use_media",
    "delete_media") on ``item`` (an event, venue, organizer or media row), by role and
    ownership. ``status`` overrides the item's status (an effective status such as a past
    ``future`` served as ``publish``)."""
    if action == "create":
        return viewer.has("edit_posts")
    if action in ("publish", "import"):  # importing publishes: authors and up (SPEC §11)
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
    if status == "trash":  # as map_meta_cap: by the status it had (a published one stays so)
        status = getattr(item, "trashed_from", "") or status
    if _own(viewer, item):
        # As map_meta_cap: a private item of one's own asks what a draft does (an author
        # who made an item private could not touch it again); ``*_private_posts`` are
        # for others' private items.
        if status in ("publish", "future"):
            return viewer.has(f"{verb}_published_posts")
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
    any image; contributors their own. Deleting is for editors, or the image's owner while
    no other author's item shows it (removing it would change items they may not edit)."""
    if action == "upload_media":
        return viewer.has("upload_files") or viewer.has("edit_posts")
    if action == "use_media":
        return viewer.has("upload_files") or (viewer.has("edit_posts") and _own(viewer, media))
    if viewer.has("delete_others_posts"):
        return viewer.has("edit_others_posts") or not shown_by_others(media.id, viewer.id)
    return _deletes_own(viewer, media) and not owner_kept_from_deleting(viewer, media)


def _deletes_own(viewer: Viewer, media) -> bool:
    return viewer.has("edit_posts") and _own(viewer, media)


def owner_kept_from_deleting(viewer: Viewer, media) -> bool:
    """Whether ``media``'s owner, who may delete their own images, may not delete this one:
    they may not edit others' items, and other users' items show it."""
    return (
        _deletes_own(viewer, media)
        and not viewer.has("edit_others_posts")
        and shown_by_others(media.id, viewer.id)
    )


def require(viewer: Viewer, action: str, item=None, status: str | None = None) -> None:
    """Raises 401 (anonymous) or 403 (logged in) unless ``may`` says yes."""
    if not may(viewer, action, item, status):
        raise forbidden(viewer.logged_in)


def require_edit(viewer: Viewer, item, check_body) -> None:
    """The permission step of an update's write pipeline (validate → permit → write rules),
    for a body whose checks against the stored ``item`` have not run yet. A caller who may
    not edit ``item`` gets the answer a write to no item gets: what ``check_body()`` raises
    for the body alone (a malformed request is a 400 even anonymous, SPEC §5), else 401/403.
    Never an answer that compares the body with the stored item (an end before its stored
    start, coordinates paired with stored ones): that would read a draft to whoever asks
    (SPEC §9, §10)."""
    if may(viewer, "edit", item, effective_status(item)):
        return
    check_body()
    raise forbidden(viewer.logged_in)


def may_read_media(viewer: Viewer, media) -> bool:
    """An image is public like the items that show it: its owner and editors always read
    it; others unless every event, venue or organizer showing it is hidden from them."""
    if viewer.has("edit_others_posts") or (viewer.logged_in and media.author == viewer.id):
        return True
    return is_visible_to(media.id, viewer)


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


def written_status(requested: str | None, viewer: Viewer, existing) -> str:
    """The status a write of an event stores: ``requested`` (None: not sent) as the write
    rules scale it, else the event's own."""
    values = {} if requested is None else {"status": requested}
    scale_status(values, viewer, existing)
    return values.get("status", existing.status if existing is not None else "draft")


def apply_inline_write_rules(values: dict, viewer: Viewer, event_status: str) -> None:
    """The rules of a venue or organizer made inside an event's write: the direct routes'
    (``apply_write_rules``), except that one sent without a status of its own by someone
    who may not publish goes with its event: submitted for review when the event is
    (``event_status`` pending), a draft otherwise. Publishers' are published whatever the
    event's status, as the reference does (reference-behaviour.md §8.1)."""
    if "status" not in values and event_status == "pending" and not viewer.has("publish_posts"):
        values["status"] = "pending"
    apply_write_rules(values, viewer, None)


def require_force_delete(viewer: Viewer) -> None:
    """Deleting permanently (``force=true``) is for editors and up, whoever owns the item."""
    if not viewer.has("delete_others_posts"):
        raise forbidden(viewer.logged_in)


def require_removal(viewer: Viewer, item, force: bool, from_trash: bool, in_trash) -> None:
    """The decision of every removal (an event, a venue, an organizer), made from ``item``
    as it is when written: may the viewer delete it; deleted for good (``force``) by
    editors and up only, and (``from_trash``, the editor's) only while it is still in the
    trash; else trashed, unless it is there already (``in_trash()``: the 410 to raise)."""
    require(viewer, "delete", item, effective_status(item))
    if force:
        require_force_delete(viewer)
        if from_trash:
            require_in_trash(item)
    elif item.status == "trash":
        raise in_trash()
