"""Rendered GET responses, cached per worker and validated by the data version.

A response is stored under (language root, host, path and query, viewer class) with the
data version it was rendered at. Every write bumps that version in the database, so each
worker sees it on its next request and stops serving older entries: no stale reads after
an acknowledged write. Listings also depend on the clock: entries expire after ``TTL``
seconds, and none outlives the next scheduled publication, the next start or end of an
event (an upcoming list loses what has just ended), or the next midnight of the site
timezone (when the default date window moves).

A JSON answer is kept from the second time its URL is asked (``ResponseCache.admit``), an
iCalendar feed from the first. Every JSON and iCalendar GET response carries an ``ETag``;
``If-None-Match`` gets a 304, and so does ``If-Modified-Since`` sent alone to an answer
dated by ``Last-Modified`` (a feed) that has not changed since. A feed whose window is
relative to now (``starts_before=+1 hour``) changes at moments no date marks: it is sent
no ``Last-Modified`` (``leave_undated``).
"""

from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime
from operator import itemgetter

from cachetools import LRUCache
from flask import Response, current_app, g, request
from werkzeug.http import http_date, parse_date

from app.auth import current_viewer
from app.headers import first_value
from app.ical import MIMETYPE as CALENDAR
from app.ical import accepts_calendar
from app.jsonresponse import kept
from app.urls import ASKED_NAMESPACE
from rules import clock
from store.db import data_version, written_times
from store.posts import last_clock_change, seconds_until_clock_change

TTL = 30.0
MAX_BYTES = 8 * 1024 * 1024  # per worker: pages asked again and again (a cold URL is not kept)
# What an entry costs beyond its body: the tuple, key, headers and dict slot.
ENTRY_OVERHEAD = 600
# A JSON answer is kept when its URL is asked a second time: the hashes of this many keys
# asked once are remembered. A URL asked once (a month at a random minute, a crawler's
# page) would only push out answers that are asked again, and the worker's heap kept the
# bytes it held (cold traffic took the workers from 70 to 120 MB resident).
ASKED_KEYS = 8192


def cached(view):
    """Declares that the GET answers of a view (a MethodView class or a view function) may
    be served from the cache."""
    view.cached = True
    return view


def _entry_size(key, headers, body: bytes) -> int:
    return (
        len(body)
        + sum(len(str(part)) for part in key)
        + sum(len(name) + len(value) for name, value in headers)
        + ENTRY_OVERHEAD
    )


class ResponseCache:
    def __init__(self, max_bytes: int = MAX_BYTES):
        # By bytes (an entry's last member), least recently used out first. Expiry is checked
        # here: TLRUCache's timed lookup took 6 us a hit against 1.3 (2026-11-27).
        self.entries = LRUCache(max_bytes, getsizeof=itemgetter(-1))
        self.lock = threading.Lock()  # for threaded workers
        self.asked = AskedOnce(ASKED_KEYS)

    def get(self, key, version: int):
        """(version, expires, status, headers, body, etag, size) of ``key`` at ``version``."""
        with self.lock:
            # ``get``, not ``[]``: a miss (every cold URL) raised KeyError through three frames.
            entry = self.entries.get(key)
            if entry is None:
                return None
            if entry[0] != version or entry[1] < clock.monotonic():
                del self.entries[key]
                return None
            return entry

    def put(
        self,
        key,
        version: int,
        status: int,
        headers: list,
        body: bytes,
        etag: str,
        lifetime: float = TTL,
    ):
        expires = clock.monotonic() + min(TTL, lifetime)
        size = _entry_size(key, headers, body)
        with self.lock:
            self.entries.pop(key, None)
            if size <= self.entries.maxsize:  # a larger answer is not kept
                self.entries[key] = (version, expires, status, headers, body, etag, size)

    def clear(self):
        with self.lock:
            self.entries.clear()
            self.asked = AskedOnce(ASKED_KEYS)

    def admit(self, key) -> bool:
        """Whether the answer of ``key`` should be kept: it was asked before (else the ask
        is noted, the oldest notes making room)."""
        with self.lock:
            return self.asked.again(hash(key))


