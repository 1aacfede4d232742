"""``import-tec``: a live site of The Events Calendar, brought through its REST API
(``{site}/wp-json/tribe/events/v1``) into this calendar, through our own write pipelines
(SPEC §17).

Categories (parents first), tags, venues, organizers, then events, every page through
``next_rest_url``. Each item keeps its slug, status, dates and timezone, links, flags and
cost; its source ``global_id`` is kept as its origin (``global_id_lineage``). Images are
downloaded (http(s) only, the upload limits and decoding of our own uploads) into our media.

Running it again updates what changed at the source and creates what is new: an item is
found by its source ``global_id`` (the ``imported`` table, else its origin), a term by its
slug; what the source did not change since the last run (its ``modified_utc``) is left
alone. Each item is written with its record in one transaction, so a run stopped halfway
is finished by the next one.
"""

from __future__ import annotations

import copy
import email.utils
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.client import HTTPException
from urllib.parse import urlencode, urljoin, urlsplit

import orjson
from flask import current_app
from marshmallow import ValidationError

from app.errors import ApiError, from_validation_error
from app.event_input import change_event, create_event
from app.routes.categories import categories
from app.routes.media import decode, upload_folder
from app.routes.organizers import organizers
from app.routes.tags import tags
from app.routes.venues import venues
from schemas.events import EventCreate, EventUpdate
from schemas.linked import OrganizerCreate, OrganizerUpdate, VenueCreate, VenueUpdate
from schemas.terms import CategoryCreate, CategoryUpdate, TagCreate, TagUpdate
from store.db import write_transaction
from store.events import find_imported_event, get_event
from store.imported import imported, linked_by_origin, note_imported, term_by_slug
from store.linked import get_linked
from store.media import get_media, save_media
from store.posts import node_kind

NAMESPACE = "tribe/events/v1"
# Every date the source holds: its default window ends 24 months from now.
ALL_DATES = {"start_date": "1970-01-01 00:00:00", "end_date": "2999-12-31 23:59:59"}
PER_PAGE = 50  # the plugin's largest page
MAX_ANSWER_BYTES = 32 * 1024 * 1024
MAX_REDIRECTS = 5
TIMEOUT = 30
# 429 and 5xx answers are asked again, this many times, waiting 1, 2, 4… seconds (or what
# Retry-After says, at most RETRY_AFTER_MAX).
RETRIES = 5
RETRY_AFTER_MAX = 120
RETRIED = {429, 500, 502, 503, 504}
KINDS = ("categories", "tags", "venues", "organizers", "events", "images")
USER_AGENT = "events-calendar-import-tec/1.0"


class SourceError(Exception):
    """Why the source cannot be read: said as one ``Error:`` line."""


# --- reading the source -------------------------------------------------------------------


class _Redirects(urllib.request.HTTPRedirectHandler):
    """At most MAX_REDIRECTS, http(s) only; credentials never follow to another host."""

    max_redirections = MAX_REDIRECTS

    def http_error_302(self, req, fp, code, msg, headers):
        target = urljoin(req.full_url, headers.get("location") or headers.get("uri") or "")
        if urlsplit(target).scheme.lower() not in ("http", "https"):
            raise SourceError(f"{req.full_url} redirects to {target}, which is not http(s)")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urlsplit(newurl).netloc != urlsplit(req.full_url).netloc:
            new.remove_header("Authorization")
        return new


