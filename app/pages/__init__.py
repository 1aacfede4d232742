"""The public pages (SPEC §15): list, month and day views, the pages of events, venues,
organizers and terms, the sitemap, robots.txt, the widget and the embeddable list.

Views are thin: they read the visitor's query (``reading.Filters``), ask ``reading`` for
what the anonymous API shows, and render a template. Every page is the same for everyone
(no session is read), so the response cache keeps one copy of it, as for the API.
"""

from __future__ import annotations

import calendar as month_math
import hmac
import json
import os
import re
from bisect import bisect_left, bisect_right
from contextlib import suppress
from dataclasses import replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from urllib.parse import quote, urlencode, urlsplit

import orjson
from flask import (
    Blueprint,
    Response,
    before_render_template,
    current_app,
    g,
    redirect,
    render_template,
    request,
    template_rendered,
    url_for,
)
from flask.views import MethodView
from itsdangerous import BadData, URLSafeTimedSerializer
from jinja2 import ChoiceLoader, FileSystemLoader
from markupsafe import Markup, escape

from app import errors
from app.auth import count_item_password, password_mark
from app.cache import cached, etag_of
from app.headers import frame_headers
from app.i18n import N_, _, current_language, labelled, ngettext, templates_in, translate
from app.pages import formatting, reading
from app.render import address_line, url_slug
from app.routes.media import UPLOAD_ENDPOINTS
from app.urls import absolute_url, namespace_url, site_url
from rules import dates, recurrence
from rules.ids import as_id, is_digits
from rules.text import demote_headings, focusable_tables, html_text
from store.sitemap import count_public, public_pages

bp = Blueprint("pages", __name__)
PAGE_SIZE = 10
SITEMAP_SIZE = 50_000
# Addresses (after the language root) that are pages for people: HTML errors, indexable.
PAGE_PREFIXES = (
    "/events",
    "/event/",
    "/venue/",
    "/organizer/",
    "/sitemap",
    "/robots.txt",
    "/widget.js",
    "/static/",
)


# The Events Calendar's "from this date" (its bar's date picker): a list from that day, the
# month of that day.
TEC_DATE = "tribe-bar-date"
# The plugin's names of a list's page: its views' own (``View::$page_key``, what their "Next
# events" links write) and the older ``tribe_paged``; ours, ``page``, comes first.
TEC_PAGES = ("paged", "tribe_paged")
# What a page's own address keeps (canonical, alternates, language links): its page and
# filters, in the plugin's names too (README: ``tribe-bar-search``, ``paged``).
PAGE_QUERY = (
    "page",
    *TEC_PAGES,
    "past",
    "eventDisplay",
    TEC_DATE,
    "tribe-bar-search",
    *reading.FILTERS,
    "featured",
)
# What an editor's page keeps in its language links: its list's tab and page, and where
# signing in leads (a user who switches language there still lands on what they opened).
EDITOR_QUERY = ("status", "page", "past", "next")


def is_page_path(path: str) -> bool:
    return path.startswith(PAGE_PREFIXES)


# --- the frame of every page ------------------------------------------------------------


def _frame_headers(embed: bool = False) -> dict[str, str]:
    return frame_headers(current_app.config["EMBED_ORIGINS"] if embed else ())


def page_response(template: str, status: int = 200, embed: bool = False, **context) -> Response:
    """A page in the site's frame: the template with what every page shows."""
    exported = _exported_feed(status, context)
    if exported is not None:
        return redirect(exported, 301)
    body = _rendered(template, {**_frame(), "embed": embed, **context})
    response = Response(body, status=status, mimetype="text/html")
    response.headers.update(_frame_headers(embed))
    return response


def _rendered(template: str, context: dict) -> bytes:
    """``render_template`` from the templates compiled for the page's language
    (app/i18n.py::templates_in: its messages written in), as the bytes the response
    sends. Each piece the template writes is encoded on its own: one character past ASCII
    (a time's narrow space, U+202F) made the whole joined text one of two bytes a
    character, widened to join and walked to encode, where a piece of plain ASCII is
    copied as it is (a 130 kB month page rendered and encoded: 0.20 → 0.175 ms)."""
    app = current_app._get_current_object()
    app.update_template_context(context)
    compiled = templates_in(app, current_language()).get_template(template)
    before_render_template.send(
        app, _async_wrapper=app.ensure_sync, template=compiled, context=context
    )
    body = b"".join([piece.encode() for piece in compiled.generate(context)])
    template_rendered.send(app, _async_wrapper=app.ensure_sync, template=compiled, context=context)
    return body


# The Events Calendar's export of a page: the page's address with ``?ical=1`` ("Export .ics
# file", "Subscribe to calendar") or ``?outlook-ical=1`` ("Export Outlook .ics file").
TEC_EXPORTS = ("ical", "outlook-ical")


def ld_scripts(json_ld) -> Markup:
    """The template global ``ld_scripts``: a page's JSON-LD texts (made safe for a script
    element once per data version: reading.py::events_ld, ld_script), each in its
    ``<script>`` element, written at once where base.html looped over a month's hundred.
    A text not marked safe is escaped, as the loop did."""
    return Markup(
        "\n  ".join(
            [
                f'<script type="application/ld+json">{item if isinstance(item, Markup) else escape(item)}</script>'
                for item in json_ld or ()
                if item
            ]
        )
    )


def _exported_feed(status: int, context: dict) -> str | None:
    """The feed a page links (its filters', or an event's own), when the page was asked with
    The Events Calendar's export query (``TEC_EXPORTS``): the plugin's export address of that
    page, which calendars subscribed before the move keep asking (SPEC §17: break no link,
    no client)."""
    if status != 200 or request.method == "POST":
        return None
    if not any(name in request.args for name in TEC_EXPORTS):
        return None
    return context["ics"] if "ics" in context else context.get("feeds", {}).get("https")


def _frame() -> dict:
    req = request._get_current_object()  # one look-up each (_known_path)
    app = current_app._get_current_object()
    config = app.config
    lang = current_language()
    # The page's own address (the first of its rules, so /events/list/ is /events/), with
    # the query parameters it reads, under each language root.
    here = req.script_root + req.path  # an error's: the path under its language root
    if req.endpoint:  # ``GET /`` shows a view (``home_page``): that view's address
        here = page_address(g.get("home_view") or req.endpoint, req.view_args)
    if req.path.startswith("/manage"):
        query = {k: v for k, v in req.args.items() if k in EDITOR_QUERY}
    else:
        query = _own_query(req.args)
    address = here + (f"?{urlencode(query)}" if query else "")
    path = address[len(req.script_root) :]
    alternates = [
        (code, site_url() + (f"/{code}" if code != config["DEFAULT_LANGUAGE"] else "") + path)
        for code in config["LANGUAGES"]
    ]
    return {
        "lang": lang,
        "site_name": config["SITE_NAME"],
        # The page in its language at one address: the default language's at the site's
        # root (``/en/events/`` is ``/events/``), as its hreflang alternate says.
        "canonical": dict(alternates).get(lang, absolute_url(address)),
        "alternates": alternates,
        # For a visitor whose language the site does not speak: the default language's.
        "x_default": site_url() + path,
        "site_css": os.path.exists(os.path.join(app.instance_path, "static", "site.css")),
        "today_iso": reading.site_today().isoformat(),
        "here": here,
        "nav": _nav(),
    }


def _own_query(args) -> dict:
    """What a page's own address keeps of its query (``PAGE_QUERY``), in our names and
    order, so that a page has one address (its canonical): The Events Calendar's
    ``paged``, ``eventDisplay=past`` and ``tribe-bar-search`` as ours, and the first
    page as no page number (the address its "Previous page" links)."""
    query = {k: v for k, v in args.items() if k in PAGE_QUERY}
    query["page"] = _asked_page(query)
    for name in TEC_PAGES:
        query.pop(name, None)
    past = query.pop("eventDisplay", None) == "past" or query.get("past") == "1"
    query["past"] = "1" if past else None
    query["search"] = query.get("search") or query.pop("tribe-bar-search", None)
    query.pop("tribe-bar-search", None)
    with suppress(reading.BadFlag):  # a bad one is an error page's, whose links keep it
        flag = reading.flag_of("featured", query.get("featured"))
        query["featured"] = None if flag is None else str(int(flag))  # true as 1, false as 0
    if query["page"] == "1":
        query["page"] = None
    return {k: query[k] for k in PAGE_QUERY if query.get(k)}


def _nav() -> dict[str, str]:
    """The addresses the frame of every page links, built by the router once per language
    root (``SCRIPT_NAME``): a page asked for five."""
    root = request._get_current_object().script_root  # one look-up (_known_path)
    known = current_app._get_current_object().extensions.setdefault("calendar.nav", {})
    nav = known.get(root)
    if nav is None:
        nav = {
            "list": url_for("pages.list_view"),
            "month": url_for("pages.month_view"),
            "today": url_for("pages.today_view"),
            "css": url_for("static", filename="calendar.css"),
        }
        if len(known) < 64:  # the language roots, and a prefix or two a proxy may add
            known[root] = nav
    return nav


# Most pages a list reads (its offset is read through): a page number past it is past the
# last page, as one past the listing's end.
MOST_PAGES = 10_000


def _paged(number: int) -> int | None:
    """A page number as a link writes it: none for the first page, whose address is the
    list's own (one address, one canonical, as WordPress links its first page)."""
    return number if number > 1 else None


def _asked_page(args) -> str | None:
    """The page number a query names, in our name or the plugin's (``TEC_PAGES``)."""
    return next((args[name] for name in ("page", *TEC_PAGES) if args.get(name)), None)


def _page_number() -> int:
    """The page asked (``page_number``), in our name or The Events Calendar's (``TEC_PAGES``)."""
    return page_number(_asked_page(request.args) or "1")


def page_number(raw: str) -> int:
    """A list's page number of its address (the editor's lists' too): not a number (or 0)
    names no page (400); one past ``MOST_PAGES`` is past the last page (404), as one past
    the listing's end is, and as the API answers."""
    if not is_digits(raw) or int(raw) < 1:
        raise reading.BadRequest("page")
    if len(raw) > 9 or int(raw) > MOST_PAGES:
        raise reading.NotFound("page")
    return int(raw)


