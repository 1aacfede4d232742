"""The rows of recurring events (SPEC §12), inside the caller's write transaction: a
series' occurrences made, kept in step with it, excluded, restored, trashed; and what the
iCalendar writer and the command line read of them. The lines themselves, their parsing
and expansion are rules/recurrence.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from peewee import SQL, Case

from rules import dates
from rules.clock import utcnow_str
from rules.posts import suffixed_slug
from rules.recurrence import (
    RecurrenceError,
    TooManyOccurrences,
    exdate_line,
    is_occurrence,
    is_series,
    join_lines,
    occurrence_starts,
    parse,
    rewrite_exdates,
    rule_gives,
    series_zone,
    stored_lines,
    without_exdates,
    without_stale_exdates,
)
from store.db import insert_rows, run_sql, write_transaction
from store.models import Event, EventTerm, live_value
from store.posts import allocate_ids, unique_slug
from store.sql import Statement, in_list, param

# --- the series' rows (inside the caller's write transaction) --------------------------------

# Link tables copied from the series to its occurrences, and the body keys that replace them.
LINK_TABLES = {
    "venue": ("event_venue", "venue_id"),
    "organizer": ("event_organizer", "organizer_id"),
    "categories": ("event_term", "term_id"),
    "tags": ("event_term", "term_id"),
}
# Columns an occurrence never takes from its series on an update of the series.
OWN_COLUMNS = {"id", "slug", "post_parent", "occurrence", "detached", "recurrence"}
SCHEDULE_COLUMNS = ("start_date", "end_date", "utc_start", "utc_end", "timezone", "all_day")
# The occurrences that follow their series: not edited (nor trashed) on their own.
_FOLLOWERS = "SELECT id FROM event WHERE post_parent = ? AND occurrence != '' AND NOT detached"


def follows_series(event=Event):
    """``event`` (the table or an alias of it) is an occurrence that follows its series: not
    edited (nor trashed) on its own, it stands for the series' date, and a list that shows
    a series once leaves it for the series or its next date (store/editor.py)."""
    return (event.occurrence != "") & (event.detached == False)  # noqa: E712


def _members(series_id: int):
    return (Event.post_parent == series_id) & (Event.occurrence != "")


def _set_lines(series_id: int, lines: list[str]) -> None:
    """The series' lines, on the series and on the copy every occurrence carries."""

    run_sql(
        "UPDATE event SET recurrence = ? WHERE id = ? OR (post_parent = ? AND occurrence != '')",
        (join_lines(lines), series_id, series_id),
    )


def _dates_changed(series_id: int, lines: list[str]) -> None:
    """The series' lines changed by one of its dates (an occurrence trashed, deleted or
    restored, a date an import excluded), not by a save of the series: the series is
    modified now, so that its feed's LAST-MODIFIED and its ETags move and a calendar that
    imports the feed again (which takes a later LAST-MODIFIED, SPEC §11) drops the date."""
    now = utcnow_str()
    _set_lines(series_id, lines)
    Event.update(modified=now, modified_utc=now).where(Event.id == series_id).execute()


def _copy_links(series_id: int, tables, since: int | None = None, only: int | None = None) -> None:
    """Replaces the links of the following occurrences by copies of the series' links:
    two statements per table, whatever the number of occurrences. With ``since`` (the
    first id of occurrences just added, which have none), gives those theirs only; with
    ``only``, replaces the links of that one occurrence."""

    low, high = (only, only) if only is not None else (since or 0, 2**63 - 1)
    for table, column in dict.fromkeys(tables):
        live = ", live" if table == "event_term" else ""
        if only is not None:
            run_sql(f"DELETE FROM {table} WHERE event_id = ?", (only,))
        elif since is None:
            run_sql(f"DELETE FROM {table} WHERE event_id IN ({_FOLLOWERS})", (series_id,))
        run_sql(
            f"INSERT INTO {table} (event_id, {column}, position{live}) "
            f"SELECT o.id, l.{column}, l.position{live.replace(', ', ', l.')} "
            f"FROM event AS o JOIN {table} AS l ON l.event_id = ? "
            f"WHERE o.post_parent = ? AND o.occurrence != '' AND NOT o.detached "
            f"AND o.id >= ? AND o.id <= ?",
            (series_id, series_id, low, high),
        )