class Source:
    """A site's REST API: JSON answers, retried, bounded, with the account's credentials."""

    def __init__(self, site: str, user: str = "", password: str = ""):
        self.site = _site_root(site)
        self.host = urlsplit(self.site).netloc
        self.auth = _basic(user, password) if user else None
        self.opener = urllib.request.build_opener(_Redirects())
        self.api_root = f"{self.site}/wp-json"
        self.pretty = True  # ``/wp-json/…``; else ``?rest_route=/…`` (plain permalinks)

    def url(self, route: str, params: dict | None = None) -> str:
        query = urlencode(params or {})
        if self.pretty:
            return f"{self.api_root}{route}" + (f"?{query}" if query else "")
        return f"{self.site}/?rest_route={route}" + (f"&{query}" if query else "")

    def fetch(self, url: str, limit: int | None = None, accept="application/json"):
        """(status, headers, body) of a GET, 429 and 5xx asked again; SourceError when the
        site cannot be reached or its answer is too large (MAX_ANSWER_BYTES unless given)."""
        limit = limit or MAX_ANSWER_BYTES
        for attempt in range(RETRIES + 1):
            status, headers, body = self._get(url, limit, accept)
            if status not in RETRIED or attempt == RETRIES:
                return status, headers, body
            time.sleep(_wait(headers.get("Retry-After"), attempt))
        raise AssertionError("unreachable")

    def _get(self, url: str, limit: int, accept: str):
        request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": USER_AGENT})
        if self.auth and urlsplit(url).netloc == self.host:
            request.add_header("Authorization", self.auth)
        try:
            with self.opener.open(request, timeout=TIMEOUT) as response:
                return response.status, response.headers, _read(response, limit, url)
        except urllib.error.HTTPError as error:
            if error.code in (301, 302, 303, 307, 308):
                raise SourceError(
                    f"{url} redirects in a loop (more than {MAX_REDIRECTS})"
                ) from None
            with error:
                return error.code, error.headers, _read(error, limit, url)
        except urllib.error.URLError as error:
            reason = getattr(error, "reason", error)
            raise SourceError(f"cannot reach {url}: {reason}") from None
        except (HTTPException, OSError, ValueError) as error:
            raise SourceError(f"cannot read {url}: {error or type(error).__name__}") from None

    def json(self, url: str):
        status, _headers, body = self.fetch(url)
        if status in (401, 403):
            raise SourceError(f"{url} answered {status}: the site refused the credentials")
        if status != 200:
            raise SourceError(f"{url} answered {status}{_said(body)}")
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            raise SourceError(
                f"{url} did not answer JSON: {self.site} is not a WordPress site"
            ) from None

    def check(self) -> None:
        """The site is WordPress, runs the plugin's REST API, and takes the credentials."""
        index = self._index()
        namespaces = index.get("namespaces") if isinstance(index, dict) else None
        if not isinstance(namespaces, list):
            raise SourceError(f"{self.site} is not a WordPress site (no REST API index)")
        if NAMESPACE not in namespaces:
            raise SourceError(
                f"{self.site} runs WordPress but not The Events Calendar's REST API "
                f"(no {NAMESPACE} among its namespaces)"
            )
        if self.auth:
            me = self.url("/wp/v2/users/me")
            status, _headers, body = self.fetch(me)
            if status != 200:
                raise SourceError(
                    f"{me} answered {status}{_said(body)}: the site refused the user name "
                    "and application password"
                )

    def _index(self):
        status, _headers, body = self.fetch(f"{self.api_root}/")
        if status == 200:
            try:
                return orjson.loads(body)
            except orjson.JSONDecodeError:
                pass
        self.pretty = False  # plain permalinks: the API is at ?rest_route=
        status, _headers, body = self.fetch(self.url("/"))
        if status != 200:
            raise SourceError(f"{self.site} is not a WordPress site (no REST API at /wp-json/)")
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            raise SourceError(
                f"{self.site} is not a WordPress site (no REST API at /wp-json/)"
            ) from None

    def pages(self, kind: str, params: dict):
        """(total, items of each page) of a listing, page after page through
        ``next_rest_url`` (kept on the site's host, never a page twice)."""
        url = self.url(f"/{NAMESPACE}/{kind}", {"per_page": PER_PAGE, **params})
        first = self._page(url, kind)
        total = first.get("total")
        return (total if isinstance(total, int) else None), self._following(first, url, kind)

    def _following(self, page: dict, url: str, kind: str):
        seen = {url}
        while True:
            yield page[kind]
            next_url = page.get("next_rest_url")
            if not next_url or not page[kind]:
                return
            next_url = urljoin(url, next_url)
            if urlsplit(next_url).netloc != self.host or next_url in seen:
                raise SourceError(f"{url}: next_rest_url {next_url} leaves the listing")
            seen.add(next_url)
            url = next_url
            page = self._page(url, kind)

    def _page(self, url: str, kind: str) -> dict:
        answer = self.json(url)
        items = answer.get(kind) if isinstance(answer, dict) else None
        if not isinstance(items, list) or not all(
            isinstance(item, dict) and isinstance(item.get("id"), int) for item in items
        ):
            raise SourceError(f"{url} is not The Events Calendar's answer (no list of {kind})")
        return answer


