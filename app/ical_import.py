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
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta
from urllib.parse import unquote, urlsplit

from flask import current_app, has_request_context
from marshmallow import ValidationError

from app.auth import may, may_read, require
from app.errors import ApiError, from_validation_error, invalid_params
from app.event_input import change_event, create_event, discard_event, series_horizon
from app.i18n import N_, _, translate
from app.ical import (
    REASON_BAD_DATES,
    REASON_CANCELLED,
    Incoming,
    NotICalendar,
    NotUTF8,
    read_events,
    revised_utc,
    series_day,
    series_wall_time,
)
from app.ical_bounds import Bounds, OverBound
from app.render import event_path
from app.urls import site_host, site_url
from rules import dates, recurrence
from rules.clock import utcnow
from rules.ids import is_digits
from rules.posts import effective_status
from schemas.events import EventCreate, EventUpdate
from store import recurrence as series_rows
from store.db import write_transaction
from store.events import (
    find_imported_event,
    find_lone_occurrence,
    get_event,
    get_event_by_slug,
    load_relations,
    trash_event,
)
from store.terms import find_term
from store.users import Viewer

OUTCOMES = ("created", "updated", "unchanged", "rejected")
# A new version of an event replaces it whole: what the VEVENT no longer has is removed
# (a series whose VEVENT lost its RRULE ends, SPEC §12).
CLEARED_ON_UPDATE = {
    "description": "",
    "venue": [],
    "organizer": [],
    "categories": [],
    "website": "",
    "recurrence": [],
}
# An edited occurrence takes its recurrence from its series.
CLEARED_ON_OCCURRENCE = {k: v for k, v in CLEARED_ON_UPDATE.items() if k != "recurrence"}
REASON_NO_SERIES = N_(
    "The VEVENT changes one occurrence (RECURRENCE-ID) of a recurring event that is "
    "neither in the file nor imported before."
)
REASON_NO_DATE_LEFT = N_(
    "Every date of the recurring VEVENT is excluded (EXDATE, or a cancelled occurrence): "
    "it has none to show."
)
REASON_OTHER_USER = N_(
    "The event of this UID belongs to another user, whose events the importer may not edit."
)
REASON_TOO_MANY_CHANGES = N_(
    "The VEVENT changes more later occurrences (RANGE=THISANDFUTURE) than one file may change."
)
REASON_FIRST = N_(
    "The VEVENT changes the first occurrence of a series, which is the series itself."
)
REASON_WHOLE_SERIES = N_(
    "The VEVENT moves a whole series (RANGE=THISANDFUTURE on its first occurrence) in a way "
    "no recurrence can say: the dates of a rule without end moved off its days or hours, "
    "or a timed series made all day (or the reverse)."
)


# The page of an event at the end of a URL (``app/render.py::event_path``): its slug.
_EVENT_PAGE = re.compile(r"/event/([^/?#]+)/\Z")
# What every iCalendar file starts with (after an optional byte-order mark and blank lines).
_CALENDAR_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*BEGIN:VCALENDAR", re.IGNORECASE)


def _not_icalendar(param: str):
    return invalid_params({param: _("Must be an iCalendar file (text/calendar, RFC 5545).")})


def _not_utf8(param: str):
    return invalid_params(
        {param: _("Must be UTF-8 text: save the iCalendar file as UTF-8 and send it again.")}
    )


# The start of a file in UTF-16 (Notepad's "Unicode"), with or without its byte-order mark.
_UTF16_START = re.compile(rb"\A(?:\xff\xfe|\xfe\xff)|\A\x00?B\x00E\x00G\x00I\x00N")


def check_file(data: bytes, param: str = "file") -> None:
    """A 400 naming ``param`` unless the bytes start like an iCalendar file: a check cheap
    enough to run before authorisation (parsing a whole file is not)."""
    if not _CALENDAR_START.match(data[:4096]):
        raise _not_utf8(param) if _UTF16_START.match(data[:16]) else _not_icalendar(param)


def read_file(
    data: bytes | str, param: str = "file", bounds: Bounds | None = None
) -> list[Incoming]:
    """The VEVENTs of an uploaded file; a 400 naming ``param`` if it is not iCalendar, a
    413 (or 400) if reading it would cost more than ``bounds`` allow (by default those of
    an import over HTTP)."""
    config = current_app.config
    if bounds is None:
        bounds = Bounds(
            events=config["ICAL_IMPORT_MAX_EVENTS"], lines=config["ICAL_IMPORT_MAX_LINES"]
        )
    try:
        return read_events(data, config["SITE_TIMEZONE"], bounds)
    except NotUTF8:
        raise _not_utf8(param) from None
    except NotICalendar:
        raise _not_icalendar(param) from None
    except OverBound as error:
        message = error.said()
        if error.too_large:
            raise ApiError(
                "rest_payload_too_large", message, 413, params={param: message}
            ) from None
        raise invalid_params({param: message}) from None