# Compiled once per length: building the query of a series' hundred slugs cost as much as
# running it.
_SLUGS_TAKEN = Statement(
    lambda size: Event.select(Event.slug).where(Event.slug.in_(in_list(0, size)))
)


def _occurrence_slugs(base: str, starts: list[datetime]) -> list[str]:
    """``{slug}-{YYYY-MM-DD}`` (``-HHMM`` added when a day has several occurrences), made
    unique against other events with the usual ``-2`` suffixes."""

    per_day: dict[date, int] = {}
    for start in starts:
        per_day[start.date()] = per_day.get(start.date(), 0) + 1
    wanted = [
        suffixed_slug(
            base, f"-{start:%Y-%m-%d}" + (f"-{start:%H%M}" if per_day[start.date()] > 1 else "")
        )
        for start in starts
    ]
    taken: set[str] = set()
    for offset in range(0, len(wanted), 500):
        chunk = wanted[offset : offset + 500]
        found = _SLUGS_TAKEN.execute(*chunk, sizes=(len(chunk),)).fetchall()
        taken.update(slug for (slug,) in found)
    seen: set[str] = set()
    slugs = []
    for slug in wanted:
        if slug in taken or slug in seen:
            # ``seen``: the slugs given to the occurrences before, not yet in the table.
            slug = unique_slug(Event, slug, "event", reserved=seen)
        seen.add(slug)
        slugs.append(slug)
    return slugs


def _occurrence_rows(series, starts: list[datetime]) -> list[dict]:
    base = {f.name: getattr(series, f.name) for f in Event._meta.sorted_fields if f.name != "id"}
    ids = allocate_ids("event", len(starts))
    rows = []
    for event_id, start, slug in zip(
        ids, starts, _occurrence_slugs(series.slug, starts), strict=True
    ):
        rows.append(
            {
                **base,
                "id": event_id,
                "slug": slug,
                "post_parent": series.id,
                "occurrence": dates.fmt(start),
                "detached": False,
                **_schedule_at(series, start),
            }
        )
    return rows


def _schedule_at(series, start: datetime, duration: timedelta | None = None) -> dict:
    """The dates of the occurrence of ``series`` at the wall time ``start``: the series'
    duration (wall-clock), or ``duration`` (a period's own). A start in a DST gap moves
    forward by the gap (RFC 5545 3.3.5) and keeps the series' exact duration (3.8.5.3,
    SPEC §12): its end read at the wall clock would make 02:30-03:30 on the night the
    clocks skip 02:00-03:00 an empty event. A whole day still ends at its day's end (a
    zone whose clocks skip midnight starts it at 01:00)."""
    tz = series_zone(series)[0]
    exact = duration
    if duration is None:
        duration = dates.parse_stored(series.end_date) - dates.parse_stored(series.start_date)
        exact = dates.parse_stored(series.utc_end) - dates.parse_stored(series.utc_start)
    utc_start = dates.local_to_utc(start, tz)
    shown = dates.utc_to_local(utc_start, tz)  # as the clock showed it: later in a gap
    if shown != start and not series.all_day:
        utc_end = utc_start + exact
    else:
        utc_end = dates.local_to_utc(start + duration, tz)
    return {
        # Wall times in a DST gap are stored as the clock showed them, as on writes.
        "start_date": dates.fmt(shown),
        "end_date": dates.fmt(dates.utc_to_local(utc_end, tz)),
        "utc_start": dates.fmt(utc_start),
        "utc_end": dates.fmt(utc_end),
    }