def _site_root(site: str) -> str:
    parts = urlsplit(site.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise SourceError(f"{site!r} is not an http(s) address of a site")
    path = parts.path.rstrip("/")
    for tail in (f"/wp-json/{NAMESPACE}", "/wp-json"):
        if path.endswith(tail):
            path = path[: -len(tail)]
            break
    return f"{parts.scheme.lower()}://{parts.netloc}{path}"


def _basic(user: str, password: str) -> str:
    import base64

    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return f"Basic {token}"


def _read(response, limit: int, url: str) -> bytes:
    body = response.read(limit + 1)
    if len(body) > limit:
        raise SourceError(f"{url} answered more than {limit:,} bytes")
    return body


def _said(body: bytes) -> str:
    try:
        message = orjson.loads(body).get("message")
    except (orjson.JSONDecodeError, AttributeError):
        return ""
    return f" ({message})" if isinstance(message, str) and message else ""


def _wait(retry_after: str | None, attempt: int) -> float:
    """Seconds before asking again: Retry-After (seconds or an HTTP date), else 1, 2, 4…"""
    if retry_after:
        retry_after = retry_after.strip()
        if retry_after.isdigit():
            return min(float(retry_after), RETRY_AFTER_MAX)
        try:
            when = email.utils.parsedate_to_datetime(retry_after).timestamp()
            return max(0.0, min(when - time.time(), RETRY_AFTER_MAX))
        except (TypeError, ValueError, OverflowError):
            pass
    return float(2**attempt)


# --- the report ---------------------------------------------------------------------------


@dataclass
class Report:
    counts: dict = field(
        default_factory=lambda: {
            kind: {"created": 0, "updated": 0, "unchanged": 0, "failed": 0} for kind in KINDS
        }
    )
    failures: list[str] = field(default_factory=list)

    def count(self, kind: str, outcome: str) -> None:
        self.counts[kind][outcome] += 1

    def fail(self, kind: str, what: str, reason: str) -> None:
        self.counts[kind]["failed"] += 1
        self.failures.append(
            f"{kind[:-1] if kind != 'categories' else 'category'} {what}: {reason}"
        )


def _reason(error: Exception) -> str:
    if isinstance(error, ApiError):
        params = error.data.get("params") if isinstance(error.data, dict) else None
        if isinstance(params, dict) and params:
            return "; ".join(f"{name}: {message}" for name, message in params.items())
        return str(error.message)
    return str(error)


# --- writing ------------------------------------------------------------------------------


TERM_KINDS = {
    "categories": (categories, CategoryCreate, CategoryUpdate),
    "tags": (tags, TagCreate, TagUpdate),
}
LINKED_KINDS = {
    "venues": (venues, VenueCreate, VenueUpdate, "venue"),
    "organizers": (organizers, OrganizerCreate, OrganizerUpdate, "organizer"),
}
VENUE_FIELDS = (
    "address", "city", "country", "province", "state", "zip", "phone", "website", "stateprovince",
)  # fmt: skip
ORGANIZER_FIELDS = ("phone", "website", "email")


class Importer:
    """One run: the source's ids mapped to ours as items are written, and the report."""

    def __init__(self, source: Source, viewer, images: bool = True, progress=None):
        self.source = source
        self.viewer = viewer
        self.images = images
        self.report = Report()
        self.ids: dict[str, dict[int, int]] = {kind: {} for kind in KINDS}
        self.progress: Callable = progress or _no_progress
        self.seen_images: set[str] = set()
        self.protected: dict[int, str] = {}

    def run(self) -> Report:
        self.source.check()
        self._terms("categories")
        self._terms("tags")
        for kind in ("venues", "organizers"):
            self._each(kind, {}, self._linked)
        self.protected = self._protected_events()
        self._each("events", ALL_DATES, self._event)
        return self.report

    def _protected_events(self) -> dict[int, str]:
        """Source ids of the password-protected events the credentials show whole, with
        their password ("" when the site's API does not give it). The plugin masks such an
        event for a caller without the right to it (its flags are null): the listing is read
        once without credentials to find them. Their passwords come from WordPress's own
        route of the post type, when the site has it (``wp/v2/tribe_events``, edit context)."""
        if not self.source.auth:
            return {}  # masked events are recognised as they come
        anonymous = copy.copy(self.source)
        anonymous.auth = None
        _total, pages = anonymous.pages("events", ALL_DATES)
        protected = {item["id"]: "" for items in pages for item in items if _masked(item)}
        ids = sorted(protected)
        for start in range(0, len(ids), 100):
            chunk = ",".join(str(i) for i in ids[start : start + 100])
            params = {
                "context": "edit",
                "include": chunk,
                "per_page": 100,
                "_fields": "id,password",
            }
            status, _headers, body = self.source.fetch(
                self.source.url("/wp/v2/tribe_events", params)
            )
            try:
                answer = orjson.loads(body) if status == 200 else []
            except orjson.JSONDecodeError:
                answer = []
            for post in answer if isinstance(answer, list) else []:
                if isinstance(post, dict) and post.get("id") in protected:
                    password = post.get("password")
                    protected[post["id"]] = password if isinstance(password, str) else ""
        return protected

    def _each(self, kind: str, params: dict, write: Callable) -> None:
        total, pages = self.source.pages(kind, params)
        with self.progress(kind, total) as advance:
            for items in pages:
                for item in items:
                    write(kind, item)
                    advance(1)

    # terms: by slug, parents first (a parent the listing has not given yet waits)

    def _terms(self, kind: str) -> None:
        params = {"hide_empty": "false"}
        total, pages = self.source.pages(kind, params)
        with self.progress(kind, total) as advance:
            waiting: list[dict] = []
            for items in pages:
                for item in items:
                    waiting.append(item)
                    waiting = self._settle(kind, waiting, advance)
            for item in waiting:  # parents never given: imported at the top
                self._term(kind, {**item, "parent": 0})
                advance(1)

    def _settle(self, kind: str, waiting: list[dict], advance) -> list[dict]:
        progress = True
        while progress:
            progress = False
            still = []
            for item in waiting:
                parent = item.get("parent") or 0
                if parent and parent not in self.ids[kind] and kind == "categories":
                    still.append(item)
                    continue
                self._term(kind, item)
                advance(1)
                progress = True
            waiting = still
        return waiting

    def _term(self, kind: str, item: dict) -> int | None:
        routes, create, update = TERM_KINDS[kind]
        slug = str(item.get("slug") or "")
        body = {
            "name": _text(item.get("name")),
            "slug": slug or None,
            "description": _text(item.get("description")) or None,
        }
        if kind == "categories":
            body["parent"] = self.ids[kind].get(item.get("parent") or 0, 0)
        what = f"{body['name']!r} (source id {item['id']})"
        existing = term_by_slug(routes.taxonomy, slug) if slug else None
        try:
            if existing is not None:
                self.ids[kind][item["id"]] = existing.id
                same = (existing.name, existing.description, existing.parent) == (
                    body["name"],
                    body["description"] or "",
                    body.get("parent", 0),
                )
                if same:
                    self.report.count(kind, "unchanged")
                    return existing.id
                loaded = _loaded(update(), {k: v for k, v in body.items() if k != "slug"})
                routes.save(loaded, existing)
                self.report.count(kind, "updated")
                return existing.id
            term = routes.save(_loaded(create(), body), None)
        except ApiError as error:
            self.report.fail(kind, what, _reason(error))
            return None
        self.ids[kind][item["id"]] = term.id
        self.report.count(kind, "created")
        return term.id

    # venues and organizers

    def _linked(self, kind: str, item: dict) -> int | None:
        routes, create, update, name_field = LINKED_KINDS[kind]
        origin = _global_id(item, self.source)
        what = f"{_text(item.get(name_field))!r} (source id {item['id']})"
        existing = self._found(kind, origin, lambda: linked_by_origin(name_field, origin))
        if existing is not None and existing.status == "trash":
            self.report.count(kind, "unchanged")  # trashed here: it stays there, unlinked
            return None
        record = imported(f"{kind}:{origin}")
        modified = str(item.get("modified_utc") or "")
        if existing is not None and record is not None and record.modified == modified and modified:
            self.ids[kind][item["id"]] = existing.id
            self.report.count(kind, "unchanged")
            return existing.id
        fields = VENUE_FIELDS if kind == "venues" else ORGANIZER_FIELDS
        body = {
            name_field: _text(item.get(name_field)),
            "slug": item.get("slug") or None,
            "status": item.get("status") or None,
            "date_utc": item.get("date_utc") or None,
            "description": _text(item.get("description")),
            "excerpt": _text(item.get("excerpt")),
            **{name: _text(item.get(name)) for name in fields},
        }
        if kind == "venues":
            body["show_map"] = bool(item.get("show_map", True))
            body["show_map_link"] = bool(item.get("show_map_link", True))
            for coordinate in ("geo_lat", "geo_lng"):
                if isinstance(item.get(coordinate), int | float) and item.get(coordinate):
                    body[coordinate] = item[coordinate]
        body["image"] = self._image(item.get("image"), kind, what)
        try:
            with write_transaction():
                if existing is None:
                    saved = routes.write(_loaded(create(), body), None, {"origin": origin})
                else:
                    saved = routes.write(_loaded(update(), body), existing, {"origin": origin})
                note_imported(f"{kind}:{origin}", saved.id, modified)
        except ApiError as error:
            self.report.fail(kind, what, _reason(error))
            return None
        self.ids[kind][item["id"]] = saved.id
        self.report.count(kind, "created" if existing is None else "updated")
        return saved.id

    def _found(self, kind: str, origin: str, by_origin: Callable):
        record = imported(f"{kind}:{origin}")
        singular = kind[:-1]
        if record is not None and node_kind(record.local) == singular:
            row = (
                get_event(record.local) if kind == "events" else get_linked(singular, record.local)
            )
            if row is not None:
                return row
        return by_origin()

    def _link(self, kind: str, item) -> int | None:
        """Our id of a venue or organizer an event names: the one imported from the listing,
        else the embedded copy (a draft venue the listing did not show) written now."""
        if not isinstance(item, dict) or not isinstance(item.get("id"), int):
            return None
        if item["id"] in self.ids[kind]:
            return self.ids[kind][item["id"]]
        return self._linked(kind, item)

    def _term_link(self, kind: str, item) -> int | None:
        if not isinstance(item, dict) or not isinstance(item.get("id"), int):
            return None
        if item["id"] in self.ids[kind]:
            return self.ids[kind][item["id"]]
        return self._term(kind, item)

    # events

    def _event(self, kind: str, item: dict) -> None:
        origin = _global_id(item, self.source)
        what = f"{_text(item.get('title'))!r} (source id {item['id']})"
        existing = self._found(kind, origin, lambda: find_imported_event(origin, self.viewer.id))
        if existing is not None and existing.status == "trash":
            self.report.count(kind, "unchanged")  # trashed here: it stays there
            return
        record = imported(f"{kind}:{origin}")
        modified = str(item.get("modified_utc") or "")
        if existing is not None and record is not None and record.modified == modified and modified:
            self.report.count(kind, "unchanged")
            return
        password = self.protected.get(item["id"])
        if _masked(item) or password == "":
            # Its content is not ours to read, or would arrive without its password: public.
            self.report.fail(kind, what, MASKED)
            return
        body = self._event_body(item, what)
        body["password"] = password or ""
        try:
            with write_transaction():
                if existing is None:
                    saved = create_event(
                        _loaded(EventCreate(), body), self.viewer, {"ical_uid": origin}
                    )
                else:
                    saved = change_event(existing, _loaded(EventUpdate(), body), self.viewer)
                note_imported(f"{kind}:{origin}", saved.id, modified)
        except ApiError as error:
            self.report.fail(kind, what, _reason(error))
            return
        self.report.count(kind, "created" if existing is None else "updated")

    def _event_body(self, item: dict, what: str) -> dict:
        venue = item.get("venue")
        venues = venue if isinstance(venue, list) else [venue]
        organizer = item.get("organizer")
        organizers = organizer if isinstance(organizer, list) else [organizer]
        website = _text(item.get("website"))
        if website and website == item.get("url"):
            website = ""  # the plugin shows the event's own address when none is set
        body = {
            "title": _text(item.get("title")),
            "slug": item.get("slug") or None,
            "status": item.get("status") or None,
            "date_utc": item.get("date_utc") or None,
            "description": _text(item.get("description")),
            "excerpt": _text(item.get("excerpt")),
            "start_date": item.get("start_date"),
            "end_date": item.get("end_date"),
            "all_day": bool(item.get("all_day")),
            "timezone": item.get("timezone") or None,
            "cost": _text(item.get("cost")),
            # Not sent when empty: the event then shows its own address, as at the source.
            "website": website or None,
            "categories": _present(
                self._term_link("categories", t) for t in item.get("categories") or []
            ),
            "tags": _present(self._term_link("tags", t) for t in item.get("tags") or []),
            "venue": _present(self._link("venues", v) for v in venues),
            "organizer": _present(self._link("organizers", o) for o in organizers),
            "image": self._image(item.get("image"), "events", what),
        }
        for flag in ("show_map", "show_map_link", "hide_from_listings", "sticky", "featured"):
            body[flag] = bool(item.get(flag))
        return body

    # images

    def _image(self, image, kind: str, what: str) -> str:
        """Our media id (as the ``image`` field takes it) of an item's image, downloaded
        once per source URL; "" without one, or when it cannot be had (reported)."""
        url = (
            image.get("url")
            if isinstance(image, dict)
            else image
            if isinstance(image, str)
            else None
        )
        if not self.images or not isinstance(url, str) or not url:
            return ""
        key = f"images:{url}"
        record = imported(key)
        if record is not None and get_media(record.local) is not None:
            if url not in self.seen_images:  # counted once per run, however many items show it
                self.seen_images.add(url)
                self.report.count("images", "unchanged")
            return str(record.local)
        if url in self.seen_images:
            return ""  # could not be had earlier in this run: reported once
        self.seen_images.add(url)
        try:
            if urlsplit(url).scheme.lower() not in ("http", "https"):
                raise SourceError(f"{url} is not an http(s) address")
            limit = current_app.config["MAX_UPLOAD_BYTES"]
            status, _headers, data = self.source.fetch(url, limit, accept="image/*")
            if status != 200:
                raise SourceError(f"{url} answered {status}")
            media = save_media(decode(data), self.viewer.id, upload_folder())
        except (SourceError, ApiError) as error:
            self.report.fail("images", f"of {kind[:-1]} {what}", _reason(error))
            return ""
        note_imported(key, media.id)
        self.report.count("images", "created")
        return str(media.id)


MASKED = (
    "password-protected at the source, and its password is not readable through the site's "
    "API (the plugin never shows it; WordPress's wp/v2/tribe_events does to an editor): "
    "not imported, so that it does not arrive unprotected; add it by hand"
)


def _masked(item: dict) -> bool:
    """The plugin's (and our) masking of a password-protected event for a caller who may
    not read it: its flags, booleans otherwise, are null."""
    return item.get("all_day", False) is None and item.get("featured", False) is None


def _loaded(schema, body: dict) -> dict:
    try:
        return schema.load({k: v for k, v in body.items() if v is not None})
    except ValidationError as error:
        raise from_validation_error(error, schema) from None


def _global_id(item: dict, source: Source) -> str:
    value = item.get("global_id")
    if isinstance(value, str) and value:
        return value[:255]
    return f"{urlsplit(source.site).hostname}?id={item['id']}"


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _present(ids) -> list[int]:
    return [i for i in ids if i]


class _no_progress:
    def __init__(self, _kind, _total):
        pass

    def __enter__(self):
        return lambda _n: None

    def __exit__(self, *_exc):
        return False