# What a list's feed asks besides its filters: the events the list shows, read when the
# feed is (the API's relative ``now``), not its default window, which leaves out an event
# that began before yesterday and has not ended. ``strict_dates``: the instant itself, where
# the API snaps a relative date to the end of its day, as the reference does (a feed then
# left out the rest of today's events).
STRICT = {"strict_dates": "true"}
UPCOMING_FEED = {"ends_after": "now", **STRICT}
PAST_FEED = {"ends_before": "now", **STRICT}


def _feeds(filters: reading.Filters, window: dict | None = None) -> dict:
    """The iCalendar feed of the page's filters: https, webcal and Google's subscribe link.
    The feed is the API's listing: its arguments as the API takes them (a venue or an
    organizer by id, lists as comma-separated values), and the list's ``window``."""
    args = {**filters.api_args(), **(window or {})}
    query = {"ical": 1}
    query.update((k, _as_query_value(v)) for k, v in args.items())
    https = f"{namespace_url()}/events?{urlencode(query)}"
    webcal = "webcal://" + https.split("://", 1)[1]
    return {"https": https, "webcal": webcal, "google": formatting.google_subscribe_link(webcal)}


def _as_query_value(value) -> str:
    """An API argument as the API's query writes it: a list comma-separated, a flag as
    ``true`` (Python's ``True`` reads as a flag too, but is no address to show)."""
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else value


def _view_links(filters: reading.Filters, day: date, past: bool = False) -> dict:
    """The view switch of a page showing ``day`` (a list's picked day, a day's, a month's
    first or, in the current month, today): changing the view keeps the filters and the
    date, as The Events Calendar's bar keeps its ``tribe-bar-date`` (the list from that
    day, its month, the day itself); today's pages link the views' own addresses."""
    query = filters.query()
    since = {TEC_DATE: day.isoformat()} if day != reading.site_today() else {}
    return {
        "list": page_address("pages.list_view", **query, past=1 if past else None, **since),
        "month": page_address("pages.month_view", {"month": f"{day:%Y-%m}"}, **query),
        "day": page_address("pages.day_view", {"day": f"{day:%Y-%m-%d}"}, **query),
    }


def _choices(filters: reading.Filters) -> dict:
    """The categories and venues the filter form offers (what the API lists anonymously),
    as choices and as the form's options with the visitor's filters selected."""
    categories, venues = reading.form_choices()
    return {
        "categories": categories,
        "venues": venues,
        "category_select": reading.select("categories", categories, filters.categories),
        "venue_select": reading.select("venues", venues, filters.venue),
    }


def _decorate(events: list[dict]) -> list[dict]:
    """What the templates show of each event beside its representation."""
    lang = current_language()
    site_tz = current_app.config["SITE_TIMEZONE"]
    link_of = _event_links()
    for event in events:
        event["_link"] = link_of(event["slug"])
        event["_when"] = formatting.when(event, lang, site_tz)
        # ``<time datetime>``: an all-day event's day (its midnight in UTC is another
        # day's moment west or east of Greenwich), else its start in UTC.
        event["_datetime"] = (
            event["start_date"][:10]
            if event.get("all_day")
            else event["utc_start_date"].replace(" ", "T") + "Z"
        )
        venues = event["venue"] if isinstance(event["venue"], list) else [event["venue"]]
        event["_venues"] = venues
        # Every occurrence is listed (SPEC §12); its entry says that it repeats.
        event["_repeats"] = recurrence.series_shown(event) is not None
        image = event["image"]
        if image:  # a list's thumbnail: the medium size, else the image
            event["_thumb"] = (image.get("sizes", {}).get("medium") or image).get("url", "")
    return events


def _event_links():
    """slug → the event's page (a grid links a hundred)."""
    return slug_links("pages.event_view")


# The pages whose address has one segment of their own (the router's default converter),
# by the name of its argument.
ONE_SEGMENT = {
    "pages.event_view": "slug",
    "pages.venue_view": "slug",
    "pages.organizer_view": "slug",
    "pages.category_view": "slug",
    "pages.tag_view": "slug",
    "pages.month_view": "month",
    "pages.day_view": "day",
}


def slug_links(endpoint: str):
    """value → the page of ``endpoint`` (an event's by its slug, a month's…), from one
    address the router built per language root (``SCRIPT_NAME``), the value quoted as
    the router quotes it: a page links a dozen items, each ``url_for`` a build of the
    router."""
    before, after = _known_path(endpoint, True)
    return lambda value: (
        f"{before}{value if _UNQUOTED(value) else quote(value, safe=_PATH_SAFE)}{after}"
    )


def page_address(endpoint: str, view_args: dict | None = None, **query) -> str:
    """``url_for(endpoint, **view_args, **query)`` for a page's links: its path from the
    router once per language root (``slug_links`` for an argument), its query as the router
    writes one (values None left out); a list page made eight."""
    if not view_args:
        path = _known_path(endpoint, False)
    elif len(view_args) == 1 and ONE_SEGMENT.get(endpoint) in view_args:
        path = slug_links(endpoint)(str(next(iter(view_args.values()))))
    else:
        path = url_for(endpoint, **view_args)
    items = [(name, value) for name, value in query.items() if value is not None]
    return f"{path}?{urlencode(items, safe=_QUERY_SAFE)}" if items else path


def _known_path(endpoint: str, with_argument: bool):
    """The path of ``endpoint`` under the request's language root, built by the router
    once: without its argument, or (``with_argument``) as the text around it."""
    # The app and the request once each: every attribute read through their proxies first
    # fails the proxy's own look-up (an AttributeError made, 2 µs), and a page asks nine paths.
    known = current_app._get_current_object().extensions.setdefault("calendar.paths", {})
    key = (request._get_current_object().script_root, endpoint, with_argument)
    path = known.get(key)
    if path is None:
        if with_argument:
            built = url_for(endpoint, **{ONE_SEGMENT[endpoint]: _MARK})
            before, _mark, after = built.partition(_MARK)
            path = (before, after)
        else:
            path = url_for(endpoint)
        if len(known) < 512:  # the language roots (and a proxy's prefix) of a few pages
            known[key] = path
    return path


_MARK = "argument-of-the-page"
# What werkzeug's router leaves unquoted in a path segment and in a query
# (routing/converters.py, urls.py::_urlencode).
_PATH_SAFE = "!$&'()*+,/:;=@"
_QUERY_SAFE = "!$'()*,/:;?@"
# What ``quote`` leaves as it is (letters, digits, ``_.-~``): most slugs, written directly.
_UNQUOTED = re.compile(r"[A-Za-z0-9_.~-]*").fullmatch


# --- list, month and day views -----------------------------------------------------------


def _asked_filters(*readers) -> reading.Filters:
    """The address's filters. A yes-or-no among them that is neither is refused with word
    of whether the view's other readers of the address (its page, its date) refuse theirs
    too, so that the 400 page names every mistake at once, as the API does."""
    try:
        return reading.Filters.from_query(request.args)
    except reading.BadFlag as refused:
        refused.others_bad = any(_refuses(read) for read in readers)
        raise


def _refuses(read) -> bool:
    try:
        read()
    except reading.BadRequest:
        return True
    except reading.NotFound:  # a page past the last: no mistake of the address
        return False
    return False


def _list_page(template="list.html", embed=False, term=None, **context):
    """A list of events: upcoming, or past (``?past=1``). A term's page (``term``) lists its
    events as the list view filtered by it does, and its view links, form and feeds keep it."""
    req = request._get_current_object()  # one look-up (_known_path)
    asked = _asked_filters(_page_number, _list_start)
    filters = asked
    if term is not None:
        key = "categories" if term.taxonomy == "category" else "tags"
        filters = replace(asked, **{key: [reading.filter_value(term.slug, term.id)]})
    page = _page_number()
    is_past = req.args.get("past") == "1" or req.args.get("eventDisplay") == "past"
    now, window = _list_start(is_past)
    if is_past:
        events, total = reading.past(filters, page, PAGE_SIZE, now)
        more = page * PAGE_SIZE < total
    else:
        events, more = reading.upcoming(filters, page, PAGE_SIZE, now)
    if page > 1 and not events:  # past the last page
        raise reading.NotFound("page")
    # This address's own links (pages, past and upcoming) keep what was asked of it.
    picked = _date_argument(TEC_DATE)
    day = _parse_day(picked) if picked is not None else None
    query = {**asked.query(), "past": 1 if is_past else None, TEC_DATE: picked}
    # Past and upcoming turn about the picked day, as the plugin's "Previous/Next events" do.
    since = {TEC_DATE: picked} if picked is not None else {}

    def page_link(number):
        return page_address(req.endpoint, req.view_args, **query, page=_paged(number))

    shown = _decorate(events)
    heading = _list_heading(is_past, asked.featured, term, day if is_past else _begun(day))
    choices = _choices(filters)
    return page_response(
        template,
        embed=embed,
        heading=heading,
        page_title=_list_title(heading, asked, page, choices),
        events=shown,
        page=page,
        previous=page_link(page - 1) if page > 1 else None,
        next=page_link(page + 1) if more else None,
        past_link=page_address(req.endpoint, req.view_args, **asked.query(), past=1, **since),
        upcoming_link=page_address(req.endpoint, req.view_args, **asked.query(), **since),
        is_past=is_past,
        filters=filters,
        views=_view_links(filters, day or reading.site_today(), is_past),
        feeds=_feeds(filters, window),
        json_ld=reading.events_ld([event["id"] for event in shown], shown),
        **choices,
        term=term,
        shown_day_iso=day.isoformat() if day else None,
        **context,
    )


