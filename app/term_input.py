"""An event body's ``categories`` and ``tags`` as sent (ids, slugs or names, a list or CSV)
→ the ids of existing terms and the names of new ones, which the store creates in the
event's write transaction (store/terms.py::materialise_terms). Parsing of the request's
input: the store only looks the terms up."""

from __future__ import annotations

from rules import N_
from rules.posts import TERM_NAME_MAX, split_list
from rules.text import plain_text
from schemas.fields import TOO_LONG
from store.errors import InvalidInput
from store.terms import find_term


def parse_term_input(value, taxonomy: str, param: str) -> list:
    """Event write input: ids, slugs or names as a list or CSV. Returns ids and
    ("new", name) items; an unknown numeric id is an error."""
    if value in ("", None, [], 0, "0"):
        return []
    items = []
    # A list's items are whole names, as The Events Calendar's list_to_array keeps them (an
    # import's "Rock, Pop"); a text is split at its commas.
    for item in value if isinstance(value, list) else split_list(value):
        if isinstance(item, bool) or isinstance(item, dict | list):
            raise InvalidInput({param: N_("Must be term ids, slugs or names.")})
        text = plain_text(str(item)).strip()
        if not text:
            continue
        term = find_term(text, taxonomy)
        if term is not None:
            items.append(term.id)
        elif text.isdigit():
            raise InvalidInput({param: N_("Term %(value)s does not exist.")}, value=text)
        elif len(text) > TERM_NAME_MAX:  # refused as POST /categories refuses it, not cut
            raise InvalidInput({param: TOO_LONG})
        else:
            items.append(("new", text))
    return items