def add_occurrences(series, starts: list[datetime]) -> int:
    """Inserts occurrences of ``series`` at the wall times ``starts`` with bulk inserts, and
    gives them the series' links. Returns how many were added."""

    if not starts:
        return 0
    rows = _occurrence_rows(series, starts)
    insert_rows(Event, rows)  # prepared once, not built as Peewee queries
    # Ids are allocated in ascending order, after every existing one: the new rows are
    # those from the first of them, and only they lack links.
    _copy_links(series.id, LINK_TABLES.values(), since=min(row["id"] for row in rows))
    _own_spans(series, rows)
    return len(rows)


def _own_spans(series, rows: list[dict]) -> None:
    """An RDATE;VALUE=PERIOD whose span is not the series' (RFC 5545 3.8.5.2): its
    occurrence among ``rows`` (just added) keeps its own end, as an occurrence edited on
    its own, which the feeds write as its own VEVENT: what the import makes of the same
    line (app/ical.py::_own_periods). Whole-day series take the period's day only."""
    if series.all_day or "PERIOD" not in series.recurrence.upper():
        return
    tz = series_zone(series)[0]
    start = dates.parse_stored(series.start_date)
    duration = dates.parse_stored(series.end_date) - start
    added = {row["occurrence"]: row["id"] for row in rows}
    for moment in parse(stored_lines(series.recurrence)).rdates:
        local, end = moment.local(tz, start.time()), moment.local_end(tz, start.time())
        event_id = added.get(dates.fmt(local))
        if end is None or event_id is None or end - local == duration:
            continue
        Event.update(_schedule_at(series, local, end - local), detached=True).where(
            Event.id == event_id
        ).execute()


def rebuild(series, starts: list[datetime], before=None) -> None:
    """Re-creates the occurrences of ``series`` at ``starts``: the ones that follow the
    series are deleted and inserted anew; those edited on their own are kept when their
    start (else their day) still occurs (they then stand for that occurrence), deleted
    otherwise; those trashed on their own stay in the trash while the series excludes
    them. ``before``: the series before the write, whose excluded days stay excluded when
    its time of day, timezone or all-day flag changed (``_exdates_follow_their_day``)."""

    follow = _follower(before, series, starts) if before is not None else None
    lines = _lines_after_change(series, before, follow)
    tz = series_zone(series)[0]
    recurrence = parse(lines)
    exdates = recurrence.exdates
    # The starts were planned before the transaction: an occurrence trashed meanwhile has
    # added its EXDATE to the series, which is read here, inside it.
    starts = without_exdates(starts, exdates, tz)
    Event.delete().where(_members(series.id) & (Event.detached == False)).execute()  # noqa: E712
    first_by_day: dict[date, datetime] = {}
    for start in starts:
        first_by_day.setdefault(start.date(), start)
    planned = set(starts)
    kept: set[datetime] = set()
    rows = Event.select(Event.id, Event.occurrence, Event.status, Event.start_date).where(
        _members(series.id)
    )
    for row in rows:
        old = dates.parse_stored(row.occurrence)
        if row.status == "trash":
            _move_trashed(row, series, follow, recurrence, tz)
            continue
        start = old if old in planned else first_by_day.get(old.date())
        if start is None or start in kept:
            Event.delete().where(Event.id == row.id).execute()
        else:
            kept.add(start)
            Event.update(occurrence=dates.fmt(start), recurrence=series.recurrence).where(
                Event.id == row.id
            ).execute()
    add_occurrences(series, [start for start in starts if start not in kept])


def _lines_after_change(series, before, follow) -> list[str]:
    """The series' lines once a write changed its dates: its excluded days moved with its
    time of day (``_exdates_follow_their_day``), then without the EXDATEs that name none of
    its dates any more (``without_stale_exdates``), saved when they differ."""
    lines = stored_lines(series.recurrence)
    if before is None or not is_series(before):
        return lines
    changed = lines
    if follow is not None:
        changed = _exdates_follow_their_day(changed, before, series, follow)
    was = (
        parse(stored_lines(before.recurrence)),
        dates.parse_stored(before.start_date),
        series_zone(before)[0],
    )
    start = dates.parse_stored(series.start_date)
    changed = without_stale_exdates(changed, start, series_zone(series)[0], was)
    if changed != lines:
        series.recurrence = join_lines(changed)  # the occurrences copy it
        _set_lines(series.id, changed)
    return changed