# What a list holds, by (past, featured: True the featured ones, False the others, None all).
LIST_HEADINGS = {
    (False, None): N_("Upcoming events"),
    (False, True): N_("Featured events"),
    (False, False): N_("Upcoming events not featured"),
    (True, None): N_("Past events"),
    (True, True): N_("Past featured events"),
    (True, False): N_("Past events not featured"),
}
# A term's lists likewise; its whole upcoming list is headed by the term's name alone.
TERM_HEADINGS = {
    (False, True): N_("%(term)s: featured events"),
    (False, False): N_("%(term)s: upcoming events not featured"),
    (True, None): N_("%(term)s: past events"),
    (True, True): N_("%(term)s: past featured events"),
    (True, False): N_("%(term)s: past events not featured"),
}


# A list from a picked day says so: an upcoming one from a day already begun holds events
# that are over too, and a past one holds those that ended before the day (not before now).
DAY_HEADINGS = {
    (False, None): N_("Events from %(day)s"),
    (False, True): N_("Featured events from %(day)s"),
    (False, False): N_("Events not featured from %(day)s"),
    (True, None): N_("Events before %(day)s"),
    (True, True): N_("Featured events before %(day)s"),
    (True, False): N_("Events not featured before %(day)s"),
}
TERM_DAY_HEADINGS = {
    (False, None): N_("%(term)s: events from %(day)s"),
    (False, True): N_("%(term)s: featured events from %(day)s"),
    (False, False): N_("%(term)s: events not featured from %(day)s"),
    (True, None): N_("%(term)s: events before %(day)s"),
    (True, True): N_("%(term)s: featured events before %(day)s"),
    (True, False): N_("%(term)s: events not featured before %(day)s"),
}


def _begun(day: date | None) -> date | None:
    """The picked day of an upcoming list when it has begun (the list then holds events
    that are over), else None."""
    return day if day is not None and day <= reading.site_today() else None


def _list_heading(is_past: bool, featured: bool | None, term=None, since=None) -> str:
    """What a list holds, said by its heading and title (WCAG 2.4.2): a term's events, the
    featured ones or the others, upcoming or past, or from (before) the day ``since``, so
    that no two lists share a heading."""
    if since is not None:
        day = formatting.day_title(since, current_language())
        if term is None:
            return _(DAY_HEADINGS[is_past, featured], day=day)
        return _(TERM_DAY_HEADINGS[is_past, featured], term=term.name, day=day)
    if term is None:
        return _(LIST_HEADINGS[is_past, featured])
    held = TERM_HEADINGS.get((is_past, featured))
    return _(held, term=term.name) if held else term.name


def _list_title(heading: str, asked: reading.Filters, page: int, choices: dict) -> str:
    """A list's title, which says where the visitor is (WCAG 2.4.2): the search and the
    filters asked, by name (those the form offers from its choices, a tag or an organizer
    looked up), then the heading with its page number after the first. A term's page says
    its term in its heading already."""
    offered = {"categories": choices["categories"], "venue": choices["venues"]}
    chosen = []
    for name in reading.FILTERS[1:]:
        values = getattr(asked, name)
        if values and name in offered:  # most lists: none asked, nothing to look up
            known = {v: c.name for c in offered[name] for v in (c.slug, str(c.id))}
            chosen += [known.get(value, value) for value in values]
        elif values:
            chosen += [reading.filter_name(name, value) for value in values]
    parts = [_("Filtered by %(names)s", names=", ".join(chosen))] if chosen else []
    return list_title(heading, page, asked.search, parts)


def list_title(heading: str, page: int, search: str = "", parts: list | tuple = ()) -> str:
    """The title of a list, public or the editor's: the search, then what else narrows it
    (``parts``: filters, a status), then the heading with its page number after the
    first, so that two pages of one list, or a list and its search, are told apart."""
    if page > 1:
        heading = _("%(heading)s, page %(number)s", heading=heading, number=page)
    said = [_("Search: %(words)s", words=search)] if search else []
    return " · ".join([*said, *parts, heading])


def _list_start(is_past: bool = False) -> tuple[datetime, dict]:
    """Where a list reads from (now, or the start of The Events Calendar's
    ``tribe-bar-date``, in the site's zone), and its feed's window from there: the events
    not ended by then, or on the past list those ended before (the plugin's past view of a
    date lists what ended before it)."""
    picked = _date_argument(TEC_DATE)
    if picked is None:
        return reading.to_utc(reading.site_now()), PAST_FEED if is_past else UPCOMING_FEED
    start = reading.day_start(_parse_day(picked))
    bound = "ends_before" if is_past else "ends_after"
    return start, {bound: f"{start:%Y-%m-%dT%H:%M:%S}Z", **STRICT}


@bp.route("/events/list/", endpoint="list_view")
@bp.route("/events/", endpoint="list_view")  # registered first: the address links use
@cached
def list_view():
    moved = _tec_view_moved()
    return _list_page() if moved is None else moved


@bp.route("/events/embed/")
@cached
def embed_view():
    moved = _event_date_moved()
    return _list_page("embed.html", embed=True) if moved is None else moved


@bp.route("/events/category/<slug>/")
@cached
def category_view(slug):
    term = reading.term_page("category", slug)
    moved = _event_date_moved()
    if moved is not None:
        return moved
    return _list_page(term=term, meta_description=_described(term.description))


@bp.route("/events/tag/<slug>/")
@cached
def tag_view(slug):
    term = reading.term_page("tag", slug)
    moved = _event_date_moved()
    if moved is not None:
        return moved
    return _list_page(term=term, meta_description=_described(term.description))


# --- The Events Calendar's other address forms, moved to ours (SPEC §15) ------------------


def _moved_to(endpoint: str, view_args: dict | None = None, drop: tuple = (), **query):
    """A moved permanently to our address of a page, the request's query kept (less the
    names in ``drop``, and with ``query`` set)."""
    kept = [
        (name, value)
        for name, value in request.args.items(multi=True)
        if name not in drop and name not in query
    ]
    text = urlencode(kept + list(query.items()))
    return redirect(url_for(endpoint, **(view_args or {})) + (f"?{text}" if text else ""), 301)


@bp.route("/events/page/<int:number>/")
@bp.route("/events/list/page/<int:number>/")
def tec_list_page(number):
    return _moved_to("pages.list_view", page=number)


TERM_FILTERS = {"category": "categories", "tag": "tags"}


@bp.route("/events/<any(category, tag):taxonomy>/<slug>/list/")
@bp.route("/events/<any(category, tag):taxonomy>/<slug>/page/<int:number>/")
@bp.route("/events/<any(category, tag):taxonomy>/<slug>/list/page/<int:number>/")
def tec_term_list(taxonomy, slug, number=None):
    page = {"page": number} if number is not None else {}
    return _moved_to(f"pages.{taxonomy}_view", {"slug": slug}, **page)


@bp.route("/events/<any(category, tag):taxonomy>/<slug>/month/")
def tec_term_month(taxonomy, slug):
    return _moved_to(
        "pages.month_view", **{TERM_FILTERS[taxonomy]: reading.term_filter(taxonomy, slug)}
    )


# The plugin's feeds of its list and of a term's (WordPress's feed words; each page of the
# old site advertised one). Before a term's dated forms: the router tries it first.
TEC_FEEDS = "<any(feed, rdf, rss, rss2, atom):feed>"
RSS = "application/rss+xml"


@bp.route(f"/events/{TEC_FEEDS}/")
@bp.route(f"/events/<any(category, tag):taxonomy>/<slug>/{TEC_FEEDS}/")
@cached
def tec_feed(feed, taxonomy=None, slug=None):
    """The plugin's RSS feeds (``/events/feed/``, a category's or tag's ``feed/``): an RSS
    2.0 feed of the page it was the feed of (the upcoming list, or the term's), read as
    that page is (``_list_page``), so the readers subscribed before the move keep
    reading; ``?ical=1`` there is that page's calendar feed, as on the page."""
    term = reading.term_page(taxonomy, slug) if taxonomy else None
    # The channel's link is the page the feed is of, with its filters (a search's feed
    # links the search).
    query = _asked_filters().query()
    listed = (
        page_address(f"pages.{taxonomy}_view", {"slug": slug}, **query)
        if term
        else page_address("pages.list_view", **query)
    )
    response = _list_page("rss.xml", term=term, absolute=absolute_url, listed=listed)
    if response.status_code == 200:
        response.mimetype = RSS
    return response


@bp.route("/events/<any(category, tag):taxonomy>/<slug>/<dated>/")
@bp.route("/events/<any(category, tag):taxonomy>/<slug>/day/<dated>/")
def tec_term_dated(taxonomy, slug, dated):
    """A term's month (``YYYY-MM``), day (``YYYY-MM-DD``, ``day/YYYY-MM-DD``, ``today``)
    and export (``ical``) as the plugin's rewrite rules name them: our month or day view
    filtered by the term, or the feed of the term's page."""
    if dated == "ical":
        return _moved_to(f"pages.{taxonomy}_view", {"slug": slug}, ical=1)
    if _child_word(taxonomy, dated):  # /events/category/{parent}/{child}/
        return tec_child_category(slug, dated)
    return _moved_to_segment(dated, **{TERM_FILTERS[taxonomy]: reading.term_filter(taxonomy, slug)})


# Under the term forms' own root, so that their words (list, month, page…) are tried first.
@bp.route("/events/<any(category, tag):taxonomy>/<slug>/<child>/<path:trail>/")
def tec_child_category(slug, child, trail="", taxonomy="category"):
    """A child category's address as The Events Calendar writes it (its rewrite of
    ``tribe_events_cat`` is hierarchical: /events/category/{parent}/{child}/, and its
    ``/list/``, ``/month/``, dated and ``ical/`` forms after it): the child's own address
    of that form, moved (301) in one step. The path must follow the tree, as on the old
    site; any other names no page (a tag's too: tags have no children)."""
    if taxonomy != "category":
        raise reading.NotFound(child)
    parent = term = reading.term_page("category", slug)
    rest = [child, *trail.split("/")] if trail else [child]
    while rest and (below := _child_of(term, rest[0])) is not None:
        term, rest = below, rest[1:]
    if term is parent:  # no child named: not a hierarchical address
        raise reading.NotFound(child)
    if not rest:
        return _moved_to("pages.category_view", {"slug": term.slug})
    adapter = current_app.create_url_adapter(request)
    endpoint, args = adapter.match(f"/events/category/{term.slug}/{'/'.join(rest)}/")
    if endpoint == "pages.tec_child_category":  # a tail no form of a term's page names
        raise reading.NotFound(trail)
    return current_app.view_functions[endpoint](**args)


