"""The editor (SPEC §16): ``/manage/``, where the people who publish events sign in and
manage them in a browser.

Every form goes through what the API's routes go through: the same marshmallow schema
(its messages shown beside each field), the same write pipeline
(``app/event_input.py::create_event``/``change_event``), the same capability rule
(``app/auth.py::may``/``require``). Signing in uses the account's own password (hashed by
``store/accounts.py``), throttled with the API's counters; a session is Flask's signed
cookie holding the user and the generation of its sessions; every form carries a CSRF
token (Flask-WTF). The JSON API never reads the session.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import time
from urllib.parse import urlsplit

import orjson
from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    g,
    get_flashed_messages,
    redirect,
    request,
    session,
    url_for,
)
from flask.sessions import SecureCookieSessionInterface
from markupsafe import Markup
from marshmallow import ValidationError
from werkzeug.datastructures import ImmutableMultiDict

from app.auth import (
    may,
    may_read,
    require,
    require_force_delete,
    throttle_sign_in,
    written_status,
)
from app.cache import READS
from app.editor import event_form, items, kept_images, listing, review
from app.editor.event_form import WEEKDAYS
from app.errors import ApiError, NotInTrash, from_validation_error, invalid_params
from app.event_input import change_event, create_event, discard_event, prepare_event
from app.headers import frame_headers
from app.i18n import N_, _, current_language, ngettext, translate
from app.pages import EDITOR_NOT_FOUND, formatting, list_title, page_number, page_response
from app.reading.texts import render_events
from app.render import media_out, render_context
from rules import recurrence
from rules.clock import utcnow
from rules.dates import zone_choices
from rules.ids import as_id
from rules.posts import effective_status
from rules.text import sanitise_html
from schemas.events import EventCreate, EventUpdate
from store import accounts
from store import editor as editor_store
from store.db import database
from store.editor import (
    authored,
    awaiting_review,
    claim_form,
    event_of_form,
    in_trash,
    linked_awaiting_review,
    settle_form,
)
from store.events import get_event, get_events
from store.linked import LinkedFilters, get_linked, list_linked
from store.media import get_media
from store.recurrence import count_occurrences, next_occurrences, overrides_of
from store.users import ANONYMOUS, MAX_SIGN_IN_NAME, Viewer

# The editor's addresses, under the site root and each language root.
EDITOR_PATH = "/manage"
bp = Blueprint("editor", __name__, url_prefix=EDITOR_PATH)
PAGE_SIZE = 20


class EditorSessions(SecureCookieSessionInterface):
    """Flask's signed cookie, ``Secure`` when the request came over HTTPS."""

    def get_cookie_secure(self, app) -> bool:
        return request.is_secure or super().get_cookie_secure(app)

    def open_session(self, app, request):
        # No cookie (every API request): the empty session Flask gives then, without
        # building the signer first (50 us, a tenth of an answer from the response cache).
        if app.secret_key and (
            "HTTP_COOKIE" not in request.environ  # no cookies to parse
            or not request.cookies.get(self.get_cookie_name(app))
        ):
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app, session, response) -> None:
        if not (session or session.modified or session.accessed):
            return  # never touched (every API request): Flask's would only read settings
        # A refused form that came without the session's cookie (a cross-site post: the
        # browser keeps a SameSite=Lax cookie from it) sets none: a new session's cookie
        # would replace the one the browser holds and sign its user out (guard()).
        if g.get("refused_without_session"):
            return
        super().save_session(app, session, response)


def secret_key(instance_path: str) -> str:
    """The key generated into instance/ at the first start (kept there, readable by its
    owner only) when ``SECRET_KEY`` is not set: the site's, which the database keeps for
    every host of it (``store.editor.shared_secret``; a host that made its own takes the
    site's)."""
    path = os.path.join(instance_path, "secret_key")
    if not os.path.exists(path):
        _write_secret(instance_path, path, secrets.token_hex(32))
    with open(path) as handle:
        own = handle.read().strip()
    with database.connection_context():
        shared = editor_store.shared_secret(own)
    if shared != own:
        os.replace(_write_secret(instance_path, path + ".new", shared), path)
    return shared


