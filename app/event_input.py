"""From a validated event body to the columns and links the store saves, and the write
pipelines that save them.

``check_event_body`` runs before authorisation (the reference validates first): the body
alone, never compared with a stored event. ``prepare_event`` against the stored event runs
after it (``require_edit``): its checks are write rules, also run beside the schema's
refusals for one who may edit the event (``check_event_update``). Neither writes.
"""

from __future__ import annotations

import orjson
from flask import current_app

from app.auth import (
    apply_inline_write_rules,
    apply_write_rules,
    may,
    may_read,
    require,
    require_edit,
    require_removal,
    written_status,
)
from app.errors import ApiError, ParamErrors, first_message, invalid_params, require_in_trash
from app.i18n import N_, _, labelled, ngettext, translate
from app.linked_input import check_image, linked_columns, publication_columns
from app.term_input import parse_term_input
from rules import dates, recurrence
from rules.clock import utcnow
from rules.ids import is_digits
from rules.posts import effective_status, split_list
from rules.text import plain_text, sanitise_html
from schemas.linked import OrganizerCreate, VenueCreate
from store.db import write_decided
from store.errors import InvalidInput, Vanished
from store.events import delete_event, get_event, post_ancestors, save_event, trash_event
from store.imported import is_floating, note_floating
from store.linked import get_linked
from store.posts import node_kind