def _child_word(taxonomy: str | None, word: str) -> bool:
    """Whether a word after a category's address, where a term's dated forms sit, is
    no date, ``today``, ``month`` or ``ical``: a child category's slug (the hierarchical form)."""
    return (
        taxonomy == "category"
        and word not in {"today", "month", "ical"}
        and not _DATE_SHAPE.fullmatch(word)
    )


def _child_of(term, slug: str):
    """The category of ``slug`` when it sits right under ``term`` (None otherwise)."""
    with suppress(reading.NotFound):
        child = reading.term_page("category", slug)
        return child if child.parent == term.id else None
    return None


def _moved_to_date(text: str | None, view: str = "", drop: tuple = (), **query):
    """Our page of the month (``YYYY-MM``) or the day (``YYYY-MM-DD``) ``text`` names, moved
    (301): a dated address of The Events Calendar's, or its ``eventDate`` and
    ``tribe-bar-date``; ``view`` says which when the text alone does not (None: today or the
    current month). A date that is none is a 400, as on our own addresses."""
    view = view or ("month" if text is not None and text.count("-") == 1 else "day")
    if view == "month":
        if text is not None and text.count("-") > 1:  # a day's month: a day that is none, 400
            text = f"{_parse_day(text):%Y-%m}"
        month = {} if text is None else {"month": f"{_parse_month(text[:7]):%Y-%m}"}
        return _moved_to("pages.month_view", month, drop=drop, **query)
    if text is None:
        return _moved_to("pages.today_view", drop=drop, **query)
    return _moved_to("pages.day_view", {"day": f"{_parse_day(text):%Y-%m-%d}"}, drop=drop, **query)


# The plugin's names of a view's date in a query: its bar's date picker, and its views'
# own links (``eventDate``, a site without pretty permalinks).
TEC_DATES = (TEC_DATE, "eventDate")
# What a view of the plugin named by query (``eventDisplay``) leaves behind when moved to ours.
TEC_VIEW_QUERY = ("post_type", "eventDisplay", "eventDate")


def _is_segment(slug: str | None) -> bool:
    """Whether a slug of a query is one path segment, as slugs are (an address to move to)."""
    return bool(slug) and "/" not in slug and slug.strip(".") != ""


def _tec_view_moved():
    """Our page of a view The Events Calendar names by its query, on its list's address or
    the site's root (a site without pretty permalinks): ``eventDisplay=month`` or ``day``
    at its ``eventDate``, a list from ``eventDate``, the past list, each of a category
    (``tribe_events_cat``) or a tag (``tag``) when one is named: our view filtered by it
    (``categories`` or ``tags``, the filter form's names; a term's list is its own page).
    Moved (301), or None when the list (upcoming or past) is what was asked."""
    display = request.args.get("eventDisplay")
    picked = _date_argument("eventDate")
    name, taxonomy, slug = _queried_term()
    term = {TERM_FILTERS[taxonomy]: slug} if taxonomy else {}
    drop = (*TEC_VIEW_QUERY, name) if taxonomy else TEC_VIEW_QUERY
    if display in ("month", "day"):
        return _moved_to_date(picked, display, drop=drop, **term)
    # The past list from ``eventDate`` lists what ended before it (the plugin's past view
    # of a date), as ``?past=1&tribe-bar-date`` does.
    past = {"past": 1} if display == "past" else {}
    since = {TEC_DATE: picked} if picked is not None else {}
    if taxonomy:
        return _moved_to(f"pages.{taxonomy}_view", {"slug": slug}, drop=drop, **past, **since)
    if since:
        return _moved_to("pages.list_view", drop=drop, **past, **since)
    return None


def _event_date_moved():
    """The embed or a term's list named with The Events Calendar's ``eventDate`` (its links
    without pretty permalinks), moved to the same page from ``tribe-bar-date`` as the list's
    address is (``_tec_view_moved``): one address, whose canonical keeps the day, and a bad
    date the list's 400 page. None when no ``eventDate`` is given."""
    picked = _date_argument("eventDate")
    if picked is None:
        return None
    return _moved_to(request.endpoint, request.view_args, drop=("eventDate",), **{TEC_DATE: picked})


# The plugin's query names of its terms' views (its rewrite maps ``/events/tag/{slug}/`` to
# ``post_type=tribe_events&tag={slug}``): the name, our taxonomy.
TEC_QUERY_TERMS = {"tribe_events_cat": "category", "tag": "tag"}


def _queried_term() -> tuple[str, str | None, str]:
    """The query name, taxonomy and slug of the term a view of the plugin's query names
    (the first of ``TEC_QUERY_TERMS`` that is a slug), or ("", None, "") when none is."""
    for name, taxonomy in TEC_QUERY_TERMS.items():
        slug = request.args.get(name, "")
        if _is_segment(slug):
            return name, taxonomy, slug
    return "", None, ""


@bp.route("/events/<any(week, photo, map, summary):view>/")
@bp.route("/events/<any(week, photo, map, summary):view>/<day>/")
def tec_pro_view(view, day=None):
    """Events Calendar Pro's week, photo, map and summary views, moved to the list view
    (from ``day``, as the plugin's ``tribe-bar-date``, when the address names one)."""
    if day is None:
        return _moved_to("pages.list_view")
    return _moved_to("pages.list_view", **{TEC_DATE: f"{_parse_day(_dated(day)):%Y-%m-%d}"})


@bp.route("/events/day/<dated>/")
def tec_day(dated):
    return _moved_to_segment(dated)


@bp.route("/events/ical/")
@bp.route("/events/<dated>/ical/")
def tec_export(dated=None):
    """The plugin's export of its list (``/events/ical/``) and of a month's or a day's
    (``/events/{date}/ical/``): the feed of our page of it (``?ical=1``, ``page_response``)."""
    if dated is None:
        return _moved_to("pages.list_view", ical=1)
    return _moved_to_segment(dated, ical=1)


def _moved_to_segment(segment: str, **query):
    """A dated segment of the plugin's addresses (``today``, a month, a day) moved to our
    view of it; a word that is none names no page (404)."""
    if segment == "today":
        return _moved_to("pages.today_view", **query)
    return _moved_to_date(_dated(segment), **query)


# The Events Calendar's featured forms of its views (``Tribe__Events__Rewrite``): each view's
# address with ``featured/`` after it, of the archive or of a category's or tag's.
TERM_ROOT = "/events/<any(category, tag):taxonomy>/<slug>"


@bp.route("/events/featured/")
@bp.route("/events/featured/page/<int:number>/")
@bp.route("/events/list/featured/")
@bp.route("/events/list/featured/page/<int:number>/")
@bp.route(f"{TERM_ROOT}/featured/")
@bp.route(f"{TERM_ROOT}/featured/page/<int:number>/")
@bp.route(f"{TERM_ROOT}/list/featured/")
@bp.route(f"{TERM_ROOT}/list/featured/page/<int:number>/")
def tec_featured(taxonomy=None, slug=None, number=None):
    """The featured list and its pages: our list of featured events (``?featured=1``), the
    term's page for a term's."""
    page = {"page": number} if number is not None else {}
    if taxonomy is None:
        return _moved_to("pages.list_view", featured=1, **page)
    return _moved_to(f"pages.{taxonomy}_view", {"slug": slug}, featured=1, **page)


@bp.route("/events/featured/ical/", defaults={"dated": "ical"})
@bp.route("/events/month/featured/", defaults={"dated": "month"})
@bp.route("/events/<dated>/featured/")
@bp.route("/events/day/<dated>/featured/")
@bp.route(f"{TERM_ROOT}/featured/ical/", defaults={"dated": "ical"})
@bp.route(f"{TERM_ROOT}/month/featured/", defaults={"dated": "month"})
@bp.route(f"{TERM_ROOT}/<dated>/featured/")
@bp.route(f"{TERM_ROOT}/day/<dated>/featured/")
def tec_featured_view(dated, taxonomy=None, slug=None):
    """The featured month, day (``today``, a date) and export: our view of it filtered to
    featured events (of the term, by our filter's name, as ``tec_term_dated`` moves them);
    the export, the feed of the featured list."""
    if dated == "ical":
        endpoint, view = ("list", {}) if taxonomy is None else (taxonomy, {"slug": slug})
        return _moved_to(f"pages.{endpoint}_view", view, featured=1, ical=1)
    if _child_word(taxonomy, dated):  # /events/category/{parent}/{child}/featured/
        return tec_child_category(slug, dated, "featured")
    term = {TERM_FILTERS[taxonomy]: slug} if taxonomy else {}
    if dated == "month":
        return _moved_to("pages.month_view", featured=1, **term)
    return _moved_to_segment(dated, featured=1, **term)


@bp.route("/event/<slug>/<day>/")
def tec_occurrence(slug, day):
    """Events Calendar Pro's address of one date of a series (``/event/{slug}/{day}/``)
    and of all its dates (``/event/{slug}/all/``), moved to our event pages."""
    if day == "all":
        return _moved_to("pages.event_view", {"slug": slug})
    if day == "ical":  # the plugin's export of the event: its feed (``page_response``)
        return _moved_to("pages.event_view", {"slug": slug}, ical=1)
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", day):  # a date as the plugin writes it
        raise reading.NotFound(day)
    parsed = _parse_day(day)  # a date that is none, or out of the pages' range: 400
    return _moved_to("pages.event_view", {"slug": reading.occurrence_slug(slug, parsed)})


def _parse_month(text: str | None) -> date:
    if text is None:
        return reading.site_today().replace(day=1)
    try:
        month = datetime.strptime(text, "%Y-%m").date()
    except ValueError:
        raise reading.BadRequest("month") from None
    if not _in_range(month):
        raise reading.BadRequest("month")
    return month