def _move_trashed(row, series, follow, recurrence, tz) -> None:
    """An occurrence trashed on its own stays in the trash (to be restored) for as long as
    the series excludes it and its rules still give its date, moved with the series unless
    moved on its own; else it is deleted."""
    old = dates.parse_stored(row.occurrence)
    followed = follow(old) if follow else None
    moment = followed or old
    if without_exdates([moment], recurrence.exdates, tz) or not rule_gives(
        recurrence, dates.parse_stored(series.start_date), tz, moment
    ):
        Event.delete().where(Event.id == row.id).execute()
        return
    changes = {"occurrence": dates.fmt(moment), "recurrence": series.recurrence}
    if row.start_date == row.occurrence and followed is not None:
        changes.update(
            _schedule_at(series, moment), timezone=series.timezone, all_day=series.all_day
        )
    Event.update(changes).where(Event.id == row.id).execute()


def _follower(before, series, starts):
    """When the write moved the series (its time of day, zone or all-day flag), a function
    giving, for a wall time of an occurrence of ``before``, the occurrence of ``series``
    that stands for it: the planned start of the same day at the series' new time of day
    (or the day's first; the new time of day on a day the plan leaves out), for an
    occurrence at ``before``'s time; None otherwise. None when the series did not move."""
    if (before.start_date[11:], before.timezone, bool(before.all_day)) == (
        series.start_date[11:],
        series.timezone,
        bool(series.all_day),
    ):
        return None
    old_time = dates.parse_stored(before.start_date).time()
    new_time = dates.parse_stored(series.start_date).time()
    by_day: dict[date, datetime] = {}
    for start in starts:
        if start.date() not in by_day or (
            start.time() == new_time and by_day[start.date()].time() != new_time
        ):
            by_day[start.date()] = start

    def follow(wall: datetime) -> datetime | None:
        if wall.time() != old_time:
            return None
        # A day the plan leaves out (already excluded) keeps the series' new time of day.
        return by_day.get(wall.date()) or datetime.combine(wall.date(), new_time)

    return follow


def _exdates_follow_their_day(lines: list[str], before, series, follow) -> list[str]:
    """The series' lines with each EXDATE value that named an occurrence of ``before`` (a
    wall time at ``before``'s time of day, in its zone: the form trashing writes, also in a
    DST gap, where the occurrence stands at the time the clock showed; or a whole day when
    ``before`` was all-day) rewritten to name the occurrence that ``follow`` gives for it
    (``_follower``): moving a series from 10:00 to 09:00 keeps the days that were trashed
    or deleted out of it, in its listing and in its feed alike. A line of several values
    keeps the values that do not move; other lines stay."""
    old_tz, old_label = series_zone(before)
    old_time = dates.parse_stored(before.start_date).time()
    new_tz, label = series_zone(series)

    def moved(moment) -> str | None:
        if moment.kind == "date":
            if not before.all_day or series.all_day:
                return None  # a whole day stays a whole day
            wall = datetime.combine(moment.value, old_time)
        elif moment.kind == "local" and moment.tzid in (None, old_label):
            wall = moment.value  # as written: a time in a DST gap stays what it named
        else:
            wall = moment.local(old_tz, old_time)
        start = follow(wall)
        return None if start is None else exdate_line(start, new_tz, label, bool(series.all_day))

    return rewrite_exdates(lines, moved)


