"""Import of iCalendar files (SPEC §11), for ``POST {ns}/events/import`` and ``flask
import-ics``.

Each VEVENT goes through the write path of ``POST /events`` with an inline venue and
organizer: the body schema, ``prepare_event``, ``require``, ``apply_write_rules`` and
``save_event`` (which de-duplicates venues and organizers among what the importer may
read). Idempotent by UID: an event seen before is updated only when its ``SEQUENCE`` is
higher, or equal with a later ``LAST-MODIFIED``; otherwise nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flask import current_app
from marshmallow import ValidationError

from app.auth import apply_write_rules, may, require
from app.errors import ApiError, from_validation_error, invalid_params
from app.event_input import prepare_event
from app.i18n import _, translate
from app.ical import Incoming, NotICalendar, read_events
from schemas.events import EventCreate, EventUpdate
from store.events import find_imported_event, save_event
from store.posts import effective_status
from store.users import Viewer

OUTCOMES = ("created", "updated", "unchanged", "rejected")
# A new version of an event replaces it whole: what the VEVENT no longer has is removed.
CLEARED_ON_UPDATE = {"description": "", "venue": [], "organizer": [], "categories": []}


# What every iCalendar file starts with (after an optional byte-order mark and blank lines).
_CALENDAR_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*BEGIN:VCALENDAR", re.IGNORECASE)


def _not_icalendar(param: str):
    return invalid_params({param: _("Must be an iCalendar file (text/calendar, RFC 5545).")})


def check_file(data: bytes, param: str = "file") -> None:
    """A 400 naming ``param`` unless the bytes start like an iCalendar file: a check cheap
    enough to run before authorisation (parsing a whole file is not)."""
    if not _CALENDAR_START.match(data[:4096]):
        raise _not_icalendar(param)


def read_file(data: bytes | str, param: str = "file") -> list[Incoming]:
    """The VEVENTs of an uploaded file; a 400 naming ``param`` if it is not iCalendar."""
    try:
        return read_events(data, current_app.config["SITE_TIMEZONE"])
    except NotICalendar:
        raise _not_icalendar(param) from None


def import_events(
    items: list[Incoming],
    viewer: Viewer,
    status: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Imports ``items`` one by one (one short transaction each) and reports every UID."""
    report: dict = {outcome: [] for outcome in OUTCOMES}
    for item in items:
        outcome, entry = _import_one(item, viewer, status)
        report[outcome].append(entry)
        if progress is not None:
            progress(1)
    return report


def _is_newer(item: Incoming, event) -> bool:
    if item.sequence != event.ical_sequence:
        return item.sequence > event.ical_sequence
    return bool(item.modified) and item.modified > event.ical_modified


def _reason(error: ApiError) -> str:
    params = error.data.get("params")
    if isinstance(params, dict) and params:
        details = "; ".join(f"{name}: {message}" for name, message in params.items())
        return f"{error.message} ({details})"
    return error.message


def _import_one(item: Incoming, viewer: Viewer, status: str | None) -> tuple[str, dict]:
    if item.reason:
        return "rejected", {"uid": item.uid, "reason": translate(item.reason)}
    body = dict(item.body)
    if status:
        body["status"] = status
    existing = find_imported_event(item.uid, viewer.id)
    schema = EventCreate() if existing is None else EventUpdate()
    try:
        if existing is None:
            values, links = prepare_event(schema.load(body), None, viewer)
            require(viewer, "create")
            apply_write_rules(values, viewer, None)
            values.update(
                ical_uid=item.uid, ical_sequence=item.sequence, ical_modified=item.modified
            )
            event = save_event(values, links, viewer=viewer)
            return "created", {"uid": item.uid, "id": event.id}
        if not may(viewer, "read", existing, effective_status(existing)):
            # Someone else's unpublished event: not the importer's to see, nor to touch.
            require(viewer, "edit", existing, effective_status(existing))
        if not _is_newer(item, existing):
            return "unchanged", {"uid": item.uid, "id": existing.id}
        body = {**CLEARED_ON_UPDATE, **body}
        values, links = prepare_event(schema.load(body), existing, viewer)
        require(viewer, "edit", existing, effective_status(existing))
        apply_write_rules(values, viewer, existing)
        values.update(ical_sequence=item.sequence, ical_modified=item.modified)
        saved = save_event(values, links, existing, viewer=viewer)
        return "updated", {"uid": item.uid, "id": saved.id}
    except ValidationError as error:
        return "rejected", {
            "uid": item.uid,
            "reason": _reason(from_validation_error(error, schema)),
        }
    except ApiError as error:
        return "rejected", {"uid": item.uid, "reason": _reason(error)}
