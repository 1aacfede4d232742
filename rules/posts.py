"""What a post (an event, venue or organizer) is, apart from where it is kept: the statuses
it may have, when a scheduled one counts as published, and how WordPress reads a list
parameter."""

from rules.clock import utcnow_str

# The longest slug: WordPress keeps post_name and a term's slug in a varchar(200), and
# makes a slug of a long title 200 characters long (_truncate_post_slug).
SLUG_MAX = 200
# The longest term name: WordPress keeps a term's name in a varchar(200) too (wp_terms.name).
TERM_NAME_MAX = 200


def suffixed_slug(base: str, suffix: str) -> str:
    """``base`` followed by ``suffix`` (``-2``, ``-2027-01-11``) within ``SLUG_MAX``: the base
    is cut to make room, as WordPress's ``wp_unique_post_slug`` cuts it, so that a slug made
    unique is one the same API takes back on a write."""
    if len(base) + len(suffix) <= SLUG_MAX:
        return base + suffix
    return base[: SLUG_MAX - len(suffix)].rstrip("-") + suffix


STATUSES = ("publish", "future", "draft", "pending", "private", "trash")


def effective_status(row, now: str | None = None) -> str:
    """The status a post stands in now: a scheduled (``future``) one whose publication
    date has passed is published (SPEC §4: no worker publishes it)."""
    if row.status == "future" and row.date_utc <= (now or utcnow_str()):
        return "publish"
    return row.status


def is_published(model, now: str | None = None, status=None):
    """Published, or scheduled with a publication date already passed: the rule of
    ``effective_status`` as one condition, on a row's values or on a table's columns (its
    SQL twin, which store/posts.py::visible_clause builds on). ``status`` stands for the
    status (e.g. ``unindexed(model.status)``)."""
    now = now or utcnow_str()
    status = model.status if status is None else status
    return (status == "publish") | ((status == "future") & (model.date_utc <= now))


def split_list(value) -> list:
    """A list from a list, a CSV string, or a single value (WordPress's list_to_array)."""
    if isinstance(value, list | tuple):
        items = []
        for item in value:
            items.extend(split_list(item) if isinstance(item, str) else [item])
        return items
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [value]


# What a password hides of a venue or organizer, and the value shown instead: the
# representation masks these keys (app/render.py), a search reads them only where the
# viewer may (store/linked.py). `state` is not among them, as in the reference.
VENUE_MASK = {
    "description": "",
    "excerpt": "",
    "image": False,
    "address": "",
    "city": "",
    "country": "",
    "province": "",
    "zip": "",
    "phone": "",
    "stateprovince": "",
    "website": "",
    "geo_lat": 0,
    "geo_lng": 0,
}


ORGANIZER_MASK = {
    "description": "",
    "excerpt": "",
    "image": False,
    "phone": "",
    "website": "",
    "email": "",
}


MASKS = {"venue": VENUE_MASK, "organizer": ORGANIZER_MASK}
