"""An event body's ``categories`` and ``tags`` as sent (ids, slugs or names, a list or CSV)
→ the ids of existing terms and the names of new ones, which the store creates in the
event's write transaction (store/terms.py::materialise_terms). Parsing of the request's
input: the store only looks the terms up."""

from __future__ import annotations

from marshmallow import ValidationError

from rules import N_
from rules.ids import is_digits
from rules.posts import split_list
from schemas.terms import TagUpdate
from store.errors import InvalidInput
from store.terms import find_terms

# A new term's name obeys the rules of the term routes' own ``name`` (its length, NUL,
# markup removed, not empty): one rule for POST /categories and an event's categories.
TERM_NAME = TagUpdate().fields["name"]
NOT_A_TERM = N_("Must be term ids, slugs or names.")


def parse_term_input(value, taxonomy: str, param: str) -> list:
    """Event write input: ids, slugs or names as a list or CSV. Returns ids and
    ("new", name) items; an unknown numeric id is an error, and so is a number that can
    be no id (negative, fractional); a null in a list names nothing."""
    if value in ("", None, [], 0, "0"):
        return []
    named = []
    # A list's items are whole names, as The Events Calendar's list_to_array keeps them (an
    # import's "Rock, Pop"); a text is split at its commas.
    for item in value if isinstance(value, list) else split_list(value):
        if item is None:
            continue
        if isinstance(item, bool | dict | list | float) or (isinstance(item, int) and item < 1):
            raise InvalidInput({param: NOT_A_TERM})
        if str(item).strip():
            named.append((item, str(item).strip() if isinstance(item, int) else _name(item, param)))
    items = []
    for (item, text), term in zip(named, find_terms([t for _i, t in named], taxonomy), strict=True):
        if term is not None:
            items.append(term.id)
        elif isinstance(item, int) or is_digits(text):  # "١", "²" are names, as in PHP
            raise InvalidInput({param: N_("Term %(value)s does not exist.")}, value=text)
        else:
            items.append(("new", text))
    return items


def _name(item: str, param: str) -> str:
    """A term named by ``item``, as the term routes read a name (markup removed), refused
    as they refuse one (too long, NUL): what an existing term is looked up by, or a new
    one is named."""
    try:
        return TERM_NAME.deserialize(item).strip()
    except ValidationError as error:
        raise InvalidInput({param: error.messages[0]}) from None
