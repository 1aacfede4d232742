"""Event schemas: listing arguments, create and update bodies, and the representation."""

from marshmallow import fields, validate

from rules import N_
from rules.posts import SLUG_MAX
from schemas.fields import (
    DESCRIPTION_MAX,
    TITLE_MAX,
    BaseSchema,
    Coordinate,
    Cost,
    DateInput,
    Flag,
    IdList,
    ListingOut,
    Number,
    OutSchema,
    PagingArgs,
    PlainText,
    PositiveInt,
    PostOut,
    RecurrenceLines,
    Status,
    StrList,
    Text,
    Untyped,
    Url,
    describe,
)
from schemas.linked import OrganizerOut
from schemas.terms import EventTermOut


class EventQueryArgs(PagingArgs):
    # Their defaults, the default window's bounds, move with the day: the namespace index
    # and /doc write today's (app/reading/filters.py::site_window_defaults).
    start_date = DateInput(
        metadata={**describe(N_("Events that start on or after this date.")), "window": True}
    )
    end_date = DateInput(
        metadata={**describe(N_("Events that end on or before this date.")), "window": True}
    )
    starts_before = DateInput(metadata=describe(N_("Events that start before this date.")))
    starts_after = DateInput(metadata=describe(N_("Events that start after this date.")))
    ends_before = DateInput(metadata=describe(N_("Events that end before this date.")))
    ends_after = DateInput(metadata=describe(N_("Events that end after this date.")))
    strict_dates = Flag(
        load_default=False,
        metadata=describe(N_("Apply dates at their exact times instead of whole days.")),
    )
    search = Text(
        non_empty=True,
        max_length=200,
        metadata=describe(N_("Events whose title or description contains the string.")),
    )
    categories = StrList(metadata=describe(N_("Events in one of these categories (slugs or ids).")))
    tags = StrList(metadata=describe(N_("Events with one of these tags (slugs or ids).")))
    venue = IdList(metadata=describe(N_("Events at one of these venue ids.")))
    organizer = IdList(metadata=describe(N_("Events run by one of these organizer ids.")))
    featured = Flag(
        metadata=describe(N_("Only featured (true) or only non-featured (false) events."))
    )
    status = StrList(metadata={**describe(N_("Post statuses to include.")), "wp_type": "string"})
    geoloc = Flag(
        metadata=describe(N_("Events whose venue has (true) or lacks (false) coordinates."))
    )
    geoloc_lat = Coordinate(90, metadata=describe(N_("Latitude of the centre of a radius search.")))
    geoloc_lng = Coordinate(
        180, metadata=describe(N_("Longitude of the centre of a radius search."))
    )
    geoloc_radius = Number(
        allow_none=True,
        allow_nan=False,
        validate=validate.Range(
            min=0,
            max=20000,
            min_inclusive=False,
            error=N_("Must be more than 0 and at most 20000 kilometres."),
        ),
        metadata=describe(N_("Radius of the search in kilometres.")),
    )
    include = IdList(metadata=describe(N_("Only these event ids; date filters are then ignored.")))
    post_parent = PositiveInt(metadata=describe(N_("Events whose parent is this event id.")))
    ticketed = Flag(metadata=describe(N_("Events with (true) or without (false) tickets.")))
    password = Text(metadata=describe(N_("Password of password-protected events.")))
    ical = Flag(
        metadata=describe(
            N_(
                "Answer an iCalendar feed (text/calendar) of every matching event instead "
                "of a page of JSON; Accept: text/calendar does the same."
            )
        )
    )


class EventSingleArgs(BaseSchema):
    password = Text(metadata=describe(N_("Password of a password-protected event.")))


class EventReadArgs(EventSingleArgs):
    ical = Flag(
        metadata=describe(
            N_(
                "Answer the event as iCalendar (text/calendar) instead of JSON; "
                "Accept: text/calendar does the same."
            )
        )
    )


IMPORT_STATUSES = ("publish", "future", "draft", "pending", "private")


