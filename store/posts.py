"""What events, venues and organizers have in common: ids, slugs, visibility."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from datetime import datetime, timedelta

from peewee import SQL, fn

from rules import dates
from rules.clock import utcnow, utcnow_str
from rules.ids import as_id
from rules.posts import SLUG_MAX, STATUSES, is_published, suffixed_slug
from store.db import insert_row, insert_rows, insert_under_new_id
from store.memo import MEMO, current_version
from store.models import Event, Node, Organizer, Term, Venue
from store.sql import Statement, in_list, param
from store.users import Viewer


def allocate_id(kind: str) -> int:
    return insert_row(Node, {"kind": kind})


def insert_named_post(model, kind: str, values: dict, wanted: str | None) -> int:
    """``values`` inserted into ``model`` (an event) under a new id of ``kind`` (returned,
    and set as ``values["id"]``) and under the slug ``unique_slug`` gives it (``wanted``,
    else one of the title; set as ``values["slug"]``). The slug asked is tried first: the
    insert itself says whether another post holds it (``insert_under_new_id``), where a
    look-up before it was one more round trip under the writer lock on PostgreSQL."""
    values["slug"] = _slug_base(wanted, kind, values["title"])
    post_id = insert_under_new_id(Node, {"kind": kind}, model, values, unless_held="slug")
    if post_id is None:  # held: the name a look-up first would have given
        values["slug"] = unique_slug(model, values["slug"], kind)
        post_id = insert_under_new_id(Node, {"kind": kind}, model, values)
    return post_id


def allocate_ids(kind: str, count: int) -> list[int]:
    """``count`` new ids from one insert (``RETURNING``), in ascending order."""
    if count <= 0:
        return []
    return sorted(insert_rows(Node, [{"kind": kind}] * count, returning=True))


def node_kind(item_id: int) -> str | None:
    if as_id(item_id) is None:
        return None
    row = Node.get_or_none(Node.id == item_id)
    return row.kind if row else None


def slugify(text: str, letters: bool = False) -> str:
    """``text`` as a slug, as WordPress's ``sanitize_title`` makes one: lower case, entities
    and punctuation dropped (``Tom's``: ``toms``, ``Bold &amp; Co``: ``bold-co``), spaces,
    dots and slashes a ``-``; a title transliterated to ASCII first (``Café Olé``:
    ``cafe-ole``, as WordPress's ``remove_accents``); a slug given as such (``letters``) goes
    through the same rules (WordPress sanitizes a given ``post_name`` too) but keeps its
    letters and digits of any script (``café-concert``, ``日本``) and symbols beyond ASCII
    (``★-stars``, an emoji), so that the addresses a site moving here had answer."""
    text = re.sub(r"&.+?;", "", text or "")  # an entity, as WordPress kills it
    if letters:  # letters, digits, the marks written on them (Devanagari, niqqud…), symbols
        text = unicodedata.normalize("NFC", text).lower().replace("×", "x")
        kept = "".join(_slug_char(c) for c in text)
        return _cut(re.sub(r"-{2,}", "-", kept))
    if not text.isascii():
        # Imported here: its table takes 4.8 MB of every worker, and most titles are ASCII.
        from text_unidecode import unidecode

        text = unidecode(text)
    # sanitize_title_with_dashes: a dot or a slash is a dash, other punctuation goes ("Tom's":
    # toms), spaces and dashes are one dash.
    text = re.sub(r"[^a-z0-9 _-]", "", re.sub(r"[./]", "-", text.lower()))
    return _cut(re.sub(r"-+", "-", re.sub(r"\s+", "-", text)))


def _cut(slug: str) -> str:
    """``slug`` without dashes at its ends, within ``SLUG_MAX``: cut first, then the dash
    the cut may leave at its end trimmed (as WordPress's ``_truncate_post_slug``), so that a
    slug cut after a word is one an address can ask for (``slug_asked`` would trim it)."""
    return slug.strip("-")[:SLUG_MAX].rstrip("-")


# What sanitize_title_with_dashes strips entirely when saving: soft hyphen, ¡ ¿, angle and
# curly quotes, bullet, © ® ° … ™, the lone acute accents.
_STRIPPED = frozenset("\u00ad¡¿«»‹›‘’‚‛“”„‟•©®°…™´ˊ")


def _slug_char(char: str) -> str:
    """What a slug given as such keeps of ``char`` (``slugify``): itself, a dash or nothing."""
    if char.isascii():
        if char.isalnum() or char == "_":
            return char
        return "-" if char in "-./" or char.isspace() else ""
    if char in _STRIPPED:
        return ""
    return char if unicodedata.category(char)[0] in "LNMS" else "-"


def slug_asked(text: str) -> str:
    """The slug an address or a filter names, as WordPress reads it
    (``sanitize_title_for_query``): stored slugs are sanitised, so ``Summer-Fest`` asks for
    ``summer-fest``. One written as ``slugify`` writes an ASCII slug (most addresses: the
    links a calendar gives) is itself, without ``slugify``'s walk over its characters."""
    if len(text) <= SLUG_MAX and _ASCII_SLUG.fullmatch(text):
        return text
    return slugify(text, letters=True)


# What ``slugify(text, letters=True)`` leaves as it is, of ASCII: small letters, digits
# and ``_`` in runs joined by single dashes.
_ASCII_SLUG = re.compile(r"[a-z0-9_]+(?:-[a-z0-9_]+)*")


def slug_read(text: str, held: Callable[[str], bool]) -> str:
    """The one stored slug an address or a filter names: ``slug_asked``'s, or, when the
    address ends in "-", that slug with the dash where ``held`` says an item the caller may
    read has it. An older version cut a long slug after trimming its dashes, so a few
    stored slugs end in one and their ``url`` names it (SPEC §15: every item's url is a
    real page); renaming them would move their links. One slug, not both: ``?slug=kay-``
    names one term, as the term's page does; and the dashed one only when readable, so a
    draft's older ``x-`` neither hides the published ``x`` nor tells an anonymous caller it
    exists (outside check chk20s)."""
    asked = slug_asked(text)
    dashed = f"{asked}-"
    return dashed if asked and text.endswith("-") and held(dashed) else asked


def found_by_slug(text: str, find: Callable, readable: Callable | None = None):
    """The item an address names (``slug_read``), ``find`` giving one slug's item or None;
    one that ``readable`` refuses is not taken for the dashed slug (None: any is)."""
    seen = {}

    def held(slug: str) -> bool:
        item = seen[slug] = find(slug)
        return item is not None and (readable is None or readable(item))

    asked = slug_read(text, held)
    return seen[asked] if asked in seen else find(asked)


def term_slugs_asked(text: str, held: Callable[[str], bool]) -> tuple[str, str]:
    """The two slugs a term's slug filter names (two: a listing's SQL has a place for
    each): the stored dashed one alone (``slug_read``; ``slug_asked`` never ends in "-"),
    twice; else as written (a slug kept in its own letters, ``café-concert``, is found as
    such) and as WP_Term_Query reads it (``sanitize_title``, whose ``remove_accents`` asks
    ``ete-musique`` for ``été-musique``), which is the slug a name becomes (``slugify``);
    the same twice when they agree."""
    asked = slug_read(text, held)
    return (asked, asked) if asked.endswith("-") else (asked, slugify(text))


class _SlugTaken(dict):
    """Per model, whether another row holds a slug: compiled once (every create asks)."""

    def __missing__(self, model):
        statement = self[model] = Statement(
            lambda: model.select(model.id).where((model.slug == param(0)) & (model.id != param(1)))
        )
        return statement


_SLUG_TAKEN = _SlugTaken()


def _slug_base(wanted: str | None, fallback: str, title: str) -> str:
    """The slug ``unique_slug`` starts from: ``wanted`` (its letters kept), else one made of
    ``title``, else ``fallback``."""
    return (slugify(wanted, letters=True) if wanted else slugify(title)) or fallback


def unique_slug(
    model,
    wanted: str | None,
    fallback: str,
    exclude_id=None,
    scope=True,
    title: str = "",
    reserved: frozenset | set = frozenset(),
) -> str:
    """The slug ``wanted`` (its letters kept), else one made of ``title``, made unique in
    ``model`` (within ``scope``, e.g. one taxonomy) and among ``reserved`` (slugs given to
    rows not yet written, a series' occurrences) with ``-2``, ``-3`` suffixes: the one slug
    rule of every resource. The base is cut before a suffix is added (``suffixed_slug``), so
    each number gives another slug and the count always ends."""
    base = _slug_base(wanted, fallback, title)
    others = scope & (model.id != (exclude_id or 0))
    if base not in reserved and not _slug_taken(model, base, scope, others, exclude_id):
        return base
    # An index range rather than LIKE, which SQLite cannot serve from the slug index. A base
    # too long for a suffix is cut (suffixed_slug): every candidate then starts with its
    # first SLUG_MAX - 9 characters (room for "-9999999" and the dash the cut may drop).
    start = base + "-" if len(base) <= SLUG_MAX - 9 else base[: SLUG_MAX - 9]
    query = model.select(model.slug).where(
        others & (model.slug >= start) & (model.slug < start + "\uffff")
    )
    taken = {slug for (slug,) in query.tuples()}
    number = 2
    while (slug := suffixed_slug(base, f"-{number}")) in taken or slug in reserved:
        number += 1
    return slug


def _slug_taken(model, slug: str, scope, others, exclude_id) -> bool:
    """Whether a row of ``model`` among ``others`` (those of ``scope`` but the one
    ``exclude_id``) holds ``slug``: the compiled statement when the scope is the table."""
    if scope is True:
        return bool(_SLUG_TAKEN[model].first(slug, exclude_id or 0))
    return model.select(model.id).where(others & (model.slug == slug)).exists()


def publication_horizon(now: str | None = None) -> str:
    """The next publication date of a scheduled event ('' when none is to come): until
    then, which events are published cannot change without a write."""
    return _next(scheduled_dates()[0], now or utcnow_str())


def first_scheduled() -> str:
    """The earliest publication date of the scheduled events ('' when there are none).
    While it lies ahead, no scheduled event counts as published anywhere."""
    events = scheduled_dates()[0]
    return events[0] if events else ""


def last_end_by(moment: str) -> str:
    """A moment at which the same events had not yet ended as at ``moment`` (a listing's
    ``ends_after``): the last end of an event by ``moment`` when no event ends between
    that end and now, else ``moment`` itself. Keyed by it, the listings of what has not
    ended at each second between two event ends (the upcoming list, a feed from now) are
    one listing. The two ends around now are read once per data version and per such span,
    per process: they are the data's (any status), so only a write moves them."""
    version, now = current_version(), utcnow_str()
    span = MEMO.entries_for(version).get(_ENDS_AROUND_NOW)
    if span is None or not _between(now, span):
        span = (_LAST_END.first(now)[0] or "", _NEXT_END.first(now)[0] or "")
        MEMO.put(version, _ENDS_AROUND_NOW, span)
    return span[0] if _between(moment, span) else moment


def _between(moment: str, span: tuple[str, str]) -> bool:
    """Whether ``moment`` lies from the first end of ``span`` to before its second (''
    before the first end: none has passed; after the last: none is to come)."""
    last, following = span
    return last <= moment and (not following or moment < following)


_ENDS_AROUND_NOW = "event ends around now"


def publication_epoch(now: str | None = None) -> int:
    """How many scheduled events, venues and organizers have reached their publication date.
    With the data version it fixes which items count as published: only a write schedules
    an item or moves its date, and the clock passes their dates in order, so the same number
    means the same items. A rendering kept per version carries it in its key."""
    return bisect_right(scheduled_dates()[1], now or utcnow_str())


def scheduled_dates() -> tuple[list[str], list[str]]:
    """The publication dates of the scheduled events, and of the scheduled events, venues
    and organizers, each sorted: read once per data version, since only a write schedules
    an item or changes its date. The clock's horizons are looked up in them."""
    return MEMO.get(current_version(), "scheduled dates", _scheduled_dates)


def _scheduled_dates() -> tuple[list[str], list[str]]:
    events, others = [], []
    for kind, date in _SCHEDULED.execute("future"):  # one query, after every write
        if date:
            (events if kind == 0 else others).append(date)
    events.sort()
    return events, sorted(events + others)


def _scheduled_of(model, kind: int):
    return model.select(SQL(str(kind)), model.date_utc).where(model.status == param(0))


_SCHEDULED = Statement(
    lambda: (
        _scheduled_of(Event, 0)
        .union_all(_scheduled_of(Venue, 1))
        .union_all(_scheduled_of(Organizer, 2))
    )
)


def rows_by_id(model, ids) -> dict:
    """Rows of ``model`` (an event, venue, organizer or term) by id (``None``: no such
    row), made once per data version: the linked items of a page's events, the series of
    its occurrences, and the terms' stored counts (store/terms.py ``published_counts``)."""

    def fetch(missing: list[int]) -> dict:
        statement = _ROWS_BY_IDS[model]
        return {row.id: row for row in statement.rows(*missing, sizes=(len(missing),))}

    return MEMO.many(current_version(), model, ids, fetch)


def _rows_by_ids(model) -> Statement:
    return Statement(lambda size: model.select().where(model.id.in_(in_list(0, size))))


_ROWS_BY_IDS = {model: _rows_by_ids(model) for model in (Venue, Organizer, Term, Event)}


def _next(sorted_dates: list[str], now: str) -> str:
    """The first of ``sorted_dates`` after ``now`` ('' when none is)."""
    index = bisect_right(sorted_dates, now)
    return sorted_dates[index] if index < len(sorted_dates) else ""


def visible_clause(
    model, viewer: Viewer, statuses: list[str] | None = None, status=None, *, now=None, author=None
):
    """Rows of ``model`` this viewer may see in a listing, limited to ``statuses``.

    Anonymous callers and subscribers see published items; editors see everything but
    the trash; contributors and authors see published items and their own. Private
    items need ``read_private_posts`` or ownership. ``status`` stands for the status
    column (e.g. ``unindexed(model.status)``); ``now`` and ``author`` for the clock and the
    viewer's id (placeholders of a statement compiled once per shape, store/sql.py).
    """
    now = utcnow_str() if now is None else now
    author = viewer.id if author is None else author
    status = model.status if status is None else status
    published = is_published(model, now, status)
    if statuses is None and not viewer.has("edit_posts"):
        return published
    if statuses is None:  # and the viewer may edit posts (returned above otherwise)
        wanted = status != "trash"
    else:
        parts = []
        plain = [s for s in statuses if s not in ("publish", "future")]
        if "publish" in statuses:
            parts.append(published)
        if "future" in statuses:
            parts.append((status == "future") & (model.date_utc > now))
        if plain:
            parts.append(status.in_(plain))
        wanted = parts[0]
        for part in parts[1:]:
            wanted = wanted | part
    if viewer.has("edit_others_posts"):  # editors and administrators read everything
        return wanted
    if viewer.logged_in and viewer.has("edit_posts"):
        readable = published | (model.author == author)
    elif viewer.logged_in:
        readable = published | ((status == "private") & (model.author == author))
    else:
        readable = published
    return wanted & readable


def listed_statuses(viewer: Viewer) -> tuple[str, ...]:
    """The statuses that ``visible_clause`` may let through for this viewer, whatever
    ``statuses`` asks: only ``publish`` and ``future`` (a scheduled item past its date) for
    callers who cannot edit, every status for the others. A count by status need not ask
    the others (store/events.py ``_count``); tests/test_window_totals.py holds the two
    together."""
    return STATUSES if viewer.has("edit_posts") else ("publish", "future")


def unmasked_clause(model, viewer: Viewer, password=None, *, author=None):
    """Rows of ``model`` whose password-protected fields this viewer may read: rows with no
    password, rows the viewer may edit, and rows whose password was sent.

    The SQL twin of ``app.auth.may_see_protected`` (a test holds the two together).
    Filters and searches on masked fields use it so that, for everyone else, those fields
    are absent: nothing a caller may not read can be found through them.
    """
    if viewer.has("edit_others_posts"):  # editors and administrators may edit everything
        return model.id.is_null(False)
    clear = model.password == ""
    if password:
        clear = clear | (model.password == password)
    if viewer.logged_in and viewer.has("edit_posts"):
        own = model.author == (viewer.id if author is None else author)
        if not viewer.has("edit_published_posts"):
            own = own & model.status.not_in(["publish", "future"])
        clear = clear | own
    return clear


def password_in_use(password: str) -> bool:
    """Whether any event, venue or organizer has this access password."""
    return any(
        model.select().where(model.password == password).exists()
        for model in (Event, Venue, Organizer)
    )


def readable_clause(model, viewer: Viewer, password=None, *, now=None, author=None):
    """Rows this viewer may read in full: visible to it, and not masked for it."""
    return visible_clause(model, viewer, now=now, author=author) & unmasked_clause(
        model, viewer, password, author=author
    )


def seconds_until_clock_change(site_timezone: str) -> float:
    """Seconds until what a listing shows can change with no write: the next scheduled
    publication of an event, venue or organizer, the next start or end of an event (a
    list of what has not yet ended, of what has, a series' next dates), or the next
    midnight in the site zone (the default event window starts at yesterday 00:00)."""
    now = utcnow().replace(tzinfo=None)
    horizon = _midnight(now, site_timezone) + timedelta(days=1)
    moments = [_next(scheduled_dates()[1], dates.fmt(now))]
    moments += [moment for (moment,) in _NEXT_START_OR_END.execute(dates.fmt(now)).fetchall()]
    for moment in moments:
        if moment:
            horizon = min(horizon, dates.parse_stored(moment))
    return max(0.0, (horizon - now).total_seconds())


def last_clock_change(site_timezone: str) -> datetime:
    """The last moment (UTC) at which what a listing shows may have changed with no write:
    the moments of ``seconds_until_clock_change`` that have passed (a feed's
    ``Last-Modified`` is never older, so a scheduled event that came out is fetched)."""
    now = utcnow().replace(tzinfo=None)
    latest = _midnight(now, site_timezone)
    scheduled = scheduled_dates()[1]
    passed = bisect_right(scheduled, dates.fmt(now))
    moments = [scheduled[passed - 1] if passed else ""]
    moments += [moment for (moment,) in _LAST_START_OR_END.execute(dates.fmt(now)).fetchall()]
    for moment in moments:
        if moment:
            latest = max(latest, dates.parse_stored(moment))
    return min(latest, now)


def _midnight(now: datetime, site_timezone: str) -> datetime:
    """The start of ``now``'s day in the site zone, in UTC."""
    tz = dates.resolve_timezone(site_timezone)[0]
    return dates.local_to_utc(dates.snap_to_day_start(dates.utc_to_local(now, tz)), tz)


def _next_of(column):
    return Event.select(fn.MIN(column)).where(column > param(0))


def _last_of(column):
    return Event.select(fn.MAX(column)).where(column <= param(0))


# The first event start and the first event end after a moment (each its index's first
# entry past it; any status: a bound sooner than needed only shortens a cached answer),
# and the last ones by then (a moment later than needed only makes a feed look newer).
_NEXT_START_OR_END = Statement(lambda: _next_of(Event.utc_start).union_all(_next_of(Event.utc_end)))
_LAST_START_OR_END = Statement(lambda: _last_of(Event.utc_start).union_all(_last_of(Event.utc_end)))
# The ends around a moment (``last_end_by``): the last by then and the first after it, any
# status (a draft's end only starts a new span sooner).
_LAST_END = Statement(lambda: _last_of(Event.utc_end))
_NEXT_END = Statement(lambda: _next_of(Event.utc_end))
