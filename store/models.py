"""The tables, their indexes, nothing else.

Events, venues and organizers share one id space (``Node``), as WordPress posts do,
so "this id exists but is another kind" can be told apart from "no such id".
Categories and tags share the ``Term`` table and so its id space.
Dates are stored as ``YYYY-MM-DD HH:MM:SS`` strings, which sort chronologically.
"""

from peewee import (
    SQL,
    BooleanField,
    CharField,
    CompositeKey,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from store.db import database


class BaseModel(Model):
    class Meta:
        database = database
        legacy_table_names = False


class Node(BaseModel):
    """Allocates ids shared by events, venues and organizers; ``kind`` says which."""

    kind = CharField(max_length=16)


class User(BaseModel):
    login = CharField(unique=True)
    email = CharField(default="")
    role = CharField(max_length=16)
    created = CharField()
    # The editor's sign-in (SPEC §16): a memory-hard hash of the account's own password
    # ("" when none is set), and the generation of its sessions: a session cookie carries
    # the generation it was made in, and a password change or a revocation moves it on.
    password_hash = TextField(default="")
    sessions_epoch = IntegerField(default=0)
    # UTC YYYY-MM-DD HH:MM:SS of the last sign-in to the editor or request with an
    # application password (noted at most hourly); "" when never.
    last_sign_in = CharField(default="")


class LoginLink(BaseModel):
    """A one-time link to set an account's password (``flask users login-link``): only
    the SHA-256 digest of its token is kept."""

    user = ForeignKeyField(User, on_delete="CASCADE")
    digest = CharField(unique=True)
    expires = CharField()  # UTC, YYYY-MM-DD HH:MM:SS
    used = BooleanField(default=False)


class AppPassword(BaseModel):
    user = ForeignKeyField(User, backref="passwords", on_delete="CASCADE")
    digest = CharField(unique=True)  # SHA-256 hex of the password
    created = CharField()
    revoked = BooleanField(default=False)


class AuthFailure(BaseModel):
    """Failed logins per client, in the database so the throttle holds across workers."""

    client = CharField(primary_key=True)
    failures = IntegerField(default=0)
    window_start = FloatField()


class Setting(BaseModel):
    """Key/value rows: the schema version and the data version counter."""

    key = CharField(primary_key=True)
    value = TextField()


class Post(BaseModel):
    """Columns common to events, venues and organizers (no table of its own)."""

    id = IntegerField(primary_key=True)
    author = IntegerField(default=0)
    status = CharField(max_length=16, default="publish")
    # The status it had when it went to the trash (WordPress's _wp_trash_meta_status): who
    # may touch a trashed item is decided by it (a published one needs *_published_posts).
    trashed_from = CharField(max_length=16, default="")
    title = TextField()
    slug = CharField()
    description = TextField(default="")
    excerpt = TextField(default="")
    date = CharField()
    date_utc = CharField()
    modified = CharField()
    modified_utc = CharField()
    password = CharField(default="")
    image = TextField(default="")


class Event(Post):
    start_date = CharField()  # local wall clock in ``timezone``
    end_date = CharField()
    utc_start = CharField()
    utc_end = CharField()
    timezone = CharField(default="")
    all_day = BooleanField(default=False)
    cost = TextField(default="")  # JSON: the cost as sent (string or list of strings)
    website = TextField(null=True)  # None: not set, the representation falls back to the url
    show_map = BooleanField(default=False)
    show_map_link = BooleanField(default=False)
    hide_from_listings = BooleanField(default=False)
    sticky = BooleanField(default=False)
    featured = BooleanField(default=False)
    ticketed = BooleanField(default=False)
    post_parent = IntegerField(default=0)
    # Where an imported event came from (SPEC §11): the iCalendar UID, and the SEQUENCE and
    # LAST-MODIFIED (UTC) of the version imported last. Empty for events written here.
    ical_uid = TextField(default="")
    ical_sequence = IntegerField(default=0)
    ical_modified = CharField(default="")
    # An edit of one occurrence (RECURRENCE-ID) whose series the calendar does not have,
    # imported as an event of its own: its RECURRENCE-ID, which names it beside the UID
    # (``app/ical.py::recurrence_key``). Empty for every other event.
    ical_recurrence_id = CharField(default="")
    # Recurring events (store/recurrence.py): the series' RFC 5545 lines, on the series and
    # copied on each occurrence; an occurrence's own start in the series (its RECURRENCE-ID,
    # "" for other events); and whether it was edited on its own (or trashed on its own).
    recurrence = TextField(default="")
    occurrence = CharField(default="")
    detached = BooleanField(default=False)
    # An occurrence in the trash that followed its series when it was trashed (never edited
    # on its own): restored, it follows the series again (store/recurrence.py::rejoin).
    trashed_following = BooleanField(default=False)

    class Meta:
        indexes = (
            (("slug",), True),
            (("ical_uid",), False),
            # Listings in start order: a page of a date window reads its ids and tests the
            # visibility rule (status, scheduled date, author) and the window's end from this
            # index alone, without a table read per row (store/events.py::_page); a month
            # grid counts each day's events from it, all-day ones by their own dates
            # (store/events.py::events_by_day).
            (
                (
                    "utc_start",
                    "id",
                    "status",
                    "hide_from_listings",
                    "utc_end",
                    "date_utc",
                    "author",
                    "all_day",
                    "start_date",
                    "end_date",
                ),
                False,
            ),
            (("utc_end",), False),
            # Covering index for counting a listing: no table reads for the usual filters,
            # nor for the password test of filters on masked fields (terms, venues...).
            (
                (
                    "status",
                    "utc_start",
                    "utc_end",
                    "hide_from_listings",
                    "date_utc",
                    "author",
                    "password",
                ),
                False,
            ),
            (("post_parent",), False),
            (("author",), False),
            # Scheduled events by publication date: the due ones and the next one.
            (("status", "date_utc"), False),
        )


# The trigram text index of events (store/db.py::create_text_index, migration v6).
EVENT_TEXT_INDEX = ("event_search", "event", ("title", "description", "excerpt"))


class Venue(Post):
    address = TextField(default="")
    city = TextField(default="")
    country = TextField(default="")
    province = TextField(default="")
    state = TextField(default="")
    zip = TextField(default="")
    phone = TextField(default="")
    website = TextField(default="")
    stateprovince = TextField(default="")
    show_map = BooleanField(default=True)
    show_map_link = BooleanField(default=True)
    geo_lat = FloatField(null=True)
    geo_lng = FloatField(null=True)
    # The ``global_id`` of the item it was imported from (``import-tec``): in its lineage.
    origin = TextField(default="")
    # The head of the title folded (store/linked.py::title_key), by which a new venue finds
    # its duplicate: written with the title, never by SQL (no index over our fold). Its
    # index is made by its migration alone (store/schema.py::_v33_linked_title_keys): step
    # 23 makes this model's indexes, on a table that does not have the column yet.
    title_key = TextField(default="")

    class Meta:
        indexes = (
            (("slug",), True),
            (("geo_lat", "geo_lng"), False),
            (("date_utc",), False),
            # Scheduled venues by publication date, as the events' (store/posts.py
            # ``scheduled_dates``: read after every write).
            (("status", "date_utc"), False),
        )


class Organizer(Post):
    phone = TextField(default="")
    website = TextField(default="")
    email = TextField(default="")
    origin = TextField(default="")  # as the venue's
    title_key = TextField(default="")  # as the venue's

    class Meta:
        indexes = ((("slug",), True), (("date_utc",), False), (("status", "date_utc"), False))


class Media(BaseModel):
    """An uploaded image: its id comes from ``Node`` (kind "media"), as WordPress
    attachments share the posts' ids. Files live in the upload folder under generated
    names: ``file`` is the full size, ``sizes`` (JSON) maps each size name to
    ``{width, height, mime-type, filesize, file}``."""

    id = IntegerField(primary_key=True)
    author = IntegerField(default=0)
    date = CharField()
    date_utc = CharField()
    file = CharField()
    mime_type = CharField(max_length=32)
    extension = CharField(max_length=8)
    width = IntegerField()
    height = IntegerField()
    filesize = IntegerField()
    sizes = TextField(default="{}")
    # The name of the file the user uploaded (WordPress keeps it as the attachment's title),
    # by which the library is searched; "" when none came with it.
    original_name = CharField(default="")

    class Meta:
        indexes = ((("author",), False),)


class Term(BaseModel):
    taxonomy = CharField(max_length=16)  # "category" or "tag"
    name = TextField()
    slug = CharField()
    description = TextField(default="")
    parent = IntegerField(default=0)
    # Links whose event is published (``EventTerm.live == LIVE_PUBLISHED``), kept by
    # triggers (``store/db.py::create_link_counter``); never written by the code.
    published = IntegerField(default=0)

    class Meta:
        indexes = (
            (("taxonomy", "slug"), True),
            (("taxonomy", "parent", "name"), False),
        )


class EventTerm(BaseModel):
    event = ForeignKeyField(Event, on_delete="CASCADE", lazy_load=False)
    term = ForeignKeyField(Term, on_delete="CASCADE", lazy_load=False)
    position = IntegerField(default=0)
    # The event's status, copied here so term counts are an index-only count:
    # LIVE_PUBLISHED, LIVE_SCHEDULED (future: counts once its date has passed), or 0; 0 for
    # a password-protected event too, which no count includes (``live_value``).
    live = IntegerField(default=0)

    class Meta:
        primary_key = CompositeKey("event", "term")
        indexes = ((("term", "event"), False), (("live", "term", "event"), False))


LIVE_PUBLISHED = 2
LIVE_SCHEDULED = 1


def live_value(status: str, password: str) -> int:
    """What an event's term links count for. A password-protected event counts for none of
    its terms (SPEC §10): its terms are masked to whoever lacks the password, and a count
    that included it would tell which terms it has. WordPress counts it; counts here are
    what every caller may read, as they already leave out private events."""
    if password:
        return 0
    return {"publish": LIVE_PUBLISHED, "future": LIVE_SCHEDULED}.get(status, 0)


class EventVenue(BaseModel):
    event = ForeignKeyField(Event, on_delete="CASCADE", lazy_load=False)
    venue = ForeignKeyField(Venue, on_delete="CASCADE", lazy_load=False)
    position = IntegerField(default=0)

    class Meta:
        primary_key = CompositeKey("event", "venue")
        indexes = ((("venue", "event"), False),)


class EventOrganizer(BaseModel):
    event = ForeignKeyField(Event, on_delete="CASCADE", lazy_load=False)
    organizer = ForeignKeyField(Organizer, on_delete="CASCADE", lazy_load=False)
    position = IntegerField(default=0)

    class Meta:
        primary_key = CompositeKey("event", "organizer")
        indexes = ((("organizer", "event"), False),)


class EventText(BaseModel):
    """An event's own members as JSON text, made by the app once per change of the event
    (store/texts.py). Not in ``ALL_TABLES``: nothing but store/texts.py writes it, and the
    triggers of ``create_change_marker`` clear it (``body`` NULL: to be made) in the
    transaction of any write to the event or its links."""

    event = ForeignKeyField(
        Event, primary_key=True, on_delete="CASCADE", lazy_load=False, column_name="event_id"
    )
    # What the text was made with (code, site timezone); defaults in the table itself, for
    # the triggers' inserts.
    made_for = CharField(default="", constraints=[SQL("DEFAULT ''")])
    body = TextField(null=True)  # NULL: to be made; "": an event always rendered afresh
    extra = TextField(default="", constraints=[SQL("DEFAULT ''")])  # JSON: see own_texts

    class Meta:
        table_name = "event_text"


class EventDay(BaseModel):
    """How many events listed (not ``hide_from_listings``) start on ``start_day`` and end
    on ``end_day`` (UTC ``YYYY-MM-DD``), per status: kept by the triggers of
    store/db.py::create_day_counter on every write to ``event``, as ``term.published`` is;
    a date window's total sums its whole days (store/events.py::_window_counts), from the
    index alone: it holds ``n``. Not in ``ALL_TABLES``: derived from ``event``, never
    copied."""

    start_day = CharField(max_length=10)
    end_day = CharField(max_length=10)
    status = CharField(max_length=16)
    n = IntegerField(default=0)

    class Meta:
        table_name = "event_day"
        primary_key = CompositeKey("start_day", "end_day", "status")
        indexes = ((("status", "start_day", "end_day", "n"), False),)


class EventDates(BaseModel):
    """How many listed events (not ``hide_from_listings``) are on each day from
    ``first_day`` to ``last_day`` (``YYYY-MM-DD``: UTC days for a timed event, its own
    dates for an all-day one: store/db.py::dates_key), per status and all day or not: kept by the triggers of
    store/db.py::create_day_counter, as ``event_day`` is; a month grid of UTC days counts
    each day's events from it (store/events.py::_grid_counts). Not in ``ALL_TABLES``."""

    first_day = CharField(max_length=10)
    last_day = CharField(max_length=10)
    status = CharField(max_length=16)
    all_day = BooleanField()
    n = IntegerField(default=0)

    class Meta:
        table_name = "event_dates"
        primary_key = CompositeKey("first_day", "last_day", "status", "all_day")


class Imported(BaseModel):
    """What ``import-tec`` brought, by the source's own key (``event:site?id=6``,
    ``image:URL``, ``category:slug``, ``slug:event:old-slug`` for an address the source
    renamed): the local id it became and a digest of the source's answer when last
    written, so that a second run updates what changed and nothing twice."""

    source = TextField(primary_key=True)
    local = IntegerField()
    modified = CharField(default="")


ALL_TABLES = [
    Node,
    User,
    LoginLink,
    AppPassword,
    AuthFailure,
    Setting,
    Event,
    Venue,
    Organizer,
    Term,
    EventTerm,
    EventVenue,
    EventOrganizer,
    Media,
    Imported,
]
