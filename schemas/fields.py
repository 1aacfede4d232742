"""Fields shared by every resource's schemas, with WordPress's lenient input forms."""

from __future__ import annotations

from collections.abc import Mapping

from marshmallow import (
    EXCLUDE,
    RAISE,
    Schema,
    ValidationError,
    fields,
    post_load,
    pre_load,
    validate,
)
from marshmallow.utils import missing, set_value

from rules import N_, Filled
from rules.dates import DateError, parse_datetime, resolve_timezone
from rules.ids import MAX_ID, as_id, has_other_digits, is_digits
from rules.posts import STATUSES, split_list
from rules.recurrence import RecurrenceError, parse
from rules.text import is_web_url, plain_text


def describe(text: str) -> dict:
    """Field metadata carrying a (translatable) description for the documents."""
    return {"description": text}


TRUE_VALUES = {"true", "1", "yes", "on"}
FALSE_VALUES = {"false", "0", "no", "off", ""}


class BaseSchema(Schema):
    """Unknown fields are ignored; ``null`` means "not sent", as in WordPress."""

    class Meta:
        unknown = EXCLUDE
        ordered = True

    @pre_load
    def ignore_nulls(self, data, **_kwargs):
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data

    @post_load
    def drop_nulls(self, data, **_kwargs):
        return {key: value for key, value in data.items() if value is not None}

    def _deserialize(
        self, data, *, error_store, many=False, partial=None, unknown=RAISE, index=None
    ):
        """marshmallow's own loop over the fields, less the fields the data lacks that are
        neither required nor defaulted: marshmallow deserializes each of them to ``missing``,
        which it then drops. A listing's query schema has 25 fields and a request sends two
        to five: the lacking ones were three quarters of its load (0.2 ms a window)."""
        if many or partial is not None or unknown != EXCLUDE or not isinstance(data, Mapping):
            return super()._deserialize(
                data,
                error_store=error_store,
                many=many,
                partial=partial,
                unknown=unknown,
                index=index,
            )
        index = index if self.opts.index_errors else None
        loaded = self.dict_class()
        for name, key, field, optional in self._loaded_fields():
            value = data.get(key, missing)
            if value is missing and optional:
                continue
            try:
                value = field.deserialize(value, key, data)
            except ValidationError as error:
                error_store.store_error(error.messages, key, index=index)
                value = error.valid_data or missing
            if value is not missing:
                set_value(loaded, field.attribute or name, value)
        return loaded

    def _loaded_fields(self) -> tuple:
        """(name, key in the data, field, whether lacking it gives nothing) of each field
        loaded, worked out once per schema object (its fields are fixed when it is made)."""
        plan = self.__dict__.get("_calendar_loaded_fields")
        if plan is None:
            plan = self._calendar_loaded_fields = tuple(
                (
                    name,
                    field.data_key if field.data_key is not None else name,
                    field,
                    not field.required and field.load_default is missing,
                )
                for name, field in self.load_fields.items()
            )
        return plan


