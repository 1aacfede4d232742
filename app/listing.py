"""Paging for all five listings: page/per_page, totals in body and headers, rest_url,
next/previous URLs and the RFC 8288 ``Link`` header. Written once, used by all; the wp/v2
collections (``app/routes/wordpress.py::wp_collection``) take their pages' neighbours from
here and write them as WordPress does."""

from __future__ import annotations

import math
import re
from urllib.parse import quote, quote_plus

from app.jsonresponse import json_response
from rules.ids import MAX_ID


class Page:
    """One page of a listing: which rows to fetch and how to describe the neighbours."""

    def __init__(self, page: int, per_page: int, max_per_page: int = 50):
        self.number = page
        self.size = min(per_page, max_per_page)

    @property
    def offset(self) -> int:
        # Past MAX_ID no listing has rows; the cap keeps the number within SQL's integers.
        return min((self.number - 1) * self.size, MAX_ID)

    def total_pages(self, total: int) -> int:
        return math.ceil(total / self.size) if total else 0

    def neighbours(self, total_pages: int) -> tuple[int | None, int | None]:
        """The numbers of the next and previous pages, None where there is none: every
        page but the first has the one before it, a term listing's page past the last too
        (Term_Archive_Base: ``$current_page > 1``; the other listings answer 404 there)."""
        following = self.number + 1 if self.number < total_pages else None
        preceding = self.number - 1 if self.number > 1 else None
        return following, preceding

    def linked_neighbours(self, total_pages: int) -> tuple[int | None, int | None]:
        """The next and previous pages a ``Link`` header names: ``neighbours``, the previous
        one no further than the last page (SPEC §3: pages that exist; WordPress's
        controllers clamp it so), where a term listing's body names the page before."""
        following, preceding = self.neighbours(total_pages)
        return following, min(preceding, max(total_pages, 1)) if preceding else None


def _pairs(args: dict) -> list[tuple[str, str]]:
    pairs = []
    for key, value in args.items():
        if value is None:
            continue
        if isinstance(value, list | tuple):
            value = ",".join(str(v) for v in value)
        elif isinstance(value, bool):
            value = "1" if value else "0"
        pairs.append((key, str(value)))
    return pairs


# Values made only of these (numbers, slugs, dates, lists of ids) are encoded without
# ``quote``'s 3 µs a value: ``_echoed`` leaves them as they are, ``_query`` writes ``quote_plus``'s
# three substitutions itself (the same text: tests/test_events.py::
# test_page_urls_encode_each_value_as_urlencode_and_quote).
_PLAIN = re.compile(r"[A-Za-z0-9_.~ :,-]*")
_AS_QUOTE_PLUS = str.maketrans({" ": "+", ":": "%3A", ",": "%2C"})


def _query(pairs: list) -> str:
    """``urlencode(pairs)``: the names are the listings' own parameters, which need no
    quoting; ``pairs`` as ``_marked`` gives them."""
    return "&".join(
        f"{key}={value.translate(_AS_QUOTE_PLUS) if plain else quote_plus(value)}"
        for key, value, plain in pairs
    )


def _echoed(pairs: list) -> str:
    """The query of ``rest_url`` as the reference writes it (WordPress's ``add_query_arg``,
    which leaves values as they are): ``start_date=2026-11-21 00:00:00``, lists as CSV
    (samples/event-list.json). Only what would change the URL's structure is encoded;
    ``pairs`` as ``_marked`` gives them."""
    return "&".join(
        f"{key}={value if plain else quote(value, safe=' :,')}" for key, value, plain in pairs
    )


def _marked(pairs: list) -> list[tuple[str, str, bool]]:
    """``(key, value, whether the value is _PLAIN)``: asked once for both encodings."""
    return [(key, value, _PLAIN.fullmatch(value) is not None) for key, value in pairs]


def page_urls(collection_url: str, args: dict, page: Page, total_pages: int, *, echo_page: bool):
    """(rest_url, next_rest_url or None, previous_rest_url or None, the ``Link`` header's
    previous page URL or None).

    ``args`` are the effective filters. With ``echo_page`` (events, venues, organizers)
    ``rest_url`` carries page and filters; otherwise (terms) it is the bare collection.
    """
    base = collection_url.rstrip("/") + "/"
    # The filters are encoded once; each URL adds its page, first (rest_url) or last.
    pairs = _marked(_pairs({k: v for k, v in args.items() if k != "page"}))
    others = _query(pairs)
    if echo_page:
        echoed = _echoed(pairs)
        rest_url = f"{base}?page={page.number}" + (f"&{echoed}" if echoed else "")
    else:
        rest_url = base

    def at(number: int) -> str:
        if number <= 1:
            return f"{base}?{others}" if others else base
        return f"{base}?{others}&page={number}" if others else f"{base}?page={number}"

    following, preceding = page.neighbours(total_pages)
    linked = page.linked_neighbours(total_pages)[1]
    next_url = at(following) if following else None
    previous_url = at(preceding) if preceding else None
    return rest_url, next_url, previous_url, at(linked) if linked else None


def listing_response(key, items, total, page: Page, collection_url, args, *, terms=False):
    total_pages = page.total_pages(total)
    rest_url, next_url, previous_url, linked_previous = page_urls(
        collection_url, args, page, total_pages, echo_page=not terms
    )
    links = {}
    if next_url:
        links["next_rest_url"] = next_url
    if previous_url:
        links["previous_rest_url"] = previous_url
    if terms:
        body = {"rest_url": rest_url, "total": total, "total_pages": total_pages, key: items}
        body.update(links)
    else:
        body = {
            key: items,
            "rest_url": rest_url,
            **links,
            "total": total,
            "total_pages": total_pages,
        }
    headers = {
        "X-TEC-Total": str(total),
        "X-TEC-TotalPages": str(total_pages),
        "X-WP-Total": str(total),
        "X-WP-TotalPages": str(total_pages),
    }
    link_parts = []
    if next_url:
        link_parts.append(f'<{next_url}>; rel="next"')
    if linked_previous:
        link_parts.append(f'<{linked_previous}>; rel="prev"')
    if link_parts:
        headers["Link"] = ", ".join(link_parts)
    return json_response(body, 200, headers)
