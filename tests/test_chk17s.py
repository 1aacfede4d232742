"""Outside checker chk17s: black-box findings against SPEC §1-§10 (each test fails on the
code it was written against, for the defect it names)."""

import calendar
from datetime import datetime, timezone

from tests.conftest import NS


def _last_day_of_next_month(now: datetime) -> tuple:
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return calendar.monthrange(year, month)[1], year, month


def test_last_day_of_next_month_is_php_meaning_or_refused(client, admin):
    """SPEC §4: forms PHP's strtotime reads may be accepted, text that is not a date is a
    400. 'last day of next month' must not be accepted as some other date (it was read as
    'next month' minus one day)."""
    now = datetime.now(timezone.utc)
    answer = client.post(
        f"{NS}/events",
        json={"title": "D", "start_date": "last day of next month", "end_date": "2045-01-01"},
        headers=admin,
    )
    if answer.status_code == 400:
        return
    assert answer.status_code == 201
    day, year, month = _last_day_of_next_month(now)
    assert answer.get_json()["start_date"][:10] == f"{year:04d}-{month:02d}-{day:02d}"