# What a day's address holds: digits and dashes. One that is not a date (2026-02-30) is a
# bad date (400); any other word after /events/ names no page (404). A month's address
# (/events/month/x/) names the month view: a bad month there is a 400.
_DATE_SHAPE = re.compile(r"[0-9]+-[0-9]+(-[0-9]+)?")


def _dated(segment: str) -> str:
    """The date of a day's address (/events/{day}/); a word that is no date (/events/feed/,
    /events/upcoming/) names no page: 404, where a bad date is a 400."""
    if not _DATE_SHAPE.fullmatch(segment):
        raise reading.NotFound(segment)
    return segment


def _in_range(day: date) -> bool:
    """Whether a day (or a month, by its first day) has a page: every day a stored date may
    fall on, as the API takes them (the days around it that the grid and a day's listing
    reach are bounded by ``reading.day_starts``)."""
    return dates.FIRST_DAY <= day <= dates.LAST_DAY


def _placed(spans: list, first: date, last: date) -> list[list]:
    """For each day of [first, last], the events (``Span``s) on it, in the site's timezone
    (an all-day event on its own dates): an event spanning days is on each."""
    count = (last - first).days + 1
    # Where each day begins, in UTC, as stored dates are written (their text sorts as
    # their time): an event is on the days between those around its start and its end.
    starts = reading.day_starts(first, count + 1)
    days: list[list] = [[] for _n in range(count)]
    for span in spans:
        if span.all_day:
            begin = (date.fromisoformat(span.start_date[:10]) - first).days
            end = (date.fromisoformat(span.end_date[:10]) - first).days
        else:
            begin = bisect_right(starts, span.utc_start) - 1
            # One ending at a midnight is not on the day that midnight begins.
            end = max(begin, bisect_left(starts, span.utc_end) - 1)
        for day in range(max(begin, 0), min(end, count - 1) + 1):
            days[day].append(span)
    return days


@bp.route("/events/month/", endpoint="month_view")
@bp.route("/events/month/<month>/", endpoint="month_view")
@cached
def month_view(month=None):
    picked = _tec_date()
    moving = month is None and picked is not None  # The Events Calendar's month of a date

    def dated():
        return _moved_to_date(picked, "month", drop=TEC_DATES) if moving else _parse_month(month)

    filters = _asked_filters(dated)
    if moving:
        return dated()
    first_of_month = dated()
    if month is not None and month != f"{first_of_month:%Y-%m}":  # 2026-1: to 2026-01
        return _to_canonical(month=f"{first_of_month:%Y-%m}")
    lang = current_language()
    start_weekday = formatting.first_weekday(lang)
    grid_first = first_of_month - timedelta(days=(first_of_month.weekday() - start_weekday) % 7)
    days_in_month = month_math.monthrange(first_of_month.year, first_of_month.month)[1]
    last_of_month = first_of_month.replace(day=days_in_month)
    after = (start_weekday - 1 - last_of_month.weekday()) % 7
    # The grid's last week stops at the last day there is (9999-12-31).
    grid_last = date.fromordinal(min(last_of_month.toordinal() + after, dates.LAST_DAY.toordinal()))
    # The grid shows three events a day (their titles and links, from their spans) and how
    # many more each day has.
    by_day = reading.events_by_day(filters, grid_first, grid_last, MOST_PER_DAY)
    shown = list(dict.fromkeys(span.id for _total, spans in by_day for span in spans))
    today, query = reading.site_today(), filters.query()
    grid, empty = _grid(by_day, grid_first, first_of_month.month, today, lang, query)
    previous = (first_of_month - timedelta(days=1)).replace(day=1)
    following = dates.day_after(last_of_month)
    # The day the month's day link and date picker open: today in the current month.
    shown_day = today if today.replace(day=1) == first_of_month else first_of_month
    return page_response(
        "month.html",
        heading=formatting.month_title(first_of_month, lang),
        grid=grid,
        empty=empty,
        weekdays=formatting.weekday_names(lang),
        previous=_month_link(previous, query),
        next=_month_link(following, query),
        filters=filters,
        views=_view_links(filters, shown_day),
        feeds=_feeds(filters),
        json_ld=reading.events_ld(list(shown)),
        most_per_day=MOST_PER_DAY,
        zone_note=formatting.zone_note(current_app.config["SITE_TIMEZONE"], grid_first, grid_last),
        shown_day_iso=shown_day.isoformat(),
        **_choices(filters),
    )


def _month_link(month: date, query: dict) -> str | None:
    if not _in_range(month) or month.day != 1:  # none before 1000-01 or after 9999-12
        return None
    return page_address("pages.month_view", {"month": f"{month:%Y-%m}"}, **query)


def _day_link(day: date, query: dict) -> str | None:
    return (
        page_address("pages.day_view", {"day": day.isoformat()}, **query)
        if _in_range(day)
        else None
    )


# Events a day of the month grid shows; a link to the day names how many more it has.
MOST_PER_DAY = 3


# What HTML escapes (markupsafe's ``escape``): most titles, links and labels of a grid hold
# none of it, and are written as they are.
_ESCAPED = re.compile("[&<>\"']").search


def _html(text: str) -> str:
    """``text`` escaped for HTML as the templates escape it (markupsafe), looked at first:
    ``escape`` costs four times the look, and a grid writes four hundred texts."""
    return escape(text) if _ESCAPED(text) else text


def _grid(by_day, first: date, month: int, today: date, lang: str, query: dict):
    """The grid's rows of seven days from ``first``, each day with the events it shows
    (``by_day``: how many events each day has, and those it shows), and whether the
    month's own days show none. Written here a cell at a time, escaping only what varies
    (titles, links, labels): month.html's loops over the days and their events escaped 630
    values a page, and cost 3.4 M of its 37.7 M instructions (callgrind). What a day
    writes of itself (its number and date, ``_day_face``) is made once per day and
    language, not at each grid that shows it."""
    item_of, day_links = _grid_items(_event_links()), _day_links(first, len(by_day), query)
    clocks, more_of = _start_clocks(by_day, first, lang), _more_texts()
    rows, cells, empty = [], [], True
    last, origin = len(by_day) - 1, first.toordinal()
    for n, (total, spans) in enumerate(by_day):
        # fromordinal: a day's date for an eighth of what adding a ``timedelta`` cost
        day, link, starting = date.fromordinal(origin + n), day_links[n], clocks[n]
        in_month, is_today = day.month == month, day == today
        empty = empty and not (in_month and spans)
        number, label = _day_face(day, lang)
        classes = ("" if in_month else "other-month") + (" today" if is_today else "")
        if link is not None:
            current = ' aria-current="date"' if is_today else ""
            number = f'<a class="day-number" href="{link}"{current}>{number}</a>'
        else:
            number = f'<span class="day-number">{number}</span>'
        if spans:
            items = "".join([item_of(span, starting.get(span.id, "")) for span in spans])
            cells.append(f'<td class="{classes}">{number}<ul>{items}</ul>')
        else:
            cells.append(f'<td class="{classes} no-events">{number}')
        more = total - MOST_PER_DAY if link else 0
        cells.append(f"{more_of(link, label, more)}</td>" if more > 0 else "</td>")
        if len(cells) == 14 or n == last:  # the grid's last week may be short
            rows.append(f"<tr>{''.join(cells)}</tr>")
            cells = []
    return Markup("\n".join(rows)), empty


@lru_cache(maxsize=4096)
def _day_face(day: date, lang: str) -> tuple[str, str]:
    """A grid day's number and date written out (for screen readers and the phone's
    list), as the inside of its day link, and the date alone (what its "more" link
    names): the same in every grid that shows the day."""
    label = formatting.short_day(day, lang)
    inner = f'<span class="num" aria-hidden="true">{day.day}</span><span class="full">{_html(label)}</span>'
    return inner, label


def _more_texts():
    """(day link, day's date, how many more) → the day's "N more" link (``_more_link``),
    its words made once a count on a page."""
    more_on, counted = translate("%(count)s more on %(day)s"), {}

    def more_of(link: str, label: str, more: int) -> str:
        text = counted.get(more)
        if text is None:
            text = counted[more] = _html(ngettext("%(num)s more", "%(num)s more", more))
        return _more_link(link, _more_label(more_on, label, more), text)

    return more_of


@lru_cache(maxsize=4096)
def _more_label(more_on: str, label: str, more: int) -> str:
    """A "more" link's name (``more_on``, its message in the page's language, filled with
    how many more and the day's date), escaped: nearly every day of a busy month has one,
    and the same day and count make the same name on every page that shows them."""
    return _html(more_on % {"count": more, "day": label})


def _grid_items(link_of):
    """(span, start time) → the list item of that event in the grid: its title linked to
    its page, made once a page (an event of several days is on each)."""
    made: dict[tuple[int, str], str] = {}

    def item_of(span, time: str) -> str:
        key = (span.id, time)
        text = made.get(key)
        if text is None:
            link, clock, title = link_of(span.slug), time, span.title
            if _ESCAPED(f"{link}{clock}{title}"):  # most hold nothing to escape: one look
                link, clock, title = escape(link), escape(clock), escape(title)
            shown = f'<span class="time">{clock}</span> ' if clock else ""
            text = made[key] = f'<li><a href="{link}">{shown}{title}</a></li>'
        return text

    return item_of


def _more_link(link: str, label: str, text: str) -> str:
    """A day's "N more" link, named for its day: a links list read out holds one "5
    more" for each busy day."""
    return f'<a class="more" href="{link}" aria-label="{label}">{text}</a>'


def _day_links(first: date, count: int, query: dict) -> list[str | None]:
    """The day pages of ``count`` days from ``first``, escaped for HTML, from one address
    built by the router (a grid links 42)."""
    if not (_in_range(first) and _in_range(first + timedelta(days=count - 1))):
        links = (_day_link(first + timedelta(days=n), query) for n in range(count))
        return [None if link is None else escape(link) for link in links]
    before, _day, after = escape(_day_link(date(2000, 1, 1), query)).partition("2000-01-01")
    # isoformat: strftime took 6 µs a day (a year of four digits is the same text)
    origin = first.toordinal()
    return [f"{before}{date.fromordinal(origin + n).isoformat()}{after}" for n in range(count)]


