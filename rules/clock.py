"""The current time, in one place: every timestamp is formatted the same way, and tests
move the clock forward (``advance``) instead of sleeping, or stop it (``freeze``). Waits and
deadlines (a slow client, a source's Retry-After, the data version's lease) read the
machine's clocks instead: a test's moved clock must not make them wait or expire."""

import time
from datetime import UTC, datetime

FORMAT = "%Y-%m-%d %H:%M:%S"

_offset = 0.0  # seconds added to the real clock; only tests change it
_frozen: float | None = None  # the real clock's reading while stopped; only tests set it


def _now() -> float:
    return (time.time() if _frozen is None else _frozen) + _offset


def utcnow() -> datetime:
    return datetime.fromtimestamp(_now(), UTC).replace(microsecond=0)


def utcnow_str() -> str:
    """``utcnow()`` formatted, worked out once per second (several times a request)."""
    global _last
    second = int(_now())
    last = _last
    if last[0] == second:
        return last[1]
    text = datetime.fromtimestamp(second, UTC).strftime(FORMAT)
    _last = (second, text)
    return text


_last: tuple = (None, "")  # (second, its text), read and replaced as one


def timestamp() -> float:
    """Seconds since the epoch (throttle windows, cache lifetimes)."""
    return _now()


def monotonic() -> float:
    """A clock for expiry times within one process."""
    return time.monotonic() + _offset


def advance(seconds: float) -> None:
    """Moves this process's clock forward (tests)."""
    global _offset
    _offset += seconds


def freeze() -> None:
    """Stops the real clock at the current second (tests): only ``advance`` moves it."""
    global _frozen
    _frozen = float(int(time.time()))


def reset() -> None:
    global _offset, _frozen
    _offset = 0.0
    _frozen = None
