"""The editor's list of events (SPEC §16): by status (all, pending review, drafts,
scheduled, trash), upcoming first (soonest first) or past (latest first), searched and
paged, read through the API's read path (``event_filters``, ``list_events``: the one
visibility rule) for the signed-in user."""

from __future__ import annotations

from app.i18n import N_
from app.pages.reading import BadChoice
from app.reading.filters import event_filters
from rules.clock import utcnow
from store.events import list_events

# The status filters the editor's lists offer: the query's ``status`` → the API's statuses
# (all: every status but the trash, as the API's ``any``).
STATUS_FILTERS = {
    "": ["any"],
    "pending": ["pending"],
    "draft": ["draft"],
    "future": ["future"],
    "trash": ["trash"],
}
FILTER_LABELS = (
    ("", N_("All")),
    ("pending", N_("Pending review")),
    ("draft", N_("Drafts")),
    ("future", N_("Scheduled")),
    ("trash", N_("Trash")),
)


def status_filter(raw: str) -> str:
    """The status filter of a query; an unknown one is a 400 page naming it, as the public
    lists answer a bad filter, rather than every status shown as if it were asked."""
    if raw not in STATUS_FILTERS:
        raise BadChoice("status")
    return raw


def editor_events(viewer, status: str, past: bool, search: str, number: int, size: int):
    """(rows of page ``number``, total): the events of ``status`` (``status_filter``) this
    user may read, not yet ended (soonest first) or, when ``past``, ended (latest first)."""
    now = utcnow().strftime("%Y-%m-%dT%H:%M:%S") + "Z"  # with its offset: read as UTC
    args = {"per_page": size, "page": 1, "strict_dates": True}
    args["ends_before" if past else "ends_after"] = now
    if viewer.has("edit_posts"):  # others read published events alone, as from the API
        args["status"] = STATUS_FILTERS[status]
    if search:
        args["search"] = search
    filters, _echo = event_filters(args, viewer)
    filters.with_hidden = True  # hidden from the public lists, not from their editors
    # A user who edits only their own events sees a series once (its first event listed:
    # README, not a public page); editors a row for each date, which they may edit alone.
    if not viewer.has("edit_others_posts"):
        filters.first_of_series = True
    if not past:
        return list_events(filters, viewer, (number - 1) * size, size)
    # Latest first: the page's rows counted from the listing's end (it runs by start).
    _none, total = list_events(filters, viewer, 0, 1)
    end = total - (number - 1) * size
    if end <= 0:
        return [], total
    rows, total = list_events(filters, viewer, max(end - size, 0), end - max(end - size, 0))
    return list(reversed(rows)), total
