"""The current time, in one place: every timestamp is formatted the same way, and tests
move the clock forward (``advance``) instead of sleeping."""

import time
from datetime import UTC, datetime, timedelta

FORMAT = "%Y-%m-%d %H:%M:%S"

_offset = 0.0  # seconds added to the real clock; only tests change it


def utcnow() -> datetime:
    return (datetime.now(UTC) + timedelta(seconds=_offset)).replace(microsecond=0)


def utcnow_str() -> str:
    """``utcnow()`` formatted, worked out once per second (several times a request)."""
    global _last
    second = int(time.time() + _offset)
    last = _last
    if last[0] == second:
        return last[1]
    text = datetime.fromtimestamp(second, UTC).strftime(FORMAT)
    _last = (second, text)
    return text


_last: tuple = (None, "")  # (second, its text), read and replaced as one


def timestamp() -> float:
    """Seconds since the epoch (throttle windows, cache lifetimes)."""
    return time.time() + _offset


def monotonic() -> float:
    """A clock for expiry times within one process."""
    return time.monotonic() + _offset


def advance(seconds: float) -> None:
    """Moves this process's clock forward (tests)."""
    global _offset
    _offset += seconds


def reset() -> None:
    global _offset
    _offset = 0.0