class EventImportArgs(BaseSchema):
    status = Status(
        IMPORT_STATUSES,
        N_("Must be one of publish, future, draft, pending, private."),
        metadata=describe(
            N_(
                "Status of new and updated events: publish (the default), future, draft, "
                "pending or private."
            )
        ),
    )


class EventDeleteArgs(EventSingleArgs):
    force = Flag(
        load_default=False,
        metadata=describe(N_("Delete permanently instead of moving to the trash.")),
    )


class EventUpdate(BaseSchema):
    title = PlainText(non_empty=True, max_length=TITLE_MAX, metadata=describe(N_("Event title.")))
    start_date = DateInput(metadata=describe(N_("Start date and time.")))
    end_date = DateInput(metadata=describe(N_("End date and time.")))
    author = PositiveInt(metadata=describe(N_("Author user id.")))
    date = DateInput(metadata=describe(N_("Publication date.")))
    date_utc = DateInput(metadata=describe(N_("Publication date in UTC.")))
    description = Text(
        max_length=DESCRIPTION_MAX, metadata=describe(N_("Event description (HTML)."))
    )
    # interface.md 4.2: the event's by-slug update takes slug as optional (a new slug),
    # unlike a venue's or an organizer's, whose path slug stays required.
    slug = Text(
        non_empty=True,
        max_length=SLUG_MAX,
        metadata={**describe(N_("Event slug.")), "optional_in_path": True},
    )
    excerpt = Text(metadata=describe(N_("Summary (HTML).")))
    status = Status(metadata=describe(N_("Post status of the event.")))
    timezone = Text(max_length=64, metadata=describe(N_("Timezone of the event.")))
    all_day = Flag(metadata=describe(N_("Whether the event lasts all day.")))
    image = Untyped(
        metadata={
            **describe(N_("Featured image: a media id from POST /media, or an image URL.")),
            "wp_type": "string",
        }
    )
    cost = Cost(metadata=describe(N_("Cost of the event: a string or a list of strings.")))
    website = Url(max_length=2000, metadata=describe(N_("Event website URL.")))
    show_map = Flag(metadata=describe(N_("Whether to show a map.")))
    show_map_link = Flag(metadata=describe(N_("Whether to show a map link.")))
    hide_from_listings = Flag(metadata=describe(N_("Whether the event is hidden from listings.")))
    sticky = Flag(metadata=describe(N_("Whether the event is sticky.")))
    featured = Flag(metadata=describe(N_("Whether the event is featured.")))
    ticketed = Flag(metadata=describe(N_("Whether the event has tickets.")))
    post_parent = PositiveInt(
        minimum=0, metadata=describe(N_("Id of the parent event, 0 for none."))
    )
    categories = Untyped(
        metadata={
            **describe(N_("Categories: ids, slugs or names, as a list or CSV.")),
            "wp_type": "array",
        }
    )
    tags = Untyped(
        metadata={
            **describe(N_("Tags: ids, slugs or names, as a list or CSV.")),
            "wp_type": "array",
        }
    )
    venue = Untyped(
        metadata={
            **describe(N_('Venues: ids, {"id": n} objects or new venue objects.')),
            "wp_type": "array",
        }
    )
    organizer = Untyped(
        metadata={
            **describe(N_('Organizers: ids, {"id": n} objects or new organizer objects.')),
            "wp_type": "array",
        }
    )
    password = Text(max_length=255, metadata=describe(N_("Event password; empty to remove it.")))
    recurrence = RecurrenceLines(
        metadata={
            **describe(
                N_(
                    "Recurrence: RFC 5545 lines (RRULE, RDATE, EXDATE) as a list, or one "
                    "string with a line per row; [] or an empty string ends the recurrence."
                )
            ),
            "wp_type": "array",
        }
    )


class EventCreate(EventUpdate):
    title = PlainText(
        non_empty=True, max_length=TITLE_MAX, required=True, metadata=describe(N_("Event title."))
    )
    start_date = DateInput(required=True, metadata=describe(N_("Start date and time.")))
    end_date = DateInput(required=True, metadata=describe(N_("End date and time.")))
    # Not sent, a new event is not all-day (interface.md §2.1); an update keeps what it was.
    all_day = Flag(metadata={**describe(N_("Whether the event lasts all day.")), "default": False})


