"""What a post (an event, venue or organizer) is, apart from where it is kept: the statuses
it may have, and how WordPress reads a list parameter."""

STATUSES = ("publish", "future", "draft", "pending", "private", "trash")


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