SANITISED = ("description", "excerpt")
FLAGS = ("show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "ticketed")


def raise_invalid(error: InvalidInput):
    params = {name: translate(message) % error.values for name, message in error.params.items()}
    raise invalid_params(params)


def _cost(value) -> str:
    """The cost as stored: its form was checked by the body's schema (``schemas.fields.Cost``)."""
    if value in (None, "", []):
        return ""
    if isinstance(value, list):
        return orjson.dumps([plain_text(str(v)) for v in value]).decode()
    return orjson.dumps(plain_text(str(value))).decode()


def parse_linked_input(value, kind: str, viewer, event_status: str) -> list:
    """Venue or organizer input: ids, numeric strings, CSV, {"id": n} objects, or objects
    describing a new item; "", 0 and [] mean none. Returns ids and dicts of columns (a new
    item's status by ``apply_inline_write_rules``, from the event's ``event_status``)."""
    if value in ("", 0, "0", [], None, {}):
        return []
    raw_items = value if isinstance(value, list) else [value]
    items: list = []
    for raw in raw_items:
        if isinstance(raw, str):
            parts = split_list(raw)
        else:
            parts = [raw]
        for item in parts:
            items.append(_linked_item(item, kind, viewer, event_status))
    return [i for i in items if i is not None]


# One message per kind, not a kind pasted into one: French and Spanish nouns have a gender
# that the words around them agree with ("un lieu existant", "una ...").
UNKNOWN_LINKED = {
    "venue": N_("%(id)s is not the id of an existing venue."),
    "organizer": N_("%(id)s is not the id of an existing organizer."),
}
NEEDS_A_NAME = {
    "venue": N_('A new venue needs at least a non-empty "%(field)s".'),
    "organizer": N_('A new organizer needs at least a non-empty "%(field)s".'),
}


def unknown_linked(kind: str, item_id: int) -> str:
    """The message for a venue or organizer id that names none the caller may read."""
    return _(UNKNOWN_LINKED[kind], id=item_id)


def _inline_error(kind: str, field: str, message: str) -> ApiError:
    """A new item's mistake, named by the event's parameter (``kind``) and the field the
    client sent, under every root; the editor names it by its form's label (``inline``)."""
    error = invalid_params({kind: f"{labelled(field)} {message}"})
    error.inline = (field, message)
    return error


def _linked_item(item, kind: str, viewer, event_status: str):
    name_field = kind
    if isinstance(item, bool):
        raise invalid_params({kind: _("Must be ids or objects describing the item.")})
    if isinstance(item, int) or (isinstance(item, str) and is_digits(item.strip())):
        item_id = int(item)
        if item_id == 0:
            return None
        linked = get_linked(kind, item_id) if node_kind(item_id) == kind else None
        if linked is None or linked.status == "trash" or not may_read(viewer, linked):
            # An item the caller may not read is not theirs to link (nor to learn about).
            raise invalid_params({kind: unknown_linked(kind, item_id)})
        return item_id
    if isinstance(item, dict):
        if "id" in item and item["id"] not in (None, ""):
            return _linked_item(
                item["id"] if not isinstance(item["id"], dict) else None,
                kind,
                viewer,
                event_status,
            )
        schema = VenueCreate() if kind == "venue" else OrganizerCreate()
        errors = schema.validate(item)
        if errors:  # what is wrong with the new item, by its field
            field, messages = next(iter(errors.items()))
            raise _inline_error(kind, field, first_message(messages))
        if not str(item.get(name_field, "")).strip():
            raise invalid_params({kind: _(NEEDS_A_NAME[kind], field=name_field)})
        # The direct routes' rules: status scaling, who may set the author.
        try:
            values = linked_columns(kind, schema.load(item), None)
        except ApiError as error:  # a lone coordinate: the event has no such parameter
            if error.code != "rest_invalid_param":
                raise
            raise _inline_error(kind, *next(iter(error.data["params"].items()))) from None
        apply_inline_write_rules(values, viewer, event_status)
        return values
    raise invalid_params({kind: _("Must be ids or objects describing the item.")})


def _timezone(name: str) -> tuple:
    try:
        return dates.resolve_timezone(name)
    except dates.DateError:
        raise invalid_params(
            {"timezone": _("Must be a timezone such as Europe/Paris, UTC or UTC+2.")}
        ) from None


def check_event_body(body: dict, viewer, new: bool = False) -> None:
    """The 400s of ``body`` read alone, as a new event: what a caller who may not edit
    the event it names (or a write to no event) is answered before its refusal. A
    recurrence is judged against the body's start only when the body decides where that
    start falls (``new``, or its timezone and all_day sent): an update's otherwise
    depends on the stored event's, read after permission."""
    alone = new or {"timezone", "all_day"} <= body.keys()
    prepare_event(body, None, viewer, series_start=alone)  # reads only: nothing is made


def validated_update(body: dict, event, viewer) -> tuple[dict, dict]:
    """Validate → permit of an update: ``body`` checked against the stored ``event``
    (``prepare_event``) once the caller may edit it; anyone else is answered for the body
    alone, then refused (``require_edit``)."""
    require_edit(viewer, event, lambda: check_event_body(body, viewer))
    return prepare_event(body, event, viewer)


def check_event_update(body: dict, event, viewer) -> None:
    """What an update's validate step says of ``body`` when its schema refused the rest
    (``Blueprint.arguments``' checks): the same checks as the pipeline's, against the stored
    ``event`` for one who may edit it, so that an end before the stored start is named
    beside a bad website in one answer (SPEC §6); the body alone when no event answers."""
    if event is None:
        check_event_body(body, viewer)
    else:
        validated_update(body, event, viewer)


def prepare_event(body: dict, existing, viewer, series_start: bool = True) -> tuple[dict, dict]:
    """(columns, links) for ``save_event``; raises 400s for anything invalid. With an
    ``existing`` event, only after the caller may edit it (``require_edit``): the body is
    checked against what is stored (an end before the stored start, a recurrence sent to
    an occurrence). ``series_start``: whether a recurrence is judged against the start
    (``_check_series_start``)."""
    site_tz = current_app.config["SITE_TIMEZONE"]
    values: dict = {}
    found = ParamErrors()
    errors = found.params
    with found.check():  # a timezone that is none: no date can be read
        _event_dates(body, existing, site_tz, values, errors)
    publication_columns(body, existing, values, errors)
    if body.get("post_parent") and body["post_parent"] != getattr(existing, "post_parent", 0):
        error = _parent_error(body["post_parent"], existing, viewer)
        if error:
            errors["post_parent"] = error
    errors.update(_recurrence_input(body, existing, values))
    if series_start and not errors.keys() & {"recurrence", "start_date", "timezone"}:
        with found.check():
            _check_series_start(values, existing)
    with found.check():
        _plain_columns(body, values, viewer)
    links = _event_links(body, existing, viewer, found)
    found.raise_any()
    return values, links


def _event_dates(body: dict, existing, site_tz: str, values: dict, errors: dict) -> None:
    """The timezone (first: dates are read in it), the start and end (local and UTC) and
    all_day columns the body decides, into ``values``; what is wrong, into ``errors``."""
    if "timezone" in body:
        tz_name = body["timezone"].strip() or site_tz
    else:
        tz_name = existing.timezone if existing is not None and existing.timezone else site_tz
    tz, tz_label = _timezone(tz_name)

    def parse(param, zone):
        try:
            return dates.parse_datetime(body[param], zone)
        except dates.DateError:
            errors[param] = _("Must be a date such as 2025-06-01 18:30:00.")
            return None

    start = parse("start_date", tz) if "start_date" in body else None
    end = parse("end_date", tz) if "end_date" in body else None
    if existing is not None:
        start = start or dates.parse_stored(existing.start_date)
        end = end or dates.parse_stored(existing.end_date)
    all_day = body.get("all_day", existing.all_day if existing is not None else False)
    if start is not None and end is not None:
        if all_day:
            start, end = dates.snap_to_day_start(start), dates.snap_to_day_end(end)
        try:
            utc_start, utc_end = dates.local_to_utc(start, tz), dates.local_to_utc(end, tz)
            # Wall times in a DST gap do not exist: store the time the clock actually showed.
            start, end = dates.utc_to_local(utc_start, tz), dates.utc_to_local(utc_end, tz)
        except dates.DateError:
            raise invalid_params(
                {"start_date": _("Must be a date such as 2025-06-01 18:30:00.")}
            ) from None
        if end < start:
            errors["end_date"] = _("The end date must not be before the start date.")
        # An update writes only what follows from the fields it sends, so a concurrent
        # update of other fields is never overwritten with what this one read (SPEC §10).
        moves_both = existing is None or "timezone" in body or "all_day" in body
        if moves_both or "start_date" in body:
            values.update(start_date=dates.fmt(start), utc_start=dates.fmt(utc_start))
        if moves_both or "end_date" in body:
            values.update(end_date=dates.fmt(end), utc_end=dates.fmt(utc_end))
    if existing is None or "timezone" in body:
        values["timezone"] = tz_label
    if existing is None or "all_day" in body:
        values["all_day"] = bool(all_day)


def _plain_columns(body: dict, values: dict, viewer) -> None:
    """The columns that are the body's fields as they are, sanitised or checked."""
    for key in ("title", "slug", "status", "author", "post_parent", "password"):
        if key in body:
            values[key] = body[key].strip() if key == "title" else body[key]
    for key in SANITISED:
        if key in body:
            values[key] = sanitise_html(body[key])
    for key in FLAGS:
        if key in body:
            values[key] = body[key]
    if "website" in body:
        values["website"] = body["website"]
    if "cost" in body:
        values["cost"] = _cost(body["cost"])
    if "image" in body:
        values["image"] = check_image(body["image"], viewer)


def _event_links(body: dict, existing, viewer, found: ParamErrors) -> dict:
    """The venues, organizers and terms the body names, as ``save_event`` takes them;
    what is wrong with each, into ``found``."""
    links: dict = {}
    status = written_status(body.get("status"), viewer, existing)
    for kind in ("venue", "organizer"):
        if kind in body:
            with found.check():
                links[kind] = parse_linked_input(body[kind], kind, viewer, status)
    for key, taxonomy in (("categories", "category"), ("tags", "tag")):
        if key in body:
            with found.check():
                links[key] = terms_input(body[key], taxonomy, key)
    return links


def terms_input(value, taxonomy: str, param: str) -> list:
    """``parse_term_input``, its refusal a 400 naming ``param``."""
    try:
        return parse_term_input(value, taxonomy, param)
    except InvalidInput as error:
        raise_invalid(error)


def _parent_error(parent_id: int, existing, viewer) -> str | None:
    """Why ``parent_id`` cannot become the event's ``post_parent``: it must be another
    event that the writer may edit, not one of its descendants, and not a recurring series
    (its occurrences are made from its ``recurrence`` alone, so an event placed under it
    would pass for one)."""
    parent = get_event(parent_id)
    if (
        parent is None
        or (existing is not None and parent.id == existing.id)
        or not may(viewer, "edit", parent, effective_status(parent))
    ):
        return _("%(id)s is not the id of another event you may edit.", id=parent_id)
    if existing is not None and existing.id in post_ancestors(parent_id):
        # WordPress never stores a parent loop (wp_check_post_hierarchy_for_loops); nor does
        # a category take one of its descendants as its parent.
        return _("An event cannot be its own ancestor.")
    if parent.recurrence:
        return _(
            "%(id)s is a recurring series: its occurrences come from its recurrence.", id=parent_id
        )
    return None


def _recurrence_input(body: dict, existing, values: dict) -> dict[str, str]:
    """``recurrence`` into ``values`` (only when it changes); the errors of a write that
    would break a series' shape: occurrences take their recurrence from the series, and the
    events of a series keep their ``post_parent``."""
    errors = {}
    is_occurrence = existing is not None and recurrence.is_occurrence(existing)
    if "recurrence" in body:
        lines = body["recurrence"]
        current = recurrence.stored_lines(existing.recurrence) if existing is not None else []
        if is_occurrence:
            errors["recurrence"] = _(
                "This event is an occurrence of a series: change the recurrence on event %(id)s.",
                id=existing.post_parent,
            )
        elif lines != current:
            values["recurrence"] = recurrence.join_lines(lines)
    current_parent = existing.post_parent if existing is not None else 0
    parent = body.get("post_parent", current_parent) or 0
    in_series = existing is not None and bool(existing.recurrence)
    if (in_series and parent != current_parent) or (values.get("recurrence") and parent):
        errors["post_parent"] = _("The events of a recurring series keep their post_parent.")
    return errors


SCHEDULE_KEYS = ("recurrence", "start_date", "end_date", "timezone", "all_day")


def _stored(value):
    """A column's value as compared for a change (a flag is 0/1 or False/True)."""
    return int(value) if isinstance(value, bool) else value


# The first occurrence is the series (SPEC §12): an EXDATE cannot leave it out.
EXCLUDED_START = N_(
    "An EXDATE excludes the series' first date, which is the series itself: start the "
    "series at its next date instead."
)


def _written(values: dict, existing, column: str):
    """A column as the write leaves it: the write's value, else the stored one."""
    return values[column] if column in values else getattr(existing, column)


def _series_lines(values: dict, existing) -> str | None:
    """The recurrence of a series that a write creates or whose dates or recurrence it
    changes; None when it does not (its occurrences stay as they are)."""
    if existing is not None and recurrence.is_occurrence(existing):
        return None
    lines_text = values.get("recurrence", existing.recurrence if existing is not None else "")
    if not lines_text:
        return None
    if existing is not None and not any(
        key in values and _stored(values[key]) != _stored(getattr(existing, key))
        for key in SCHEDULE_KEYS
    ):  # sent as they are (an editor's form sends all_day always): nothing to re-create
        return None
    return lines_text


def _check_series_start(values: dict, existing) -> None:
    """The recurrence's refusals, its number of occurrences included (``_expanded``): with
    the body's other checks, so that a new event's (the request alone) is a 400 before
    authorisation and named beside every other bad parameter (SPEC §5, §6)."""
    lines_text = _series_lines(values, existing)
    if lines_text is None or (existing is None and "start_date" not in values):
        return
    tz, start, rules = _series_rules(values, existing, lines_text)
    if not recurrence.without_exdates([start], rules.exdates, tz):
        raise invalid_params({"recurrence": _(EXCLUDED_START)})
    ended = recurrence.ended_before(rules, start, tz)
    if ended is not None:
        raise invalid_params({"recurrence": _(ended.message, **ended.values)})
    _expanded(values, existing, tz, start, rules)


def _series_rules(values: dict, existing, lines_text: str):
    """(zone, wall-clock start, parsed recurrence) of the series a write leaves; a 400 when
    they cannot be read."""
    try:
        tz = dates.resolve_timezone(
            _written(values, existing, "timezone") or current_app.config["SITE_TIMEZONE"]
        )[0]
        start = dates.parse_stored(_written(values, existing, "start_date"))
        return tz, start, recurrence.parse(recurrence.stored_lines(lines_text))
    except (dates.DateError, ValueError, OverflowError, IndexError):
        raise invalid_params({"recurrence": translate(recurrence.INVALID_LINE)}) from None


def series_horizon(days: int | None = None):
    """The UTC time to which open-ended series are materialised, ``days`` (by default
    ``RECURRENCE_HORIZON_DAYS``) from now in the site's zone (``rules.dates.series_horizon``),
    for every writer of series: the API, the editor, the import and ``recurrence extend``."""
    config = current_app.config
    site_tz = dates.resolve_timezone(config["SITE_TIMEZONE"])[0]
    now_local = dates.utc_to_local(utcnow().replace(tzinfo=None), site_tz)
    horizon = dates.series_horizon(now_local, days or config["RECURRENCE_HORIZON_DAYS"])
    return dates.local_to_utc(horizon, site_tz)


def _expanded(values: dict, existing, tz, start, rules) -> list:
    """The wall-clock starts of the series' occurrences; a 400 for a series of more than
    ``RECURRENCE_MAX`` occurrences, or one whose last would end past the calendar."""
    most = current_app.config["RECURRENCE_MAX"]
    try:
        starts = recurrence.occurrence_starts(rules, start, tz, series_horizon(), most)
        if starts:  # the last occurrence must end within the calendar (year 9999 at most)
            duration = dates.parse_stored(_written(values, existing, "end_date")) - start
            dates.local_to_utc(max(starts) + duration, tz)
        return starts
    except recurrence.TooManyOccurrences:
        raise invalid_params(
            {
                "recurrence": ngettext(
                    "A series may have at most %(num)s occurrence; this recurrence has more.",
                    "A series may have at most %(num)s occurrences; this recurrence has more.",
                    most,
                )
            }
        ) from None
    except (dates.DateError, ValueError, OverflowError, IndexError):
        raise invalid_params({"recurrence": translate(recurrence.INVALID_LINE)}) from None


def plan_occurrences(values: dict, existing) -> list | None:
    """The wall-clock starts of a series' occurrences when a write creates the series or
    changes its dates or recurrence (None when it does not), before anything is written.
    The body's checks refused what it would refuse (``_check_series_start``, which a body
    with a bad start, timezone or recurrence line skips): expanded again here (a
    millisecond or two for 1,000 dates) rather than carried through the write rules."""
    lines_text = _series_lines(values, existing)
    if lines_text is None:
        return None
    tz, start, rules = _series_rules(values, existing, lines_text)
    return _expanded(values, existing, tz, start, rules)


def create_event(body: dict, viewer, stamp: dict | None = None):
    """The write pipeline of a new event, for every face (the API, the editor, the
    importers): a body the schema has loaded → columns and links → permission → write rules
    → series plan → save. ``stamp``: columns only an importer sets (the origin's UID)."""

    def decide():
        values, links = prepare_event(body, None, viewer)
        require(viewer, "create")
        apply_write_rules(values, viewer, None)
        occurrences = plan_occurrences(values, None)
        values.update(stamp or {})
        return values, links, occurrences

    def write(decision):
        values, links, occurrences = decision
        return save_event(values, links, viewer=viewer, occurrences=occurrences)

    return write_decided(decide, write)


def change_event(event, body: dict, viewer, stamp: dict | None = None, from_trash: bool = False):
    """The write pipeline of an update (only the fields ``body`` sends), as ``create_event``
    with the body's checks against the event after permission (``require_edit``);
    decided from the event as it is when written (``write_decided``), not as the caller
    read it. ``from_trash``: the editor's restore, of an event still in the trash only."""

    def decide():
        current = current_event(event.id)
        if from_trash:
            require_in_trash(current)
        values, links = validated_update(body, current, viewer)
        apply_write_rules(values, viewer, current)
        floating = _dated_on_publishing(values, current)
        occurrences = plan_occurrences(values, current)
        values.update(stamp or {})
        return current, values, links, occurrences, floating

    def write(decision):
        current, values, links, occurrences, floating = decision
        saved = write_event(values, links, current, viewer, occurrences)
        if floating:
            note_floating(current.id, False)
        return saved

    return write_decided(decide, write)


def _already_trashed() -> ApiError:
    return ApiError("event-is-in-trash", _("The event is already trashed"), 410)


def discard_event(event, viewer, force: bool = False, from_trash: bool = False):
    """The removal pipeline of an event, for every face (the API's DELETE, the editor's
    trash and delete for good): permission → to the trash (a 410 when it is there already),
    or deleted with ``force`` (editors and up; ``from_trash``: the editor's, of an event
    still in the trash only). Decided from the event as it is when written
    (``write_decided``): removals at once trash it once, and a publish written in between
    is neither trashed by one who may not trash it nor deleted for good from the trash.
    Returns the trashed event, None when deleted."""

    def decide():
        current = current_event(event.id)
        require_removal(viewer, current, force, from_trash, in_trash=_already_trashed)
        return current

    def write(current):
        if force:
            return delete_event(current)
        trashed = trash_event(current)
        if trashed is None:  # removed by a concurrent request: as a read after it answers
            raise not_an_event(event.id)
        return trashed

    return write_decided(decide, write)


def current_event(event_id: int):
    """The event as stored now; deleted (or re-created with its series) since the caller
    read it, as a read after that answers."""
    current = get_event(event_id)
    if current is None:
        raise not_an_event(event_id)
    return current


def _dated_on_publishing(values: dict, event) -> bool:
    """An imported draft that came without a publication date (``note_floating``) takes
    the time it is published here, as WordPress dates such a post; whether it was one."""
    if not is_floating(event.id):
        return False
    if "date_utc" not in values and values.get("status") == "publish":
        values.update(
            dates.publication_dates(
                {}, dates.resolve_timezone(current_app.config["SITE_TIMEZONE"])[0], creating=True
            )
        )
    return "date_utc" in values


def write_event(values: dict, links: dict, existing, viewer, occurrences):
    """``save_event``, with an event removed by a concurrent write (deleted, or an
    occurrence re-created by a change of its series) since the request read it answered
    as the 404 a read after the removal gets."""
    try:
        return save_event(values, links, existing, viewer=viewer, occurrences=occurrences)
    except Vanished:
        raise not_an_event(existing.id) from None


def not_an_event(event_id: int) -> ApiError:
    if node_kind(event_id) not in (None, "event"):  # exists, but is a venue or organizer
        return ApiError("rest-invalid-event-id", _("The specified ID is not a valid event."), 400)
    return ApiError(
        "rest-event-not-found", _("Event with ID %(id)s does not exist.", id=event_id), 404
    )
