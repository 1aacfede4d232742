"""How a request's query string and form body are read, on every face (the API, the pages,
the editor): as PHP reads them, for the clients written against the reference.

- A name given twice without ``[]`` holds its last value (PHP's ``$_GET``/``$_POST``):
  ``LastValueMultiDict``. List parameters still take every value (SPEC §3:
  ``x=a&x=b``), read with ``getlist``, or ``app/smorest.py::multidict_to_body`` for the
  fields a schema reads as lists.
- A form body that is not UTF-8 (a Latin-1 client's "Café") is a 400 naming the field,
  never an empty form or replacement characters: ``Utf8FormParser``. A charset the request
  declares is read when Werkzeug reads it for a multipart part (ASCII, UTF-8, ISO-8859-1),
  for a whole urlencoded body too; any other is read as UTF-8.
"""

from __future__ import annotations

import codecs
from urllib.parse import parse_qsl, unquote_to_bytes

from flask import Request
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.formparser import FormDataParser, MultiPartParser
from werkzeug.http import parse_options_header

from app.errors import ApiError
from app.i18n import _

# The charsets Werkzeug decodes a multipart part in (MultiPartParser.get_part_charset).
READABLE_CHARSETS = frozenset({"ascii", "us-ascii", "utf-8", "iso-8859-1"})
# A codec name that decodes as its charset but strictly whatever it is asked: Werkzeug
# decodes a multipart field with errors="replace", which would store U+FFFD in its place.
_STRICT = "calendar_strict_"  # as codecs.lookup gives it to a search function


def _strict_codec(name: str):
    if not name.startswith(_STRICT):
        return None
    charset = codecs.lookup(name[len(_STRICT) :])

    def decode(data, errors="strict"):
        return charset.decode(data, "strict")

    return codecs.CodecInfo(charset.encode, decode, name=name)


codecs.register(_strict_codec)


class LastValueMultiDict(ImmutableMultiDict):
    """Werkzeug's multidict whose single value of a name is its last, as PHP's."""

    def __getitem__(self, key):
        values = dict.get(self, key)
        if values:
            return values[-1]
        return super().__getitem__(key)  # Werkzeug's BadRequestKeyError

    def items(self, multi: bool = False):
        for key, values in dict.items(self):
            if multi:
                yield from ((key, value) for value in values)
            else:
                yield key, values[-1]

    def values(self):
        for values in dict.values(self):
            yield values[-1]


def not_utf8(name: str) -> ApiError:
    """The 400 of a form field whose bytes are not text in the body's charset."""
    return ApiError(
        "rest_invalid_param",
        _("The form could not be read: %(params)s must be UTF-8 text.", params=name),
        400,
        params={name: _("Must be UTF-8 text.")},
        details={},
    )


class _StrictPartParser(MultiPartParser):
    """Decodes each field strictly, and remembers whose bytes it is decoding."""

    part = ""

    def get_part_charset(self, headers) -> str:
        disposition = parse_options_header(headers.get("content-disposition", ""))[1]
        self.part = disposition.get("name") or "body"
        return _STRICT + super().get_part_charset(headers)


class Utf8FormParser(FormDataParser):
    def _parse_urlencoded(self, stream, mimetype, content_length, options):
        charset = options.get("charset", "").lower()
        charset = charset if charset in READABLE_CHARSETS else "utf-8"
        body = stream.read()
        try:
            items = _pairs(body, charset)
        except UnicodeError:  # read again pair by pair, to name the field
            for pair in body.split(b"&"):
                try:
                    _pairs(pair, charset)
                except UnicodeError:
                    raise not_utf8(_field_name(pair, charset)) from None
            raise
        return stream, self.cls(items), self.cls()

    def _parse_multipart(self, stream, mimetype, content_length, options):
        parser = _StrictPartParser(
            stream_factory=self.stream_factory,
            max_form_memory_size=self.max_form_memory_size,
            max_form_parts=self.max_form_parts,
            cls=self.cls,
        )
        boundary = options.get("boundary", "").encode("ascii")
        if not boundary:
            raise ValueError("Missing boundary")  # Werkzeug's: an empty form
        try:
            form, files = parser.parse(stream, boundary, content_length)
        except UnicodeError:
            raise not_utf8(parser.part) from None
        return stream, form, files


def _pairs(body: bytes, charset: str) -> list[tuple[str, str]]:
    return parse_qsl(
        body.decode(charset), keep_blank_values=True, encoding=charset, errors="strict"
    )


def _field_name(pair: bytes, charset: str) -> str:
    """The name of a ``name=value`` pair of a body, as far as it can be read."""
    name = unquote_to_bytes(pair.partition(b"=")[0].replace(b"+", b" "))
    return name.decode(charset, "replace") or "body"


class CalendarRequest(Request):
    parameter_storage_class = LastValueMultiDict
    form_data_parser_class = Utf8FormParser

    def _load_form_data(self) -> None:
        """A body refused (``not_utf8``) is refused once; later reads find it empty."""
        try:
            super()._load_form_data()
        except ApiError:
            empty = self.parameter_storage_class()
            self.__dict__.update(form=empty, files=empty)
            raise