def _spans_around(filters: reading.Filters, first: date, last: date) -> list:
    """The spans of the events that may be on the site's days [first, last]: a day more on
    each side, for an all-day event of a far zone (on its own dates, whatever their UTC
    times); ``_placed`` keeps each to its days."""
    return reading.spans_between(filters, reading.day_start(first, -1), reading.day_start(last, 2))


def _start_clocks(by_day: list[tuple], first: date, lang: str) -> list[dict[int, str]]:
    """For each day of the grid from ``first``, the timed events it shows that start on
    it, with their start time in the site's zone written for ``lang``: the grid places
    events in the site's zone, and shows their times in it (an event begun on an earlier
    day, or all day, shows none)."""
    bounds, origin = reading.day_starts(first, len(by_day) + 1), first.toordinal()
    clocks = []
    for n, (_total, spans) in enumerate(by_day):
        begin, end = bounds[n], bounds[n + 1]
        # Its bounds are read only for a day that shows an event starting on it.
        starting = [s for s in spans if not s.all_day and begin <= s.utc_start < end]
        day = date.fromordinal(origin + n)
        clocks.append(_clocks_on(starting, day, begin, end, lang) if starting else {})
    return clocks


def _clocks_on(spans: list, day: date, begin: str, end: str, lang: str) -> dict[int, str]:
    """The start times of ``spans`` that start on the site's ``day`` (from ``begin`` to
    ``end``, UTC): on a day of 24 hours, its time is the time since the day began, read
    from the stored texts (``YYYY-MM-DD HH:MM:SS``: no date parsed, no time zone
    arithmetic per event; a start on that day is on ``begin``'s UTC date or the next)."""
    if not spans:
        return {}
    if {begin, end} & {dates.BEFORE_ALL, dates.AFTER_ALL}:  # the first or last day stored
        return _clocks_in_zone(spans, day, lang)
    midnight = datetime.fromisoformat(begin)
    if datetime.fromisoformat(end) - midnight != timedelta(days=1):  # the clocks change
        return _clocks_in_zone(spans, day, lang)
    first_date, began = begin[:10], _seconds_of(begin)
    clocks = {}
    for span in spans:
        start = span.utc_start
        if not begin <= start < end:
            continue
        if began:
            seconds = _seconds_of(start) - began + (0 if start[:10] == first_date else 86400)
            minutes = seconds // 60
            clock = f"{minutes // 60:02}:{minutes % 60:02}"
        else:  # a day begun at UTC's midnight (UTC's own, the bench's): the text's clock
            clock = start[11:16]
        clocks[span.id] = formatting.clock_text(clock, lang)
    return clocks


def _seconds_of(stored: str) -> int:
    """The time of day of a stored date (``YYYY-MM-DD HH:MM:SS``), in seconds."""
    return int(stored[11:13]) * 3600 + int(stored[14:16]) * 60 + int(stored[17:19])


def _clocks_in_zone(spans: list, day: date, lang: str) -> dict[int, str]:
    """``_clocks_on`` by the site's zone, event by event: a day the clocks change on, or
    the first or last day stored (an event starting before 1000-01-01 there, or after
    9999-12-31, starts on no day a page shows)."""
    site_tz = dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0]
    clocks = {}
    for span in spans:
        try:
            moment = dates.utc_to_local(dates.parse_stored(span.utc_start), site_tz)
        except dates.DateError:
            continue
        if moment.date() == day:
            clocks[span.id] = formatting.clock(moment, lang)
    return clocks


def _date_argument(name: str) -> str | None:
    """A date of the query (the date picker's ``date``, The Events Calendar's
    ``tribe-bar-date``), or None when it is absent or left empty: a picker sent without a
    date asks for the current view, not a bad date."""
    return request.args.get(name, "").strip() or None


def _tec_date() -> str | None:
    """The date The Events Calendar's query names for a view (``tribe-bar-date``,
    ``eventDate``), or None."""
    return _date_argument(TEC_DATE) or _date_argument("eventDate")


def _parse_day(text: str) -> date:
    try:
        day = datetime.strptime(text, "%Y-%m-%d").date()
    except ValueError:
        raise reading.BadRequest("day") from None
    if not _in_range(day):
        raise reading.BadRequest("day")
    return day


@bp.route("/events/today/", endpoint="today_view")
@cached
def today_view():
    if "date" in request.args:  # the date picker's form: to that day's (or month's) address
        picked = _date_argument("date")
        query = _asked_filters(lambda: picked and _parse_day(picked)).query()
        day = _parse_day(picked) if picked is not None else None  # none: today, this month
        if request.args.get("view") == "month":  # the month view's picker
            month = {"month": f"{day:%Y-%m}"} if day is not None else {}
            return redirect(url_for("pages.month_view", **month, **query), 303)
        if day is None:
            return redirect(url_for("pages.today_view", **query), 303)
        return redirect(url_for("pages.day_view", day=f"{day:%Y-%m-%d}", **query), 303)
    picked = _tec_date()

    def moved():  # The Events Calendar's day view of a date
        return _moved_to_date(picked, "day", drop=TEC_DATES)

    filters = _asked_filters(lambda: picked and moved())
    return _day_page(reading.site_today(), filters) if picked is None else moved()


@bp.route("/events/<day>/", endpoint="day_view")
@cached
def day_view(day):
    moving = _dated(day).count("-") == 1  # The Events Calendar's address of a month

    def dated():
        return _moved_to_date(day, "month") if moving else _parse_day(day)

    filters = _asked_filters(dated)
    if moving:
        return dated()
    parsed = dated()
    if day != f"{parsed:%Y-%m-%d}":  # 2026-1-5: to 2026-01-05
        return _to_canonical(day=f"{parsed:%Y-%m-%d}")
    return _day_page(parsed, filters)


def _to_canonical(**view_args):
    """A moved permanently to the page's own address, its query kept as it was (never as
    arguments of the router, which reads ``_external`` and the like as its own)."""
    query = urlencode(list(request.args.items(multi=True)))
    return redirect(url_for(request.endpoint, **view_args) + (f"?{query}" if query else ""), 301)


def _day_page(day: date, filters: reading.Filters):
    lang = current_language()
    # The events the month grid places on this day, by the same rule (``_placed``).
    spans = _placed(_spans_around(filters, day, day), day, day)[0]
    events = _decorate(reading.representations([s.id for s in spans[: reading.MOST_IN_A_VIEW]]))
    return page_response(
        "day.html",
        heading=formatting.as_heading(formatting.day_title(day, lang)),
        events=events,
        previous=_day_link(day - timedelta(days=1), filters.query()),
        next=_day_link(day + timedelta(days=1), filters.query()) if day < dates.LAST_DAY else None,
        filters=filters,
        views=_view_links(filters, day),
        feeds=_feeds(filters),
        json_ld=reading.events_ld([event["id"] for event in events], events),
        shown_day_iso=day.isoformat(),
        zone_note=formatting.zone_note(current_app.config["SITE_TIMEZONE"], day, day, True),
        **_choices(filters),
    )


# --- one item ---------------------------------------------------------------------------


class EventPage(MethodView):
    """An event; a password-protected one shows its title and dates and a form for its
    password (POST, field ``post_password``), throttled as the API's ``?password=``."""

    def get(self, slug):
        try:
            return _event_page(slug, None)
        except reading.NotFound:  # an address the moved site's event had before a rename
            return _moved_to("pages.event_view", {"slug": reading.renamed_event_slug(slug)})

    def post(self, slug):
        password = request.form.get("post_password", "")
        count_item_password(password)
        response = _event_page(slug, password or None, tried=True)
        response.headers["Cache-Control"] = "private, no-store"  # its links hold the password
        return response


bp.add_url_rule("/event/<slug>/", view_func=cached(EventPage).as_view("event_view"))


def _event_page(slug: str, password: str | None, tried: bool = False):
    event, locked = reading.event_page(slug, password)
    _decorate([event])
    _link_items(event)
    lang = current_language()
    venues = event["_venues"]
    location = address_line(venues[0]) if venues else ""
    series_id = recurrence.series_shown(event)
    upcoming = []
    if series_id and not locked:
        upcoming = _decorate(reading.occurrences(series_id, reading.to_utc(reading.site_now())))
    neighbours = reading.neighbours(event)
    plain = formatting_plain(event.get("description") or "")
    return page_response(
        "event.html",
        heading=event["title"],
        event=event,
        locked=locked,
        wrong_password=tried and locked,
        location=location,
        srcset=formatting.srcset(event["image"]) if event.get("image") else "",
        description=Markup(event.get("description") or ""),  # sanitised on write (nh3)
        ics=_event_ics(event, None if locked else password),
        google=formatting.google_event_link(
            event,
            location,
            plain,
            # An occurrence's link adds that date alone, as its .ics does.
            reading.series_as_ruled(series_id) if series_id == event["id"] and not locked else None,
        ),
        occurrences=[o for o in upcoming if o["id"] != event["id"]][:5],
        previous=_span_link(neighbours[0]),
        next=_span_link(neighbours[1]),
        json_ld=[] if locked else reading.ld_script(event.get("json_ld")),
        meta_description=_described(event.get("excerpt"), plain),
        og_image=event["image"]["url"] if event.get("image") else None,
        lang_of_dates=lang,
    )


# The items an event page links: their key in the event (as ``_decorate`` leaves it), and
# their page.
LINKED_PAGES = (
    ("_venues", "pages.venue_view"),
    ("organizer", "pages.organizer_view"),
    ("categories", "pages.category_view"),
    ("tags", "pages.tag_view"),
)


