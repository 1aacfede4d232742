"""The current time, in one place so every timestamp is formatted the same way."""

from datetime import UTC, datetime

FORMAT = "%Y-%m-%d %H:%M:%S"


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def utcnow_str() -> str:
    return utcnow().strftime(FORMAT)
