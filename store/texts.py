"""Events' own members stored as JSON text, made once per change of the event.

A listing's page shows events that no worker may have rendered yet: a month at a random
minute, a category's fifth page. Rendering an event from its row and links costs about
0.1 ms, ten times what reading a stored text costs, so the members that the event's row
alone decides (its dates, texts, cost, flags) are made when the event is written, and a
read splices in what depends on the request and on other rows: the site's addresses, the
image, the linked venues, organizers and terms, the series' lines (app/render.py).

- ``event_text`` holds one row per event. Triggers (store/db.py ``create_change_marker``)
  set its ``body`` to NULL, "to be made", in the transaction of any write to the event or
  its links, whichever code path makes it: a stored text is current or absent, never old.
- What makes a text is the app's (``register``): store code knows nothing of
  representations. It is made for ``made_for``, a key of the code, settings and time zone
  data it was made with; a text made for another key is not used, and
  ``forget_other_texts`` (``flask migrate``) sets it to be made again.
- Texts to be made are made at the end of each write transaction that changes data
  (``MAKE_PER_WRITE`` at most, the newest events first), and all at once by
  ``make_all`` (``flask migrate``, ``flask seed``, ``flask copy-database``). Until then
  an event is rendered afresh, as one that is never stored is ("" as its body: not
  published, or password-protected).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext

from store.db import BEFORE_COMMIT, database, update_rows, write_transaction
from store.media import is_media_id
from store.models import EventText
from store.sql import Statement, in_list, param

MAKE_PER_WRITE = 500
_log = logging.getLogger(__name__)

# Set by the app: ``maker()`` returns, for the app at work (None: none), ``(made_for,
# make)``, where ``make(events, links)`` returns ``{id: (body, extra)}`` for the rows
# ``events`` with their links (store/events.py ``links_of``).
_maker: list = [None]


def register(maker: Callable) -> None:
    _maker[0] = maker


_TEXTS = Statement(
    lambda size: EventText.select(EventText.event, EventText.body, EventText.extra).where(
        EventText.event.in_(in_list(1, size))
        & (EventText.made_for == param(0))
        & EventText.body.is_null(False)
    )
)


def stored_texts(ids: list[int], key: str) -> dict[int, tuple[str, str]]:
    """``{id: (body, extra)}`` of those of ``ids`` that have a text made for ``key``."""
    if not ids:
        return {}
    rows = _TEXTS.execute(key, *ids, sizes=(len(ids),)).fetchall()
    return {row[0]: (row[1], row[2]) for row in rows if row[1]}  # "": never stored


def make_pending(limit: int = MAKE_PER_WRITE, read: dict | None = None) -> int:
    """Makes up to ``limit`` texts to be made (inside the caller's write transaction);
    returns how many. ``read``: a dict that gets the links read for them."""
    chosen = _maker[0]() if _maker[0] else None
    if chosen is None:
        return 0
    key, make = chosen
    from store.events import events_to_make, links_of  # store.events is above this module

    events = events_to_make(limit)
    if not events:
        return 0
    ids = [event.id for event in events]
    links = links_of(ids)
    if read is not None:
        read.update(links)
    # Making runs SQL only to read the events' images: then within a savepoint, so that a
    # failed statement cannot leave the write's transaction unusable (PostgreSQL).
    guard = database.atomic() if any(is_media_id(e.image) for e in events) else nullcontext()
    try:
        with guard:
            made = make(events, links)
    except Exception:  # a text is an optimisation: never the reason a write fails
        _log.exception("could not make the stored texts of events %s", ids[:20])
        made = {}
    rows = [(key, *made.get(event_id, ("", "")), event_id) for event_id in ids]
    update_rows("event_text", "event_id", ("made_for", "body", "extra"), rows)
    return len(ids)


def make_all(progress: Callable | None = None, chunk: int = 2000) -> int:
    """Makes every text to be made, ``chunk`` a transaction; returns how many."""
    done = 0
    while True:
        with write_transaction(changes_data=False):
            count = make_pending(chunk)
        if not count:
            return done
        done += count
        if progress:
            progress(count)


def forget_other_texts(key: str) -> None:
    """Sets the texts made for another key than ``key`` (other code, another site
    timezone) to be made again (``flask migrate``, then ``make_all``)."""
    stale = EventText.select(EventText.event).where(
        (EventText.made_for != key) & EventText.body.is_null(False)
    )
    if stale.exists():
        with write_transaction(changes_data=False):
            EventText.update(body=None).where(
                (EventText.made_for != key) & EventText.body.is_null(False)
            ).execute()


def add_marks() -> None:
    """Every event without its row here gets one, to be made (a database made before
    stored texts)."""
    database.execute_sql(
        "INSERT INTO event_text (event_id) SELECT id FROM event WHERE id NOT IN "
        "(SELECT event_id FROM event_text)"
    )


def _make_before_commit() -> Callable[[int], None]:
    """Makes the write's texts; after the commit, the links read for them are the data
    version's (``remember_links``): the write's own answer shows those events."""
    read: dict = {}
    make_pending(read=read)

    def then(version: int) -> None:
        from store.events import remember_links  # store.events is above this module

        remember_links(version, read)

    return then


BEFORE_COMMIT.append(_make_before_commit)