def _write_secret(folder: str, path: str, key: str) -> str:
    os.makedirs(folder, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    return path


# --- who is signed in --------------------------------------------------------------------


def signed_in() -> Viewer | None:
    user = accounts.session_user(session.get("uid"), session.get("epoch"), session.get("sid"))
    return Viewer(user) if user is not None else None


@bp.before_request
def guard():
    """No cache may keep an editor's page; every POST carries a valid CSRF token; pages
    other than signing in need a session."""
    if request.method == "POST":
        # Flask-WTF is imported by the editor's first request: 2 MB that a worker serving
        # only the API and the pages never needs.
        from flask_wtf.csrf import CSRFError, validate_csrf
        from wtforms import ValidationError as TokenError

        try:
            validate_csrf(request.form.get("csrf_token", ""))
        except (TokenError, CSRFError):
            session_cookie = current_app.config["SESSION_COOKIE_NAME"]
            g.refused_without_session = session_cookie not in request.cookies
            return _page(
                "message.html",
                400,
                heading=_("The form has expired"),
                message=_("Nothing was changed. Open the page again and send it once more."),
            )
    if LIBRARY_CHOICE in request.form:
        _read_library_choice()
    g.editor = signed_in()
    if g.editor is not None:
        g.viewer = g.editor  # what the API's helpers read as the caller, in this request only
    if g.editor is None and request.endpoint not in PUBLIC_ENDPOINTS:
        # Signed out elsewhere or in another tab, or the password changed.
        owner = _ended_session_user()
        session.clear()
        asked = request.query_string.decode("ascii", "replace")  # a list's filters kept
        target = request.path + (f"?{asked}" if asked else "")
        if owner is not None and request.method == "POST":
            session[KEPT_FOR] = owner  # the signed cookie: a hidden field could be changed
            return _sign_in_keeping(target, _posted_fields())
        return redirect(url_for("editor.signin", next=target), 303)
    return None


# The image chosen from the library (the picker's radio buttons, app/templates/manage/
# images.html): named apart from the upload's file input, which has the API's name alone,
# so that each API field name is one control of the form.
LIBRARY_CHOICE = "image_library"


def _read_library_choice() -> None:
    """The form as the rest of the editor reads it: the library's choice as the API's
    ``image`` (a form value; an uploaded file is in ``request.files``)."""
    form = request.form.copy()
    form["image"] = form.pop(LIBRARY_CHOICE)
    request.form = ImmutableMultiDict(form)


# What a form sent when its session had ended carries into the sign-in page, to be sent
# again once signed in: every field but the CSRF token (files cannot be kept).
KEPT = "kept:"
# Whose form the sign-in page keeps: offered again to that user only, never to another
# who signs in there (a shared computer), nor saved as theirs.
KEPT_FOR = "kept_for"


def _ended_session_user() -> int | None:
    """The user whose session this browser's cookie held when it ended: its own user (a
    password changed, ``users revoke``) or the one signed out in another tab (``signout``'s
    mark); None when there was none."""
    user_id = session.get("uid", session.get("ended"))
    return user_id if isinstance(user_id, int) and not isinstance(user_id, bool) else None


def _posted_fields() -> list[tuple[str, str]]:
    return [(k, v) for k, v in request.form.items(multi=True) if k != "csrf_token"]


def _kept_fields() -> list[tuple[str, str]]:
    return [
        (name[len(KEPT) :], value)
        for name, value in request.form.items(multi=True)
        if name.startswith(KEPT)
    ]


def _sign_in_keeping(target: str, fields: list, status: int = 200, **context) -> Response:
    """The sign-in page answering a form sent after its session ended: what was typed rides
    along, and signing in leads to ``_send_again``, never to an empty form."""
    return _page(
        "signin.html",
        status,
        heading=_("Sign in"),
        username=context.pop("username", ""),
        error=context.pop("error", ""),
        notice=_("You were signed out. Sign in again: what you typed is kept."),
        next=target,
        kept=[(KEPT + name, value) for name, value in fields],
    )


def _send_again(target: str, fields: list) -> Response:
    """After signing in: the form's fields, ready to be sent again to ``target`` with a
    fresh CSRF token (nothing is saved until the user says so)."""
    return _page(
        "message.html",
        heading=_("Not saved yet"),
        message=_("You are signed in again. What you typed has not been saved yet."),
        resend_action=request.script_root + target,
        resend_fields=fields,
    )


@bp.after_request
def private(response):
    response.headers["Cache-Control"] = "private, no-store"
    response.headers.update(frame_headers())
    return response


def _page(template: str, status: int = 200, **context) -> Response:
    from flask_wtf.csrf import generate_csrf  # see guard()

    response = page_response(
        f"manage/{template}",
        status=status,
        editor=g.get("editor"),
        csrf_token=generate_csrf(),
        nav_section=_nav_section(),
        on_section_list=request.endpoint in SECTION_LISTS,
        **context,
    )
    return response


# The pages of each of the editor's sections beside its list: its navigation marks the
# section of the page shown (an event's form is in Events); a venue's, organizer's or
# term's page names its section in its address (``plural``).
SECTIONS = {
    "editor.dashboard": "dashboard",
    "editor.events": "events",
    "editor.new_event": "events",
    "editor.edit_event": "events",
    "editor.media": "media",
    "editor.new_media": "media",
    "editor.media_item": "media",
}
# The sections' own pages (their lists), which the navigation marks as the page shown.
SECTION_LISTS = {"editor.dashboard", "editor.events", "editor.list_items", "editor.media"}


def _nav_section() -> str:
    """The editor's section the page belongs to, which its navigation marks
    (``aria-current``, as the public views mark theirs); "" outside them (signing in)."""
    plural = (request.view_args or {}).get("plural")
    return plural if items.kind_of(plural or "") else SECTIONS.get(request.endpoint or "", "")


def _say(what: str, event_id: int | None = None) -> None:
    """Asks the page the redirect after a write leads to to say what the write did, once:
    a message flashed into the signed session cookie (never the address, which a reload
    or a bookmark would say again). ``what``: "saved", "found" (a new venue or organizer
    already there), "deleted" or "restored"; the words are chosen when the page is made,
    in that page's language."""
    flash({"what": what, "event": event_id}, "notice")


def _notice() -> dict:
    """The status message a write asked for (``_say``), consumed by this page: "Saved.",
    "Deleted for good.", "Moved to the trash…", or "Restored…" (a restored event is a draft, as WordPress makes
    it: off the site until it is published; on the dashboard, with a link to its form)."""
    said = get_flashed_messages(category_filter=["notice"])
    if not said:
        return {}
    what, event_id = said[-1].get("what"), said[-1].get("event")
    if what == "saved":
        return {"text": _("Saved.")}
    if what == "found":  # a new venue or organizer named as one already there
        return {"text": _("One of that name already exists: here it is, nothing new was made.")}
    if what == "deleted":
        return {"text": _("Deleted for good.")}
    if what == "trashed":  # said, as every other write: the user lands on another page
        return {"text": _("Moved to the trash: it is off the site until it is restored.")}
    notice = {"text": _("Restored as a draft: publish it to show it on the site.")}
    restored = _event_for(g.editor, event_id) if event_id else None
    if restored is not None:
        notice["link"] = url_for("editor.edit_event", event_id=restored.id)
        notice["link_text"] = _("Edit “%(title)s”", title=restored.title or _("(no title)"))
    return notice


def searched(name: str = "search") -> str:
    """A list's search as asked: at most 200 characters, a NUL dropped (no text holds one;
    the database would refuse the statement)."""
    return request.values.get(name, "").replace("\x00", "").strip()[:200]


# --- signing in and out ------------------------------------------------------------------


@bp.route("/signin", methods=["GET", "POST"])
def signin():
    if request.method in READS:  # HEAD is a GET without its body: it signs no one in
        return _page("signin.html", heading=_("Sign in"), username="", error="")
    username = request.form.get("username", "").strip()[:MAX_SIGN_IN_NAME]
    password = request.form.get("password", "")
    keys = throttle_sign_in(username)  # 429 page while over the API's limits
    user = accounts.check_sign_in(username, password) if username and password else None
    target = request.args.get("next", "")
    kept = _kept_fields() if SAFE_NEXT.fullmatch(target) else []
    if user is None:
        keys.failed()
        error = _("The user name or the password is not right.")
        if kept:
            return _sign_in_keeping(target, kept, 400, username=username, error=error)
        return _page("signin.html", 400, heading=_("Sign in"), username=username, error=error)
    keys.succeeded()
    if session.get(KEPT_FOR) != user.id:  # another user's form: not theirs to see or send
        kept = []
    _start_session(user)
    if not SAFE_NEXT.fullmatch(target):  # only a path of the editor, nothing else
        return redirect(url_for("editor.dashboard"), 303)
    if kept:
        g.editor = Viewer(user)  # signed in from here on: the page's header says so
        return _send_again(target, kept)
    # ``next`` is the path under the language root the page was asked in (guard()): the
    # page opens in the same language.
    return redirect(request.script_root + target, 303)


# What a browser says of a request's origin: typed in the address bar ("none"), or from a
# page of this site. Anything else (another site's link or script) must not sign out.
OWN_NAVIGATION = ("none", "same-origin")


@bp.route("/signout", methods=["GET", "POST"])
def signout():
    """Signs out: the header's button posts here (with its CSRF token); a GET signs out
    when the address was typed or followed from this site, and asks otherwise (a page of
    another site may link here). A HEAD (and an OPTIONS, answered as one) signs no one
    out: a safe method, which a script or a link checker sends anywhere (RFC 9110 §9.2.1)."""
    asks = request.method == "HEAD" or (request.method in READS and not _own_navigation())
    if asks and g.editor is not None:
        return _page("message.html", heading=_("Sign out"), sign_out_form=True)
    if request.method == "HEAD":  # no one signed in: where a GET would lead, nothing ended
        return redirect(url_for("editor.signin"), 303)
    if g.editor is not None and isinstance(session.get("sid"), str):
        # This browser's session alone (the user's others go on); a copy of its cookie
        # opens nothing any more.
        accounts.end_session(session["sid"], current_app.permanent_session_lifetime)
    elif g.editor is not None:  # a session from before sessions had ids: all, as then
        accounts.end_sessions(g.editor.id)
    # The CSRF token stays, and a mark that a session ended: a form of another tab, sent
    # now, is kept through signing in again (guard) rather than refused as expired.
    token = session.get("csrf_token")
    owner = g.editor.id if g.editor is not None else _ended_session_user()
    session.clear()
    session["ended"] = owner if owner is not None else True
    if token:
        session["csrf_token"] = token
    return redirect(url_for("editor.signin"), 303)


def _own_navigation() -> bool:
    """Whether a GET came typed or from a page of this site: by ``Sec-Fetch-Site``, or
    for a browser that sends none, by a ``Referer`` of this host (or none at all)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in OWN_NAVIGATION
    referrer = request.headers.get("Referer", "")
    return not referrer or urlsplit(referrer).netloc == request.host


def _dead_link():
    return _page(
        "message.html",
        404,
        heading=_("This link cannot be used"),
        message=_("It was used already or it has expired. Ask for a new one."),
    )


def _start_session(user) -> None:
    """A new session (never one a visitor came with) for ``user``'s current generation."""
    session.clear()
    session.update(uid=user.id, epoch=user.sessions_epoch, sid=accounts.new_session_id())


@bp.route("/set-password/<token>", methods=["GET", "POST"])
def set_password(token):
    user = accounts.link_user(token)
    if user is None:
        return _dead_link()
    if request.method in READS:
        return _page("set_password.html", heading=_("Choose your password"), user=user, error="")
    password = request.form.get("password", "")
    confirm = request.form.get("password_again", password)
    error = ""
    if len(password) < accounts.MIN_PASSWORD:
        error = ngettext(
            "A password has at least %(num)s character.",
            "A password has at least %(num)s characters.",
            accounts.MIN_PASSWORD,
        )
    elif password != confirm:
        error = _("The two passwords differ.")
    if error:
        return _page(
            "set_password.html", 400, heading=_("Choose your password"), user=user, error=error
        )
    user = accounts.set_password_by_link(token, password)
    if user is None:
        return _dead_link()
    _start_session(user)
    return redirect(url_for("editor.dashboard"), 303)


PUBLIC_ENDPOINTS = {"editor.signin", "editor.signout", "editor.set_password"}
# A path of the editor and its query, as a browser encodes them: nothing that could leave
# the site (//, \\) or break the header (a raw line break).
SAFE_NEXT = re.compile(r"/manage/[A-Za-z0-9_/-]*(\?[A-Za-z0-9_.~%+=&-]*)?")


# --- the dashboard -----------------------------------------------------------------------


def _rendered(rows, viewer) -> list[tuple[dict, str]]:
    """The events a list shows, each with where its title leads (``_link_of``)."""
    readable = [row for row in rows if may_read(viewer, row)]
    shown = render_events(readable, viewer) if readable else []
    return [(event, _link_of(row, viewer)) for row, event in zip(readable, shown, strict=True)]


def _link_of(row, viewer) -> str:
    """The event's form when this user may edit it; else its public page when anyone may
    read it (a contributor's published event); else nothing ("")."""
    status = effective_status(row)
    if may(viewer, "edit", row, status):
        return url_for("editor.edit_event", event_id=row.id)
    if may(ANONYMOUS, "read", row, status):
        return url_for("pages.event_view", slug=row.slug)
    return ""


@bp.route("/")
def dashboard():
    viewer = g.editor
    most = DASHBOARD_ROWS + 1  # one more: whether the section is cut
    sections = [
        _section(_("My drafts"), authored(viewer.id, ("draft",), most=most), "draft"),
        _section(
            _("My upcoming events"),
            authored(viewer.id, ("publish", "future"), upcoming=True, most=most),
            "",
        ),
    ]
    if not viewer.has("edit_others_posts"):
        rows = authored(viewer.id, ("pending",), most=most)
        sections.append(_section(_("Waiting for review"), rows, "pending"))
    trash_rows = in_trash(None if viewer.has("edit_others_posts") else viewer.id, most)
    sections.append(_section(_("Trash"), trash_rows, "trash"))
    return _page(
        "dashboard.html",
        heading=_("Dashboard"),
        notice=_notice(),
        sections=sections,
        review=_waiting_for_review(viewer) if viewer.has("edit_others_posts") else None,
        may_create=may(viewer, "create"),
    )


DASHBOARD_ROWS = 20


def _section(title: str, rows: list, status: str) -> tuple:
    """A dashboard section: its title, its first ``DASHBOARD_ROWS`` events and, when it has
    more, the event list of ``status`` it is cut from."""
    more = url_for("editor.events", status=status or None) if len(rows) > DASHBOARD_ROWS else ""
    return title, _rendered(rows[:DASHBOARD_ROWS], g.editor), more


def _waiting_for_review(viewer) -> dict:
    """An editor's "Pending review": the events (a series once), venues and organizers
    waiting, the first of each kind, and where to see all of a kind when there are more."""
    rows, total = awaiting_review()
    shown = {"events": _rendered(rows, viewer), "more": {}, "linked": []}
    if total > len(rows):
        shown["more"]["events"] = url_for("editor.events", status="pending")
    for kind, plural in review.PLURALS.items():
        linked, linked_total = linked_awaiting_review(kind)
        shown["linked"] += [(plural, row) for row in linked if may_read(viewer, row)]
        if linked_total > len(linked):
            shown["more"][plural] = url_for("editor.list_items", plural=plural, status="pending")
    return shown


# --- events ------------------------------------------------------------------------------


@bp.route("/events/")
def events():
    """The events by status (``?status=``), upcoming first or past (``?past=1``), searched
    and paged."""
    viewer = g.editor
    search = searched()
    number = page_number(request.args.get("page") or "1")
    status = listing.status_filter(request.args.get("status", ""))
    past = request.args.get("past") == "1"
    rows, total = listing.editor_events(viewer, status, past, search, number, PAGE_SIZE)
    pages = max(1, -(-total // PAGE_SIZE))
    approvable = {row.id for row in rows if review.may_approve(viewer, row)}
    query = {"search": search or None, "status": status or None, "past": 1 if past else None}
    heading = _("Past events") if past else _("Events")
    return _page(
        "events.html",
        heading=heading,
        page_title=_list_title(heading, number, search, status),
        may_create=may(viewer, "create"),
        events=_rendered(rows, viewer),
        approvable=approvable,  # the dashboard's one click, for those who may publish
        search=search,
        status_filter=status,
        past=past,
        status_filters=listing.FILTER_LABELS if viewer.has("edit_posts") else (),
        query=query,
        page=number,
        **_pager("editor.events", query, number, pages),
    )


def _pager(endpoint: str, query: dict, number: int, pages: int) -> dict:
    """A list's links to the pages around page ``number`` of ``pages``; from a page past
    the end (an old link, a typed number), "Previous" leads to the last page, not to
    another empty one."""
    return {
        "previous": url_for(endpoint, **query, page=min(number - 1, pages)) if number > 1 else None,
        "next": url_for(endpoint, **query, page=number + 1) if number < pages else None,
    }


def _list_title(heading: str, number: int, search: str, status: str = "") -> str:
    """An editor's list's title (app/pages::list_title), with its status filter named."""
    parts = [_(dict(listing.FILTER_LABELS)[status])] if status else []
    return list_title(heading, number, search, parts)


# What the editor calls each status (the API's names are WordPress's).
STATUS_LABELS = {
    "publish": N_("Published"),
    "future": N_("Scheduled"),
    "draft": N_("Draft"),
    "pending": N_("Pending review"),
    "private": N_("Private"),
    "trash": N_("Trash"),
}


bp.add_app_template_global(formatting.thumbnail_srcset, "thumbnail_srcset")


@bp.app_template_global()
def status_label(status: str) -> str:
    """A status as the editor shows it, in the page's language."""
    return _(STATUS_LABELS[status]) if status in STATUS_LABELS else status


@bp.app_template_global()
def field_label(name: str) -> str:
    """An event form field's label, in the page's language: an error said at the top of
    the form names its field as the form shows it, never by its code name."""
    return _(event_form.LABELS[name]) if name in event_form.LABELS else name


@bp.app_template_global()
def start_shown(event: dict) -> str:
    """An event's start as the editor's lists show it: its day and time written for the
    page's language (``formatting.short_start``), followed by the zone when it is not the
    site's (the pages' rule, ``formatting.zone_named``); an all-day event's day, said to
    be all day (its dates are days, in no zone)."""
    start = formatting.short_start(event["start_date"], event.get("all_day"), current_language())
    if event.get("all_day"):
        return f"{start} ({_('All day')})"
    named = formatting.zone_named(event, current_app.config["SITE_TIMEZONE"])
    return f"{start} ({named})" if named else start


@bp.app_template_global()
def date_shown(row) -> str:
    """A date of a series as its form lists it (next dates, those edited on their own):
    its start written for the page's language, in the series' own zone."""
    return formatting.short_start(row.start_date, row.all_day, current_language())


def new_status(viewer) -> str:
    """The status a new item's form starts on: where the API puts a new item (published),
    as the write rules scale it for this role (a contributor's: submitted for review), so
    that filling the fields and pressing Save puts the event on the site."""
    return written_status("publish", viewer, None)


def _statuses(viewer) -> list[str]:
    """The statuses the form offers: what the write rules would keep for this role."""
    if viewer.has("publish_posts"):
        return ["draft", "pending", "publish", "future", "private"]
    return ["draft", "pending"]


def _choices(kind: str, viewer, chosen: list) -> list[tuple[int, str]]:
    """The venues or organizers a form offers, (id, label): the first 200 the user may
    read, and those the event links to (a trashed one, one past the first 200) when not
    among them."""
    rows, _total = list_linked(kind, LinkedFilters(), viewer, 0, 200)
    offered = {str(row.id) for row in rows}
    for item_id in chosen:
        if str(item_id) not in offered:
            row = get_linked(kind, as_id(item_id)) if as_id(item_id) is not None else None
            if row is not None and may_read(viewer, row):
                rows.append(row)
    return sorted(formatting.told_apart(rows), key=lambda choice: choice[1].lower())


def image_choices(viewer, chosen: str) -> items.ImageChoices:
    """The images a form offers, searched and paged as its image buttons asked (a search
    starts again at the first page)."""
    search = searched("image_search")
    raw = "1" if items.searching_images(request.form) else request.values.get("image_page", "")
    # The form's own buttons send a page number; anything else shows the first page rather
    # than losing what the form holds to an error page (a list's address is refused).
    number = int(raw) if event_form.DIGITS.fullmatch(raw) and int(raw) > 0 else 1
    browsed = items.browsing_images(request.form)
    return items.image_choices(viewer, chosen, search, number, browsed)


def _form_context(viewer, values: dict, errors: dict, event=None) -> dict:
    images = image_choices(viewer, values.get("image") or "")
    weekdays, start = _weekday_labels(), event_form.start_day(values)
    statuses, series = _statuses(viewer), _series_of(viewer, event)
    kept = _kept_image(viewer, errors) if request.method == "POST" else None
    if request.method == "POST":
        shown = request.form.get("shown", "")
    else:
        shown = event_form.shown_state(values, event.password) if event is not None else ""
    return {
        "values": values,
        "errors": errors,
        "event": event,
        "form_id": _form_id() if event is None else "",
        "series": series,
        "fields": event_form.form_fields(statuses, bool(series)),
        "edited_dates": _edited_dates(event),
        "whole_series": event is not None and recurrence.is_series(event),
        "next_dates": _next_dates(event),
        "shown": shown,
        "venues": _choices("venue", viewer, values.get("venue") or []),
        "organizers": _choices("organizer", viewer, values.get("organizer") or []),
        # The images offered; the event's image when they lack it (another user's, older
        # than the newest offered, an outside URL) is offered first, chosen.
        "images": images,
        "kept_image": kept,
        "terms": event_form.term_choices(),
        "zones": zone_choices(),
        "statuses": statuses,
        "date_inputs": {
            name: event_form.date_input(values.get(name) or "", bool(values.get("all_day")))
            for name in ("start_date", "end_date")
        },
        "frequencies": _frequency_labels(),
        "weekdays": weekdays,
        "start_day": start.isoformat() if start else "",
        "monthly": event_form.monthly_labels(start, [name for _code, name in weekdays]),
        "may_delete": event is not None and may(viewer, "delete", event, effective_status(event)),
        "may_delete_for_good": event is not None
        and event.status == "trash"
        and viewer.has("delete_others_posts"),
        "may_approve": event is not None and review.may_approve(viewer, event),
    }


# What a save from a form opened before another save of its item says (``opened_before``).
EDITED_ELSEWHERE = N_(
    "This was saved by someone else, or by you in another tab, after you opened this form: "
    "saving it would have undone that save unseen. Nothing was saved. What you typed is "
    "below: open the saved version in another tab to compare, then save this form again "
    "to replace it with what is below."
)


def edit_token(values: dict) -> str:
    """What an edit form was opened from: a digest of the values it showed of its item,
    sent back with it (``edited_from``)."""
    text = orjson.dumps(values, option=orjson.OPT_SORT_KEYS, default=str)
    return hashlib.sha1(text, usedforsecurity=False).hexdigest()[:24]


def _edited_from(values: dict | None) -> str:
    """The ``edited_from`` an edit form carries: the one it was posted with when shown
    again (its errors, a preview), else that of ``values`` (None: a new item's form)."""
    if request.method == "POST":
        return request.form.get("edited_from", "")
    return edit_token(values) if values is not None else ""


def opened_before(values_now: dict) -> bool:
    """Whether the posted form was opened before a save of its item (it showed other
    values than ``values_now``, the item's as its form shows them now). A form saves every
    field it shows, so such a save would undo the other one unseen. A post without
    ``edited_from`` (a script's) is not checked."""
    sent = request.form.get("edited_from")
    return bool(sent) and sent != edit_token(values_now)


def _series_of(viewer, event) -> dict:
    """Of an occurrence, its series: its id, and its form's address when this user may
    edit it (else ""); of any other event, nothing."""
    if event is None or not recurrence.is_occurrence(event):
        return {}
    series = _event_for(viewer, event.post_parent)
    link = url_for("editor.edit_event", event_id=series.id) if series is not None else ""
    return {"id": event.post_parent, "link": link}


# How many of a series' next dates its form links to (``_next_dates``).
NEXT_DATES = 5


def _next_dates(event) -> list[tuple[str, str]]:
    """Of a series, its next dates as its form lists them, (the date's form address, its
    start): the way to change one date alone, from a form that changes them all."""
    if event is None or not recurrence.is_series(event):
        return []
    return [
        (url_for("editor.edit_event", event_id=row.id), date_shown(row))
        for row in next_occurrences(event.id, NEXT_DATES)
    ]


def _edited_dates(event) -> list:
    """Of a series, its dates edited on their own (not in the trash), in date order: its
    form says that a change of its dates or rule deletes those whose day it no longer has
    (README, "Recurring events")."""
    if event is None or not recurrence.is_series(event):
        return []
    return overrides_of([event.id])[event.id]


def _linked_number(message: str, number: int, link: str) -> Markup:
    """``message`` with the event number it names made a link to ``link``."""
    if not link:
        return Markup.escape(message)
    anchor = Markup('<a href="{}">{}</a>').format(link, number)
    return Markup(re.sub(rf"\b{number}\b", lambda _match: anchor, str(Markup.escape(message))))


def _frequency_labels() -> list[tuple[str, str]]:
    """(RFC 5545 frequency, the language's words) of each "Repeats" choice."""
    return [(code, _(label)) for code, label in event_form.FREQUENCIES.items()]


def _weekday_labels() -> list[tuple[str, str]]:
    """(RFC 5545 code, the language's name) of each weekday, Monday first."""
    names = formatting.locale_of(current_language()).days["format"]["wide"]
    return [(code, names[number]) for number, code in enumerate(WEEKDAYS)]


def _save(viewer, event=None):
    """The form through the schema and the write pipeline: 303 to the saved event's form,
    or the form again with its errors (400). A new event's form makes one event: sent again
    (a double click, or after going back), it saves on the event it made."""
    if "preview" in request.form or items.browsing_images(request.form):
        return _shown_again(viewer, event)
    form_id = _posted_form_id() if event is None else ""
    if form_id and not claim_form(form_id, viewer.id, utcnow()):
        earlier = _made_by_form(form_id, viewer.id)
        if earlier is not None:
            # Sent again as it is (a double click) or changed after Back: the edit form of
            # the event it made, as opened when the first sending saved it, sent (a save
            # made since is merged or refused; a trash, an approval, a deletion is said).
            made_id, shown = earlier
            posted = [(name, value) for name, value in _posted_fields() if name != "shown"]
            request.form = ImmutableMultiDict([*posted, ("shown", shown)])
            return _save_edit(viewer, made_id)
        if not claim_form(form_id, viewer.id, utcnow()):  # still being saved, seconds on
            return _page("message.html", 409, heading=_("New event"), message=_(SENT_TWICE))
    made: list[int] = []
    try:
        return _saved(viewer, event, made)
    finally:
        if form_id:
            settle_form(form_id, viewer.id, made[0] if made else None, _made_state(viewer, made))


# A new event's form carries its own id (``form_id``): when it was opened, and a random part.
FORM_ID = re.compile(r"\d{14}-[A-Za-z0-9_-]{16}")
SENT_TWICE = N_(
    "This form was sent twice, and the first is still being saved: open your events to find it."
)


def _posted_form_id() -> str:
    form_id = request.form.get("form_id", "")
    return form_id if FORM_ID.fullmatch(form_id) else ""


def _form_id() -> str:
    """The id a new event's form carries: the one it was sent with when shown again."""
    return _posted_form_id() or f"{utcnow():%Y%m%d%H%M%S}-{secrets.token_urlsafe(12)}"


def _made_by_form(form_id: str, user_id: int) -> tuple[int, str] | None:
    """The event the form ``form_id`` made when it was sent before, and its state then
    (``settle_form``), waiting (up to three seconds) while that first sending is being
    saved; None when it made nothing."""
    for _attempt in range(30):
        made = event_of_form(form_id, user_id)
        if made is None or made[0] != 0:
            return made
        time.sleep(0.1)
    return None


def _made_state(viewer, made: list[int]) -> str:
    """The ``shown`` state of the event a new event's form made (its edit form's, opened
    just after): what that form is merged from when sent again (``_save``)."""
    event = get_event(made[0]) if made else None
    return event_form.shown_state(_event_values(viewer, event), event.password) if event else ""


def _saved(viewer, event, made: list[int]):
    """``_save``'s work; the saved event's id is appended to ``made``. An uploaded image (or
    one kept from a form that came back, ``kept_images``) is stored only once the rest of
    the form is valid, and removed again if the write then fails."""
    schema = EventUpdate() if event is not None else EventCreate()
    kept = event_form.kept_image_token(request.form)
    stored, form_errors, status = None, {}, 400
    try:
        body = event_form.body(request.form, request.files, viewer, form_errors)
        loaded = schema.load(body)
        if form_errors:  # the form's own mistakes beside what the write rules say of the rest
            raise invalid_params({**_write_rule_errors(loaded, viewer, event), **form_errors})
        stored = _stored_image(viewer, kept, loaded, event)
        if stored is not None:
            loaded = schema.load({**body, "image": stored.id})
        edited = _edited_dates(event)
        saved = change_event(event, loaded, viewer) if event else create_event(loaded, viewer)
    except ValidationError as error:
        errors = items.field_errors(from_validation_error(error, schema))
        errors = {**_write_rule_errors(error.valid_data or {}, viewer, event), **errors}
        errors.update(form_errors)
    except ApiError as error:
        if error.status in (401, 403):
            items.discard(stored)
            raise
        errors = {**items.field_errors(error), **event_form.new_venue_error(error)}
        status = 413 if error.status == 413 else 400  # an image over the limit, as the API
    else:
        made.append(saved.id)
        kept_images.forget(viewer, request.form.get(event_form.KEPT_IMAGE, ""))  # used or dropped
        _say_what_became_of(edited, saved)
        _say("saved")
        return redirect(url_for("editor.edit_event", event_id=saved.id), 303)
    items.discard(stored)
    typed = event_form.typed(request.form)
    context = _form_context(viewer, typed, errors, event)
    _place_recurrence_error(errors, typed, context["series"])
    heading = _event_heading(event)
    return _page("event_form.html", status, heading=heading, **context)


def _stored_image(viewer, kept: str, loaded: dict, event):
    """The form's image file stored in the library: the one chosen now, else the one kept
    from before (``kept``, its token), else None. A file refused (no image, a kept one
    gone) is said with what the write rules say of the rest of the form (an end before
    the start): all of its mistakes at once, not one round each."""
    upload = request.files.get("image")
    try:
        if upload is not None and upload.filename:
            return items.upload(viewer, "image")
        return kept_images.store(viewer, kept) if kept else None
    except ApiError as error:
        if error.status != 400:
            raise
        refused = items.field_errors(error)
        raise invalid_params({**_write_rule_errors(loaded, viewer, event), **refused}) from None


def _kept_image(viewer, errors: dict) -> kept_images.Kept | None:
    """The image file of a form that comes back unsaved, kept for the save that follows (a
    browser never fills a file input again): the one chosen now, else the one the form
    carried from before; what is wrong with either goes into ``errors`` (by field)."""
    upload, carried = request.files.get("image"), event_form.kept_image_token(request.form)
    try:
        if upload is not None and upload.filename:
            kept = kept_images.keep(viewer, upload)
            kept_images.forget(viewer, carried)  # replaced
            return kept
        return kept_images.kept(viewer, carried) if carried else None
    except ApiError as error:
        if error.status in (401, 403):
            raise
        errors.update(items.field_errors(error))
        return None


def _say_what_became_of(edited: list, saved) -> None:
    """Asks the saved series' form to name its dates edited on their own that a change of
    its dates or rule took out of it: deleted (the series no longer has their day), or,
    the recurrence ended, kept as events of their own (SPEC §12). The first 20 of each
    are named (a cookie's room)."""
    kept = {row.id for row in _edited_dates(saved)} if edited else set()
    out = [row for row in edited if row.id not in kept]
    alone = {row.id for row in get_events([row.id for row in out])}  # the others: deleted
    for category, rows in (
        ("edited dates deleted", [row for row in out if row.id not in alone]),
        ("edited dates alone", [row for row in out if row.id in alone]),
    ):
        if rows:
            named = [(date_shown(row), row.title, row.id) for row in rows[:20]]
            flash({"count": len(rows), "shown": named}, category)


def _shown_again(viewer, event):
    """The form again as typed, nothing saved: with the description as it will be stored
    (the preview button), or with other images to choose from (the image buttons)."""
    context = _form_context(viewer, event_form.typed(request.form), {}, event)
    if "preview" in request.form:
        context["preview"] = Markup(sanitise_html(request.form.get("description", "")))  # nh3's
    return _page("event_form.html", heading=_event_heading(event), **context)


def _place_recurrence_error(errors: dict, typed: dict, series: dict) -> None:
    """A refused recurrence said where the form shows it: an occurrence's (its form has
    no recurrence fields) at the top, the series' number a link to the series' form; the
    builder's rule beside the builder."""
    if "recurrence" not in errors:
        return
    if series:
        errors["recurrence"] = _linked_number(errors["recurrence"], series["id"], series["link"])
    elif not typed.get("recurrence") and typed.get("repeat_freq"):
        errors["repeat_freq"] = errors.pop("recurrence")


def _write_rule_errors(valid: dict, viewer, event) -> dict:
    """What the write rules say of the fields the schema took, when it refused others: all
    of a form's mistakes shown at once (an end before the start beside a bad website)."""
    try:
        prepare_event(valid, event, viewer)
    except ApiError as error:
        return items.field_errors(error) if error.status == 400 else {}
    except ValidationError:
        return {}
    return {}


@bp.route("/events/new", methods=["GET", "POST"])
def new_event():
    viewer = g.editor
    require(viewer, "create")
    if request.method == "POST":
        return _save(viewer)
    values = {"status": new_status(viewer), "timezone": current_app.config["SITE_TIMEZONE"]}
    return _page(
        "event_form.html", heading=_event_heading(None), **_form_context(viewer, values, {})
    )


def _event_heading(event) -> str:
    """An event form's heading and title: an edit names its event (WCAG 2.4.2: two tabs
    of two events are told apart), by its title as saved, not as typed."""
    if event is None:
        return _("New event")
    return _("Edit event: %(title)s", title=event.title or _("(no title)"))


def _event_for(viewer, event_id: int, action: str = "edit"):
    event = get_event(event_id)
    if event is None or not may(viewer, action, event, effective_status(event)):
        return None
    return event


@bp.route("/events/<int:event_id>", methods=["GET", "POST"])
def edit_event(event_id):
    viewer = g.editor
    if request.method == "POST":
        return _save_edit(viewer, event_id)
    event = _event_for(viewer, event_id)
    if event is None:
        return _not_yours(viewer, event_id)
    return _page(
        "event_form.html",
        heading=_event_heading(event),
        notice=_notice(),
        public_link=url_for("pages.event_view", slug=event.slug),
        **_form_context(viewer, _event_values(viewer, event), {}, event),
    )


def _save_edit(viewer, event_id: int):
    """An event's edit form sent, and a new event's form sent again (``_save``), which is
    one of the event it made: what a save made since the form was opened changed is kept
    (or the form refused, 409); nothing saved on an event trashed, no longer the user's,
    or deleted since, with what was typed shown."""
    event = _event_for(viewer, event_id)
    if event is None:
        mine = _event_for(viewer, event_id, "read")
        if mine is not None and mine.author == viewer.id:
            return _no_longer_yours()
        if "shown" in request.form and get_event(event_id) is None:  # opened, then deleted
            return _unsaved(410, _("Deleted"), _(DELETED_SINCE))
        return _not_yours(viewer, event_id)
    if event.status == "trash":  # its form cannot say so: restored first, on purpose
        return _unsaved(409, _("In the trash"), _(IN_TRASH))
    if "preview" not in request.form and not items.browsing_images(request.form):
        now = _event_values(viewer, event)
        both = event_form.changed_on_both_sides(request.form, request.files, now, event.password)
        if both:
            return _edited_elsewhere(viewer, event, both, now)
    return _save(viewer, event)


def _event_values(viewer, event) -> dict:
    """The event as its form shows it to ``viewer``."""
    return event_form.values_of(render_events([event], viewer)[0])


def _edited_elsewhere(viewer, event, fields: list[str], now: dict):
    """The form again as typed, nothing saved (409), naming the ``fields`` the user changed
    that were changed elsewhere since the form was shown; it now shows the event as it is
    (``now``), so that saving it again replaces those changes knowingly."""
    said = _(EDITED_FIELDS_ELSEWHERE, fields=", ".join(fields))
    context = _form_context(viewer, event_form.typed(request.form), {"_form": said}, event)
    context["shown"] = event_form.shown_state(now, event.password)
    return _page("event_form.html", 409, heading=_event_heading(event), **context)


EDITED_FIELDS_ELSEWHERE = N_(
    "Someone else changed %(fields)s after you opened this form (or you did, in another "
    "tab): saving would have undone that change unseen. Nothing was saved. What you typed "
    "is below: open the saved event in another tab to compare, then save this form again "
    "to keep what is below."
)


IN_TRASH = N_("This event is in the trash: it is not on the site. Restore it to edit it.")


DELETED_SINCE = N_(
    "This event was deleted for good after you opened the form. Nothing was saved. What "
    "you typed is below, to copy."
)


def _no_longer_yours():
    """A save of an event the user may still read but no longer edit (a contributor's, an
    editor having approved it since the form was opened): nothing saved (409), and what was
    typed shown, so that it is not lost."""
    return _unsaved(409, _("Not saved"), _(NO_LONGER_YOURS))


def _unsaved(status: int, heading: str, message: str) -> Response:
    """An event's form that could not be saved (trashed, no longer the user's, deleted
    since it was opened): why, and what was typed, to copy."""
    return _page("message.html", status, heading=heading, message=message, typed=_typed())


def _typed() -> list[tuple[str, str]]:
    """What the user changed in an event's form that nothing saved (a page opened before
    the event was published or trashed), by field, shown to be copied."""
    weekdays = _weekday_labels()
    monthly = event_form.monthly_labels(
        event_form.start_day(request.form), [name for _code, name in weekdays]
    )
    choices = {  # the words the form shows its choices by
        "repeat_freq": dict(_frequency_labels()),
        "repeat_monthly": {"day": monthly["day"], "weekday": monthly["weekday"]},
        "repeat_days": dict(weekdays),
        "status": {status: status_label(status) for status in STATUS_LABELS},
    }
    return event_form.typed_texts(request.form, request.files, g.editor, choices)


NO_LONGER_YOURS = N_(
    "You may no longer edit this event: it was published, or given to someone else, after "
    "you opened the form. Nothing was saved. What you typed is below, to copy."
)


def _not_yours(viewer=None, event_id: int | None = None):
    """An event refused: 403 when the user may read it (``event_id``), as the API refuses
    a write of it; else 404, which tells nothing of what the user may not read."""
    if event_id is not None and _event_for(viewer, event_id, "read") is not None:
        return _forbidden()
    return _page(
        "message.html",
        404,
        heading=_("No such event"),
        message=_("There is no event at this address that you may edit."),
    )


@bp.route("/events/<int:event_id>/trash", methods=["POST"])
def trash(event_id):
    viewer = g.editor
    event = _event_for(viewer, event_id, "delete")
    if event is None:
        return _not_yours(viewer, event_id)
    try:
        discard_event(event, viewer)
    except ApiError as error:
        if error.status == 410:  # trashed already (another tab)
            return redirect(url_for("editor.dashboard"), 303)
        return _not_yours(viewer, event_id)  # removed, or no longer the user's to trash
    _say("trashed")
    return redirect(url_for("editor.dashboard"), 303)


@bp.route("/events/<int:event_id>/restore", methods=["POST"])
def restore(event_id):
    viewer = g.editor
    event = _event_for(viewer, event_id, "delete")
    if event is None:
        return _not_yours(viewer, event_id)
    try:  # as WordPress, as a draft; if still in the trash when written
        change_event(event, EventUpdate().load({"status": "draft"}), viewer, from_trash=True)
    except NotInTrash:
        return _not_yours()
    if request.form.get("back") == "dashboard":  # its button there: the user stays there
        _say("restored", event_id)
        return redirect(url_for("editor.dashboard"), 303)
    _say("restored")
    return redirect(url_for("editor.edit_event", event_id=event_id), 303)


@bp.route("/events/<int:event_id>/delete", methods=["POST"])
def delete(event_id):
    """Deletes a trashed event for good (editors and administrators, as the API's force)."""
    viewer = g.editor
    event = _event_for(viewer, event_id, "delete")
    if event is None:
        return _not_yours(viewer, event_id)
    if event.status != "trash":
        return _not_yours()
    require_force_delete(viewer)
    if request.form.get("confirmed") != "1":  # one click asks; the page's button deletes
        dates = count_occurrences(event.id) if recurrence.is_series(event) else 0
        return _confirm_deletion(
            event.title,
            url_for("editor.edit_event", event_id=event.id),
            ngettext(
                "Its other date is deleted with it.",
                "Its %(num)s other dates are deleted with it.",
                dates,
            )
            if dates
            else "",
        )
    try:  # only if still in the trash when written: not one published since the page
        discard_event(event, viewer, force=True, from_trash=True)
    except NotInTrash:
        return _not_yours()
    except ApiError:  # removed, or no longer the user's to delete
        return _not_yours(viewer, event_id)
    _say("deleted")
    return redirect(url_for("editor.dashboard"), 303)


def _confirm_deletion(title: str, cancel_link: str, detail: str = "") -> Response:
    """The page that asks before something is deleted for good (an event, a term, an
    image, a venue or organizer in the trash): its button posts the same form again,
    confirmed. ``detail`` says what goes with it (a series' dates)."""
    return _page(
        "message.html",
        heading=_("Delete for good?"),
        message=_("“%(title)s” will be deleted for good: this cannot be undone.")
        % {"title": title},
        detail=detail,
        confirm_action=url_for(request.endpoint, **request.view_args),  # its language kept
        confirm_label=_("Delete for good"),
        cancel_link=cancel_link,
    )


@bp.route("/events/<int:event_id>/approve", methods=["POST"])
def approve(event_id):
    """Publishes a pending event (a series with its occurrences) and the pending venues
    and organizers it links to (app/editor/review.py); the dashboard says what was done."""
    viewer = g.editor
    event = _event_for(viewer, event_id)
    if event is None or not viewer.has("edit_others_posts"):
        return _not_yours(viewer, event_id)
    if review.may_approve(viewer, event):  # else approved already (a second click)
        flash(review.approve_event(viewer, event).as_message(), "approval")
    return redirect(_back_to_event_list() or url_for("editor.dashboard"), 303)


def _back_to_event_list() -> str | None:
    """The event list's address an approval came from (its filters and page kept), when
    the form names one: only an address of this site's event list, never another site."""
    back = request.form.get("back", "")
    listed = url_for("editor.events")
    if back.startswith(listed) and "\\" not in back and all(c.isprintable() for c in back):
        return back
    return None


# --- venues, organizers, categories, tags, images -------------------------------------------


@bp.route("/media/", methods=["GET", "POST"])
def media():
    viewer = g.editor
    error, status = "", 200
    if request.method == "POST":
        try:
            made = items.upload(viewer)
        except ApiError as failure:
            if failure.status in (401, 403):
                raise
            params = failure.data.get("params") or {}
            error = (
                next(iter(params.values()))
                if isinstance(params, dict) and params
                else failure.message
            )
            status = failure.status
        else:
            _say("saved")
            return redirect(url_for("editor.media_item", media_id=made.id), 303)
    number = page_number(request.args.get("page") or "1")
    search = searched()
    images, total = items.library(viewer, number, search)
    pages = max(1, -(-total // items.PAGE_SIZE))
    return _page(
        "media.html",
        (413 if status == 413 else 400) if error else 200,
        heading=_("Images"),
        page_title=_list_title(_("Images"), number, search),
        notice=_notice(),
        images=images,
        error=error,
        search=search,
        may_upload=may(viewer, "upload_media"),
        **_pager("editor.media", {"search": search}, number, pages),
    )


@bp.route("/media/new", methods=["GET", "POST"])
def new_media():
    """The upload form on a page of its own (the library's page has it too)."""
    require(g.editor, "upload_media")
    return media()


@bp.route("/media/<int:media_id>")
def media_item(media_id):
    viewer = g.editor
    found = get_media(media_id)
    if found is None or not (viewer.has("edit_others_posts") or found.author == viewer.id):
        return _not_found()
    return _page(
        "media_item.html",
        heading=_("Image"),
        notice=_notice(),
        image=media_out(found, render_context(viewer)),
        refused=items.deletion_refused(viewer, found),
    )


@bp.route("/media/<int:media_id>/delete", methods=["POST"])
def delete_image(media_id):
    image = items.deletable_image(g.editor, media_id)
    if image is None:
        return _not_found()
    refused = items.deletion_refused(g.editor, image)
    if refused:  # nothing deleted, and the page says why (not "nothing here")
        return _page("message.html", 403, heading=_("The image was not deleted"), message=refused)
    if request.form.get("confirmed") != "1":  # one click asks: what shows it loses it
        title = f"{_('Image')} #{image.id}"
        return _confirm_deletion(title, url_for("editor.media_item", media_id=image.id))
    items.delete_image(image)
    _say("deleted")
    return redirect(url_for("editor.media"), 303)


# The kinds the routes below serve, and no other: an address of another kind (an image's
# page, /media/{id}, which edits nothing: the API takes no change to an image) is its own
# route's, whose methods its 405 names.
ITEM_KINDS = f"any({', '.join(items.KINDS)})"


@bp.route(f"/<{ITEM_KINDS}:plural>/")
def list_items(plural):
    kind = items.kind_of(plural)
    if kind is None:
        return _not_found()
    search = searched()
    number = page_number(request.args.get("page") or "1")
    status = "" if kind.is_term else listing.status_filter(request.args.get("status", ""))
    rows, total = items.listing(kind, search, number, status)
    pages = max(1, -(-total // items.PAGE_SIZE))
    labels = items.labels(kind)
    query = {"plural": plural, "search": search or None, "status": status or None}
    return _page(
        "items.html",
        heading=labels["heading"],
        page_title=_list_title(labels["heading"], number, search, status),
        notice=_notice(),
        kind=kind,
        new_label=labels["new"],
        rows=rows,
        search=search,
        status_filter=status,
        status_filters=listing.FILTER_LABELS
        if not kind.is_term and g.editor.has("edit_posts")
        else (),
        may_create=may(g.editor, "manage_terms" if kind.is_term else "create"),
        **_pager("editor.list_items", query, number, pages),
    )


def _item_form(kind, values, errors, item=None, status=200, notice=None, edited_from=None):
    labels = items.labels(kind)
    if edited_from is None:
        edited_from = _edited_from(values if item is not None else None)
    return _page(
        "item_form.html",
        status,
        notice=notice or {},
        edited_from=edited_from,
        heading=items.heading(kind, item),
        kind=kind,
        item=item,
        values=values,
        errors=errors,
        fields=labels["fields"],
        statuses=_statuses(g.editor),
        parents=items.parents(kind, item),
        public_link=items.public_page(kind, item) if item is not None else "",
        images=image_choices(g.editor, values.get("image") or "")
        if any(field.type == "image" for field in kind.fields)
        else None,
    )


@bp.route(f"/<{ITEM_KINDS}:plural>/new", methods=["GET", "POST"])
def new_item(plural):
    kind = items.kind_of(plural)
    if kind is None:
        return _not_found()
    require(g.editor, "manage_terms" if kind.is_term else "create")
    if request.method == "POST" and items.browsing_images(request.form):
        return _item_form(kind, dict(request.form), {})
    if request.method == "POST":
        saved, created, errors = items.save(kind)
        if saved is not None:
            _say("saved" if created else "found")
            return items.back_to(plural, saved.id)
        return _item_form(kind, dict(request.form), errors, status=400)
    return _item_form(kind, {"status": new_status(g.editor)}, {})


@bp.route(f"/<{ITEM_KINDS}:plural>/<int:item_id>", methods=["GET", "POST"])
def edit_item(plural, item_id):
    kind = items.kind_of(plural)
    item = items.item_of(kind, item_id) if kind else None
    if item is None:
        if request.method == "POST" and "edited_from" in request.form and items.gone(kind, item_id):
            # Its form, opened before the item was deleted for good: what was typed, on
            # the form that makes it anew.
            errors = {"_form": _(DELETED_SINCE_OPENED)}
            return _item_form(kind, dict(request.form), errors, status=410, edited_from="")
        return _item_refused(kind, item_id)
    if request.method == "POST":
        if items.in_trash(kind, item):  # its form cannot say so: restored first, as an event
            return _item_form(kind, dict(request.form), {}, item, status=409)  # what was typed
        if items.browsing_images(request.form):
            return _item_form(kind, dict(request.form), {}, item)
        now = items.values_of(kind, item)
        if opened_before(now):  # nothing saved: the form again, to replace that save knowingly
            errors = {"_form": _(EDITED_ELSEWHERE)}
            return _item_form(kind, dict(request.form), errors, item, 409, None, edit_token(now))
        saved, _created, errors = items.save(kind, item)
        if saved is not None:
            _say("saved")
            return items.back_to(plural, saved.id)
        return _item_form(kind, dict(request.form), errors, item, status=400)
    return _item_form(kind, items.values_of(kind, item), {}, item, notice=_notice())


@bp.route(f"/<{ITEM_KINDS}:plural>/<int:item_id>/restore", methods=["POST"])
def restore_item(plural, item_id):
    """Takes a venue or organizer out of the trash, as a draft (as an event, as WordPress)."""
    kind = items.kind_of(plural)
    item = items.item_of(kind, item_id, "delete") if kind else None
    if item is None:
        return _item_refused(kind, item_id)
    if not items.in_trash(kind, item):
        return _not_found()
    try:
        items.restore(kind, item)
    except NotInTrash:  # restored, or published, since the page was read
        return _not_found()
    _say("restored")
    return items.back_to(plural, item.id)


@bp.route(f"/<{ITEM_KINDS}:plural>/<int:item_id>/approve", methods=["POST"])
def approve_item(plural, item_id):
    """Publishes a venue or organizer waiting for review."""
    kind = items.kind_of(plural)
    item = items.item_of(kind, item_id) if kind and not kind.is_term else None
    if item is None or not g.editor.has("edit_others_posts"):
        return _item_refused(kind if kind and not kind.is_term else None, item_id)
    if review.may_approve(g.editor, item):  # else approved already (a second click)
        saved = review.approve_linked(kind.routes.kind, item)
        flash(review.Approval(saved.title).as_message(), "approval")
    return redirect(url_for("editor.dashboard"), 303)


@bp.route(f"/<{ITEM_KINDS}:plural>/<int:item_id>/delete", methods=["POST"])
def delete_item(plural, item_id):
    kind = items.kind_of(plural)
    item = items.item_of(kind, item_id, "delete") if kind else None
    if item is None:
        return _item_refused(kind, item_id)
    trashed = items.in_trash(kind, item)
    if trashed:
        require_force_delete(g.editor)  # as the API's force=true: editors and up, before asking
    for_good = kind.is_term or trashed  # else to the trash, undone by Restore
    if for_good and request.form.get("confirmed") != "1":  # one click asks
        title = item.name if kind.is_term else item.title
        return _confirm_deletion(title, url_for("editor.edit_item", plural=plural, item_id=item.id))
    try:
        items.remove(kind, item)
    except NotInTrash:  # restored since the page was read: not deleted for good
        return _not_found()
    except ApiError as error:
        if error.status != 410:  # 410: trashed already (another tab)
            return _item_refused(kind, item_id)  # removed, or no longer the user's
    _say("deleted" if for_good else "trashed")
    return redirect(url_for("editor.list_items", plural=plural), 303)


DELETED_SINCE_OPENED = N_(
    "This was deleted for good after you opened the form. Nothing was saved. What you typed "
    "is below: save it to make it again."
)


def _item_refused(kind, item_id: int):
    """A venue, organizer or term refused: 403 when the user may read it (as the API
    refuses a write of it), else 404 (``kind`` None: no such address)."""
    if kind is not None and items.item_of(kind, item_id, "read") is not None:
        return _forbidden()
    return _not_found()


NOT_YOURS_TO_CHANGE = N_("You may read this, but you are not allowed to change it.")


def _forbidden():
    return _page("message.html", 403, heading=_("Not allowed"), message=_(NOT_YOURS_TO_CHANGE))


def _not_found():
    heading, message = EDITOR_NOT_FOUND
    return _page("message.html", 404, heading=translate(heading), message=translate(message))


def register_editor(app) -> None:
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(app.instance_path)
    # SameSite=Lax unless the site asks Strict (app/config.py takes no other): a cross-site
    # post comes without the cookie (``save_session``).
    samesite = (app.config["SESSION_COOKIE_SAMESITE"] or "Lax").title()
    app.config.update(
        SESSION_COOKIE_SAMESITE=samesite, SESSION_COOKIE_HTTPONLY=True, WTF_CSRF_TIME_LIMIT=None
    )
    app.session_interface = EditorSessions()
    app.register_blueprint(bp)
