"""Giving memory back after the largest answers.

A worker keeps the heap it grew to: after building a 1,000-event feed (tens of MB of
short-lived objects) glibc holds the freed pages unless asked to return them.
``malloc_trim`` does that in a few milliseconds; elsewhere (no glibc) it is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

try:
    _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _TRIM = _LIBC.malloc_trim
except (OSError, AttributeError):  # pragma: no cover - not glibc
    _TRIM = None


def release_memory() -> None:
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)