# --- representation (documentation of what the serialisers emit) ---------------------


class DateDetails(OutSchema):
    year = fields.String()
    month = fields.String()
    day = fields.String()
    hour = fields.String()
    minutes = fields.String()
    seconds = fields.String()


class CostDetails(OutSchema):
    currency_symbol = fields.String()
    currency_code = fields.String()
    currency_position = fields.String()
    values = fields.List(fields.String())


class EventOut(PostOut):
    optional = ("json_ld",)  # single-item reads only
    rest_url = fields.String()
    title = fields.String()
    description = fields.String()
    excerpt = fields.String()
    slug = fields.String()
    image = fields.Raw(
        metadata=describe(N_("false, the image object of an uploaded image, or {url, extension}."))
    )
    all_day = fields.Boolean(allow_none=True)  # null where a password masks it
    start_date = fields.String()
    start_date_details = fields.Nested(DateDetails)
    end_date = fields.String()
    end_date_details = fields.Nested(DateDetails)
    utc_start_date = fields.String()
    utc_start_date_details = fields.Nested(DateDetails)
    utc_end_date = fields.String()
    utc_end_date_details = fields.Nested(DateDetails)
    timezone = fields.String()
    timezone_abbr = fields.String()
    cost = fields.String()
    cost_details = fields.Nested(CostDetails)
    website = fields.String()
    show_map = fields.Boolean(allow_none=True)  # null where a password masks it
    show_map_link = fields.Boolean(allow_none=True)  # null where a password masks it
    hide_from_listings = fields.Boolean(allow_none=True)  # null where a password masks it
    sticky = fields.Boolean(allow_none=True)  # null where a password masks it
    featured = fields.Boolean(allow_none=True)  # null where a password masks it
    ticketed = fields.Boolean(allow_none=True)  # null where a password masks it
    post_parent = fields.Integer(
        metadata=describe(N_("The series' id for an occurrence of a recurring event, else 0."))
    )
    recurrence = fields.List(
        fields.String(),
        metadata=describe(N_("The series' RFC 5545 lines; [] for an event that does not recur.")),
    )
    categories = fields.List(fields.Nested(EventTermOut))
    tags = fields.List(fields.Nested(EventTermOut))
    venue = fields.Raw(
        metadata=describe(N_("The venue object, [] when none, a list when several."))
    )
    organizer = fields.List(fields.Nested(OrganizerOut))
    json_ld = fields.Dict()


class EventListOut(ListingOut):
    events = fields.List(fields.Nested(EventOut))


class ImportEntry(BaseSchema):
    uid = fields.String(metadata=describe(N_("UID of the VEVENT in the file.")))
    id = fields.Integer(metadata=describe(N_("Id of the event it became.")))
    reason = fields.String(metadata=describe(N_("Why the VEVENT was not imported.")))
    left_out_categories = fields.List(
        fields.String(),
        metadata=describe(
            N_(
                "Categories of the VEVENT that do not exist and were left out: only "
                "editors and administrators create categories."
            )
        ),
    )
    recurrence_id = fields.String(
        metadata=describe(
            N_(
                "For a VEVENT that changes one occurrence of a series: the occurrence it "
                "names (RECURRENCE-ID), as a local time in the series' timezone."
            )
        )
    )

    note = fields.String(
        metadata=describe(
            N_(
                "For a VEVENT imported otherwise than as it is written: why (an edit of one "
                "occurrence whose series is neither in the file nor imported before becomes "
                "an event of its own)."
            )
        )
    )


class ImportReportOut(BaseSchema):
    created = fields.List(fields.Nested(ImportEntry))
    updated = fields.List(fields.Nested(ImportEntry))
    unchanged = fields.List(fields.Nested(ImportEntry))
    rejected = fields.List(fields.Nested(ImportEntry))
