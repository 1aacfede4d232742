"""The cold requests of SPEC §9: URLs never asked before, so no cached answer can help.

``cold_paths(rng, info)`` draws one path per scenario; bench/run.py sends them through
gunicorn with wrk (bench/cold.lua reads them from a file), and ``python bench/cold.py DB``
times them in-process with Flask's test client (p50/p99 of each request asked once), the
quickest way to profile a change: ``--profile SCENARIO`` runs pyinstrument over it.
Under ``valgrind --tool=callgrind --instr-atstart=no``, ``--callgrind`` switches collection
on around each scenario's requests only (``/healthz`` included) and dumps each scenario's
count to its own file (``callgrind_annotate`` names it on its ``Trigger`` line): instruction
counts, which a busy machine does not change.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta

NS = "/wp-json/calendar/events/v1"
# Common words of the demo calendar's titles (store/seed.py): each matches many events.
WORDS = ["concert", "festival", "workshop", "market", "night", "summer", "grand", "show"]
SCENARIOS = ("listing", "window", "category", "search", "categories", "single")
# The public pages (SPEC §15): the list view, a random month, a random event's page.
PAGE_SCENARIOS = ("list page", "month page", "event page")
# Asked by name only (``--scenarios``): the list view filtered by a category or a search.
FILTERED_PAGE_SCENARIOS = ("category page", "search page")


def cold_path(scenario: str, rng: random.Random, info: dict, serial: int) -> str:
    """One never-asked URL of ``scenario``; ``serial`` makes it unique even when the random
    draw repeats (unknown parameters are ignored by the API but key the cache)."""
    if scenario == "listing":
        path = f"{NS}/events?per_page=10&page={rng.randint(1, 20)}"
    elif scenario == "window":  # a month view starting at any minute of the calendar
        start = info["first"] + timedelta(minutes=rng.randint(0, info["span_minutes"]))
        end = start + timedelta(days=31)
        path = (
            f"{NS}/events?strict_dates=true&start_date={start:%Y-%m-%dT%H:%M:00}"
            f"&end_date={end:%Y-%m-%dT%H:%M:00}&page={rng.randint(1, 3)}"
        )
    elif scenario == "category":
        path = f"{NS}/events?categories={rng.choice(info['categories'])}&page={rng.randint(1, 5)}"
    elif scenario == "search":
        path = f"{NS}/events?search={rng.choice(WORDS)}&page={rng.randint(1, 3)}"
    elif scenario == "categories":
        path = f"{NS}/categories?per_page={rng.randint(10, 50)}"
    elif scenario == "single":
        path = f"{NS}/events/{rng.choice(info['event_ids'])}"
    elif scenario == "list page":
        path = f"/events/?page={rng.randint(1, 20)}"
    elif scenario == "category page":
        path = f"/events/?categories={rng.choice(info['categories'])}&page={rng.randint(1, 3)}"
    elif scenario == "search page":
        path = f"/events/?search={rng.choice(WORDS)}&page={rng.randint(1, 3)}"
    elif scenario == "month page":
        month = info["first"] + timedelta(minutes=rng.randint(0, info["span_minutes"]))
        path = f"/events/month/{month:%Y-%m}/"
    elif scenario == "event page":
        path = f"/event/{rng.choice(info['event_slugs'])}/"
    else:
        raise ValueError(scenario)
    return f"{path}{'&' if '?' in path else '?'}_={serial}"


def calendar_info(get) -> dict:
    """What the random draws need, read through the API (``get(path)`` returns JSON)."""
    categories = [
        term["id"] for term in get(f"{NS}/categories?per_page=50&hide_empty=0")["categories"]
    ]
    first = get(f"{NS}/events?per_page=1&start_date=2000-01-01")["events"][0]
    last_page = get(f"{NS}/events?per_page=1&start_date=2000-01-01&end_date=2100-01-01")
    last = get(
        f"{NS}/events?per_page=1&start_date=2000-01-01&end_date=2100-01-01"
        f"&page={last_page['total']}"
    )["events"][0]
    # Single reads draw among 250 events from five pages spread over the whole calendar,
    # past and future, series occurrences included.
    pages = max(1, math.ceil(last_page["total"] / 50))
    event_ids, event_slugs = [], []
    for page in sorted({1 + k * (pages - 1) // 4 for k in range(5)}):
        body = get(f"{NS}/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01&page={page}")
        event_ids.extend(event["id"] for event in body["events"])
        event_slugs.extend(event["slug"] for event in body["events"])
    start = datetime.fromisoformat(first["utc_start_date"])
    end = datetime.fromisoformat(last["utc_start_date"])
    return {
        "categories": categories,
        "event_ids": event_ids,
        "event_slugs": event_slugs,
        "first": start,
        "span_minutes": max(1, int((end - start).total_seconds() // 60) - 31 * 24 * 60),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("database")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--profile", default="", help="run pyinstrument over one scenario")
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        help="requests of each scenario asked first, not measured: the memos then hold what "
        "a worker's would after seconds of the same traffic, as under make bench",
    )
    parser.add_argument(
        "--callgrind", action="store_true", help="under callgrind: count each scenario apart"
    )
    parser.add_argument(
        "--after-write",
        action="store_true",
        help="move the data version before each request, as a write does: every memo empty",
    )
    options = parser.parse_args()
    os.environ["CALENDAR_DATABASE"] = options.database
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from app import create_app
    from bench.tiers import switch_off
    from bench.writes import counting_statements
    from store.db import database

    off = switch_off(os.environ.get("BENCH_TIERS_OFF", ""))
    if off:
        print("tiers off:", ", ".join(off))
    app = create_app()
    client = app.test_client()
    info = calendar_info(lambda path: client.get(path).get_json())
    rng = random.Random(7)
    serial = 0
    healthz = []
    counting = _callgrind(options.callgrind, "healthz")
    for _ in range(options.requests):
        began = time.perf_counter()
        client.get("/healthz")
        healthz.append(time.perf_counter() - began)
    counting()
    # CPU time of this process: what a request costs, less disturbed by a busy machine.
    # Statements a request: a round trip each on PostgreSQL (bench/writes.py counts them).
    statements = counting_statements(database.obj)
    print(f"{'scenario':<12}{'p50 ms':>9}{'p99 ms':>9}{'ratio':>8}{'cpu ms':>9}{'stmts':>7}")
    base = statistics.median(healthz)
    print(f"{'healthz':<12}{base * 1000:>9.2f}{max(healthz) * 1000:>9.2f}{1:>8.2f}")
    for scenario in options.scenarios.split(","):
        for _ in range(options.warmup):
            serial += 1
            client.get(cold_path(scenario, rng, info, serial))
        paths = []
        for _ in range(options.requests):
            serial += 1
            paths.append(cold_path(scenario, rng, info, serial))
        if options.profile == scenario:
            from pyinstrument import Profiler

            profiler = Profiler()
            profiler.start()
        spent, cpu = [], []
        sent = 0
        counting = _callgrind(options.callgrind, scenario)
        for path in paths:
            if options.after_write:
                with app.app_context():
                    _as_after_a_write()
            began, began_cpu, before = time.perf_counter(), time.process_time(), statements[0]
            response = client.get(path)
            spent.append(time.perf_counter() - began)
            sent += statements[0] - before
            cpu.append(time.process_time() - began_cpu)
            assert response.status_code in (200, 404), (path, response.status_code)
        counting()
        if options.profile == scenario:
            profiler.stop()
            print(profiler.output_text(unicode=True, color=False))
        spent.sort()
        p50 = statistics.median(spent)
        p99 = spent[min(len(spent) - 1, int(len(spent) * 0.99))]
        print(
            f"{scenario:<12}{p50 * 1000:>9.2f}{p99 * 1000:>9.2f}{base / p50:>8.2f}"
            f"{statistics.median(cpu) * 1000:>9.2f}"
            f"{sent / len(paths):>7.1f}"
        )
    return 0


def _callgrind(on: bool, name: str):
    """Switch callgrind's collection on (when ``on``); the function returned switches it off
    and dumps what was counted under ``name``."""
    if not on:
        return lambda: None
    pid = str(os.getpid())
    subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)

    def off() -> None:
        subprocess.run(["callgrind_control", "-i", "off", pid], check=True, capture_output=True)
        subprocess.run(
            ["callgrind_control", f"--dump={name}", pid], check=True, capture_output=True
        )

    return off


def _as_after_a_write() -> None:
    """What a write does to what a worker keeps: the data version moves (the data is the
    same, so the database stays usable for the next request)."""
    from store.db import database

    database.execute_sql(
        "UPDATE setting SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        " WHERE key = 'data_version'"
    )


if __name__ == "__main__":
    sys.exit(main())
