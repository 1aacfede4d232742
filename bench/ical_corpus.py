"""Imports every .ics file of a folder (real files from calendar projects' test suites, which
``fetch`` brings; kept out of this repository) and compares what the calendar lists with
what an independent expander (``recurring-ical-events``) makes of the same file.

    .venv/bin/python bench/ical_corpus.py FOLDER [--until 2028-01-01]

Each file is one of: identical (the same occurrences, start and end, to the minute), different
(listed with the first difference), refused whole with a clean error (400/413), or a server
error (5xx, must stay 0). The window is 1970 to ``--until`` (the series of a file are
materialised up to RECURRENCE_HORIZON_DAYS ahead, so the window ends before that)."""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
NS = "/wp-json/calendar/events/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder")
    parser.add_argument("--until", default="2028-01-01")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ical-corpus-")
    os.environ["CALENDAR_INSTANCE"] = work
    from app import create_app
    from store.db import database, write_transaction
    from store.models import ALL_TABLES, Setting
    from store.users import create_user

    app = create_app(
        {
            "CALENDAR_DATABASE": os.path.join(work, "corpus.db"),
            "ICAL_IMPORT_MAX_EVENTS": 100_000,
            "ICAL_IMPORT_MAX_LINES": 10_000_000,
            "MAX_CONTENT_LENGTH": 50_000_000,
        }
    )
    client = app.test_client()
    until = datetime.fromisoformat(args.until).replace(tzinfo=UTC)
    counts = {"identical": 0, "different": 0, "refused": 0, "server error": 0, "no events": 0}
    slowest = (0.0, "")
    notes = []
    for name in sorted(os.listdir(args.folder)):
        if not name.endswith(".ics"):
            continue
        with database.connection_context(), write_transaction():
            for model in reversed(ALL_TABLES):
                if model is not Setting:
                    model.delete().execute()
        with database.connection_context():
            _user, password = create_user("admin", "administrator")
        auth = {"Authorization": "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()}
        data = open(os.path.join(args.folder, name), "rb").read()
        theirs = _expanded(data, until)
        if theirs is None:
            continue  # not a calendar the expander reads either
        started = time.perf_counter()
        response = client.post(
            f"{NS}/events/import", data=data, headers={**auth, "Content-Type": "text/calendar"}
        )
        took = time.perf_counter() - started
        slowest = max(slowest, (took, name))
        if response.status_code >= 500:
            counts["server error"] += 1
            notes.append(f"5xx   {name}")
            continue
        if response.status_code != 200:
            counts["refused"] += 1
            message = (response.get_json() or {}).get("message", "")[:90]
            notes.append(f"refused {name}: {response.status_code} {message}")
            continue
        ours = _listed(client, auth, until)
        if not theirs and not ours:
            counts["no events"] += 1
        elif ours == theirs:
            counts["identical"] += 1
        else:
            counts["different"] += 1
            only_ours = sorted(set(ours) - set(theirs))[:2]
            only_theirs = sorted(set(theirs) - set(ours))[:2]
            rejected = response.get_json()["rejected"]
            reason = f"; rejected: {rejected[0]['reason'][:70]}" if rejected else ""
            notes.append(
                f"diff  {name}: ours {len(ours)} theirs {len(theirs)}; only ours {only_ours}; "
                f"only theirs {only_theirs}{reason}"
            )
        app.extensions["calendar.cache"].clear()
    for line in notes:
        print(line)
    print(
        ", ".join(f"{n} {k}" for k, n in counts.items()),
        f"; slowest import {slowest[0]:.2f} s ({slowest[1]})",
    )


def _expanded(data: bytes, until: datetime) -> list[tuple[str, str]] | None:
    import icalendar
    import recurring_ical_events

    try:
        calendar = icalendar.Calendar.from_ical(data)
        zone_name = str(calendar.get("X-WR-TIMEZONE", "") or "UTC")
        try:
            zone = ZoneInfo(zone_name)
        except (ValueError, KeyError, OSError):
            zone = UTC
        found = recurring_ical_events.of(calendar).between(datetime(1970, 1, 1, tzinfo=UTC), until)
    except Exception:  # noqa: BLE001 - the other library's own limits
        return None
    result = []
    for event in found:
        if str(event.get("STATUS", "")).upper() == "CANCELLED":
            continue
        start = event["DTSTART"].dt
        end = event["DTEND"].dt if "DTEND" in event else start
        result.append((_moment(start, zone), _moment(end, zone)))
    return sorted(result)


def _moment(value, zone) -> str:
    if isinstance(value, datetime):
        value = value if value.tzinfo else value.replace(tzinfo=zone)
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    if isinstance(value, date):
        return f"{value} (day)"
    return str(value)


def _listed(client, auth, until: datetime) -> list[tuple[str, str]]:
    found, page = [], 1
    while True:
        query = {
            "start_date": "1970-01-01",
            "end_date": until.strftime("%Y-%m-%d"),
            "per_page": 50,
            "page": page,
            "status": "publish,private,draft,pending,future",
        }
        response = client.get(f"{NS}/events", query_string=query, headers=auth)
        if response.status_code != 200:
            return sorted(found)
        body = response.get_json()
        for event in body["events"]:
            if event["all_day"]:
                last = date.fromisoformat(event["end_date"][:10])
                end = date.fromordinal(last.toordinal() + 1)
                found.append((f"{event['start_date'][:10]} (day)", f"{end} (day)"))
            else:
                found.append((event["utc_start_date"][:16], event["utc_end_date"][:16]))
        if page >= body["total_pages"]:
            return sorted(found)
        page += 1


if __name__ == "__main__":
    main()
