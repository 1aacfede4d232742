"""A worker's memory: giving it back after the largest answers, and fewer malloc arenas.

A worker keeps the heap it grew to: after building a 1,000-event feed (tens of MB of
short-lived objects) glibc holds the freed pages unless asked to return them.
``malloc_trim`` does that in a few milliseconds. glibc also gives each thread that
allocates at once an arena of its own (up to eight per core), each keeping its freed
pages: ``limit_arenas`` caps them for the gthread workers. Elsewhere (no glibc) both are
no-ops.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os

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