def _link_items(event: dict) -> None:
    """Each venue, organizer and term of ``event`` with the address of its page
    (``_link``): copies, as the items of a listing's events are shared between pages
    (app/render.py::parsed_event)."""
    for key, endpoint in LINKED_PAGES:
        items = event.get(key) or ()
        if any(items):
            link_of = slug_links(endpoint)
            event[key] = [
                {**item, "_link": link_of(item["slug"])} if item else item for item in items
            ]


def _span_link(span) -> dict | None:
    """What a page shows of an event it links by its title (``span``, or None)."""
    return None if span is None else {"_link": _event_links()(span.slug), "title": span.title}


def _event_ics(event: dict, password: str | None) -> str:
    """The event's own feed (the API's). An event opened by its password links a feed that
    opens by a key instead (``unlocked_feed``): the page never writes the password back
    (SPEC §2), and the API's feed of a protected event asks for it."""
    if not password:
        return f"{namespace_url()}/events/{event['id']}?ical=1"
    key = _feed_keys().dumps([event["id"], password_mark(password)])
    return absolute_url(page_address("pages.unlocked_feed", {"slug": event["slug"]}, key=key))


def _feed_keys() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key, salt="unlocked-event-feed")


# How long an unlocked page's .ics link opens the event's feed: a visitor saves the file
# from the page, or opens the page again.
FEED_KEY_SECONDS = 24 * 3600


@bp.route("/event/<slug>/unlocked.ics", endpoint="unlocked_feed")
def unlocked_feed(slug):
    """The feed of a protected event, for a key of its page opened by the event's current
    password (``_event_ics``): any other key, an old one, or one of a password since
    changed is the 404 of an unknown address. Kept by no cache."""
    row = reading.event_row(slug)
    try:
        event_id, mark = _feed_keys().loads(request.args.get("key", ""), max_age=FEED_KEY_SECONDS)
    except (BadData, TypeError, ValueError):
        raise reading.NotFound(slug) from None
    if event_id != row.id or not hmac.compare_digest(str(mark), password_mark(row.password)):
        raise reading.NotFound(slug)
    response = reading.event_feed(row, row.password)
    response.headers["Cache-Control"] = "private, no-store"
    return response


def formatting_plain(html: str) -> str:
    return " ".join(html_text(html).split())


def _described(html: str | None, fallback: str = "") -> str:
    """A page's meta description: its item's text (HTML: an excerpt, a description) as
    plain text, else ``fallback`` (plain text already read), cut where search engines cut;
    "" (the page's heading then) when the item says nothing."""
    return (formatting_plain(html or "") or fallback)[:160]


def _linked_view(kind: str, slug: str):
    """A venue or an organizer with its upcoming events, paged as the list view; an address
    an imported one had before the source renamed it moves to its page (301)."""
    try:
        item = reading.linked_page(kind, slug)
    except reading.NotFound:
        return _moved_to(request.endpoint, {"slug": reading.renamed_linked_slug(kind, slug)})
    name = item.get(kind) or ""
    page = _page_number()
    now = reading.to_utc(reading.site_now())
    filters = reading.Filters(**{kind: [str(item["id"])]})  # its list, feeds: this item's
    events, more = reading.upcoming(filters, page, PAGE_SIZE, now)
    if page > 1 and not events:  # past the last page
        raise reading.NotFound("page")

    def page_link(number):
        return page_address(request.endpoint, {"slug": slug}, page=_paged(number))

    return page_response(
        "linked.html",
        item=item,
        heading=name,
        events=_decorate(events),
        page=page,
        previous=page_link(page - 1) if page > 1 else None,
        next=page_link(page + 1) if more else None,
        map_link=formatting.map_link(item),
        address=address_line(item, with_name=False) if kind == "venue" else "",
        feeds=_feeds(filters, UPCOMING_FEED),
        json_ld=reading.ld_script(item.get("json_ld")),
        og_image=item["image"]["url"] if item.get("image") else None,
        srcset=formatting.srcset(item["image"]) if item.get("image") else "",
        meta_description=_described(item.get("description")),
    )


@bp.route("/venue/<slug>/")
@cached
def venue_view(slug):
    return _linked_view("venue", slug)


@bp.route("/organizer/<slug>/")
@cached
def organizer_view(slug):
    return _linked_view("organizer", slug)


def wants_page(req) -> bool:
    """Whether the client prefers a page to JSON (a browser's Accept)."""
    accept = req.accept_mimetypes
    return accept["text/html"] > accept["application/json"]


def home_page(view: str):
    """``GET /`` in a browser: the default view, whose own address is its canonical."""
    g.home_view = f"pages.{view}_view"
    return month_view() if view == "month" else list_view()


# The Events Calendar's items at the site's root, as a WordPress without pretty
# permalinks links them (``/?tribe_events=slug``): the query's name, our page of it.
TEC_ROOT_ITEMS = {
    "tribe_events": "pages.event_view",
    "tribe_venue": "pages.venue_view",
    "tribe_organizer": "pages.organizer_view",
}


def tec_home_address():
    """``GET /`` at an address of The Events Calendar's, moved (301), else None: its views at
    the site's root (``/?post_type=tribe_events…``; its "Subscribe to calendar" links add
    ``ical=1&eventDisplay=list``) to our list or month view, which moves ``ical=1`` to its
    feed in turn; a category's (``/?tribe_events_cat=slug``, with or without the views'
    query) to its page or our view filtered by it, keeping the view and date asked;
    ``/?tribe_events=slug`` (a site without pretty permalinks) to the item's page; and
    WordPress's shortlink of an imported item (``/?p=ID``) to its page."""
    for name, endpoint in TEC_ROOT_ITEMS.items():
        slug = request.args.get(name)
        if _is_segment(slug):
            return redirect(url_for(endpoint, slug=slug), 301)
    shortlink = _shortlink_target(request.args.get("p", ""))
    if shortlink is not None:
        return redirect(shortlink, 301)
    a_view = request.args.get("post_type") == "tribe_events"
    if not a_view and not _is_segment(request.args.get("tribe_events_cat")):
        return None
    moved = _tec_view_moved()
    return _moved_to("pages.list_view", drop=("post_type",)) if moved is None else moved


def _shortlink_target(post_id: str) -> str | None:
    """The page of the item the moved site knew as post ``post_id``: the import keeps its
    ``global_id`` (``host?id=ID``), looked up at the site's host as this service is reached
    or as ``SITE_URL`` names it, else under any host when the id names one site's post
    (``reading.readable_of_post``); None when no item an anonymous visitor may read has it."""
    number = as_id(post_id)
    if number is None:
        return None
    places = {urlsplit(f"//{request.host}").hostname or ""}
    configured = urlsplit(current_app.config["SITE_URL"] or "")
    if configured.hostname:
        places |= {configured.hostname, f"{configured.hostname}{configured.path.rstrip('/')}"}
    found = reading.readable_of_post(number, places)
    if found is None:
        return None
    kind, slug = found
    return url_for(f"pages.{kind}_view", slug=slug)


# --- for robots and other sites ---------------------------------------------------------