def restore_with_series(series, before) -> None:
    """A series taken out of the trash brings back the occurrences edited on their own
    that went to the trash with it: those whose day the series does not exclude (one
    trashed on its own added its EXDATE, and stays in the trash). They come back as drafts,
    for their editors to publish again."""

    # The series as it was: the same write may move it (the lines are rewritten after).
    exdates, tz = parse(stored_lines(before.recurrence)).exdates, series_zone(before)[0]
    rows = Event.select().where(
        _members(series.id) & (Event.detached == True) & (Event.status == "trash")  # noqa: E712
    )
    for row in rows:
        if not without_exdates([dates.parse_stored(row.occurrence)], exdates, tz):
            continue  # trashed on its own: its day stays excluded
        # As WordPress restores what it takes out of the trash: a draft (its status before
        # is not kept, and a private or draft occurrence must not come back public).
        Event.update(
            status="draft", modified=series.modified, modified_utc=series.modified_utc
        ).where(Event.id == row.id).execute()
        EventTerm.update(live=live_value("draft", row.password)).where(
            EventTerm.event == row.id
        ).execute()


def propagate(series, changed: dict, link_keys) -> None:
    """An update of the series reaches every occurrence not edited on its own: the columns
    it sent, and the links it replaced. Not its dates: an update that changes them
    re-creates the occurrences (``rebuild``); one that sends them as they were leaves
    each occurrence at its own."""

    columns = {
        k: v for k, v in changed.items() if k not in OWN_COLUMNS and k not in SCHEDULE_COLUMNS
    }
    if columns:
        Event.update(columns).where(
            _members(series.id) & (Event.detached == False)  # noqa: E712
        ).execute()
    tables = [LINK_TABLES[key] for key in link_keys if key in LINK_TABLES]
    if tables:
        _copy_links(series.id, tables)
    if {"status", "password"} & columns.keys() and ("event_term", "term_id") not in tables:
        live = live_value(series.status, series.password)  # the series as saved
        run_sql(
            f"UPDATE event_term SET live = ? WHERE event_id IN ({_FOLLOWERS})", (live, series.id)
        )


def end_series(series_id: int) -> None:
    """The recurrence ended: the following occurrences are deleted; those edited on their
    own become ordinary events."""

    Event.delete().where(_members(series_id) & (Event.detached == False)).execute()  # noqa: E712
    Event.update(post_parent=0, occurrence="", detached=False, recurrence="").where(
        _members(series_id)
    ).execute()


def after_series_write(saved, existing, changed: dict, link_keys, starts) -> None:
    """What a write of an event does to its series, inside the write's transaction.
    ``starts`` is the new expansion when the dates or the recurrence changed, else None."""
    if existing is not None and is_occurrence(existing):
        only_status = changed.keys() <= _STATUS_WRITE
        if existing.status == "trash" and saved.status != "trash":
            restore_occurrence(saved, rejoins=only_status)
        elif existing.status != "trash" and saved.status == "trash":  # trashed by an update
            exclude_occurrence(saved)
            if only_status and not existing.detached:
                Event.update(trashed_following=True).where(Event.id == saved.id).execute()
        return
    was_series = existing is not None and bool(existing.recurrence)
    if was_series and existing.status == "trash" and saved.status != "trash":
        restore_with_series(saved, existing)
    if was_series and "recurrence" in changed and not saved.recurrence:
        end_series(saved.id)
    elif saved.recurrence and starts is not None:
        rebuild(saved, starts, existing if was_series else None)
    elif saved.recurrence:
        propagate(saved, changed, link_keys)


# What a write that changes only an occurrence's status (trash, restore) sets: it edits
# nothing of the occurrence, which keeps following its series (store/events.py::save_event).
_STATUS_WRITE = {"status", "modified", "modified_utc", "detached", "date", "date_utc"}


def _exdate_for(occurrence, series) -> str:
    tz, label = series_zone(series)
    return exdate_line(dates.parse_stored(occurrence.occurrence), tz, label, bool(series.all_day))


def exclude_occurrence(occurrence) -> None:
    """A trashed or deleted occurrence: its date gains an EXDATE line in the series."""

    series = Event.get_or_none(Event.id == occurrence.post_parent)
    if series is None:
        return
    line = _exdate_for(occurrence, series)
    lines = stored_lines(series.recurrence)
    if line not in lines:
        _dates_changed(series.id, [*lines, line])


