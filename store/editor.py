"""What the editor's dashboard lists (SPEC §16): a user's own events by status, the events,
venues and organizers waiting for an editor's review, the trash; and what an approval
reaches (an event's linked items). The editor checks each row with ``may``."""

from __future__ import annotations

from datetime import timedelta

from peewee import IntegrityError, fn

from rules.clock import utcnow_str
from store.db import database
from store.linked import MODELS
from store.models import Event, EventOrganizer, EventVenue, Organizer, Setting, Venue
from store.recurrence import follows_series

MOST = 20


def _follows_series(statuses: tuple[str, ...]):
    """An occurrence that follows its series (not edited on its own), the series being of
    ``statuses``: a list of those statuses shows the series alone, once, as what stands
    for its occurrences (they are approved, edited and trashed with it)."""
    series = Event.alias()
    of_statuses = series.select(series.id).where(series.status.in_(statuses))
    return follows_series() & Event.post_parent.in_(of_statuses)


def _not_next_of_its_series(now: str):
    """An occurrence that follows its series while an earlier date of that series (the
    series itself, or another occurrence following it) has not ended by ``now``."""
    other = Event.alias()
    earlier = other.select(other.id).where(
        (other.utc_end >= now)
        & (other.utc_start < Event.utc_start)
        & (
            (other.id == Event.post_parent)
            | ((other.post_parent == Event.post_parent) & follows_series(other))
        )
    )
    return follows_series() & fn.EXISTS(earlier)


def authored(
    user_id: int, statuses: tuple[str, ...], upcoming: bool = False, most: int = MOST
) -> list[Event]:
    """The user's own events of ``statuses``, by start, a series once: all of them (the
    series stands for its dates, ``_follows_series``, as "Pending review"); or, when
    ``upcoming``, those not yet ended, a series by its next date (its first may have
    ended)."""
    where = (Event.author == user_id) & Event.status.in_(statuses)
    if upcoming:
        now = utcnow_str()
        where &= (Event.utc_end >= now) & ~_not_next_of_its_series(now)
    else:
        where &= ~_follows_series(statuses)
    return list(Event.select().where(where).order_by(Event.utc_start, Event.id).limit(most))


def awaiting_review(most: int = MOST) -> tuple[list[Event], int]:
    """Everyone's pending events, latest change first (a new submission on top, as
    WordPress lists posts), a series once: the occurrences that
    follow a pending series (not edited on their own) are approved with it, so only the
    series is listed. And how many there are in all."""
    query = Event.select().where((Event.status == "pending") & ~_follows_series(("pending",)))
    rows = list(query.order_by(Event.modified_utc.desc(), Event.id.desc()).limit(most))
    return rows, query.count()


def linked_awaiting_review(kind: str, most: int = MOST) -> tuple[list, int]:
    """Everyone's pending venues or organizers (``kind``), latest change first, and how
    many there are in all."""
    model = MODELS[kind]
    query = model.select().where(model.status == "pending")
    latest = (model.modified_utc.desc(), model.id.desc())
    return list(query.order_by(*latest).limit(most)), query.count()


def linked_to(event_id: int) -> list[tuple[str, Venue | Organizer]]:
    """The venues and organizers an event links to (trashed ones too), as (kind, row)."""
    venues = Venue.select().join(EventVenue, on=(EventVenue.venue == Venue.id))
    organizers = Organizer.select().join(
        EventOrganizer, on=(EventOrganizer.organizer == Organizer.id)
    )
    venues = venues.where(EventVenue.event == event_id).order_by(EventVenue.position)
    organizers = organizers.where(EventOrganizer.event == event_id).order_by(
        EventOrganizer.position
    )
    return [*(("venue", row) for row in venues), *(("organizer", row) for row in organizers)]


def in_trash(user_id: int | None, most: int = MOST) -> list[Event]:
    """Trashed events (one user's, or everyone's for ``None``), last trashed first."""
    where = Event.status == "trash"
    if user_id is not None:
        where &= Event.author == user_id
    query = Event.select().where(where)
    return list(query.order_by(Event.modified_utc.desc(), Event.id).limit(most))


# A new event's form, claimed when it is first sent (``claim_form``): a row of ``setting``
# keyed by the form's id (``{opened, UTC, %Y%m%d%H%M%S}-{random}``) and its user, whose
# value is the id of the event it made and, on a line of its own, that event's state as
# its form shows it (``settle_form``), or "" while that event is being saved. Rows of
# forms opened more than FORM_DAYS ago are removed as others are claimed.
FORM_PREFIX = "editor-form:"
FORM_DAYS = 30


def _form_key(form_id: str, user_id: int) -> str:
    return f"{FORM_PREFIX}{form_id}:{user_id}"


def claim_form(form_id: str, user_id: int, now) -> bool:
    """Whether this is the first time ``user_id`` sends the form ``form_id`` to be saved
    (not a double click, nor the form sent again): the key's uniqueness decides, in any
    worker. Another user's form id is another key."""
    key = _form_key(form_id, user_id)
    cutoff = (now - timedelta(days=FORM_DAYS)).strftime("%Y%m%d%H%M%S")
    with database.atomic():
        Setting.delete().where(
            (Setting.key > FORM_PREFIX)
            & (Setting.key < f"{FORM_PREFIX}{cutoff}")
            & (Setting.key != key)  # a form open that long, sent twice, is still one
        ).execute()
    try:
        with database.atomic():
            Setting.insert(key=key, value="").execute()
    except IntegrityError:
        return False
    return True


def settle_form(form_id: str, user_id: int, event_id: int | None, shown: str = "") -> None:
    """The form ``form_id`` made ``event_id`` (None: it made nothing, and may be sent again),
    which its form, had it been the event's edit form, would have shown as ``shown`` (the
    editor's ``shown`` state): what the form is merged from when it is sent again."""
    key = Setting.key == _form_key(form_id, user_id)
    if event_id is None:
        Setting.delete().where(key).execute()
    else:
        Setting.update(value=f"{event_id}\n{shown}").where(key).execute()


def event_of_form(form_id: str, user_id: int) -> tuple[int, str] | None:
    """The id of the event the form ``form_id`` made and the state it made it in
    (``settle_form``); (0, "") while it is being saved, None when it made none (its claim
    was given up: it may be sent again)."""
    row = Setting.get_or_none(Setting.key == _form_key(form_id, user_id))
    if row is None:
        return None
    made, _newline, shown = row.value.partition("\n")
    return (int(made), shown) if made else (0, "")


# The key that signs the editor's sessions and forms when SECRET_KEY is not set: one for the
# whole site, so that every host of one database (SPEC §14) reads the others' cookies.
SECRET_KEY_SETTING = "editor-secret-key"


def shared_secret(candidate: str) -> str:
    """The site's generated secret key: the one kept in the database, else ``candidate``
    (this host's), kept there for every other host; the first host to keep one wins."""
    row = Setting.get_or_none(Setting.key == SECRET_KEY_SETTING)
    if row is not None:
        return row.value
    try:
        with database.atomic():
            Setting.insert(key=SECRET_KEY_SETTING, value=candidate).execute()
    except IntegrityError:  # another host kept its own at the same moment
        return Setting.get(Setting.key == SECRET_KEY_SETTING).value
    return candidate