class AskedOnce:
    """The hashes of keys asked once, the last ``size`` at most and half of them at least:
    two sets, the newer filled up to half of ``size`` and then becoming the older, the
    older dropped. Cold traffic fills them: an ``LRUCache`` of 8,192 hashes took 1.9 MB
    (three tables beside the hashes), these two sets 0.5 MB."""

    def __init__(self, size: int):
        self.half = max(1, size // 2)
        self.newer: set[int] = set()
        self.older: set[int] = set()

    def __len__(self) -> int:
        return len(self.newer) + len(self.older)

    def again(self, mark: int) -> bool:
        """Whether ``mark`` was noted (the note then used up), else noted."""
        for notes in (self.newer, self.older):
            if mark in notes:
                notes.discard(mark)
                return True
        self.newer.add(mark)
        if len(self.newer) >= self.half:
            self.older, self.newer = self.newer, set()
        return False


# A HEAD is answered as its GET, body left out (RFC 9110 §9.3.2): the same entry, ETag and 304.
READS = ("GET", "HEAD")


def _is_cacheable() -> bool:
    req = request._get_current_object()
    if req.method not in READS or req.endpoint is None:
        return False
    if req.content_length or "HTTP_TRANSFER_ENCODING" in req.environ:
        return False  # a GET's JSON body is parameters (``POST ?_method=GET``): not in the key
    app = current_app._get_current_object()
    known = app.extensions["calendar.cacheable"]  # whether its view is marked, by endpoint
    cacheable = known.get(req.endpoint)
    if cacheable is None:
        view = app.view_functions[req.endpoint]
        cacheable = known[req.endpoint] = getattr(view, "cached", False) or getattr(
            getattr(view, "view_class", None), "cached", False
        )
    return cacheable


def _key(context):
    """The request's cache key, worked out once per request (the viewer is known by then:
    the cache is consulted after authentication). Made of the WSGI environ's own values:
    the language root, scheme and host (links in the answers are absolute), path and query."""
    key = context.get("cache_key")
    if key is None:
        environ = request._get_current_object().environ
        key = context.cache_key = (
            environ.get("SCRIPT_NAME", ""),
            environ.get("wsgi.url_scheme", ""),
            # An empty Host and none at all make different links: each keeps its own.
            environ.get("HTTP_HOST"),
            environ.get("SERVER_NAME"),
            environ.get("SERVER_PORT"),
            environ.get("PATH_INFO", ""),
            environ.get(ASKED_NAMESPACE),  # the plugin's alias links in its own namespace
            environ.get("QUERY_STRING", ""),
            current_viewer().cache_key(),
            accepts_calendar(),  # the same URL answers JSON or iCalendar by Accept
        )
    return key


def etag_of(body: bytes) -> str:
    # SHA-1 for speed (hardware-assisted here: half of BLAKE2's time on a 40 kB page); an
    # ETag tells versions of one resource apart, it authenticates nothing.
    return '"' + hashlib.sha1(body, usedforsecurity=False).hexdigest()[:24] + '"'


def _not_modified(etag: str, headers=()) -> Response | None:
    """A 304 when the client's ``If-None-Match`` names the answer's ETag (RFC 9110 §13.1.2),
    or, sent without it (§13.1.3: it wins), its ``If-Modified-Since`` is not older than
    the answer's ``Last-Modified`` (``_unchanged_since``)."""
    req = request._get_current_object()  # one look-up: each through the proxy costs 2 µs
    environ = req.environ
    if "HTTP_IF_NONE_MATCH" in environ:
        if not (etag and req.if_none_match.contains_weak(etag.strip('"'))):
            return None
    elif "HTTP_IF_MODIFIED_SINCE" in environ:
        headers = list(headers)  # read twice: its date, then what the 304 keeps
        if not _unchanged_since(headers):
            return None
    else:
        return None
    response = Response(status=304)
    response.headers["ETag"] = etag
    # What the 200 would say of caching it (RFC 9110 §15.4.5): a feed's no-cache
    # (app/ical.py::calendar_response), its Last-Modified (which Werkzeug then leaves out
    # of a 304: §15.4.5 does not ask for it).
    for name, value in headers:
        if name in ("Last-Modified", "Cache-Control"):
            response.headers[name] = value
    return response


def _unchanged_since(headers) -> bool:
    """Whether the answer's ``Last-Modified`` is not after ``If-Modified-Since``, a date
    that is not in the future (one a clock set ahead sent would keep every later change
    out), and the data changed at most once in that second: two changes in one second (two
    writes, or a write and an event's start) date two answers the same, and the client
    may hold the first (§8.8.2.2: a date is a strong validator only if so known)."""
    stamp = next((value for name, value in headers if name == "Last-Modified"), None)
    since = request.if_modified_since
    if stamp is None or since is None or since.timestamp() > clock.timestamp():
        return False
    last = parse_date(stamp)
    if last is None or last > since:
        return False
    start = last.timestamp()
    written, clocked = _changes()
    moments = [moment for _version, moment in written] + [clocked]
    return sum(start <= moment < start + 1 for moment in moments) < 2


def _changes() -> tuple[list[tuple[int, float]], float]:
    """The last writes (data version, time) and the last moment the clock changed what a
    listing shows, in seconds since the epoch."""
    moment = last_clock_change(current_app.config["SITE_TIMEZONE"])
    return written_times(), moment.replace(tzinfo=UTC).timestamp()


def leave_undated() -> None:
    """Marks the current answer as having no modification date: its content changes with
    the clock at moments ``last_clock_change`` does not mark (a window relative to now,
    ``rules.dates.moves_untracked``), so a ``Last-Modified`` would keep a subscriber on a
    feed that changed. It is sent none, and its ``If-Modified-Since`` is ignored (RFC 9110
    §13.1.3: a resource without a modification date); its ETag still answers."""
    g.undated = True


def _dated_after_changes(headers) -> None:
    """A feed's ``Last-Modified`` (the latest change among its events, none when it has
    none) moved to the write that made the data version it was read at, or the clock's
    last change, when later: an event that left the feed (trashed, moved out of its
    dates or categories) left no change among those it holds, and the date must not go
    back (RFC 9110 §8.8.2). Read after the answer: a write made since cannot be told apart
    from the data it read, so with neither of the last two versions to date it by, the
    date is left out (rare: two writes during one answer); so it is for an answer left
    undated (``leave_undated``)."""
    if g.get("undated"):  # nothing to read: it is sent no date
        headers.pop("Last-Modified", None)
        return
    written, clocked = _changes()
    version = data_version()
    made = [moment for number, moment in written if number == version]
    if written and not made:
        headers.pop("Last-Modified", None)
        return
    stamp = first_value(headers, "Last-Modified")
    own = parse_date(stamp).timestamp() if stamp else 0.0
    latest = max(own, clocked, *made)
    headers["Last-Modified"] = http_date(datetime.fromtimestamp(int(latest), UTC))


def _lifetime(version: int, memo: dict) -> float:
    """Seconds until the data may look different without a write
    (``store.posts.seconds_until_clock_change``): computed once per version, and again
    once that moment has passed."""
    now = clock.timestamp()
    if memo.get("version") != version or memo.get("until", 0) <= now:
        memo["version"] = version
        memo["until"] = now + seconds_until_clock_change(current_app.config["SITE_TIMEZONE"])
    return max(0.0, memo["until"] - now)


def cached_response() -> Response | None:
    """The current request's answer from the cache, if it holds one: also for a view that
    waited for another thread to render the same answer (one feed at a time)."""
    if not _is_cacheable():
        return None
    context = g._get_current_object()
    version = context.cache_version = data_version()  # set only for cacheable requests
    entry = current_app.extensions["calendar.cache"].get(_key(context), version)
    if entry is None:
        return None
    _version, _expires, status, headers, body, etag, _size = entry
    context.cache_hit = True
    not_modified = _not_modified(etag, headers)
    if not_modified is not None:
        return not_modified
    response = Response(body, status=status, headers=headers)
    response.headers["ETag"] = etag
    return response


# The answers tagged (ETag, 304) and kept: JSON, feeds (iCalendar, the plugin's RSS), pages
# and sitemaps.
TAGGED = ("application/json", CALENDAR, "text/html", "application/xml", "application/rss+xml")
# What an entry keeps of the view's own headers.
_KEPT_HEADERS = ("X-", "Link", "Content-", "Last-Modified", "Cache-Control")


def register(app) -> None:
    cache = ResponseCache()
    app.extensions["calendar.cache"] = cache
    app.extensions["calendar.cacheable"] = {}
    memo: dict = {}

    def serve_cached():
        """Runs after authentication (registered after it): answers from the cache."""
        return cached_response()

    def store_and_tag(response):
        if response.status_code != 200 or response.direct_passthrough:
            return response
        mimetype = response.mimetype
        if request._get_current_object().method not in READS or mimetype not in TAGGED:
            return response
        context = g._get_current_object()
        if context.get("cache_hit"):
            return response
        body = response.get_data()
        headers = response.headers
        if mimetype == CALENDAR:  # a feed, its events' latest change or none (empty)
            _dated_after_changes(headers)
        etag = first_value(headers, "ETag") or etag_of(body)
        headers["ETag"] = etag
        # Set by cached_response, for a GET of a view marked @cached only.
        version = context.get("cache_version")
        # A feed costs tens of milliseconds to build: kept when first asked.
        if version is not None and (mimetype == CALENDAR or cache.admit(_key(context))):
            own = [(k, v) for k, v in headers.items() if k.startswith(_KEPT_HEADERS)]
            lifetime = _lifetime(version, memo)
            cache.put(_key(context), version, 200, own, kept(body), etag, lifetime)
        not_modified = _not_modified(etag, headers.items())
        return not_modified or response

    app.before_request_funcs.setdefault(None, []).append(serve_cached)
    # After-request functions run last registered first: this one before the standard
    # headers (app/__init__.py), so entries keep only the view's own headers and every
    # answer, a 304 made here included, gets the standard ones.
    app.after_request_funcs.setdefault(None, []).append(store_and_tag)
