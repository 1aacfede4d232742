"""A worker's memory: giving it back after the largest answers and now and then, and fewer
malloc arenas.

A worker keeps the heap it grew to: after building a 1,000-event feed (tens of MB of
short-lived objects) glibc holds the freed pages unless asked to return them.
``malloc_trim`` does that in a few milliseconds; after other answers, once a second. glibc also gives each thread that
allocates at once an arena of its own (up to eight per core), each keeping its freed
pages: ``limit_arenas`` caps them for the gthread workers. Elsewhere (no glibc) both are
no-ops.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import time

try:
    _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _TRIM = _LIBC.malloc_trim
    _MALLOPT = _LIBC.mallopt
except (OSError, AttributeError):  # pragma: no cover - not glibc
    _TRIM = _MALLOPT = None

M_ARENA_MAX = -8  # glibc's malloc.h


def limit_arenas(count: int = 2) -> bool:
    """At most ``count`` malloc arenas in this process and the workers it forks (call it
    before threads start): with eight threads, a worker's own memory after the bench was
    5 to 10 MB larger than with two arenas. An operator's own ``MALLOC_ARENA_MAX`` (or
    ``glibc.malloc.arena_max`` tunable) is left as it is. True when set here."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    chosen = "MALLOC_ARENA_MAX" in os.environ or "arena_max" in tunables
    return bool(_MALLOPT is not None and not chosen and _MALLOPT(M_ARENA_MAX, count))


def release_memory() -> None:
    """After a large answer: the young generations' cycles collected (a feed's objects are
    freed by their counts; a full collection walked the whole heap of the worker, 60 to
    130 ms a feed), then the freed pages returned."""
    gc.collect(1)
    if _TRIM is not None:
        _TRIM(0)


# Seconds between two returns of free pages after ordinary answers (``trim_now_and_then``).
TRIM_EVERY = 1.0
_TRIMMED = [0.0]  # when last, by ``time.monotonic``


def trim_now_and_then() -> bool:
    """After an answer: the pages the heap holds free returned, once per ``TRIM_EVERY`` at
    most. Pages freed by a burst of large pages (four month pages at once) stay with the
    worker otherwise, between the objects that outlive them: 1 to 3 MB of a worker after
    the cold run. glibc trims only the top of its heap by itself; ``malloc_trim`` gives
    back every free page, 0.2 ms the first time after the cold run, microseconds then.
    True when it ran."""
    now = time.monotonic()
    if _TRIM is None or now - _TRIMMED[0] < TRIM_EVERY:
        return False
    _TRIMMED[0] = now  # two threads at once trim twice: harmless
    _TRIM(0)
    return True
