"""What can be an id: the one home of the limit (used by schemas, store and routes)."""

MAX_ID = 2**62  # larger numbers cannot be ids (and overflow SQLite's INTEGER)


def as_id(value) -> int | None:
    """``value`` as a storable id, or None when it cannot be one."""
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) > MAX_ID:
        return None
    return int(text)
