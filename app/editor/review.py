"""What an editor reviews (SPEC §16): the events, venues and organizers waiting for review,
and approving them in one click, each through its API write pipeline
(``change_event``, ``VenueOrganizerRoutes.write``) and the one capability rule (``may``).

Approving an event publishes it (a series with the occurrences that follow it, as an update
of the series does through the API) and, with it, the venues and organizers it links to
that are pending review and that the approving user may publish: a contributor's event
comes with the venue and organizer made for it, and an approved event whose venue stays
hidden would show none. Linked items in another status (a draft, a private one) are left
as they are and named in the confirmation, for the editor to decide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.auth import may
from app.editor import items
from app.event_input import change_event
from rules.posts import effective_status
from rules.recurrence import is_occurrence
from schemas.events import EventUpdate
from store.editor import linked_to
from store.events import get_event

PLURALS = {"venue": "venues", "organizer": "organizers"}


@dataclass
class Approval:
    """What one click approved: its title, and the linked items published with it or left
    as they were (not public), each as ``(plural, id, title, status)``: what the
    confirmation says (``as_message``, kept in the session until the next page shows it)."""

    title: str
    published: list[tuple[str, int, str, str]] = field(default_factory=list)
    left: list[tuple[str, int, str, str]] = field(default_factory=list)

    def as_message(self) -> dict:
        return {"title": self.title, "published": self.published, "left": self.left}


def may_approve(viewer, item) -> bool:
    """Whether ``viewer`` may approve ``item`` (an event, venue or organizer) in one click:
    it waits for review, and the viewer may edit it and publish (editors and up)."""
    status = effective_status(item)
    return (
        status == "pending"
        and viewer.has("edit_others_posts")
        and may(viewer, "edit", item, status)
        and may(viewer, "publish")
    )


def approved_event(event):
    """What approving ``event`` approves: an occurrence that follows its pending series
    (not edited on its own) is approved with the whole series, as the series' rules make
    its occurrences follow it; any other event alone."""
    if is_occurrence(event) and not event.detached:
        series = get_event(event.post_parent)
        if series is not None and series.status == "pending":
            return series
    return event


def approve_event(viewer, event) -> Approval:
    """Publishes ``event`` (``approved_event``'s choice) through the event write pipeline,
    then the pending venues and organizers it links to that ``viewer`` may approve."""
    target = approved_event(event)
    saved = change_event(target, EventUpdate().load({"status": "publish"}), viewer)
    approval = Approval(saved.title)
    for kind, item in linked_to(saved.id):
        status = effective_status(item)
        if status in ("publish", "trash"):  # shown already; left out of events when trashed
            continue
        if may_approve(viewer, item):
            item = approve_linked(kind, item)
            approval.published.append((PLURALS[kind], item.id, item.title, "publish"))
        else:
            approval.left.append((PLURALS[kind], item.id, item.title, status))
    return approval


def approve_linked(kind: str, item):
    """Publishes a venue or organizer through its write pipeline (permission, write
    rules); the caller has checked ``may_approve``."""
    editor_kind = items.kind_of(PLURALS[kind])
    return editor_kind.routes.write(editor_kind.update_schema().load({"status": "publish"}), item)