def restore_occurrence(occurrence, rejoins: bool = False) -> None:
    """An occurrence taken out of the trash: the EXDATE its trashing added goes (and any
    other that excludes it). One that followed its series when it was trashed, restored
    by a write of its status alone (``rejoins``), follows the series again (``_rejoin``)."""

    series = Event.get_or_none(Event.id == occurrence.post_parent)
    if series is None:
        return
    tz = series_zone(series)[0]
    wall = dates.parse_stored(occurrence.occurrence)
    lines = stored_lines(series.recurrence)
    # Every value that excludes it, whatever its form (a whole day, another zone, a line
    # of several values): the occurrence is back in its series.
    kept = rewrite_exdates(lines, lambda m: "" if not without_exdates([wall], [m], tz) else None)
    if kept != lines:
        _dates_changed(series.id, kept)
    row = Event.get_or_none(Event.id == occurrence.id)
    if rejoins and row is not None and row.trashed_following:
        _rejoin(row, series)


# Columns of a restored occurrence that are its own, not its series': the rest are copied.
_KEPT_ON_REJOIN = OWN_COLUMNS | {"status", "trashed_from", "modified", "modified_utc"}


def _rejoin(occurrence, series) -> None:
    """SPEC §12: updating the series changes every occurrence not edited on its own, and
    one only trashed was not: restored, it takes what the series is now (its fields, its
    dates at the occurrence's place in the series, its links), as the occurrences that
    never left have, and follows it again (no longer written as an edited occurrence)."""
    columns = {
        field.name: getattr(series, field.name)
        for field in Event._meta.sorted_fields
        if field.name not in _KEPT_ON_REJOIN
    }
    columns.update(
        _schedule_at(series, dates.parse_stored(occurrence.occurrence)),
        detached=False,
        trashed_following=False,
    )
    Event.update(columns).where(Event.id == occurrence.id).execute()
    _copy_links(series.id, LINK_TABLES.values(), only=occurrence.id)
    EventTerm.update(live=live_value(occurrence.status, series.password)).where(
        EventTerm.event == occurrence.id
    ).execute()


def rejoin_edited(series_id: int, kept) -> None:
    """The occurrences of the series edited on their own, but those at the wall times
    ``kept`` says (a predicate), follow it again (``_rejoin``): a newer version of an
    imported series that no longer edits them shows them as its rule does."""
    series = Event.get_or_none(Event.id == series_id)
    if series is None:
        return
    for row in Event.select().where(_edited(_members(series_id))):
        if not kept(dates.parse_stored(row.occurrence)):
            _rejoin(row, series)


def trash_occurrences(series_id: int, now: str) -> None:
    run_sql(
        "UPDATE event_term SET live = 0 WHERE event_id IN "
        "(SELECT id FROM event WHERE post_parent = ? AND occurrence != '')",
        (series_id,),
    )
    kept = Case(None, [(Event.status == "trash", Event.trashed_from)], Event.status)
    Event.update(status="trash", trashed_from=kept, modified=now, modified_utc=now).where(
        _members(series_id)
    ).execute()


def next_occurrences(series_id: int, most: int) -> list:
    """The series' next ``most`` dates (its occurrences, edited on their own or not, not in
    the trash) from now on, in date order: what its form links to, to edit one alone."""
    upcoming = _members(series_id) & (Event.status != "trash") & (Event.utc_end >= utcnow_str())
    return list(Event.select().where(upcoming).order_by(Event.utc_start, Event.id).limit(most))


def count_occurrences(series_id: int) -> int:
    """The series' other dates (edited on their own or not): what deleting it takes with it."""
    return Event.select().where(_members(series_id)).count()


def delete_occurrences(series_id: int) -> None:
    Event.delete().where(_members(series_id)).execute()


# --- for the iCalendar writer and the command line ----------------------------------------------


