"""Switch tiers off, to measure what each buys (docs/performance.md, "What each tier buys").

``BENCH_TIERS_OFF=event_texts,totals`` names the tiers; ``make bench`` then serves
``bench.tiers:app`` (the service with those tiers off) and ``python bench/cold.py`` switches
them off in-process. A tier switched off still answers every request, from the next tier
down: the behaviour is the same, only the time differs.
"""

from __future__ import annotations

import os


def _keep_nothing(*_args, **_kwargs) -> None:
    """A memo's ``put_many`` that keeps nothing: every lookup then makes its value."""


def _response_cache() -> None:
    from app.cache import ResponseCache

    ResponseCache.get = lambda self, key, version: None
    ResponseCache.put = lambda self, *args, **kwargs: None


def _event_texts() -> None:
    from app.render import EVENT_TEXTS

    EVENT_TEXTS.put_many = _keep_nothing


def _render_memo() -> None:
    from app import render

    render._MEMO.put_many = _keep_nothing


def _store_memo() -> None:
    from store.memo import MEMO

    MEMO.put_many = _keep_nothing


def _totals() -> None:
    from store import events

    events._totals.get = lambda key: None


def _first_ids() -> None:
    from store import events

    events._first_ids.get = lambda key: None
    events._first_ids.put = lambda key, value: value


def _day_counts() -> None:
    from store import events

    events._by_days = lambda filters: False


def _listing_shapes() -> None:
    from store import events

    events._shape = lambda filters, viewer: None  # every listing query built afresh


def _stored_texts() -> None:
    from app.routes import events

    events.stored_texts = lambda ids, key: {}


TIERS = {
    "response": _response_cache,
    "event_texts": _event_texts,
    "render_memo": _render_memo,
    "store_memo": _store_memo,
    "totals": _totals,
    "first_ids": _first_ids,
    "day_counts": _day_counts,
    "stored_texts": _stored_texts,
    "shapes": _listing_shapes,
}


def switch_off(names: str) -> list[str]:
    """Switches off the tiers ``names`` lists (comma-separated); returns them."""
    off = [name for name in names.split(",") if name]
    for name in off:
        if name not in TIERS:
            raise SystemExit(f"BENCH_TIERS_OFF: no tier {name!r}; tiers: {', '.join(TIERS)}")
        TIERS[name]()
    return off


def __getattr__(name: str):
    """``app``, for gunicorn (``bench.tiers:app``): the service, made after the switches."""
    if name != "app":
        raise AttributeError(name)
    switch_off(os.environ.get("BENCH_TIERS_OFF", ""))
    from wsgi import app

    return app
