"""What the editor's dashboard lists (SPEC §16): a user's own events by status, the events
waiting for an editor's review, the trash. The editor checks each row with ``may``."""

from __future__ import annotations

from rules.clock import utcnow_str
from store.models import Event

MOST = 20


def authored(user_id: int, statuses: tuple[str, ...], upcoming: bool = False) -> list[Event]:
    """The user's own events of ``statuses`` (not yet ended when ``upcoming``), by start."""
    where = (Event.author == user_id) & Event.status.in_(statuses)
    if upcoming:
        where &= Event.utc_end >= utcnow_str()
    return list(Event.select().where(where).order_by(Event.utc_start, Event.id).limit(MOST))


def awaiting_review() -> list[Event]:
    """Everyone's pending events, oldest change first."""
    query = Event.select().where(Event.status == "pending")
    return list(query.order_by(Event.modified_utc, Event.id).limit(MOST))


def in_trash(user_id: int | None) -> list[Event]:
    """Trashed events (one user's, or everyone's for ``None``), last trashed first."""
    where = Event.status == "trash"
    if user_id is not None:
        where &= Event.author == user_id
    query = Event.select().where(where)
    return list(query.order_by(Event.modified_utc.desc(), Event.id).limit(MOST))