@dataclass
class Override:
    """An occurrence edited on its own: a VEVENT with RECURRENCE-ID ``recurrence_id`` (a wall
    time in the series' timezone; a date for all-day series); ``line`` is that property as
    RFC 5545 writes it (``RECURRENCE-ID;TZID=Europe/Paris:20270308T190000``)."""

    recurrence_id: datetime
    event: object
    line: str = ""


def ical_role(event) -> str:
    """How the iCalendar writer shows an event: "series" (one VEVENT with the series'
    lines), "override" (a VEVENT with RECURRENCE-ID, also listed by ``series_ical``),
    "omitted" (the series' lines stand for it: its RRULE, or the EXDATE of a trashed one)
    or "single"."""
    if is_series(event):
        return "series"
    if is_occurrence(event):
        return "override" if event.detached and event.status != "trash" else "omitted"
    return "single"


def series_ical(series) -> tuple[list[str], list[Override]]:
    """The series' RFC 5545 lines (RRULE/RDATE/EXDATE, as stored) and its individually
    edited occurrences that are not in the trash, in date order."""
    tz, label = series_zone(series)
    overrides = []
    for row in overrides_of([series.id])[series.id]:
        moment = dates.parse_stored(row.occurrence)
        line = exdate_line(moment, tz, label, bool(series.all_day), "RECURRENCE-ID")
        overrides.append(Override(moment, row, line))
    return stored_lines(series.recurrence), overrides


def last_occurrence_ends(series_ids: list[int]) -> dict[int, str]:
    """The latest local end among the occurrences of each series (one query)."""
    from peewee import fn

    if not series_ids:
        return {}
    query = (
        Event.select(Event.post_parent, fn.MAX(Event.end_date))
        .where(Event.post_parent.in_(series_ids) & (Event.occurrence != ""))
        .group_by(Event.post_parent)
        .tuples()
    )
    return dict(query)


def overrides_of(series_ids: list[int]) -> dict[int, list]:
    """The individually edited occurrences, not in the trash, of each series, in date
    order (one query): what ``series_ical`` lists, for many series at once."""

    found: dict[int, list] = {series_id: [] for series_id in series_ids}
    if not series_ids:
        return found
    rows = Event.select().where(_edited(Event.post_parent.in_(series_ids)))
    for row in rows.order_by(Event.post_parent, Event.occurrence):
        found[row.post_parent].append(row)
    return found


def series_spans(series_ids: list[int]) -> list[tuple[int, int, str, str, bool]]:
    """(series id, event id, UTC start, UTC end, moved) of each of ``series_ids`` that is
    timed (not all day) and of each occurrence that follows one (``follows_series``), not in
    the trash (one query); ``moved``: an occurrence that starts later than its rule's date,
    which fell in a DST gap (``_schedule_at``)."""
    if not series_ids:
        return []
    series = Case(None, [(Event.post_parent == 0, Event.id)], Event.post_parent)
    following = Event.post_parent.in_(series_ids) & follows_series() & (Event.status != "trash")
    columns = (series, Event.id, Event.utc_start, Event.utc_end, Event.start_date, Event.occurrence)
    timed = Event.all_day == False  # noqa: E712
    wanted = (Event.id.in_(series_ids) | following) & timed
    rows = Event.select(*columns).where(wanted).tuples()
    return [
        (series_id, event_id, utc_start, utc_end, bool(occurrence) and start != occurrence)
        for series_id, event_id, utc_start, utc_end, start, occurrence in rows
    ]


