"""What a write costs in-process, where a busy machine cannot blur it: ``python
bench/writes.py DB`` sends the bench's ``POST /events`` (bench/run.py: two dates, one
category by slug, an administrator's application password) through Flask's test client and
prints, per request, the CPU time (p50) and the statements sent; ``--series`` does the same
for the 104-occurrence weekly series. ``--profile N`` prints cProfile's N costliest calls;
under ``valgrind --tool=callgrind --instr-atstart=no`` collection is switched on around the
requests only (``--callgrind``), so the count is of the requests and nothing else.
"""

from __future__ import annotations

import argparse
import base64
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time

from peewee import PostgresqlDatabase
from run import series_body

NS = "/wp-json/calendar/events/v1"


def bodies(kind: str, count: int, category: str) -> list[str]:
    """The bodies bench/run.py sends: its POST scenario, or its weekly series."""
    if kind == "series":
        return [json.dumps(series_body(n)) for n in range(count)]
    return [
        json.dumps(
            {
                "title": f"Bench {n}-{os.getpid()}",
                "start_date": "tomorrow 10am",
                "end_date": "tomorrow 11am",
                "categories": [category],
            }
        )
        for n in range(count)
    ]


def counting_statements(database) -> list[int]:
    """A one-item list counting the statements sent from now on: on SQLite those of
    ``execute_sql``, not the bulk inserts' own cursors, ``BEGIN`` or ``COMMIT``; on
    PostgreSQL the round trips to the server, each a statement or several sent as one
    (``BEGIN`` with the writer lock, a write's inserts with its next statement, its last
    update with the ``COMMIT``: store/db.py::send_later), ``BEGIN`` and ``COMMIT``
    included. Not SQLite's trace callback: it also reports every statement of a trigger
    and of FTS5, and made a series ten times slower."""
    count = [0]
    if isinstance(database, PostgresqlDatabase):
        return counting_round_trips(database, count)
    name = "execute_sql"
    execute = getattr(database, name)

    def counted(sql, params=None, *args, **kwargs):
        count[0] += 1
        return execute(sql, params, *args, **kwargs)

    setattr(database, name, counted)
    return count


def counting_round_trips(database, count: list[int]) -> list[int]:
    """``count`` counting each ``execute`` of the database's cursors: a round trip."""
    cursor = database.cursor

    class Counted:
        __slots__ = ("real",)

        def __init__(self, real):
            self.real = real

        def execute(self, sql, params=None):
            count[0] += 1
            return self.real.execute(sql, params)

        def __iter__(self):
            return iter(self.real)

        def __getattr__(self, name):
            return getattr(self.real, name)

    database.cursor = lambda *args, **kwargs: Counted(cursor(*args, **kwargs))
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("database", help="a SQLite file or a postgresql:// URL")
    parser.add_argument("--login", default="bench")
    parser.add_argument("--password", required=True, help="the login's application password")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--series", action="store_true")
    parser.add_argument(
        "--profile", type=int, default=0, help="cProfile the requests: print its N first lines"
    )
    parser.add_argument("--callees", default="", help="with --profile: what these call")
    parser.add_argument("--callgrind", action="store_true")
    options = parser.parse_args()
    os.environ["CALENDAR_DATABASE"] = options.database
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from app import create_app
    from store.db import database

    app = create_app()
    client = app.test_client()
    auth = base64.b64encode(f"{options.login}:{options.password}".encode()).decode()
    headers = {"Authorization": f"Basic {auth}", "Content-Type": "application/json"}
    first = client.get(f"{NS}/events?per_page=1").get_json()["events"][0]
    category = first["categories"][0]["slug"] if first["categories"] else "music"
    kind = "series" if options.series else "post"
    for body in bodies(kind, options.warmup, category):
        assert client.post(f"{NS}/events", data=body, headers=headers).status_code == 201
    sent = bodies(kind, options.requests, category)
    statements = counting_statements(database.obj)
    if options.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU time: a busy machine blurs less
        profiler.enable()
    if options.callgrind:
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True)
    cpu, wall = [], []
    for body in sent:
        began, began_cpu = time.perf_counter(), time.process_time()
        response = client.post(f"{NS}/events", data=body, headers=headers)
        cpu.append(time.process_time() - began_cpu)
        wall.append(time.perf_counter() - began)
        assert response.status_code == 201, response.get_data(as_text=True)
    if options.callgrind:
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True)
    if options.profile:
        profiler.disable()
        stats = pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "cumulative"))
        stats.print_stats(options.profile)
        if options.callees:
            stats.print_callees(options.callees)
    print(
        f"{kind}: {options.requests} requests, CPU p50 {statistics.median(cpu) * 1000:.2f} ms, "
        f"wall p50 {statistics.median(wall) * 1000:.2f} ms, "
        f"{statements[0] / options.requests:.1f} "
        + ("round trips" if isinstance(database.obj, PostgresqlDatabase) else "statements")
        + " each"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