class Flag(fields.Boolean):
    """Boolean in any of WordPress's forms: true/false, "true"/"false", 1/0, "1"/"0"."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in TRUE_VALUES:
                return True
            if lowered in FALSE_VALUES and lowered != "":
                return False
        raise ValidationError(N_("Must be a boolean: true, false, 1 or 0."))


class PositiveInt(fields.Integer):
    def __init__(self, minimum: int = 1, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(strict=False, **kwargs)
        self.minimum = minimum
        self.metadata.setdefault("minimum", minimum)  # /doc states what is refused

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValidationError(N_("Must be a whole number."))
        if isinstance(value, str):
            value = value.strip()
            if not is_digits(value.lstrip("-")):
                raise ValidationError(N_("Must be a whole number."))
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ValidationError(N_("Must be a whole number.")) from None
        if number < self.minimum:
            raise ValidationError(
                N_("Must be at least 1.") if self.minimum == 1 else N_("Must not be negative.")
            )
        if number > MAX_ID:
            raise ValidationError(N_("Must be a whole number."))
        return number


# The longest description (HTML): WordPress keeps post_content in a LONGTEXT, and a page
# builder's content (Divi, Elementor, WPBakery) runs to hundreds of thousands of characters.
# Through the API, the request body's limit (MAX_CONTENT_LENGTH) comes first.
DESCRIPTION_MAX = 1_000_000
# The longest title (an event's, a venue's or organizer's name): WordPress keeps post_title in
# a TEXT column, 65,535 bytes.
TITLE_MAX = 65_535


# The message of a text over its field's limit (an event's new terms say it too).
TOO_LONG = N_("Is too long.")


class Text(fields.String):
    """A string; ``non_empty`` rejects "" and whitespace, as the reference's validators do."""

    def __init__(self, non_empty: bool = False, max_length: int = 65535, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(**kwargs)
        self.non_empty = non_empty
        self.max_length = max_length
        self.metadata.setdefault("maxLength", max_length)  # /doc states what is refused

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise ValidationError(N_("Must be a string."))
        if self.non_empty and not value.strip():
            raise ValidationError(N_("Must not be empty."))
        if len(value) > self.max_length:
            raise ValidationError(TOO_LONG)
        if "\x00" in value:
            raise ValidationError(N_("Must not contain NUL characters."))
        return value


class PlainText(Text):
    """Text that is never markup (titles, names, addresses, phone, email): tags are
    removed on write for every role (SPEC §10)."""

    def _deserialize(self, value, attr, data, **kwargs):
        value = plain_text(super()._deserialize(value, attr, data, **kwargs))
        if self.non_empty and not value.strip():
            raise ValidationError(N_("Must not be empty."))
        return value


class Url(Text):
    """An absolute http(s) URL with no quote, angle bracket or space, or "" to clear."""

    def _deserialize(self, value, attr, data, **kwargs):
        value = super()._deserialize(value, attr, data, **kwargs).strip()
        if value == "":
            return value
        if not is_web_url(value):
            raise ValidationError(N_("Must be an absolute http or https URL."))
        return value


class IdList(fields.List):
    """Positive integer ids as an array, repeated parameters or CSV."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(fields.Integer(), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        ids = []
        for item in split_list(value):
            if isinstance(item, bool):
                raise ValidationError(N_("Must be a list of numeric ids."))
            text = str(item).strip()
            if as_id(text) in (None, 0):
                raise ValidationError(N_("Must be a list of numeric ids."))
            ids.append(int(text))
        if not ids:
            raise ValidationError(N_("Must be a list of numeric ids."))
        return ids


class StrList(fields.List):
    """Strings as an array, repeated parameters or CSV."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(fields.String(), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        items = [str(item).strip() for item in split_list(value)]
        items = [item for item in items if item]
        if not items:
            raise ValidationError(N_("Must not be empty."))
        return items


class Untyped(fields.Raw):
    """A value whose form is checked by the store (ids, objects or lists)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(**kwargs)


class Cost(fields.Raw):
    """An event's cost: a string (a number read as its text), or a list of them, each
    held to a text's rules (``Text``: no NUL, not too long); "", [] or null: none."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                raise ValidationError(N_("Must be a string or a list of strings."))
            _COST_TEXT._deserialize(item, attr, data, **kwargs)
        return value


_COST_TEXT = Text()


class RecurrenceLines(fields.Raw):
    """RFC 5545 lines (``RRULE:…``, ``RDATE…``, ``EXDATE…``) as a list, or one string with a
    line per row (form bodies); ``[]`` or ``""`` gives no lines. Loads as the list of lines."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return parse(value).lines
        except RecurrenceError as error:
            raise ValidationError(Filled(error.message, **error.values)) from None


class DateInput(Text):
    """A date in any accepted form; parsed later, once its timezone is known."""

    def __init__(self, **kwargs):
        super().__init__(non_empty=True, max_length=100, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            raise ValidationError(N_("Must be a date."))
        value = super()._deserialize(value, attr, data, **kwargs)
        try:
            parse_datetime(value, resolve_timezone("UTC")[0])
        except DateError:
            raise ValidationError(N_("Must be a date such as 2025-06-01 18:30:00.")) from None
        return value


class Status(Text):
    """A post status, spaces around it dropped: one of ``choices`` (every status, unless a
    route takes fewer), which the error names and /doc lists as the enum, from one check."""

    def __init__(
        self,
        choices: tuple[str, ...] = STATUSES,
        error: str = N_("Must be one of publish, future, draft, pending, private, trash."),
        **kwargs,
    ):
        super().__init__(validate=validate.OneOf(choices, error=error), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).strip()


class Number(fields.Float):
    """A number, finite; a text gives one only in digits 0 to 9 (rules/ids.py::is_digits),
    though Python's ``float`` reads any script's."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and has_other_digits(value):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class Coordinate(Number):
    """A latitude (``limit`` 90) or longitude (180). A ``clearable`` one loads "" (or
    blanks) as "": the coordinate removed (None would be dropped as "not sent")."""

    def __init__(self, limit: float, clearable: bool = False, **kwargs):
        kwargs.setdefault("allow_none", True)
        super().__init__(allow_nan=False, **kwargs)
        self.limit = limit
        self.clearable = clearable

    def _deserialize(self, value, attr, data, **kwargs):
        if self.clearable and isinstance(value, str) and not value.strip():
            return ""
        if isinstance(value, bool):
            raise ValidationError(N_("Must be a number."))
        try:
            number = super()._deserialize(value, attr, data, **kwargs)
        except ValidationError:
            raise ValidationError(N_("Must be a number.")) from None
        if not -self.limit <= number <= self.limit:
            raise ValidationError(
                N_("Must be between -90 and 90.")
                if self.limit == 90
                else N_("Must be between -180 and 180.")
            )
        return number


class PagingArgs(BaseSchema):
    page = PositiveInt(load_default=1, metadata={"description": N_("Page of the collection.")})
    per_page = PositiveInt(
        load_default=10,
        metadata={"description": N_("Maximum number of items per page (at most 50).")},
    )


class OutSchema(Schema):
    """A response body, published in `/doc`: every field is required except those named in
    ``optional`` (or, where ``only_required`` is given, every field but those), and no other
    field may appear (``additionalProperties: false``). The suite checks every JSON answer it
    receives against the document (tests/conformance.py)."""

    optional: tuple[str, ...] = ()
    only_required: tuple[str, ...] | None = None

    class Meta:
        unknown = RAISE
        ordered = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            if self.only_required is not None:
                field.required = name in self.only_required
            else:
                field.required = name not in self.optional


class ListingOut(OutSchema):
    """What every listing carries besides its items."""

    optional = ("next_rest_url", "previous_rest_url")

    rest_url = fields.String()
    next_rest_url = fields.String()
    previous_rest_url = fields.String()
    total = fields.Integer()
    total_pages = fields.Integer()


class PostOut(OutSchema):
    """The head every event, venue and organizer representation starts with."""

    id = fields.Integer()
    author = fields.String()
    status = fields.String()
    date = fields.String()
    date_utc = fields.String()
    modified = fields.String()
    modified_utc = fields.String()
    url = fields.String()
    global_id = fields.String()
    global_id_lineage = fields.List(fields.String())