def series_dates(series_ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    """(event id, the date its rule gives, as stored: the series' own start, an
    occurrence's ``occurrence``) of each event not in the trash of each of ``series_ids``
    (one query): the dates a feed's series stands for."""
    found: dict[int, list[tuple[int, str]]] = {series_id: [] for series_id in series_ids}
    if not series_ids:
        return found
    series = Case(None, [(Event.post_parent == 0, Event.id)], Event.post_parent)
    members = Event.id.in_(series_ids) | (
        Event.post_parent.in_(series_ids) & (Event.occurrence != "")
    )
    rows = Event.select(series, Event.id, Event.start_date, Event.occurrence)
    for series_id, event_id, start, occurrence in rows.where(
        members & (Event.status != "trash")
    ).tuples():
        found[series_id].append((event_id, occurrence or start))
    return found


def has_overrides(series_id: int) -> bool:
    """Whether the series has an occurrence ``overrides_of`` lists (an event page asks
    it of each series it shows: a compiled statement, stopping at the first)."""
    return _HAS_OVERRIDES.first(series_id, "", True, "trash", 1) is not None


def _edited(members, empty: object = "", detached: object = True, trash: object = "trash"):
    """Occurrences among ``members`` edited on their own, not in the trash; the constants
    may be placeholders (a compiled statement's)."""
    return (
        members
        & (Event.occurrence != empty)
        & (Event.detached == detached)
        & (Event.status != trash)
    )


_HAS_OVERRIDES = Statement(
    lambda: (
        Event.select(SQL("1"))
        .where(_edited(Event.post_parent == param(0), param(1), param(2), param(3)))
        .limit(param(4))
    )
)


def exclude_date(series, occurrence: datetime) -> bool:
    """Adds the EXDATE line of the wall time ``occurrence`` to ``series`` (and to the copy its
    occurrences carry) without re-creating anything; True when the line was new."""

    with write_transaction():
        current = Event.get_or_none(Event.id == series.id)
        if current is None:
            return False
        tz, label = series_zone(current)
        line = exdate_line(occurrence, tz, label, bool(current.all_day))
        lines = stored_lines(current.recurrence)
        if line in lines:
            return False
        _dates_changed(current.id, [*lines, line])
        return True


def occurrence_at(series_id: int, occurrence: datetime):
    """The occurrence of the series standing for the wall time ``occurrence``, or None."""

    return Event.get_or_none(_members(series_id) & (Event.occurrence == dates.fmt(occurrence)))


def occurrences_from(series_id: int, occurrence: datetime) -> list[datetime]:
    """The wall times (in the series' zone) of the series' occurrences at or after
    ``occurrence``, in order."""

    rows = (
        Event.select(Event.occurrence)
        .where(_members(series_id) & (Event.occurrence >= dates.fmt(occurrence)))
        .order_by(Event.occurrence)
    )
    return [dates.parse_stored(row.occurrence) for row in rows]


def open_ended_series() -> list[int]:
    """Ids of the series whose rules run with no end (candidates for ``extend``)."""

    ids = []
    query = Event.select(Event.id, Event.recurrence).where(
        (Event.recurrence != "") & (Event.occurrence == "") & (Event.status != "trash")
    )
    for row in query:
        try:
            if parse(stored_lines(row.recurrence)).open_ended:
                ids.append(row.id)
        except RecurrenceError:
            continue
    return ids


def extend_series(series_id: int, horizon_utc: datetime, limit: int) -> int:
    """Adds the occurrences of an open-ended series up to ``horizon_utc`` that do not exist
    yet (a trashed or deleted one has its EXDATE, so it is not re-created), never more than
    ``limit`` in all. Idempotent; returns how many were added."""

    with write_transaction():
        series = Event.get_or_none(Event.id == series_id)
        if series is None or not is_series(series) or series.status == "trash":
            return 0
        tz = series_zone(series)[0]
        recurrence = parse(stored_lines(series.recurrence))
        start = dates.parse_stored(series.start_date)
        existing = {
            occurrence
            for (occurrence,) in Event.select(Event.occurrence).where(_members(series.id)).tuples()
        }
        try:
            starts = occurrence_starts(recurrence, start, tz, horizon_utc, limit=10**9)
        except TooManyOccurrences:  # pragma: no cover - the limit above is never reached
            return 0
        room = max(0, limit - 1 - len(existing))
        missing = [s for s in starts if dates.fmt(s) not in existing][:room]
        return add_occurrences(series, missing)