def import_events(
    items: list[Incoming],
    viewer: Viewer,
    status: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Imports ``items`` one by one (one short transaction each) and reports every UID."""
    report: dict = {outcome: [] for outcome in OUTCOMES}
    most = current_app.config["RECURRENCE_MAX"]
    # What one file may cost beyond its events' own writes: occurrences THISANDFUTURE may
    # change, and occurrences worked out to find a series' recent part or next first date.
    budget = {"changes": most, "expanded": 50 * most}
    for group in _by_uid(items):
        for outcome, entry in _import_group(group, viewer, status, budget):
            report[outcome].append(entry)
            if progress is not None:
                progress(1)
    return report


def _by_uid(items: list[Incoming]) -> list[list[Incoming]]:
    """The VEVENTs grouped by UID, in the order of each UID's first VEVENT: a series and
    the VEVENTs that change its occurrences, wherever they stand in the file."""
    groups: dict[str, list[Incoming]] = {}
    for item in items:
        groups.setdefault(item.uid, []).append(item)
    return list(groups.values())


def _import_group(group: list[Incoming], viewer: Viewer, status: str | None, budget: dict) -> list:
    """The event (or series) of one UID, then the occurrences its other VEVENTs change."""
    masters = [item for item in group if not item.changes_occurrence]
    changes = [item for item in group if item.changes_occurrence and not item.reason]
    results = [
        ("rejected", _entry(item, reason=translate(item.reason)))
        for item in group
        if item.changes_occurrence and item.reason
    ]
    for item in masters:
        plan = _series_plan(item, changes, budget)
        results.append(_import_one(plan, viewer, status))
    written = False
    if masters:
        outcome, entry = results[-1]
        if outcome == "rejected" or plan.item.reason == REASON_CANCELLED:
            reason = entry.get("reason") or translate(REASON_CANCELLED)
            return results + [("rejected", _entry(item, reason=reason)) for item in changes]
        written = outcome in ("created", "updated")
        # The changes the series' body says itself were written (or found) with it.
        said = "updated" if written else "unchanged"
        results += [(said, _entry(item, id=entry["id"])) for item in plan.absorbed]
        for item in plan.absorbed:
            _retire_lone(item, viewer)
        results += [("rejected", _entry(c, reason=translate(why))) for c, why in plan.refused]
        changes = plan.changes
    if not changes:
        return results
    return results + _apply_changes(changes, viewer, status, budget, written)


def _apply_changes(
    changes: list[Incoming], viewer: Viewer, status: str | None, budget: dict, written: bool
) -> list:
    """The occurrences the VEVENTs of one UID change, in its series (in the file, just
    written when ``written``, or imported before)."""
    series = event_of_uid(changes[0], viewer)
    if (
        series is None or not recurrence.is_series(series) or not may_read(viewer, series)
    ):  # a series the importer may not read is answered as one that does not exist
        return [_import_alone(item, viewer, status) for item in changes]
    if not may(viewer, "edit", series, effective_status(series)):
        reason = translate(REASON_OTHER_USER)
        return [("rejected", _entry(item, reason=reason)) for item in changes]
    results = []
    named = _named_by_file(changes, series)
    for item in changes:
        expanded = _this_and_future(item, series, named)
        if expanded is None:
            results.append(("rejected", _entry(item, reason=translate(REASON_FIRST))))
            continue
        if len(expanded) > 1:  # one VEVENT, many writes: a file may ask for so many in all
            if len(expanded) > budget["changes"]:
                reason = translate(REASON_TOO_MANY_CHANGES)
                results.append(("rejected", _entry(item, reason=reason)))
                continue
            budget["changes"] -= len(expanded)
        outcomes = [_import_change(each, series.id, viewer, status, written) for each in expanded]
        results += outcomes
        if any(outcome != "rejected" for outcome, _entry_ in outcomes):
            _retire_lone(item, viewer)
    return results


def _nothing_left(item: Incoming, viewer: Viewer) -> tuple[str, dict]:
    """A series whose every date the file excludes: rejected with its reason, and the event
    an earlier import made of it, when the importer may delete it, moved to the trash."""
    existing = event_of_uid(item, viewer)
    if existing is None or existing.status == "trash":
        return "rejected", {"uid": item.uid, "reason": translate(item.reason)}
    return _taken_off(item, existing, viewer)


def _cancelled(item: Incoming, viewer: Viewer) -> tuple[str, dict]:
    """A VEVENT that says its event is cancelled (STATUS:CANCELLED, or METHOD:CANCEL): a
    newer version of an event imported before (SPEC §11, updated in place) takes it, or
    its whole series, off the calendar, to the trash as the API's DELETE moves it, and the
    answer says so; one already there is unchanged. Any other is rejected with its reason
    (a cancelled event is nothing to create)."""
    existing = event_of_uid(item, viewer)
    if existing is None or not (existing.status == "trash" or _is_newer(item, existing)):
        return "rejected", {"uid": item.uid, "reason": translate(REASON_CANCELLED)}
    note = {"note": translate(REASON_CANCELLED)}
    if existing.status == "trash":
        return "unchanged", {"uid": item.uid, "id": existing.id, **note}
    return _taken_off(item, existing, viewer, **note)


def _taken_off(item: Incoming, existing, viewer: Viewer, **noted) -> tuple[str, dict]:
    """``existing`` moved to the trash through the removal pipeline (``discard_event``),
    when the importer may delete it."""
    if not may(viewer, "delete", existing, effective_status(existing)):
        return "rejected", {"uid": item.uid, "reason": translate(REASON_OTHER_USER)}
    try:
        discard_event(existing, viewer)
    except ApiError as error:  # trashed meanwhile (another import of the file): as it says
        return "rejected", {"uid": item.uid, "reason": _reason(error)}
    return "updated", {"uid": item.uid, "id": existing.id, **noted}


def _import_alone(item: Incoming, viewer: Viewer, status: str | None) -> tuple[str, dict]:
    """An edit of one occurrence whose series the calendar does not have (Google exports
    the edits of a series whose own VEVENT it leaves out): an event of its own, as a
    calendar application shows it, named by its UID and RECURRENCE-ID and idempotent as
    any event; reported with a note saying so. A cancelled one removes the event an earlier
    import made of it, and is rejected as any cancelled VEVENT when there is none."""
    note = {"note": translate(REASON_NO_SERIES)}
    if item.cancelled:
        lone = find_lone_occurrence(item.uid, item.recurrence_key, viewer.id)
        if lone is None or lone.status == "trash":
            return "rejected", _entry(item, reason=translate(REASON_CANCELLED))
        if not may(viewer, "delete", lone, effective_status(lone)):
            return "rejected", _entry(item, reason=translate(REASON_OTHER_USER))
        trash_event(lone)
        return "updated", _entry(item, id=lone.id, **note)
    outcome, entry = _import_one(SeriesPlan(item, []), viewer, status)
    return outcome, {**_entry(item), **entry, **({} if outcome == "rejected" else note)}


def _retire_lone(item: Incoming, viewer: Viewer) -> None:
    """The event an earlier import made of ``item`` on its own, before its series came
    (``_import_alone``), goes to the trash: the series' occurrence shows the edit now."""
    if not item.recurrence_key:
        return
    lone = find_lone_occurrence(item.uid, item.recurrence_key, viewer.id)
    if lone is not None and lone.status != "trash":
        if may(viewer, "delete", lone, effective_status(lone)):
            trash_event(lone)


def _named_by_file(changes: list[Incoming], series) -> tuple[set, list]:
    """The wall times (in the zone of ``series``) of the occurrences the file's ``changes``
    edit or cancel one by one, and of those from which a change with RANGE=THISANDFUTURE
    edits the series."""
    tz = recurrence.series_zone(series)[0]
    start = dates.parse_stored(series.start_date)
    own, ranges = set(), []
    for item in changes:
        try:
            local = _occurrence_time(item, start, tz, bool(series.all_day))
        except (ValueError, OverflowError, dates.DateError):
            continue
        if item.this_and_future and not item.cancelled and item.body:
            ranges.append(local)
        else:
            own.add(local)
    return own, ranges


def _this_and_future(item: Incoming, series, named_by_file: tuple) -> list[Incoming] | None:
    """A change with RANGE=THISANDFUTURE as one change per occurrence from the one it names
    on: each moved as that one is (the same shift of its start), with its duration and
    fields; any other change as itself. None when it names the series' first occurrence
    (the series itself, which is not changed so). Whatever the order of the file, the
    occurrences it edits or cancels one by one (``named_by_file``) are theirs, and those
    from a later THISANDFUTURE change on are that change's (RFC 5545 3.8.4.4: the change
    nearest before an occurrence holds for it)."""
    if not item.this_and_future or item.cancelled or not item.body:
        return [item]
    tz = recurrence.series_zone(series)[0]
    start = dates.parse_stored(series.start_date)
    try:
        named = _occurrence_time(item, start, tz, bool(series.all_day))
        zone = {"timezone": series.timezone or "UTC", "all_day": bool(series.all_day)}
        changed = _in_zone_of(item.body, zone)
        new_start = dates.parse_stored(changed["start_date"])
        duration = dates.parse_stored(changed["end_date"]) - new_start
    except (KeyError, ValueError, OverflowError, dates.DateError):
        return [item]
    if named == start:
        return None
    shift = new_start - named
    own, ranges = named_by_file
    changes = []
    for local in series_rows.occurrences_from(series.id, named):
        if local != named and (local in own or any(named < r <= local for r in ranges)):
            continue
        try:
            moved = local + shift
            body = {
                **changed,
                "start_date": dates.fmt(moved),
                "end_date": dates.fmt(moved + duration),
            }
        except (OverflowError, ValueError):  # past year 9999: that change alone, refused
            return [item]
        changes.append(replace(item, body=body, recurrence_id=local, this_and_future=False))
    return changes or [item]


def _entry(item: Incoming, local: datetime | None = None, **fields) -> dict:
    """A report entry; one for a VEVENT that changes an occurrence names it by its
    RECURRENCE-ID: the wall time in the series' zone (as the file wrote it when there is
    no series)."""
    entry = {"uid": item.uid}
    if local is None and item.recurrence_id is not None:
        value = item.recurrence_id
        local = value if isinstance(value, datetime) else datetime.combine(value, time())
    if local is not None:
        entry["recurrence_id"] = dates.fmt(local.replace(tzinfo=None))
    return {**entry, **fields}


def _lines_for_changes(item: Incoming, changes: list[Incoming]) -> tuple[list[str], dict]:
    """What the file's changes of occurrences ask of the series itself: EXDATE lines for
    the occurrences it cancels (written with the series, so that they are never created),
    and for each occurrence it edits, by wall time, the EXDATE line of its date and the
    change."""
    if item.reason or "recurrence" not in item.body:
        return [], {}
    body = item.body
    tz, label = dates.resolve_timezone(body["timezone"])
    start = dates.parse_stored(body["start_date"])
    cancelled, edited = [], {}
    for change in changes:
        try:
            local = _occurrence_time(change, start, tz, body["all_day"])
            line = recurrence.exdate_line(local, tz, label, body["all_day"])
        except (ValueError, OverflowError, dates.DateError):
            continue  # reported with the other changes, after the series
        if change.cancelled:
            cancelled.append(line)
        elif change.body and not change.this_and_future:
            edited[local] = (line, change)
    return cancelled, edited


def _start(body: dict) -> datetime:
    """The start of a body whose start the file gave (year 1 to 9999); datetime.min if not."""
    try:
        return dates.parse_stored(body["start_date"])
    except (KeyError, ValueError, dates.DateError):
        return datetime.min


@dataclass
class SeriesPlan:
    """What a VEVENT without RECURRENCE-ID is written with, and what is left after it: the
    VEVENT (body and stamps as written); whether an edited first occurrence moved its
    series; the changes of its occurrences still to apply; those its body says itself
    (``absorbed``: reported with it, never applied again)."""

    item: Incoming
    changes: list[Incoming]
    moved_first: bool = False
    absorbed: list[Incoming] = field(default_factory=list)
    refused: list[tuple[Incoming, str]] = field(default_factory=list)  # with their reasons


def _series_plan(item: Incoming, changes: list[Incoming], budget: dict) -> SeriesPlan:
    """How a series VEVENT is written. The dates the file cancels are excluded; a series
    whose first date is excluded starts at its next one (``_first_not_excluded``); one too
    long is cut to its recent part (``_recent_part``). A first occurrence the file edits
    (Outlook and Thunderbird write it so), and the ones right after it that it edits too,
    are kept as occurrences of their own: the series starts at its first date the file
    does not edit (``_next_start``), and the dates before stay in it as RDATEs, for the
    changes to edit as any other occurrence. A series whose every date is edited is
    written as its last date's change says (``_absorbing``)."""
    if item.reason or "recurrence" not in item.body:
        return SeriesPlan(item, changes)
    plan = _from_first_on(SeriesPlan(item, changes), budget)
    body = plan.item.body
    cancelled, edited = _lines_for_changes(plan.item, plan.changes)
    if cancelled:
        body = {**body, "recurrence": body["recurrence"] + cancelled}
    edited_dates = set(edited)
    moved, kept, stuck = body, [], None
    while edited and _start(moved) in edited:
        line, change = edited.pop(_start(moved))
        trial = _first_not_excluded(
            {**body, "recurrence": body["recurrence"] + kept + [line]}, budget
        )
        if _start(trial) <= _start(moved):
            stuck = change  # cannot move: no date left, or none it may start at
            break
        moved, kept = trial, [*kept, line]
    if kept:
        lines = [line for line in moved["recurrence"] if line not in kept]
        body = {**moved, "recurrence": lines + ["RDATE" + k.removeprefix("EXDATE") for k in kept]}
    if stuck is not None and _edited_throughout(body, edited_dates, budget):
        return _absorbing(plan, body, stuck)
    body = _recent_part(_first_not_excluded(body, budget), budget)
    if _excluded_throughout(body, budget):  # Google's split series keep such a part
        return replace(plan, item=replace(plan.item, body=body, reason=REASON_NO_DATE_LEFT))
    return replace(
        plan, item=replace(plan.item, body=body), moved_first=plan.moved_first or bool(kept)
    )


def _starts_within_budget(rules, body: dict, tz, budget: dict) -> list:
    """The starts of the series of ``body`` after its first, as many as the file's budget
    of expansion allows (spent by what they were)."""
    limit = min(_expansion_limit(budget), current_app.config["RECURRENCE_MAX"])
    _spend(budget, limit)  # refunded below by what was not used
    starts = recurrence.occurrence_starts(rules, _start(body), tz, series_horizon(), limit)
    _spend(budget, len(starts) - limit)
    return starts


def _excluded_throughout(body: dict, budget: dict) -> bool:
    """Whether every date of the series of ``body`` is excluded (its EXDATEs or cancelled
    occurrences name its start and every later date): a calendar application shows none."""
    try:
        rules = recurrence.parse(body.get("recurrence") or [])
        if not rules.exdates or rules.open_ended or _expansion_limit(budget) <= 0:
            return False
        tz = dates.resolve_timezone(body["timezone"])[0]
        if recurrence.without_exdates([_start(body)], rules.exdates, tz):
            return False
        later = _starts_within_budget(rules, body, tz, budget)
    except (recurrence.RecurrenceError, recurrence.TooManyOccurrences, dates.DateError):
        return False
    except (KeyError, ValueError, OverflowError, IndexError):
        return False
    return not later


def _from_first_on(plan: SeriesPlan, budget: dict) -> SeriesPlan:
    """A series whose first occurrence a change with RANGE=THISANDFUTURE edits changes as a
    whole: written as the change says (its fields and duration), every date moved as the
    first is (``recurrence.moved_lines``: its rules when they can say it, a weekly rule's
    weekdays moved with its dates, else its dates one by one), in the series' own zone
    when the change is written in another (moved by the same time difference, RFC 5545
    3.8.4.4); the file's other changes name the dates so moved. A move no lines can say
    (an open-ended rule whose dates the move takes off its days or hours; all day from
    timed, or back) refuses that change (REASON_WHOLE_SERIES)."""
    body = plan.item.body
    try:
        tz, label = dates.resolve_timezone(body["timezone"])
        start = dates.parse_stored(body["start_date"])
        change = next((c for c in plan.changes if _names_start(c, start, tz, body)), None)
        if change is None:
            return plan
        changed = _in_zone_of(change.body, body)
        shift = dates.parse_stored(changed["start_date"]) - start
        lines = None
        if changed["all_day"] == body["all_day"] and (
            not body["all_day"] or shift % timedelta(days=1) == timedelta()
        ):
            lines = _moved_lines(body, start, shift, tz, label, budget)
    except (KeyError, ValueError, OverflowError, recurrence.RecurrenceError, dates.DateError):
        return plan  # reported with the other changes
    others = [c for c in plan.changes if c is not change]
    if lines is None:
        return replace(plan, changes=others, refused=[(change, REASON_WHOLE_SERIES)])
    item = replace(
        plan.item,
        body={**changed, "recurrence": lines},
        sequence=max(plan.item.sequence, change.sequence),
        modified=max(plan.item.modified, change.modified),
    )
    moved = [_moved_by(c, shift, start, tz, body["all_day"]) for c in others]
    absorbed = [_named_as(change, start, tz, item.body)]
    return replace(plan, item=item, changes=moved, moved_first=True, absorbed=absorbed)


def _moved_lines(body: dict, start: datetime, shift: timedelta, tz, label: str, budget: dict):
    """The lines of the series ``body`` with every date ``shift`` later
    (``recurrence.moved_lines``, within the file's budget); for a series with more dates
    than a series may have (cut to its recent part after), the lines its rules say
    themselves (``recurrence.shifted_lines``), or None."""
    all_day = body["all_day"]
    limit = min(_expansion_limit(budget), current_app.config["RECURRENCE_MAX"])
    try:
        if limit > 0:
            lines, cost = recurrence.moved_lines(
                body["recurrence"], start, shift, tz, label, all_day, series_horizon(), limit
            )
            _spend(budget, cost)
            return lines
    except recurrence.TooManyOccurrences:
        _spend(budget, 3 * limit)
    return recurrence.shifted_lines(body["recurrence"], start, shift, tz, label, all_day)


def _in_zone_of(change: dict, series: dict) -> dict:
    """The body of a timed ``change`` of an occurrence, written in another zone than its
    ``series``, with its start and end as wall times in the series' zone: the series keeps
    its zone, its dates moved by the change's time difference (as recurring-ical-events
    moves them)."""
    if change["all_day"] or series["all_day"] or change["timezone"] == series["timezone"]:
        return change
    source = dates.resolve_timezone(change["timezone"])[0]
    target = dates.resolve_timezone(series["timezone"])[0]

    def wall(key: str) -> str:
        moment = dates.local_to_utc(dates.parse_stored(change[key]), source)
        return dates.fmt(dates.utc_to_local(moment, target))

    start, end = wall("start_date"), wall("end_date")
    return {**change, "timezone": series["timezone"], "start_date": start, "end_date": end}


def _names_start(change: Incoming, start: datetime, tz, body: dict) -> bool:
    """Whether ``change`` edits a series from its first occurrence on (THISANDFUTURE)."""
    if not change.this_and_future or change.cancelled or not change.body:
        return False
    return _occurrence_time(change, start, tz, body["all_day"]) == start


def _moved_by(change: Incoming, shift: timedelta, start: datetime, tz, all_day: bool) -> Incoming:
    """``change`` naming its occurrence as it is after its series moved by ``shift``: its
    RECURRENCE-ID, a wall time in the series' zone (or a day), moved (and so reported)."""
    if not shift:
        return change
    try:
        local = _occurrence_time(change, start, tz, all_day) + shift
    except (ValueError, OverflowError, dates.DateError):
        return change  # reported as it is, after the series
    return replace(change, recurrence_id=local.date() if all_day else local)


def _edited_throughout(body: dict, edited: set, budget: dict) -> bool:
    """Whether every date of the series of ``body`` after its start (edited) is one of the
    ``edited`` dates: then no occurrence shows the series' own fields."""
    try:
        rules = recurrence.parse(body["recurrence"])
        if rules.open_ended or _expansion_limit(budget) <= 0:
            return False
        tz = dates.resolve_timezone(body["timezone"])[0]
        others = _starts_within_budget(rules, body, tz, budget)
    except (recurrence.RecurrenceError, recurrence.TooManyOccurrences, dates.DateError):
        return False
    except (ValueError, OverflowError, IndexError):
        return False
    return all(moment in edited for moment in others)


def _absorbing(plan: SeriesPlan, body: dict, change: Incoming) -> SeriesPlan:
    """The series of ``body`` whose every date the file edits, written as ``change`` (the
    edit of its start, its last date the others moved past) says: its fields, its dates
    and its stamps. The other dates stay RDATEs, each edited by its change; the rules,
    with no date of their own left, go (a series of one date becomes one event), and so
    does an RDATE of its start (a series of RDATEs starts at one): the date the change
    moves is no occurrence of its own. ``change`` is reported by that date as a wall time
    in the zone it is written in, as its siblings are."""
    own = _start(body)
    tz = dates.resolve_timezone(body["timezone"])[0]
    lines = recurrence.rewrite_dates(
        [line for line in body["recurrence"] if not _is_rule(line)],
        lambda moment: "" if moment.local(tz, own.time()) == own else None,
        "RDATE",
    )
    item = replace(
        plan.item,
        body={**change.body, "recurrence": lines},
        sequence=max(plan.item.sequence, change.sequence),
        modified=max(plan.item.modified, change.modified),
    )
    changes = [each for each in plan.changes if each is not change]
    absorbed = [*plan.absorbed, _named_as(change, own, tz, item.body)]
    return replace(plan, item=item, changes=changes, moved_first=True, absorbed=absorbed)


def _named_as(change: Incoming, local: datetime, tz, body: dict) -> Incoming:
    """``change``, which names the occurrence at the wall time ``local`` in ``tz``, naming
    it (RECURRENCE-ID) by the wall time in the zone of the series ``body`` it is reported
    with, as ``_import_change`` names the others."""
    if body["all_day"]:
        return replace(change, recurrence_id=local.date())
    try:
        zone = dates.resolve_timezone(body["timezone"])[0]
        return replace(
            change, recurrence_id=dates.utc_to_local(dates.local_to_utc(local, tz), zone)
        )
    except (ValueError, OverflowError, dates.DateError):
        return change


def _occurrence_time(item: Incoming, start: datetime, tz, all_day: bool) -> datetime:
    """The wall time, in the series' zone, of the occurrence a RECURRENCE-ID names; for an
    all-day series, its day (``series_day``)."""
    if all_day:
        return datetime.combine(series_day(item.recurrence_id, tz), time())
    return series_wall_time(item.recurrence_id, tz, start.time())


def _import_change(
    item: Incoming, series_id: int, viewer: Viewer, status: str | None, written: bool
) -> tuple[str, dict]:
    """One occurrence changed by a VEVENT with RECURRENCE-ID: updated through the write
    path as an occurrence edited on its own; cancelled, or not among the occurrences (not
    materialised), excluded from the series (EXDATE). Idempotent as whole events are;
    ``written``: this import has just written the series (its EXDATEs with it). Decided
    again under the writer lock when it writes: of imports of one file at once, one writes
    the change and the others find it written (as ``_import_one``)."""
    answer = _change_occurrence(item, series_id, viewer, status, written, writing=False)
    if answer is not None:
        return answer
    with write_transaction():
        return _change_occurrence(item, series_id, viewer, status, written, writing=True)


def _change_occurrence(
    item: Incoming,
    series_id: int,
    viewer: Viewer,
    status: str | None,
    written: bool,
    writing: bool,
) -> tuple[str, dict] | None:
    """``_import_change``'s answer; when not ``writing``, None where it would write."""
    series = get_event(series_id)  # read again: an earlier change may have excluded a date
    if series is None:
        return "rejected", _entry(item, reason=translate(REASON_NO_SERIES))
    tz = recurrence.series_zone(series)[0]
    start = dates.parse_stored(series.start_date)
    local = None
    try:
        local = _occurrence_time(item, start, tz, bool(series.all_day))
        if local == start:
            return "rejected", _entry(item, local, id=series.id, reason=translate(REASON_FIRST))
        row = series_rows.occurrence_at(series.id, local)
        if row is not None and not (item.cancelled and row.status == "trash"):
            if not may_read(viewer, row):
                require(viewer, "edit", row, effective_status(row))
            if item.cancelled:
                require(viewer, "delete", row, effective_status(row))
                if not writing:
                    return None
                trash_event(row)  # its date leaves the series (EXDATE)
                return "updated", _entry(item, local, id=row.id)
            if row.detached and not _is_newer(item, row):
                return "unchanged", _entry(item, local, id=row.id)
            if not writing:
                return None
            saved = _update(item, row, viewer, status, CLEARED_ON_OCCURRENCE)
            return "updated", _entry(item, local, id=saved.id)
        lines = recurrence.parse(recurrence.stored_lines(series.recurrence))
        if row is not None or not recurrence.without_exdates([local], lines.exdates, tz):
            # Already out of the series: written with it now, or by an earlier import.
            return ("updated" if written else "unchanged"), _entry(item, local, id=series.id)
        require(viewer, "edit", series, effective_status(series))
        if not writing:
            return None
        series_rows.exclude_date(series, local)
        return "updated", _entry(item, local, id=series.id)
    except ValidationError as error:
        reason = _reason(from_validation_error(error, EventUpdate()))
        return "rejected", _entry(item, local, reason=reason)
    except ApiError as error:
        return "rejected", _entry(item, local, reason=_reason(error))
    except (ValueError, OverflowError, dates.DateError):  # a time no zone can place
        return "rejected", _entry(item, local, reason=translate(REASON_BAD_DATES))


def _is_newer(item: Incoming, event) -> bool:
    if item.sequence != event.ical_sequence:
        return item.sequence > event.ical_sequence
    # An event of our own (never imported): its feed's LAST-MODIFIED is its ``modified``,
    # or its venue's or an organizer's when later.
    known = event.ical_modified if event.ical_uid else _revised(event)
    return bool(item.modified) and item.modified > known


def _revised(event) -> str:
    shown = load_relations([event])[event.id]
    return revised_utc(event.modified_utc, shown.venues, shown.organizers)


def event_of_uid(item: Incoming, viewer: Viewer):
    """The event ``item``'s UID names: the one imported from it, else our own of that UID."""
    return find_imported_event(item.uid, viewer.id) or own_event(item)


def own_event(item: Incoming):
    """The event of this calendar that a UID its feeds write names (``{id}@{host}``,
    ``app/ical.py::feed_uid``): a feed of ours imported again updates its events, never
    copies them. It is ours only when the VEVENT's URL is that event's page (for an edit of
    one occurrence, the page of an occurrence of it), on our site when it is known: another
    database on this host (a move, a restore, a calendar on another port or path) writes
    UIDs as ours are, and its ``7@host`` is not our event 7 (SPEC §11, each VEVENT becomes
    an event). None for any other UID, and for an occurrence unless the VEVENT is that one
    date (an occurrence's own file, ``app/reading/feed.py::event_feed``: feeds name series)."""
    number, _at, host = item.uid.partition("@")
    known = _our_site()
    if not (is_digits(number) and host) or (known and host != site_host(known)):
        return None
    event = get_event(int(number))
    if event is None:
        return None
    if event.occurrence and (item.changes_occurrence or item.body.get("recurrence")):
        return None
    site = _site_of_page(item, event)
    if not site or host != site_host(site):
        return None
    if known and urlsplit(site).netloc.lower() != urlsplit(known).netloc.lower():
        return None
    return event


def _our_site() -> str:
    """Our events' site URL (SITE_URL's, else the request's); empty when neither is known."""
    if has_request_context():
        return site_url()
    return current_app.config.get("SITE_URL") or ""


def _site_of_page(item: Incoming, event) -> str:
    """The site the VEVENT's URL names when that URL is the page of ``event``, the event
    its UID names, as our feeds write both (an edited occurrence's VEVENT: the page of an
    occurrence of ``event``). Empty otherwise."""
    url = item.body.get("website", "")
    page = event_path(event.slug)
    if url.endswith(page):
        return url.removesuffix(page)
    if not item.changes_occurrence:
        return ""
    found = _EVENT_PAGE.search(url)
    shown = found and get_event_by_slug(unquote(found.group(1)))
    if not shown or shown.post_parent != event.id:
        return ""
    return url[: found.start()]


def _reason(error: ApiError) -> str:
    params = error.data.get("params")
    if isinstance(params, dict) and params:
        details = "; ".join(f"{name}: {message}" for name, message in params.items())
        return f"{error.message} ({details})"
    return error.message


def known_categories(body: dict, viewer: Viewer) -> tuple[dict, list[str]]:
    """``body`` with only the categories that exist, and the names left out, for an
    importer who may not create terms (as ``POST /categories`` would refuse them)."""
    names = body.get("categories")
    if not names or may(viewer, "manage_terms"):
        return body, []
    kept = [name for name in names if find_term(name, "category") is not None]
    return {**body, "categories": kept}, [name for name in names if name not in kept]


def _update(item: Incoming, existing, viewer: Viewer, status: str | None, cleared: dict):
    """``existing`` replaced by the VEVENT's version, through the write path of updates."""
    body = {**cleared, **known_categories(item.body, viewer)[0]}
    if status:
        body["status"] = status
    stamp = {"ical_sequence": item.sequence, "ical_modified": item.modified}
    return change_event(existing, EventUpdate().load(body), viewer, stamp)


# A series that began long ago and has more occurrences than a series may (RECURRENCE_MAX)
# is imported from this many days ago on (fewer when even that is too many): what a calendar
# shows from now on, and a bounded past, rather than nothing.
PAST_DAYS = (365, 180, 90, 30, 7, 0)


def _expansion_limit(budget: dict) -> int:
    """How many occurrences one more look at a series may work out: what is left of the
    file's budget (a file of series since 1800 would otherwise cost minutes)."""
    return max(budget["expanded"], 0)


def _spend(budget: dict, count: int) -> None:
    budget["expanded"] -= count


def _recent_part(body: dict, budget: dict) -> dict:
    """``body``, or for a series with too many occurrences its part from a recent start: the
    first occurrence on or after the cut becomes the series' start (COUNT lowered by the
    occurrences left out). A rule that cannot be read, or too many even from today, is left
    to the write path to refuse."""
    lines = body.get("recurrence")
    if not lines:
        return body
    config = current_app.config
    most = config["RECURRENCE_MAX"]
    try:
        rules = recurrence.parse(lines)
        tz = dates.resolve_timezone(body["timezone"])[0]
        start = dates.parse_stored(body["start_date"])
        now = utcnow().replace(tzinfo=None)
        horizon = series_horizon()
        if len(rules.lines) == 0 or _expansion_limit(budget) <= most:
            return body
        limit = _expansion_limit(budget)
        _spend(budget, limit)  # refunded below by what was not used
        starts = [start, *recurrence.occurrence_starts(rules, start, tz, horizon, limit)]
        _spend(budget, len(starts) - limit)
    except (recurrence.RecurrenceError, recurrence.TooManyOccurrences, dates.DateError):
        return body
    except (ValueError, OverflowError, IndexError):
        return body
    if len(starts) <= most:
        return body
    today = dates.utc_to_local(now, tz)
    for days in PAST_DAYS:
        kept = [moment for moment in starts if moment >= today - timedelta(days=days)]
        if kept and len(kept) <= most:
            break
    else:
        return body
    return _started_at(body, start, kept[0])


def _first_not_excluded(body: dict, budget: dict) -> dict:
    """A series whose first date is excluded (an EXDATE on DTSTART, or a cancelled
    RECURRENCE-ID of it: how Thunderbird and Outlook delete a first occurrence) starts at
    its first occurrence that is not (``_next_start``), its COUNT lowered by the dates left
    out."""
    lines = body.get("recurrence")
    if not lines:
        return body
    try:
        rules = recurrence.parse(lines)
        if not rules.exdates:
            return body
        tz = dates.resolve_timezone(body["timezone"])[0]
        start = dates.parse_stored(body["start_date"])
        if recurrence.without_exdates([start], rules.exdates, tz):
            return body  # the first date is not excluded
        horizon = series_horizon()
        if _expansion_limit(budget) <= 0:
            return body
        # The first date that stays is among the first RECURRENCE_MAX (a series has no
        # more): looking that far finds it, or shows the series is refused anyway.
        limit = min(_expansion_limit(budget), current_app.config["RECURRENCE_MAX"])
        _spend(budget, 2 * limit)  # refunded below by what was not used
        later = recurrence.occurrence_starts(rules, start, tz, horizon, limit)
        every = recurrence.occurrence_starts(
            recurrence.parse([f"RRULE:{rule}" for rule in rules.rules]),
            start,
            tz,
            horizon,
            limit + len(rules.exdates),
        )
        _spend(budget, len(later) + len(every) - 2 * limit)
    except (recurrence.RecurrenceError, recurrence.TooManyOccurrences, dates.DateError):
        return body
    except (ValueError, OverflowError, IndexError):
        return body
    return _next_start(body, rules, start, later, every)


def _next_start(body: dict, rules, start: datetime, later: list, every: list) -> dict:
    """The series of ``body`` from the first of its ``later`` dates it can start at: any
    for a series of RDATEs; one of its rules' dates (``every``) when it has rules, which
    count from its start (the RDATEs before it stay occurrences, as an edited first one
    does); when the rules have no date left (and end), the first RDATE left, without them.
    ``body`` itself when none can be the start (the write path keeps the first date)."""
    if not later:
        return body  # nothing left: the write path says so
    if rules.rules:
        on_rules = [moment for moment in later if moment in set(every)]
        if on_rules:
            return _started_at(body, start, on_rules[0])
        if rules.open_ended:
            return body
        body = {**body, "recurrence": [x for x in body["recurrence"] if not _is_rule(x)]}
    moments = rules.rdates + rules.exdates
    if later[0].time() != start.time() and any(m.kind == "date" for m in moments):
        return body  # its dates without a time would take the new start's
    return _started_at(body, start, later[0])


def _is_rule(line: str) -> bool:
    return line.upper().startswith("RRULE")


def _started_at(body: dict, start: datetime, new_start: datetime) -> dict:
    """The series of ``body`` from ``new_start`` on (same duration), the dates its rules
    gave before it taken from their COUNT (``recurrence.lines_from``)."""
    end = dates.parse_stored(body["end_date"])
    return {
        **body,
        "start_date": dates.fmt(new_start),
        "end_date": dates.fmt(new_start + (end - start)),
        "recurrence": recurrence.lines_from(body["recurrence"], start, new_start),
    }


def _import_one(plan: SeriesPlan, viewer: Viewer, status: str | None) -> tuple[str, dict]:
    """An event, or a series with what its occurrences' VEVENTs ask of it (``plan``)."""
    item = plan.item  # with the body updates write too (``_update`` reads it)
    if item.reason == REASON_NO_DATE_LEFT:
        return _nothing_left(item, viewer)
    if item.reason == REASON_CANCELLED:
        return _cancelled(item, viewer)
    if item.reason:
        return "rejected", {"uid": item.uid, "reason": translate(item.reason)}
    existing = _imported_before(item, viewer)
    if existing is not None and not _changes(plan, existing):
        # Nothing to write (a file imported again): answered without waiting for the lock.
        return _create_or_update(plan, existing, viewer, status)
    try:
        with write_transaction():
            # Looked up again under the writer lock (both engines), in the transaction that
            # writes: of imports of one UID at once, in any worker or host, one creates its
            # event and the others find it (SPEC §11, idempotent by UID). A series takes
            # long enough to write for a lookup before the lock to miss it.
            existing = _imported_before(item, viewer)
            return _create_or_update(plan, existing, viewer, status)
    except ValidationError as error:
        schema = EventCreate() if existing is None else EventUpdate()
        return "rejected", {
            "uid": item.uid,
            "reason": _reason(from_validation_error(error, schema)),
        }
    except ApiError as error:
        return "rejected", {"uid": item.uid, "reason": _reason(error)}


def _imported_before(item: Incoming, viewer: Viewer):
    """The event ``item`` names (``event_of_uid``); an edit of an occurrence imported on its
    own (``_import_alone``) is named by its RECURRENCE-ID too."""
    if item.changes_occurrence:
        return find_lone_occurrence(item.uid, item.recurrence_key, viewer.id)
    return event_of_uid(item, viewer)


def _changes(plan: SeriesPlan, existing) -> bool:
    """Whether ``plan``'s VEVENT is a new version of ``existing``. Outlook and Thunderbird
    edit one occurrence without a newer SEQUENCE for the series: a first occurrence edited
    since the series came moves it all the same."""
    moves = plan.moved_first and existing.start_date != plan.item.body["start_date"]
    return moves or _is_newer(plan.item, existing)


def _create_or_update(
    plan: SeriesPlan, existing, viewer: Viewer, status: str | None
) -> tuple[str, dict]:
    """``plan``'s VEVENT as a new event, or as the new version of ``existing`` (unchanged
    when it is not one)."""
    item = plan.item
    body, left_out = known_categories(item.body, viewer)
    if status:
        body = {**body, "status": status}
    noted = {"left_out_categories": left_out} if left_out else {}
    if existing is None:
        stamp = {
            "ical_uid": item.uid,
            "ical_recurrence_id": item.recurrence_key if item.changes_occurrence else "",
            "ical_sequence": item.sequence,
            "ical_modified": item.modified,
        }
        event = create_event(EventCreate().load(body), viewer, stamp)
        return "created", {"uid": item.uid, "id": event.id, **noted}
    if not may(viewer, "edit", existing, effective_status(existing)):
        # The calendar's event of this UID is another user's: reported, never copied.
        return "rejected", {"uid": item.uid, "reason": translate(REASON_OTHER_USER)}
    if not _changes(plan, existing):
        return "unchanged", {"uid": item.uid, "id": existing.id}
    # An occurrence's own file (``own_event``) changes that date alone, as an edit of it.
    cleared = CLEARED_ON_OCCURRENCE if existing.occurrence else CLEARED_ON_UPDATE
    saved = _update(item, existing, viewer, status, cleared)
    if recurrence.is_series(saved):
        _forget_dropped_edits(saved, plan.changes)
    return "updated", {"uid": item.uid, "id": saved.id, **noted}


def _forget_dropped_edits(series, changes: list[Incoming]) -> None:
    """A newer version of a series is the whole of it: its occurrences an earlier version
    edited, and none of the file's ``changes`` edits now (the source reverted them), follow
    the series again, at the rule's time with its fields; those the changes name are
    written by them next."""
    own, ranges = _named_by_file(changes, series)
    series_rows.rejoin_edited(
        series.id, lambda local: local in own or any(r <= local for r in ranges)
    )
