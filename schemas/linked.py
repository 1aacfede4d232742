"""Venue and organizer schemas: listing arguments, bodies and representations."""

from marshmallow import fields, pre_load

from rules import N_
from rules.posts import SLUG_MAX
from schemas.fields import (
    DESCRIPTION_MAX,
    TITLE_MAX,
    BaseSchema,
    Coordinate,
    DateInput,
    Flag,
    ListingOut,
    PagingArgs,
    PlainText,
    PositiveInt,
    PostOut,
    Status,
    StrList,
    Text,
    Untyped,
    Url,
    describe,
)


class LinkedQueryArgs(PagingArgs):
    search = Text(
        non_empty=True,
        max_length=200,
        metadata=describe(N_("Items whose name, description or details contain every word.")),
    )
    event = PositiveInt(metadata=describe(N_("Items linked to this event id.")))
    has_events = Flag(
        metadata=describe(N_("Items linked (true) or not linked (false) to published events."))
    )
    only_with_upcoming = Flag(
        load_default=False, metadata=describe(N_("Only items linked to upcoming events."))
    )
    status = StrList(metadata={**describe(N_("Post statuses to include.")), "wp_type": "string"})
    password = Text(metadata=describe(N_("Password of password-protected items.")))


class LinkedDeleteArgs(BaseSchema):
    force = Flag(
        load_default=False,
        metadata=describe(N_("Delete permanently instead of moving to the trash.")),
    )


class _PostFields(BaseSchema):
    author = PositiveInt(metadata=describe(N_("Author user id.")))
    date = DateInput(metadata=describe(N_("Publication date.")))
    date_utc = DateInput(metadata=describe(N_("Publication date in UTC.")))
    description = Text(max_length=DESCRIPTION_MAX, metadata=describe(N_("Description (HTML).")))
    excerpt = Text(metadata=describe(N_("Summary (HTML).")))
    slug = Text(non_empty=True, max_length=SLUG_MAX, metadata=describe(N_("Slug.")))
    status = Status(metadata=describe(N_("Post status.")))
    image = Untyped(
        metadata={
            **describe(N_("Featured image: a media id from POST /media, or an image URL.")),
            "wp_type": "string",
        }
    )
    password = Text(max_length=255, metadata=describe(N_("Password; empty to remove it.")))


class VenueUpdate(_PostFields):
    venue = PlainText(non_empty=True, max_length=TITLE_MAX, metadata=describe(N_("Venue name.")))
    # interface.md 2.2 types them string ("1", "true"…), where an event's are boolean.
    show_map = Flag(
        metadata={**describe(N_("Whether events at the venue show a map.")), "wp_type": "string"}
    )
    show_map_link = Flag(
        metadata={
            **describe(N_("Whether events at the venue show a map link.")),
            "wp_type": "string",
        }
    )
    address = PlainText(max_length=1000, metadata=describe(N_("Street address.")))
    city = PlainText(max_length=200, metadata=describe(N_("City.")))
    country = PlainText(max_length=200, metadata=describe(N_("Country.")))
    province = PlainText(max_length=200, metadata=describe(N_("Province.")))
    state = PlainText(max_length=200, metadata=describe(N_("State.")))
    zip = PlainText(max_length=50, metadata=describe(N_("Postal code.")))
    phone = PlainText(max_length=100, metadata=describe(N_("Telephone number.")))
    stateprovince = PlainText(max_length=200, metadata=describe(N_("State or province.")))
    website = Url(max_length=2000, metadata=describe(N_("Website URL.")))
    # "" removes them, as it clears the other venue fields (null is "not sent" here).
    geo_lat = Coordinate(
        90,
        clearable=True,
        metadata=describe(N_('Latitude, with geo_lng; "" in both removes them.')),
    )
    geo_lng = Coordinate(
        180,
        clearable=True,
        metadata=describe(N_('Longitude, with geo_lat; "" in both removes them.')),
    )

    @pre_load
    def camel_case(self, data, **_kwargs):
        # Clients of the reference send "stateProvince".
        if isinstance(data, dict) and "stateProvince" in data and "stateprovince" not in data:
            data = dict(data)
            data["stateprovince"] = data.pop("stateProvince")
        return data


class VenueCreate(VenueUpdate):
    venue = PlainText(
        non_empty=True, max_length=TITLE_MAX, required=True, metadata=describe(N_("Venue name."))
    )


class OrganizerUpdate(_PostFields):
    organizer = PlainText(
        non_empty=True, max_length=TITLE_MAX, metadata=describe(N_("Organizer name."))
    )
    phone = PlainText(max_length=100, metadata=describe(N_("Telephone number.")))
    website = Url(max_length=2000, metadata=describe(N_("Website URL.")))
    email = PlainText(max_length=254, metadata=describe(N_("E-mail address.")))


class OrganizerCreate(OrganizerUpdate):
    organizer = PlainText(
        non_empty=True,
        max_length=TITLE_MAX,
        required=True,
        metadata=describe(N_("Organizer name.")),
    )


# What a venue or organizer representation always has: the head that is never empty.
ALWAYS_PRESENT = (
    "id",
    "status",
    "date",
    "date_utc",
    "modified",
    "modified_utc",
    "url",
    "global_id",
    "global_id_lineage",
)


class VenueOut(PostOut):
    # Empty fields ("", false, [], and "0", as PHP's array_filter) are left out of venue
    # representations, as the reference does: even the name, slug or author when "0".
    only_required = ALWAYS_PRESENT
    venue = fields.String()
    description = fields.String()
    excerpt = fields.String()
    slug = fields.String()
    image = fields.Dict()
    address = fields.String()
    city = fields.String()
    country = fields.String()
    province = fields.String()
    state = fields.String()
    zip = fields.String()
    phone = fields.String()
    website = fields.String()
    stateprovince = fields.String()
    geo_lat = fields.Float()
    geo_lng = fields.Float()
    json_ld = fields.Dict()
    show_map = fields.Boolean(allow_none=True)  # null where a password masks it
    show_map_link = fields.Boolean(allow_none=True)  # null where a password masks it


class OrganizerOut(PostOut):
    # The same rule as venues.
    only_required = ALWAYS_PRESENT
    organizer = fields.String()
    description = fields.String()
    excerpt = fields.String()
    slug = fields.String()
    image = fields.Dict()
    phone = fields.String()
    website = fields.String()
    email = fields.String()
    json_ld = fields.Dict()


class VenueListOut(ListingOut):
    venues = fields.List(fields.Nested(VenueOut))


class OrganizerListOut(ListingOut):
    organizers = fields.List(fields.Nested(OrganizerOut))
