"""Pure rules: dates and zones, the clock, text, geography. No database, no Flask, no
HTTP: each is a function of its arguments (and of the clock, which tests may set), so the
store, the schemas and the app call them alike and tests drive them directly.
"""


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs (``calendar i18n extract``); it is translated
    where it is shown, once a language is known. Every layer marks its messages with it."""
    return message


class Filled(str):
    """A marked message (untranslated) with the values of its ``%(name)s`` placeholders:
    translated, then filled, where it is shown (``app/errors.py::first_message``)."""

    placeholders: dict

    def __new__(cls, message: str, **placeholders):
        text = super().__new__(cls, message)
        text.placeholders = placeholders
        return text
