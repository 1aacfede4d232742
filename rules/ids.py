"""What can be an id: the one home of the limit (used by schemas, store and routes), and
of the digits a number is written with."""

MAX_ID = 2**62  # larger numbers cannot be ids (and overflow SQLite's INTEGER)


def is_digits(text: str) -> bool:
    """Whether ``text`` is digits 0 to 9 and nothing else: the only digits a number is
    written with here, as in PHP's ``is_numeric`` (Python's ``int`` and ``float`` would
    also read fullwidth or Arabic-Indic ones, which ids and the pages refuse)."""
    return text.isascii() and text.isdigit()


def has_other_digits(text: str) -> bool:
    """Whether ``text`` holds a digit that is not 0 to 9 (``is_digits``): a number or a
    date written with one is refused, whatever reads it."""
    return not text.isascii() and any(char.isdigit() and not char.isascii() for char in text)


def as_id(value) -> int | None:
    """``value`` as a storable id, or None when it cannot be one."""
    text = str(value).strip()
    if not is_digits(text) or len(text) > 19 or int(text) > MAX_ID:
        return None
    return int(text)
