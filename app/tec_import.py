"""``import-tec``: a live site of The Events Calendar, read through its REST API
(app/tec_source.py), written into this calendar through our own write pipelines (SPEC §17).

Categories (parents first), tags, venues, organizers, then events. Each item keeps its slug,
status, dates and timezone, links, flags and cost; the source's ``global_id`` is its origin
(``global_id_lineage``). Images are downloaded (http(s) only, the upload limits, rights and
decoding of our own uploads) into our media.

Running it again updates what changed at the source and creates what is new: an item is
found by the source site and its id there (the ``imported`` table), a term by its id there,
else by its slug; what the source answers as it did when last written (``_digest``) is left
alone, and what was trashed here stays in the trash. Each item is written with its record in one
transaction, so a run stopped halfway is finished by the next one.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import unquote_plus, urlsplit

import orjson
from flask import current_app
from marshmallow import ValidationError

from app.auth import may
from app.errors import ApiError, from_validation_error
from app.event_input import change_event, create_event
from app.render import cost_amount, cost_out
from app.routes.categories import categories
from app.routes.media import decode, upload_folder
from app.routes.organizers import organizers
from app.routes.tags import tags
from app.routes.venues import venues
from app.tec_source import MAX_URL, NAMESPACE, Refused, Source, SourceError, loads, printable
from rules.dates import DateError, resolve_timezone
from rules.text import is_web_url, plain_text, sanitise_html
from schemas.events import EventCreate, EventUpdate
from schemas.linked import OrganizerCreate, OrganizerUpdate, VenueCreate, VenueUpdate
from schemas.terms import CategoryCreate, CategoryUpdate, TagCreate, TagUpdate
from store.db import write_transaction
from store.events import get_event, slug_free_for
from store.imported import (
    imported,
    note_floating,
    note_former_slug,
    note_imported,
    term_by_slug,
    term_imported,
)
from store.linked import get_linked
from store.media import delete_media, get_media, save_media, shown_anywhere
from store.posts import node_kind, slugify

# The statuses WordPress leaves without a date until they are published.
UNDATED = ("draft", "pending")
# Every date the source holds: its default window ends 24 months from now.
ALL_DATES = {"start_date": "1970-01-01 00:00:00", "end_date": "2999-12-31 23:59:59"}
KINDS = ("categories", "tags", "venues", "organizers", "events", "images")
# An event's links, by kind and the event's key for them.
LINK_KEYS = (("categories", "categories"), ("tags", "tags"), ("venues", "venue"),
             ("organizers", "organizer"))  # fmt: skip
SINGULAR = {"categories": "category", "tags": "tag", "venues": "venue",
            "organizers": "organizer", "events": "event", "images": "image"}  # fmt: skip
MASKED = (
    "password-protected at the source, and its password is not readable through the site's "
    "API (the plugin never shows it; WordPress's wp/v2/tribe_events does to an editor): "
    "not imported, so that it does not arrive unprotected; add it by hand"
)
MASKED_LINKED = (
    "password-protected at the source, and masked to a caller without the right to read it: "
    "run again with --user and --password (an editor's application password) to bring it"
)
COST_VALUE = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,15})?")  # of cost_details: "0", "30.5"
HIDDEN_UNLISTED = (
    "events hidden from listings could not be listed: the site does not answer WordPress's "
    "route of the post type (wp/v2/tribe_events); such events were not imported"
)
# Where an event names the items it links: (kind, its member).
EVENT_LINKS = (
    ("categories", "categories"), ("tags", "tags"), ("venues", "venue"), ("organizers", "organizer"),
)  # fmt: skip
# The source's own global_id, kept as the origin when it has the plugin's form.
GLOBAL_ID = re.compile(r"[A-Za-z0-9.\-\[\]:/_~%]{1,200}\?id=([0-9]{1,19})")


# --- the report ---------------------------------------------------------------------------


@dataclass
class Report:
    counts: dict = field(
        default_factory=lambda: {
            kind: {"created": 0, "updated": 0, "unchanged": 0, "failed": 0} for kind in KINDS
        }
    )
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what could not be known: exit 0

    def count(self, kind: str, outcome: str) -> None:
        self.counts[kind][outcome] += 1

    def fail(self, kind: str, what: str, reason: str) -> None:
        self.counts[kind]["failed"] += 1
        self.failures.append(printable(f"{SINGULAR[kind]} {what}: {reason}"))

    def warn(self, text: str) -> None:
        self.warnings.append(printable(text))


def _reason(error: Exception) -> str:
    if isinstance(error, ApiError):
        params = error.data.get("params") if isinstance(error.data, dict) else None
        if isinstance(params, dict) and params:
            return "; ".join(f"{name}: {message}" for name, message in params.items())
        return str(error.message)
    if isinstance(error, SourceError):
        return str(error)
    return f"unexpected {type(error).__name__}: {error}"


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
        self.failed: dict[str, set[int]] = {kind: set() for kind in KINDS}
        self.progress: Callable = progress or _no_progress
        self.seen_images: dict[str, int | None] = {}
        self.created: dict[str, set[int]] = {kind: set() for kind in KINDS}  # source ids
        self.listed: set[int] = set()  # source ids of the events read
        self.protected: dict[int, str] = {}
        self.members_only = False  # the site's API refuses callers without credentials
        # Our events whose source slug another held when written: {our id: source slug}.
        self.slug_waiting: dict[int, str] = {}
        # Our events whose source parent was not read yet when written: {our id: source id}.
        self.parent_waiting: dict[int, int] = {}
        parts = urlsplit(source.site)
        self.site_key = f"{parts.netloc}{parts.path}"  # the source's host, port and path

    @staticmethod
    def author_refused(viewer) -> str | None:
        """Why ``viewer`` may not import, or None. Our write rules would turn every event of
        an author who may not publish pending, and refuse every term to one who may not
        manage terms (dropping the events' links to them): editors and administrators."""
        if not may(viewer, "publish") or not may(viewer, "manage_terms"):
            return (
                f"{'an' if viewer.role[0] in 'aeiou' else 'a'} {viewer.role} may not publish "
                "or manage categories and tags, so the "
                "statuses and terms of the source would be lost; import as an editor or an "
                "administrator"
            )
        return None

    def run(self) -> Report:
        self.source.check()
        self._terms("categories")
        self._terms("tags")
        for kind in ("venues", "organizers"):
            self._each(kind, {}, self._linked)
        self.protected = self._protected_events()
        self._each("events", ALL_DATES, self._event)
        self._hidden_events()
        self._settle_slugs()
        self._settle_parents()
        return self.report

    def _each(self, kind: str, params: dict, write: Callable) -> None:
        total, pages = self.source.pages(kind, params)
        with self.progress(kind, total) as advance:
            for items in pages:
                for item in items:
                    self._guarded(kind, item, write)
                    advance(1)

    def _guarded(self, kind: str, item: dict, write: Callable):
        """``write(kind, item)``; whatever it raises beyond the pipelines' own errors is
        that item's failure, not the run's end."""
        try:
            return write(kind, item)
        except Exception as error:  # noqa: BLE001 (a source's item must not stop the run)
            self._failed(kind, item, error)
            return None

    def _failed(self, kind: str, item: dict, error: Exception) -> None:
        self.failed[kind].add(item["id"])
        name = item.get("title") or item.get(SINGULAR[kind]) or item.get("name")
        self.report.fail(kind, _what(name, item), _reason(error))

    def _keys(self, kind: str, item: dict) -> list[str]:
        """The keys of a source item's record: its ``global_id`` (the site's own name of it,
        the same whatever address the site is read by: http or https, another host name),
        then the address read (the key of earlier versions, and of an item without one)."""
        by_address = f"{kind}:{self.site_key}?id={item['id']}"
        global_id = _global_id(item)
        return [f"{kind}:{global_id}", by_address] if global_id else [by_address]

    def _origin(self, item: dict) -> str:
        """The source's ``global_id`` when it is the plugin's own for this item, else ours
        for it (host and path of the site)."""
        parts = urlsplit(self.source.site)
        return _global_id(item) or f"{parts.hostname}{parts.path}?id={item['id']}"

    # terms: by slug, parents first (a parent the listing has not given yet waits)

    def _terms(self, kind: str) -> None:
        total, pages = self.source.pages(kind, {"hide_empty": "false"})
        with self.progress(kind, total) as advance:
            waiting: list[dict] = []
            for items in pages:
                for item in items:
                    waiting.append(item)
                    waiting = self._settle(kind, waiting, advance)
            for item in waiting:  # parents never given: imported at the top
                self._guarded(kind, {**item, "parent": 0}, self._term)
                advance(1)

    def _settle(self, kind: str, waiting: list[dict], advance) -> list[dict]:
        progress = True
        while progress:
            progress = False
            still = []
            for item in waiting:
                parent = _id(item.get("parent"))
                if kind == "categories" and parent and parent not in self.ids[kind]:
                    if parent not in self.failed[kind]:
                        still.append(item)
                        continue
                self._guarded(kind, item, self._term)
                advance(1)
                progress = True
            waiting = still
        return waiting

    def _term(self, kind: str, item: dict) -> int | None:
        routes, create, update = TERM_KINDS[kind]
        slug = _slug(item)
        body = {"name": _unescaped(item.get("name")), "slug": slug or None}
        body["description"] = _text(item.get("description")) or None
        if kind == "categories":
            body["parent"] = self.ids[kind].get(_id(item.get("parent")), 0)
        what = _what(body["name"], item)
        key = f"{kind}:{self.site_key}?id={item['id']}"
        # By its id at the source (a slug edited there is the same term), else as our rules
        # stored its slug (a first run, a term an earlier version recorded by slug only).
        stored = slugify(slug, letters=True) if slug else ""
        existing = term_imported(key, routes.taxonomy) or (
            term_by_slug(routes.taxonomy, stored) if stored else None
        )
        try:
            with write_transaction():
                if existing is None:
                    term = routes.save(_loaded(create(), body), None)
                    outcome = "created"
                else:
                    term, outcome = existing, "unchanged"
                    renamed = stored and stored != existing.slug
                    loaded = _loaded(update(), {**body, "slug": body["slug"] if renamed else None})
                    if renamed or not _same_term(existing, loaded):
                        term, outcome = routes.save(loaded, existing), "updated"
                note_imported(key, term.id)
        except ApiError as error:
            self.failed[kind].add(item["id"])
            self.report.fail(kind, what, _reason(error))
            return None
        self.ids[kind][item["id"]] = term.id
        if outcome == "created":
            self.created[kind].add(item["id"])
        self.report.count(kind, outcome)
        return term.id

    def _term_link(self, kind: str, item) -> int | None:
        """Our id of a term an event names: from the listing, else its embedded copy."""
        if not isinstance(item, dict) or not _id(item.get("id")):
            return None
        if item["id"] in self.ids[kind] or item["id"] in self.failed[kind]:
            return self.ids[kind].get(item["id"])
        return self._guarded(kind, item, self._term)

    # venues and organizers

    def _linked(self, kind: str, item: dict) -> int | None:
        routes, create, update, name_field = LINKED_KINDS[kind]
        keys, modified = self._keys(kind, item), _digest(item)
        existing, record = self._found(kind, keys)
        if existing is not None and existing.status == "trash":
            self.report.count(kind, "unchanged")  # trashed here: it stays there, unlinked
            return None
        if _text(item.get("status")) == "trash":
            # In the source's trash (an event still names it): not brought, not linked.
            return None
        if isinstance(item.get(name_field), list):  # the plugin's mask of its name: []
            return self._masked_linked(kind, item, existing)
        unchanged = _unchanged(record, item, keys[0], modified)
        if (
            existing is not None
            and unchanged
            and not self._image_brought(item, existing, kind, _unescaped(item.get(name_field)))
        ):
            self.ids[kind][item["id"]] = existing.id
            self.report.count(kind, "unchanged")
            return existing.id
        fields = VENUE_FIELDS if kind == "venues" else ORGANIZER_FIELDS
        body = {
            name_field: _unescaped(item.get(name_field)),
            "slug": _slug(item) or None,
            "status": _text(item.get("status")) or None,
            "date_utc": _date_utc(item),
            "description": _text(item.get("description")),
            "excerpt": _text(item.get("excerpt")),
            **{name: _text(item.get(name)) for name in fields},
            "website": self._website(item, kind, _unescaped(item.get(name_field))),
        }
        if kind == "venues":
            body["show_map"] = item.get("show_map") is not False
            body["show_map_link"] = item.get("show_map_link") is not False
            body.update(_coordinates(item, cleared=existing is not None))
        what = _what(body[name_field], item)
        image = self._image(item.get("image"), kind, what)
        body["image"] = str(image or "")
        try:
            with write_transaction():
                loaded = _loaded(create() if existing is None else update(), body)
                # Keyed by their origin: never merged into a look-alike (no de-duplication).
                saved = routes.write(loaded, existing, {"origin": self._origin(item)}, dedupe=False)
                note_imported(keys[0], saved.id, modified)
                if existing is not None and saved.slug != existing.slug:  # renamed there
                    note_former_slug(SINGULAR[kind], existing.slug, saved.id)
        except ApiError as error:
            self._drop_unused_image(image)
            self.failed[kind].add(item["id"])
            self.report.fail(kind, what, _reason(error))
            return None
        self.ids[kind][item["id"]] = saved.id
        if existing is None:
            self.created[kind].add(item["id"])
        self.report.count(kind, "created" if existing is None else "updated")
        return saved.id

    def _masked_linked(self, kind: str, item: dict, existing) -> int | None:
        """A venue or organizer password-protected at the source, read without the right to
        it (masked: no name, no address): one brought before stays as it is, linked; else
        the report names it by its slug, and says how to bring it."""
        if existing is not None:
            self.ids[kind][item["id"]] = existing.id
            self.report.count(kind, "unchanged")
            return existing.id
        self.failed[kind].add(item["id"])
        self.report.fail(kind, _what(_slug(item), item), MASKED_LINKED)
        return None

    def _found(self, kind: str, keys: list[str]):
        """(our item of this source item from an earlier run, or None when there is none or
        it was deleted; the source item's record), by the first of its keys on record."""
        record = next(filter(None, map(imported, keys)), None)
        if record is not None and record.source != keys[0]:
            with write_transaction():  # an earlier version's key: kept under the first too
                note_imported(keys[0], record.local, record.modified)
        singular = SINGULAR[kind]
        if record is None or node_kind(record.local) != singular:
            return None, record
        row = get_event(record.local) if kind == "events" else get_linked(singular, record.local)
        return row, record

    def _link(self, kind: str, item) -> int | None:
        """Our id of a venue or organizer an event names: the one imported from the listing,
        else the embedded copy (a draft venue the listing did not show) written now."""
        if not isinstance(item, dict) or not _id(item.get("id")):
            return None
        if item["id"] in self.ids[kind] or item["id"] in self.failed[kind]:
            return self.ids[kind].get(item["id"])
        return self._guarded(kind, item, self._linked)

    # events

    def _protected_events(self) -> dict[int, str]:
        """Source ids of the password-protected events the credentials show whole, with
        their password ("" when the site's API does not give it). The plugin masks such an
        event for a caller without the right to it (its flags are null): the listing is read
        once without credentials to find them. Their passwords come from WordPress's own
        route of the post type, when the site has it (``wp/v2/tribe_events``, edit context)."""
        if not self.source.auth:
            return {}  # masked events are recognised as they come
        try:
            _total, pages = self.source.without_credentials().pages("events", ALL_DATES)
            masked = {item["id"]: "" for items in pages for item in items if _masked(item)}
        except Refused:
            return self._every_password()
        return self._passwords(masked)

    def _every_password(self) -> dict[int, str]:
        """A site whose API answers signed-in callers only (a security plugin's setting)
        masks nothing to compare with: the protected events are those WordPress's own route
        gives a password. Without that route, none can be known: the run stops rather than
        bring them unprotected."""
        self.members_only = True
        passwords = self.source.passwords("tribe_events")
        if passwords is None:
            raise SourceError(
                f"{self.source.site} answers its REST API to signed-in callers only, and "
                "does not give its events' passwords (wp/v2/tribe_events): password-protected "
                "events cannot be told apart"
            )
        return passwords

    def _passwords(self, protected: dict[int, str]) -> dict[int, str]:
        """``protected`` with the passwords WordPress's own route gives (edit context)."""
        ids = sorted(protected)
        for start in range(0, len(ids), 100):
            chunk = ",".join(str(i) for i in ids[start : start + 100])
            params = {"context": "edit", "include": chunk, "per_page": 100}
            url = self.source.url("/wp/v2/tribe_events", {**params, "_fields": "id,password"})
            status, _headers, body = self.source.fetch(url)
            try:
                answer = loads(body) if status == 200 else []
            except orjson.JSONDecodeError:
                answer = []
            for post in answer if isinstance(answer, list) else []:
                if isinstance(post, dict) and post.get("id") in protected:
                    password = post.get("password")
                    protected[post["id"]] = password if isinstance(password, str) else ""
        return protected

    def _event(self, kind: str, item: dict) -> None:
        self.listed.add(item["id"])
        password = self.protected.get(item["id"])
        keys, modified = self._keys(kind, item), _digest(item, password)
        what = _what(_unescaped(item.get("title")), item)
        existing, record = self._found(kind, keys)
        if existing is not None and existing.status == "trash":
            self.report.count(kind, "unchanged")  # trashed here: it stays there
            return
        unchanged = _unchanged(record, item, keys[0], modified)
        if (
            existing is not None
            and unchanged
            and not self._links_created(item)
            and not self._image_brought(item, existing, kind, _unescaped(item.get("title")))
        ):
            self.ids[kind][item["id"]] = existing.id
            self._slug_kept(existing, item)  # a run that gave it a suffix is mended
            self._parent_kept(existing, item)  # as is one brought before parents were
            self.report.count(kind, "unchanged")
            return
        if _masked(item) or password == "":
            # Its content is not ours to read, or would arrive without its password: public.
            self.report.fail(kind, what, MASKED)
            return
        body, image = self._event_body(item, what)
        body["password"] = password or ""
        stamp = {"ical_uid": self._origin(item)}
        if not body["website"] and existing is not None:
            stamp["website"] = None  # unset again: it shows its own address, as at the source
        try:
            with write_transaction():
                if existing is None:
                    saved = create_event(_loaded(EventCreate(), body), self.viewer, stamp)
                else:
                    former = existing.slug
                    saved = change_event(existing, _loaded(EventUpdate(), body), self.viewer, stamp)
                    if saved.slug != former:  # renamed at the source: its address still leads here
                        note_former_slug("event", former, saved.id)
                note_imported(keys[0], saved.id, modified)
                note_floating(saved.id, body["date_utc"] is None and saved.status in UNDATED)
        except ApiError as error:
            self._drop_unused_image(image)
            self.report.fail(kind, what, _reason(error))
            return
        self.ids[kind][item["id"]] = saved.id
        self._slug_kept(saved, item)
        self._parent_kept(saved, item)
        self._note_lost_links(item, what)  # of an event saved, not of one that failed
        self.report.count(kind, "created" if existing is None else "updated")

    def _slug_kept(self, event, item: dict) -> None:
        """Notes an event that did not get its source slug (another event here held it):
        ``_settle_slugs`` gives it that slug once the run is over, when it is free then."""
        wanted = slugify(_slug(item), letters=True)
        if wanted and event.slug != wanted:
            self.slug_waiting[event.id] = wanted

    def _settle_slugs(self) -> None:
        """Each event that waited for its source slug takes it when the run freed it: two
        events renamed in one run (B to the slug A gave up, B read first) keep their
        addresses whatever the listing's order. A slug still held (an event of this
        calendar's own) is left as it is; the suffixed address leads to the event."""
        for local, wanted in self.slug_waiting.items():
            event = get_event(local)
            if event is None or not slug_free_for(wanted, local):
                continue
            try:
                with write_transaction():
                    former = event.slug
                    saved = change_event(
                        event, _loaded(EventUpdate(), {"slug": wanted}), self.viewer
                    )
                    note_former_slug("event", former, saved.id)
            except ApiError as error:
                self.report.fail("events", f"{plain_text(event.title)[:80]!r}", _reason(error))

    def _parent(self, item: dict) -> int | None:
        """Our id of the event an item names as its ``post_parent`` (Events Calendar Pro's
        link from each date of a series to its first), read earlier in this run; 0 for none;
        None (not sent) where the source has no such key (the plugin's core) or its parent
        is not read yet (``_settle_parents`` links it once the run is over)."""
        source_parent = _id(item.get("post_parent"))
        if not source_parent:
            return 0 if "post_parent" in item else None
        return self.ids["events"].get(source_parent)

    def _parent_kept(self, event, item: dict) -> None:
        """Notes an event without the parent the source gives it: one read before its parent
        (later in the listing), or brought by a version that dropped the link. A parent
        given here by hand is kept, as are an unchanged item's other local edits."""
        source_parent = _id(item.get("post_parent"))
        if source_parent and not event.post_parent:
            self.parent_waiting[event.id] = source_parent

    def _settle_parents(self) -> None:
        """Each event that waited for its parent is linked to it, when this run read it (an
        event brought now or before); a parent missing at the source, or not brought, leaves
        the event without one."""
        for local, source_parent in self.parent_waiting.items():
            parent, event = self.ids["events"].get(source_parent), get_event(local)
            if parent is None or event is None or event.post_parent == parent:
                continue
            try:
                with write_transaction():
                    body = _loaded(EventUpdate(), {"post_parent": parent})
                    change_event(event, body, self.viewer)
            except ApiError as error:
                self.report.fail("events", f"{plain_text(event.title)[:80]!r}", _reason(error))

    def _image_brought(self, item: dict, existing, kind: str, name: str) -> bool:
        """Whether an item unchanged at the source but still without its image here (its
        download failed, or a run was stopped before it) has it now: the image is asked
        again, and the item written again only when it arrives. Failed again, the item is
        left as it is (its ``modified``, its feeds' ETags), the failure reported."""
        image = item.get("image")
        url = image.get("url") if isinstance(image, dict) else image
        if not (self.images and isinstance(url, str) and url and not existing.image):
            return False
        return self._image(image, kind, _what(name, item)) is not None

    def _links_created(self, item: dict) -> bool:
        """Whether this run created an item the event links (deleted here since the last
        run): the event, however unchanged at the source, is written again to link it."""
        for kind, name in EVENT_LINKS:
            for linked in _list(item, name):
                if isinstance(linked, dict) and linked.get("id") in self.created[kind]:
                    return True
        return False

    def _hidden_events(self) -> None:
        """The events the plugin's listing leaves out for everyone (``hide_from_listings``):
        found among the ids of WordPress's own route of the post type, each read from the
        plugin's route of one event. Without that route, the report says so."""
        try:
            ids = self.source.post_ids("tribe_events")
        except SourceError as error:
            self.report.warn(f"{HIDDEN_UNLISTED} ({error})")
            return
        if ids is None:
            self.report.warn(HIDDEN_UNLISTED)
            return
        missing = sorted(set(ids) - self.listed)
        with self.progress("hidden events", len(missing)) as advance:
            for source_id in missing:
                try:
                    item = self.source.one("events", source_id)
                    self.protected.update(self._protected_one(item))
                except SourceError as error:
                    self.report.fail("events", f"(source id {source_id})", _reason(error))
                else:
                    self._guarded("events", item, self._event)
                advance(1)

    def _protected_one(self, item: dict) -> dict[int, str]:
        """``_protected_events`` of one event read alone: masked without the credentials?"""
        if not self.source.auth or self.members_only:
            return {}  # members only: _every_password found them all
        anonymous = self.source.without_credentials()
        status, _headers, body = anonymous.fetch(anonymous.url(f"/{NAMESPACE}/events/{item['id']}"))
        try:
            masked = status == 200 and _masked(loads(body))
        except (orjson.JSONDecodeError, AttributeError):
            masked = False
        return self._passwords({item["id"]: ""}) if masked else {}

    def _event_body(self, item: dict, what: str) -> tuple[dict, int | None]:
        website = self._website(item, "events", _unescaped(item.get("title")))
        if website and website == _unescaped(item.get("url")):
            website = ""  # the plugin shows the event's own address when none is set
        image = self._image(item.get("image"), "events", what)
        body = {
            "title": self._title(item),
            "slug": _slug(item) or None,
            "status": _text(item.get("status")) or None,
            "date_utc": _date_utc(item),
            "description": _text(item.get("description")),
            "excerpt": _text(item.get("excerpt")),
            "start_date": item.get("start_date"),
            "end_date": item.get("end_date"),
            "all_day": item.get("all_day") is True,
            "timezone": _text(item.get("timezone")) or self._zone_of(item),
            "cost": _cost(item),
            # Not sent when empty: the event then shows its own address, as at the source.
            "website": website or None,
            "categories": _ids(self._term_link("categories", t) for t in _list(item, "categories")),
            "tags": _ids(self._term_link("tags", t) for t in _list(item, "tags")),
            "venue": _ids(self._link("venues", v) for v in _list(item, "venue")),
            "organizer": _ids(self._link("organizers", o) for o in _list(item, "organizer")),
            "image": str(image or ""),
            "post_parent": self._parent(item),
        }
        for flag in ("show_map", "show_map_link", "hide_from_listings", "sticky", "featured"):
            body[flag] = item.get(flag) is True
        return body, image

    def _note_lost_links(self, item: dict, what: str) -> None:
        """A warning for each link of an event to an item whose import failed (named among
        the failures): the event is saved without it."""
        for kind, key in LINK_KEYS:
            for linked in _list(item, key):
                if isinstance(linked, dict) and _id(linked.get("id")) in self.failed[kind]:
                    self.report.warn(
                        f"event {what}: saved without its {SINGULAR[kind]} "
                        f"(source id {linked['id']}), which failed"
                    )

    def _title(self, item: dict) -> str:
        """The event's title; WordPress publishes a post without one (its slug is then its
        id) and our rules refuse an empty title: such an event is titled by its slug, so
        that its address is kept, and the report says so."""
        title = _unescaped(item.get("title"))
        if plain_text(title).strip():  # markup alone (an icon's <i></i>) is no title either
            return title
        self.report.warn(
            f"event (source id {item['id']}): no title at the source, titled by its slug"
        )
        return _slug(item) or str(item["id"])

    def _zone_of(self, item: dict) -> str | None:
        """The zone of an event saved before per-event zones (``timezone: ""``): its wall
        times are in the source site's zone, the one its REST index names, else the offset
        its ``utc_start_date`` shows; None (ours) when neither is known."""
        try:
            return resolve_timezone(self.source.timezone)[1]
        except DateError:
            pass  # none named, or one we do not know: the offset of its dates
        try:
            local = datetime.fromisoformat(_text(item.get("start_date")))
            utc = datetime.fromisoformat(_text(item.get("utc_start_date")))
        except ValueError:
            return None
        minutes = round((local - utc).total_seconds() / 60)
        if abs(minutes) > 14 * 60:
            return None
        hours, rest = divmod(abs(minutes), 60)
        return f"UTC{'-' if minutes < 0 else '+'}{hours}" + (f":{rest:02d}" if rest else "")

    def _website(self, item: dict, kind: str, name: str) -> str:
        """An item's website as an address: the plugin answers it through ``esc_html``
        (``&amp;``) and keeps it as typed (``www.example.org``, which its pages link as
        ``http://`` through ``esc_url``); one that is no address is left out, said in a
        warning, rather than losing the item."""
        website = _unescaped(item.get("website")).strip()
        if website and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", website):
            website = f"http://{website.removeprefix('//')}"
        if website and not is_web_url(website):
            self.report.warn(
                f"{SINGULAR[kind]} {_what(name, item)}: saved without its website "
                f"{website[:200]!r}, which is not an http(s) address"
            )
            return ""
        return website

    # images

    def _image(self, image, kind: str, what: str) -> int | None:
        """Our media id of an item's image, downloaded once per source URL; None without
        one, or when it cannot be had (reported once)."""
        url = image.get("url") if isinstance(image, dict) else image
        if not self.images or not isinstance(url, str) or not url:
            return None
        url = self.source.absolute(url)
        if url in self.seen_images:  # this run's: made, or reported once already
            return self.seen_images[url] if get_media(self.seen_images[url]) else None
        self.seen_images[url] = None
        key = f"images:{url}"
        record = imported(key) if len(url) <= MAX_URL else None
        if record is not None and get_media(record.local) is not None:
            self.seen_images[url] = record.local
            self.report.count("images", "unchanged")
            return record.local
        try:
            refused = self.source.image_url_error(url)
            if refused:
                raise SourceError(refused)
            limit = current_app.config["MAX_UPLOAD_BYTES"]
            status, _headers, data = self.source.fetch(
                url, limit, accept="image/*", guard=self.source.image_url_error
            )
            if status != 200:
                raise SourceError(f"{url} answered {status}")
            media = save_media(decode(data), self.viewer.id, upload_folder())
            note_imported(key, media.id)
        except (SourceError, ApiError) as error:
            self.report.fail("images", f"of {SINGULAR[kind]} {what}", _reason(error))
            return None
        self.seen_images[url] = media.id
        self.report.count("images", "created")
        return media.id

    def _drop_unused_image(self, media_id: int | None) -> None:
        """An image downloaded for an item that could not be written, shown by nothing: not
        left in the media library (where it would be public)."""
        media = get_media(media_id) if media_id else None
        if media is None:
            return
        if not shown_anywhere(media.id):
            delete_media(media, upload_folder())


def _global_id(item: dict) -> str | None:
    """The source's ``global_id`` of an item when it is the plugin's own for it."""
    value = item.get("global_id")
    if isinstance(value, str):
        match = GLOBAL_ID.fullmatch(value)
        if match and int(match.group(1)) == item["id"]:
            return value
    return None


DIGESTED = "sha256:"  # a record's digest; an earlier version's held modified_utc


def _digest(item: dict, *also) -> str:
    """What an item's record keeps of the source's answer last written (with ``also``,
    what else was written from the source: an event's password): a digest of it whole.
    WordPress moves an item's ``modified_utc`` only when the post itself is saved, not when
    its meta (a cost, a flag) or its terms (one deleted) change; comparing the whole answer
    brings every change, and leaves what did not change alone (local edits included)."""
    whole = orjson.dumps([item, *also], option=orjson.OPT_SORT_KEYS)
    return DIGESTED + hashlib.sha256(whole).hexdigest()


def _unchanged(record, item: dict, key: str, digest: str) -> bool:
    """Whether the source answers ``item`` as it did when its record was last written
    (``_digest``). A record an earlier version wrote holds the source's ``modified_utc``
    instead: compared as then, and when that has not moved, recorded under the digest (the
    item left as it is), so that the first run after the upgrade keeps the local edits."""
    if record is None:
        return False
    if record.modified.startswith(DIGESTED):
        return record.modified == digest
    modified_utc = _text(item.get("modified_utc"))
    if not modified_utc or record.modified != modified_utc:
        return False
    with write_transaction():
        note_imported(key, record.local, digest)
    return True


def _same_term(existing, loaded: dict) -> bool:
    """Whether an update would change nothing (compared as the write path stores them)."""
    name = loaded.get("name", existing.name).strip()
    description = sanitise_html(loaded.get("description") or "")
    parent = loaded.get("parent", existing.parent)
    return (existing.name, existing.description, existing.parent) == (name, description, parent)


def _masked(item: dict) -> bool:
    """The plugin's (and our) masking of a password-protected event for a caller who may
    not read it: its flags, booleans otherwise, are null."""
    return item.get("all_day", False) is None and item.get("featured", False) is None


def _loaded(schema, body: dict) -> dict:
    try:
        return schema.load({k: v for k, v in body.items() if v is not None})
    except ValidationError as error:
        raise from_validation_error(error, schema) from None


def _what(name, item: dict) -> str:
    text = plain_text(name) if isinstance(name, str) else ""
    return f"{text[:80]!r} (source id {item['id']})"


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _coordinates(item: dict, cleared: bool) -> dict:
    """A venue's map pin from the source: both coordinates, or (``cleared``, a venue brought
    before) both "", which clears them, since the plugin leaves out a pin removed there as it
    leaves out a removed website."""
    pin = {name: item.get(name) for name in ("geo_lat", "geo_lng")}
    if all(isinstance(v, int | float) and not isinstance(v, bool) and v for v in pin.values()):
        return pin
    return dict.fromkeys(pin, "") if cleared else {}


def _date_utc(item: dict) -> str | None:
    """The item's ``date_utc``; None for WordPress's ``0000-00-00 00:00:00``, the
    ``post_date_gmt`` of a draft or pending post never given a date (dated on publishing)."""
    value = _text(item.get("date_utc"))
    return None if not value or value.startswith("0000-00-00") else value


def _unescaped(value) -> str:
    """A title or name as the plugin gives it, through WordPress's ``the_title`` and
    ``esc_html`` (``Rock &#038; Roll``), as text (``Rock & Roll``): our write path stores
    text. Descriptions are HTML and keep their entities."""
    return html.unescape(_text(value))


def _cost(item: dict) -> str | list[str]:
    """The cost as our API takes it, so that it reads back as the source's: the source's
    text when our rules read the same ``cost_details`` from it; else one amount per value
    of ``cost_details``, with its currency symbol where it stands (the plugin's text is
    formatted: "Free – 30$" is the values 0 and 30, symbol "$" after them)."""
    text = _unescaped(item.get("cost"))  # given through esc_html, as titles are
    details = item.get("cost_details")
    values = details.get("values") if isinstance(details, dict) else None
    if not text or not isinstance(values, list) or not values:
        return text
    if not all(isinstance(v, str) and COST_VALUE.fullmatch(v) for v in values):
        return text  # a word ("free"): the text says it
    symbol, position = _unescaped(details.get("currency_symbol")), details.get("currency_position")
    _shown, read = cost_out(orjson.dumps(plain_text(text)).decode())
    if (read["currency_symbol"], read["currency_position"], read["values"]) == (
        symbol,
        position if symbol else "",
        sorted({cost_amount(value) for value in values}, key=float),  # "12.50" is our "12.5"
    ):
        return text
    if position == "postfix":
        return [f"{value}{symbol}" for value in values]
    return [f"{symbol}{value}" for value in values]


def _slug(item: dict) -> str:
    """The item's slug as WordPress means it: stored percent-encoded (``caf%c3%a9``), read
    with ``urldecode`` (``café``), the form its address answers to here."""
    return unquote_plus(_text(item.get("slug")))


def _id(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _list(item: dict, name: str) -> list:
    value = item.get(name)
    if isinstance(value, dict):
        return [value]  # a single venue is an object
    return value if isinstance(value, list) else []


def _ids(ids) -> list[int]:
    return [i for i in ids if i]


class _no_progress:
    def __init__(self, _kind, _total):
        pass

    def __enter__(self):
        return lambda _n: None

    def __exit__(self, *_exc):
        return False