@bp.route("/sitemap.xml")
@cached
def sitemap():
    total = _sitemap_total()
    if total > SITEMAP_SIZE:  # an index of paged sitemaps
        parts = [
            url_for("pages.sitemap_part", number=n + 1, _external=False)
            for n in range(-(-total // SITEMAP_SIZE))
        ]
        body = render_template("sitemap_index.xml", parts=[absolute_url(p) for p in parts])
    else:
        body = _sitemap_body(0)
    return _for_robots(body, "application/xml")


@bp.route("/sitemap-<int:number>.xml")
@cached
def sitemap_part(number):
    if number < 1 or (number - 1) * SITEMAP_SIZE >= _sitemap_total():
        raise reading.NotFound("sitemap")
    return _for_robots(_sitemap_body((number - 1) * SITEMAP_SIZE), "application/xml")


PATHS = {
    "event": "event",
    "venue": "venue",
    "organizer": "organizer",
    "category": "events/category",
    "tag": "events/tag",
}


def _sitemap_total() -> int:
    """The addresses of the sitemap: the list view, then every public item's page."""
    return 1 + count_public()


def _sitemap_body(offset: int) -> str:
    """The ``SITEMAP_SIZE`` addresses from ``offset`` (the first is the list view's): no
    file holds more than the protocol allows."""
    root = site_url()
    first = [(root + "/events/", "")] if offset == 0 else []
    rows = public_pages(max(offset - 1, 0), SITEMAP_SIZE - len(first))
    urls = [
        (f"{root}/{PATHS[kind]}/{url_slug(slug)}/", modified[:10] if modified else "")
        for kind, slug, modified in rows
    ]
    return render_template("sitemap.xml", urls=first + urls)


@bp.route("/robots.txt")
def robots():
    site = site_url()
    # The site's own path: robots read the host's robots.txt, which names paths from its root.
    manage = f"{urlsplit(site).path}/manage/"
    body = f"User-agent: *\nDisallow: {manage}\nSitemap: {site}/sitemap.xml\n"
    response = _for_robots(body, "text/plain")
    response.set_etag(etag_of(body.encode())[1:-1])  # not a page the cache tags
    return response.make_conditional(request)


def _for_robots(body: str, mimetype: str) -> Response:
    """An answer for robots with the pages' headers (their Content-Security-Policy); a
    sitemap's ETag and 304 are the cache's (app/cache.py), as a page's."""
    response = Response(body, mimetype=mimetype)
    response.headers.update(_frame_headers())
    return response


# What the widget shows when the API refuses its attributes (data-categories="nope"), and
# when it has no event to show (the words of a venue's page with none: "—" said nothing).
WIDGET_UNAVAILABLE = N_("The events could not be shown.")
WIDGET_EMPTY = N_("No upcoming events.")


@bp.route("/widget.js")
def widget():
    """The widget's script at a stable address, revalidated by its ETag; it reads the API
    under this site's namespace, and says its messages in the site's languages."""
    config = current_app.config
    body = _widget_script(
        {
            "API": config["NAMESPACE_URL"],
            "LANGUAGES": [code.lower() for code in config["LANGUAGES"]],
            "DEFAULT": config["DEFAULT_LANGUAGE"],
            "UNAVAILABLE": _in_site_languages(WIDGET_UNAVAILABLE),
            "EMPTY": _in_site_languages(WIDGET_EMPTY),
        }
    )
    response = Response(body, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"  # revalidated by its ETag
    response.set_etag(etag_of(body.encode())[1:-1])
    return response.make_conditional(request)


def _in_site_languages(message: str) -> dict[str, str]:
    """``message`` by language root, as the widget picks it ("" the site's own)."""
    config = current_app.config
    said = {code.lower(): translate(message, code) for code in config["LANGUAGES"]}
    said[""] = translate(message, config["DEFAULT_LANGUAGE"])
    return said


# A setting of widget.js: one line of its own, which the site writes in.
_WIDGET_SETTING = re.compile(r"^  var ([A-Z]+) = .*;$", re.MULTILINE)


def _widget_script(settings: dict) -> str:
    """widget.js with each of its setting lines (``var NAME = …;``) holding the JSON of
    ``settings[NAME]``: values written as data, never spliced into the code's text."""
    with open(os.path.join(current_app.root_path, "static", "widget.js"), encoding="utf-8") as f:
        source = f.read()
    written = set()

    def setting(line: re.Match) -> str:
        if line[1] not in settings:
            return line[0]
        written.add(line[1])
        return f"  var {line[1]} = {_json_text(settings[line[1]])};"

    body = _WIDGET_SETTING.sub(setting, source)
    if written != set(settings):  # widget.js lost a setting line: fail, never serve it wrong
        raise RuntimeError(f"widget.js has no line for {sorted(set(settings) - written)}")
    return body


# --- errors -----------------------------------------------------------------------------


# What a page says, in its language, for an API error whose own message is for programmers.
VISITOR_MESSAGES = {"rest_no_route": N_("Nothing is published at this address.")}
# The editor's 404 (heading, message): its own (app/editor::_not_found), and at an address
# of the editor no route serves.
EDITOR_NOT_FOUND = (N_("Nothing here"), N_("There is nothing at this address that you may edit."))
# What a page says of a request gunicorn refused before the app read it (app/server.py).
REFUSED_MESSAGES = {
    414: N_("This address is too long to be read: check the link that led here."),
    431: N_("This request is too large to be read: removing this site's cookies may help."),
}


def _too_large_form() -> str:
    """What an editor's form past its size says: its own limit (an image's on the forms
    that send one, whatever made the body large; every other body's elsewhere), and how to
    go on without losing what was typed."""
    takes_image = request.endpoint in UPLOAD_ENDPOINTS
    setting = "MAX_UPLOAD_BYTES" if takes_image else "MAX_CONTENT_LENGTH"
    limit = f"{current_app.config[setting] / (1024 * 1024):g}"
    if takes_image:
        return _(
            "This form may send %(limit)s MB at most, its image included. Go back: the form "
            "still holds what you typed; choose a smaller image or shorten the text.",
            limit=limit,
        )
    return _(
        "This form may send %(limit)s MB at most. Go back: the form still holds what you "
        "typed; shorten the text.",
        limit=limit,
    )


def error_page(
    status: int, message: str, headers=None, code: str | None = None, link=None
) -> Response:
    """An error of a page as a page in the site's look (the API keeps its JSON); ``link``:
    (address, text) of the page to go to instead of the upcoming events."""
    editor = request.path.startswith("/manage")
    # An error of the embedded list is shown in its frame, as the list is (its links
    # leave the frame: every other page refuses to be framed).
    embed = request.endpoint == "pages.embed_view"
    if editor and code == "rest_no_route":
        message = translate(EDITOR_NOT_FOUND[1])
    elif code in VISITOR_MESSAGES:
        message = translate(VISITOR_MESSAGES[code])
    elif status in REFUSED_MESSAGES and request.environ.get(errors.REFUSED) == status:
        message = translate(REFUSED_MESSAGES[status])
    titles = {
        400: _("This address names no page"),
        403: _("Not allowed") if editor else _("This page needs a password"),
        404: translate(EDITOR_NOT_FOUND[0]) if editor else _("Page not found"),
        405: _("Not possible at this address"),
        413: _("Too large"),
        414: _("Address too long"),
        431: _("Too large"),
        429: _("Too many attempts"),
    }
    if status == 413 and editor:
        message = _too_large_form()
    if code == "rest_invalid_param" and request.method == "POST":  # a body's (app/forms.py)
        titles[400] = _("The form could not be read")
    try:
        response = page_response(
            "manage/message.html" if editor else "error.html",
            status=status,
            embed=embed,
            heading=titles.get(status, _("Something went wrong")),
            message=message,
            code=status,
            link=link,
            **(_editor_frame() if editor else {}),
        )
    except Exception:  # the frame itself failed (the database is down): a bare page
        response = Response(f"<!doctype html><title>{status}</title><h1>{status}</h1>", status)
        response.mimetype = "text/html"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    if editor:  # the editor's pages are kept by no one
        response.headers["Cache-Control"] = "private, no-store"
    return response


def _editor_frame() -> dict:
    """What the editor's frame shows of its user (its sections, signing out), for an
    editor's error drawn in it as the editor's own pages are (app/editor::_page)."""
    from flask_wtf.csrf import generate_csrf  # loaded by the editor's first request

    editor = g.get("editor")
    return {"editor": editor, "csrf_token": generate_csrf() if editor else ""}


def _not_found(_error):
    return error_page(404, translate(VISITOR_MESSAGES["rest_no_route"]))


BAD_CHOICE = N_("Check “%(name)s” in the address: one of the choices the page offers.")


def _bad_request(error):
    if isinstance(error, reading.UnknownFilter):
        return _unknown_filter(error)
    if isinstance(error, reading.BadChoice):
        return error_page(400, _(BAD_CHOICE, name=str(error)))
    said = [_("Check the date or page number in the address.")]
    if isinstance(error, reading.BadFlag):
        flag = _("Check “%(name)s” in the address: 1 or 0.", name=str(error))
        said = [flag, *said] if getattr(error, "others_bad", False) else [flag]
    return error_page(400, " ".join(said))


# What a page says of a filter naming nothing (a category deleted since the link was made).
UNKNOWN_FILTERS = {
    "categories": N_("No category “%(value)s”."),
    "tags": N_("No tag “%(value)s”."),
    "venue": N_("No venue “%(value)s”."),
    "organizer": N_("No organizer “%(value)s”."),
}


def _unknown_filter(error: reading.UnknownFilter):
    """Which filter names nothing, and a link to the same view without filters."""
    unfiltered = url_for(request.endpoint, **(request.view_args or {}))
    return error_page(
        400,
        translate(UNKNOWN_FILTERS[error.name]) % {"value": error.value},
        link=(unfiltered, _("See the events without filters")),
    )


@bp.after_request
def _with_policy(response: Response) -> Response:
    """Every answer of a page address carries the pages' Content-Security-Policy: those
    ``page_response`` makes have it, a redirect (an address moved) gets it here."""
    if "Content-Security-Policy" not in response.headers:
        response.headers.update(_frame_headers(request.endpoint == "pages.embed_view"))
    return response


def register_pages(app) -> None:
    app.register_blueprint(bp)
    # The app's, not the blueprint's: `GET /` shows a page too (``home_page``).
    app.register_error_handler(reading.NotFound, _not_found)
    app.register_error_handler(reading.BadRequest, _bad_request)
    app.jinja_loader = ChoiceLoader(
        [
            FileSystemLoader(os.path.join(app.instance_path, "templates")),
            FileSystemLoader(os.path.join(app.root_path, "templates")),
        ]
    )
    app.jinja_env.filters["demoted"] = demoted
    app.jinja_env.globals.update(
        _=_,
        ngettext=ngettext,
        address_line=address_line,
        venue_map=formatting.map_link,
        labelled=labelled,
        ld_scripts=ld_scripts,
        cost_text=formatting.cost,
        image_sizes=formatting.image_sizes,
        rss_date=formatting.rss_date,
    )
    # ``tojson`` (the pages' JSON-LD) by orjson: Flask's sorts the keys of each of a month's
    # hundred events.
    app.jinja_env.policies["json.dumps_function"] = _json_text
    app.jinja_env.policies["json.dumps_kwargs"] = {}
    app.add_url_rule("/static/site.css", "site_css", _site_css, methods=["GET"])
    errors.page_errors(_answers_a_page, error_page)


def demoted(html: str, top: int = 2) -> str:
    """The filter ``demoted`` (named for what it did first; copied templates call it): a
    description as a page shows it, its headings below the page's own and its tables
    focusable (rules/text.py::demote_headings, focusable_tables); HTML marked safe stays
    so."""
    moved = focusable_tables(demote_headings(str(html), top))
    return Markup(moved) if isinstance(html, Markup) else moved


def _answers_a_page(path: str) -> bool:
    """Whether an error at ``path`` is a page: the pages' addresses, the editor's (it is
    not indexed: app/headers.py), and any other address outside the API that a browser
    asks (an unknown language root, ``/xx/events/``); the API keeps its JSON errors, under
    an unknown language root too (``/xx/wp-json/...``: SPEC §1, a ``rest_no_route``)."""
    if is_page_path(path) or path.startswith("/manage"):
        return True
    api_root = current_app.config["API_ROOT"]
    under_root = "/" + path[1:].partition("/")[2]
    in_api = any(p == api_root or p.startswith(api_root + "/") for p in (path, under_root))
    return not in_api and wants_page(request)


def _json_text(value, **kwargs) -> str:
    """orjson's text; what it cannot write as Jinja's ``tojson`` would (an ``indent`` a site's
    template asks, keys that are not text) by the standard library's, as Jinja does."""
    if not kwargs:
        try:
            return orjson.dumps(value).decode()
        except TypeError:  # orjson.JSONEncodeError: a key that is not text
            pass
    return json.dumps(value, **kwargs)


def _site_css():
    from flask import send_from_directory

    return send_from_directory(os.path.join(current_app.instance_path, "static"), "site.css")
