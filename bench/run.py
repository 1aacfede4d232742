"""`make bench`: seed throw-away databases, serve them with gunicorn as `make run` does,
drive them with wrk from a second process on loopback, and print the SPEC §9 figures:
the warm scenarios (the same URL again and again) and the cold mode (every request a URL
never asked before, at each of ``--sizes``). ``--warm`` or ``--cold`` runs one of them."""

from __future__ import annotations

import argparse
import base64
import functools
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".venv", "bin")
NS = "/wp-json/calendar/events/v1"
LUA = os.path.join(ROOT, "bench", "report.lua")
COLD_LUA = os.path.join(ROOT, "bench", "cold.lua")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from cold import PAGE_SCENARIOS, SCENARIOS, calendar_info, cold_path  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# A PostgreSQL server to benchmark on instead of SQLite files (SPEC §14), as a URL of a
# role that may create databases: BENCH_DATABASE=postgresql://user:password@host:port/postgres
BENCH_DATABASE = os.environ.get("BENCH_DATABASE", "")
# The upload folder of each PostgreSQL database (a SQLite file has its own beside it).
_UPLOADS: dict[str, str] = {}


def database_env(database: str) -> dict:
    """The throw-away database, with its uploaded images beside it."""
    uploads = _UPLOADS.get(database) or os.path.join(os.path.dirname(database), "uploads")
    return {**os.environ, "CALENDAR_DATABASE": database, "UPLOAD_FOLDER": uploads}


def _on_server(*statements: str) -> None:
    import psycopg2

    connection = psycopg2.connect(BENCH_DATABASE)
    try:
        connection.autocommit = True
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
    finally:
        connection.close()


def new_database(directory: str, events: int, purpose: str = "") -> str:
    """A SQLite file in ``directory``, or a new database on the ``BENCH_DATABASE`` server."""
    if not BENCH_DATABASE:
        return os.path.join(directory, f"bench-{events}{purpose}.db")
    from urllib.parse import urlsplit, urlunsplit

    name = f"calendar_bench_{events}{purpose.replace('-', '_')}"
    _on_server(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(BENCH_DATABASE)._replace(path="/" + name))
    _UPLOADS[url] = os.path.join(directory, f"uploads-{events}{purpose}")
    return url


def drop_databases() -> None:
    for url in _UPLOADS:
        _on_server(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")


def flask(database: str, *args: str) -> str:
    env = database_env(database)
    result = subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout


class Server:
    """gunicorn as `make run` starts it, on a free loopback port."""

    def __init__(self, database: str, workers: int):
        self.port = free_port()
        env = database_env(database)
        self.process = subprocess.Popen(
            [
                os.path.join(BIN, "gunicorn"),
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(workers),
                # With tiers switched off to measure them (bench/tiers.py), that service.
                "bench.tiers:app" if os.environ.get("BENCH_TIERS_OFF") else "wsgi:app",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        # A worker serves once it has warmed the pages up (app/pages/warming.py): about
        # 3 s of CPU with the app's creation, a minute on a machine loaded by other runs.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def get(self, path: str):
        return json.loads(urllib.request.urlopen(self.base + path, timeout=10).read())

    def worker_rss_mb(self, field: str = "VmRSS") -> list[float]:
        """Each worker's resident memory in MB; ``field`` may name a part of it from
        /proc/PID/status (``RssFile``: pages of mapped files: code, shared)."""
        sizes = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
                if ppid != self.process.pid:
                    continue
                with open(f"/proc/{pid}/status") as handle:
                    for line in handle:
                        if line.startswith(f"{field}:"):
                            sizes.append(int(line.split()[1]) / 1024)
            except OSError:
                continue
        return sizes

    def worker_cpu(self) -> dict[str, int]:
        """Each worker's CPU time so far (clock ticks, user and system), by pid."""
        ticks = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                ticks[pid] = int(fields[11]) + int(fields[12])
        return ticks

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def wrk(
    url: str, seconds: int, connections: int, method="GET", body=None, auth=None, paths=None
) -> dict:
    env = {**os.environ, "BENCH_METHOD": method}
    if body:
        env["BENCH_BODY"] = body
    if auth:
        env["BENCH_AUTH"] = auth
    if paths:
        env.update(BENCH_PATHS=paths, BENCH_THREADS="2")
    script = COLD_LUA if paths else LUA
    result = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", script, url],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    line = [x for x in result.stdout.splitlines() if x.startswith("{")][-1]
    data = json.loads(line)
    data["rps"] = data["requests"] / (data["duration_us"] / 1e6)
    return data


# A run in which a worker did less than this share of the busiest worker's work measured
# one worker, not the server: wrk opens its connections at once, and a worker that wakes
# first may accept all of them and keep them for the whole run (keep-alive), while the
# other sits idle; /healthz read 1,800 req/s in such runs against 4,800 in the others.
BALANCE = 0.5
TRIES = 3


def measure(server: Server, *args, paths=None, **kwargs) -> dict:
    """``wrk(*args, **kwargs)`` against ``server``, run again (up to ``TRIES`` times) when
    its connections all went to one worker; ``result["tries"]`` says how many runs it
    took. ``paths``: a function that writes a file of paths never asked yet and returns
    its name (the cold mode), called for each run."""
    tries = 0
    while True:
        tries += 1
        before = server.worker_cpu()
        result = wrk(*args, paths=paths() if paths else None, **kwargs)
        after = server.worker_cpu()
        used = [after[pid] - before.get(pid, 0) for pid in after]
        if tries == TRIES or len(used) < 2 or min(used) >= BALANCE * max(used):
            result["tries"] = tries
            return result


def retried(result: dict) -> str:
    return f" (run {result['tries']} times: a worker sat idle)" if result["tries"] > 1 else ""


def feed_cold_render(server: Server, runs: int = 5) -> str:
    """The iCalendar feed as a subscriber's first fetch sees it: an unknown parameter makes
    each URL new to the response cache, so every run renders every event of the feed."""
    timings, size, count = [], 0, 0
    for n in range(runs):
        started = time.perf_counter()
        body = urllib.request.urlopen(
            f"{server.base}{NS}/events?ical=1&cold={n}", timeout=60
        ).read()
        timings.append((time.perf_counter() - started) * 1000)
        size, count = len(body), body.count(b"BEGIN:VEVENT")
    timings.sort()
    return (
        f"\nfeed without cache: {count} events, {size / 1024:.0f} KiB, "
        f"median {timings[len(timings) // 2]:.0f} ms per render"
    )


def series_body(n: int) -> dict:
    """The n-th weekly series of 104 occurrences the bench creates (bench/writes.py too)."""
    return {
        "title": f"Weekly bench class {n}",
        "start_date": "next monday 7pm",
        "end_date": "next monday 9pm",
        "timezone": "Europe/Paris",
        "categories": ["Workshops"],
        "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=104"],
    }


def series_creation(base: str, auth: str, requests: int = 20) -> list[float]:
    """Seconds per POST creating a weekly series of 104 occurrences (SPEC §12), one at a
    time (each is one write transaction with bulk inserts)."""
    timings = []
    for n in range(requests):
        body = json.dumps(series_body(n)).encode()
        request = urllib.request.Request(
            base + f"{NS}/events",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": auth},
            method="POST",
        )
        started = time.perf_counter()
        urllib.request.urlopen(request, timeout=30).read()
        timings.append(time.perf_counter() - started)
    return sorted(timings)


def seeded(directory: str, events: int, purpose: str = "") -> tuple[str, str]:
    """A database of ``events`` seeded events (made once per run and ``purpose``) and an
    administrator's Authorization header."""
    key = (events, purpose)
    if key in _seeded:
        return _seeded[key]
    database = new_database(directory, events, purpose)
    print(f"Seeding {events} events ...", flush=True)
    began = time.monotonic()
    flask(database, "seed", "--events", str(events))
    print(f"  seeded in {time.monotonic() - began:.1f} s", flush=True)
    password = flask(database, "users", "create", "bench", "--role", "administrator").split()[-1]
    _seeded[key] = database, "Basic " + base64.b64encode(f"bench:{password}".encode()).decode()
    return _seeded[key]


_seeded: dict[tuple[int, str], tuple[str, str]] = {}


def warm(options, directory: str) -> None:
    """The same URL again and again: what the response cache makes of a busy page."""
    database, auth = seeded(directory, options.events, "-posts")  # POST /events adds to it
    server = Server(database, options.workers)
    try:
        first = server.get(f"{NS}/events?per_page=1")["events"][0]
        category = first["categories"][0]["slug"] if first["categories"] else "music"
        venue = first["venue"]["id"] if isinstance(first["venue"], dict) else ""
        word = first["title"].split()[1]
        scenarios = [
            ("GET /healthz", "/healthz", None, None),
            ("GET /events?per_page=10", f"{NS}/events?per_page=10", 0.5, None),
            ("GET /events/{id}", f"{NS}/events/{first['id']}", 0.6, None),
            (
                "GET /events category+venue+search",
                f"{NS}/events?categories={category}&venue={venue}&search={word}",
                0.4,
                None,
            ),
            ("GET /events?ical=1 (feed)", f"{NS}/events?ical=1", None, None),
            ("GET /events/ (list page)", "/events/", 0.5, None),
            ("GET /events/month/ (page)", "/events/month/", 0.5, None),
            ("GET /event/{slug}/ (page)", f"/event/{first['slug']}/", 0.5, None),
            ("GET /venues", f"{NS}/venues", None, None),
            ("GET /categories", f"{NS}/categories", None, None),
            ("POST /events", f"{NS}/events", None, "post"),
        ]
        print(
            f"\n{options.workers} workers, {options.connections} connections, "
            f"{options.seconds}s per scenario, {options.events} events\n"
        )
        print(
            f"{'scenario':<36}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'ratio':>8}  bar"
        )
        healthz_rps = None
        for name, path, bar, kind in scenarios:
            if kind == "post":
                body = json.dumps(
                    {
                        "title": "Bench {n}",
                        "start_date": "tomorrow 10am",
                        "end_date": "tomorrow 11am",
                        "categories": [category],
                    }
                )
                result = measure(
                    server,
                    server.base + path,
                    options.seconds,
                    options.connections,
                    "POST",
                    body,
                    auth,
                )
            else:
                result = measure(server, server.base + path, options.seconds, options.connections)
            healthz_rps = healthz_rps or result["rps"]
            ratio = result["rps"] / healthz_rps
            note("warm", name, result["rps"], ratio)
            errors = result["errors"] + result["status_errors"]
            if kind == "post":
                target = "≥ 300/s, 0 errors"
                verdict = "ok" if result["rps"] >= 300 and errors == 0 else "MISSED"
            elif bar:
                target = f"≥ {bar}"
                verdict = "ok" if ratio >= bar else "MISSED"
            else:
                target, verdict = "", ""
            print(
                f"{name:<36}{result['rps']:>9.0f}{result['p50_us'] / 1000:>9.2f}"
                f"{result['p99_us'] / 1000:>9.2f}{errors:>8}{ratio:>8.2f}  {target} {verdict}"
                + retried(result)
            )
        print(feed_cold_render(server))
        timings = series_creation(server.base, auth)
        p50, worst = timings[len(timings) // 2], timings[-1]
        note("warm", "POST a 104-occurrence series (p50 ms)", p50 * 1000, None)
        print(
            f"\nPOST /events, weekly series of 104 occurrences: p50 {p50 * 1000:.0f} ms, "
            f"max {worst * 1000:.0f} ms (bar well under 1 s: {'ok' if worst < 1 else 'MISSED'})"
        )
        rss = server.worker_rss_mb()
        print(
            "\nworker RSS after the run: "
            + ", ".join(f"{mb:.0f} MB" for mb in rss)
            + ("  (bar < 80 MB: " + ("ok" if rss and max(rss) < 80 else "MISSED") + ")")
        )
        mapped = server.worker_rss_mb("RssFile")
        print(
            "  of which mapped files (code, shared with the other workers): "
            + ", ".join(f"{mb:.0f} MB" for mb in mapped)
        )
    finally:
        server.stop()

    sizes = [int(x) for x in options.growth.split(",") if x]
    if sizes:
        print("\nGrowth of GET /events?per_page=10:")
        p50 = {}
        for size in sizes:
            database, _auth = seeded(directory, size)
            server = Server(database, options.workers)
            try:
                result = wrk(
                    server.base + f"{NS}/events?per_page=10",
                    options.seconds,
                    options.connections,
                )
            finally:
                server.stop()
            p50[size] = result["p50_us"] / 1000
            print(f"  {size:>7} events: p50 {p50[size]:.2f} ms, {result['rps']:.0f} req/s")
        if len(sizes) >= 2:
            growth = p50[sizes[-1]] / p50[sizes[0]]
            print(f"  growth {growth:.2f}x (bar ≤ 1.5x: {'ok' if growth <= 1.5 else 'MISSED'})")


# SPEC §9 cold bars: ratio to /healthz at 10,000 events, and growth from the smallest size to
# the largest (p50 of the same kind of request).
COLD_RATIO = {
    "window": 0.3,
    "category": 0.3,
    "search": 0.3,
    "single": 0.6,
    # SPEC §15: the pages at the API listings' cold ratio
    "list page": 0.3,
    "month page": 0.3,
    "event page": 0.3,
}
COLD_GROWTH = {"search": 4.0}
COLD_LABELS = {
    "listing": "GET /events?page=N",
    "window": "GET /events month at a random minute",
    "category": "GET /events?categories=ID&page=N",
    "search": "GET /events?search=WORD&page=N",
    "categories": "GET /categories",
    "single": "GET /events/{id}",
    "list page": "GET /events/?page=N (page)",
    "month page": "GET /events/month/YYYY-MM/ (page)",
    "event page": "GET /event/{slug}/ (page)",
}


def resident(server: Server) -> str:
    """Each worker's ``VmRSS`` after a scenario, in MB ("90/91"): the cold run's figure
    against SPEC §9's 80 MB grows scenario by scenario (the kept texts fill in the window,
    the month pages add theirs; docs/performance.md, twentieth session)."""
    return "/".join(f"{mb:.0f}" for mb in server.worker_rss_mb())


class ColdPaths:
    """Files of paths never asked before (bench/cold.py draws them), one per run."""

    def __init__(self, directory: str, size: int, info: dict, budget: int):
        self.directory, self.size, self.info, self.budget = directory, size, info, budget
        self.rng = random.Random(size)
        self.serial = 0

    def file(self, name: str) -> str:
        label = name.replace(" ", "-")
        path = os.path.join(self.directory, f"paths-{self.size}-{label}-{self.serial}.txt")
        with open(path, "w") as handle:
            for _ in range(self.budget):
                self.serial += 1
                handle.write(cold_path(name, self.rng, self.info, self.serial) + "\n")
        return path


def cold(options, directory: str) -> None:
    """Every request a URL never asked before (a unique path per request, drawn by
    bench/cold.py): what a page costs when no cache can help."""
    scenarios = SCENARIOS + PAGE_SCENARIOS
    p50: dict[str, dict[int, float]] = {name: {} for name in scenarios}
    sizes = [int(x) for x in options.sizes.split(",") if x]
    for size in sizes:
        database, _auth = seeded(directory, size)
        server = Server(database, options.workers)
        try:
            info = calendar_info(server.get)
            print(
                f"\nCold, {size} events: {options.workers} workers, {options.connections} "
                f"connections, {options.seconds}s per scenario\n"
            )
            print(
                f"{'scenario':<40}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}"
                f"{'ratio':>8}{'RSS MB':>10}  bar"
            )
            healthz = measure(
                server, server.base + "/healthz", options.seconds, options.connections
            )
            print(
                f"{'GET /healthz':<40}{healthz['rps']:>9.0f}{healthz['p50_us'] / 1000:>9.2f}"
                f"{healthz['p99_us'] / 1000:>9.2f}{healthz['errors']:>8}{1:>8.2f}"
                f"{resident(server):>10}" + retried(healthz)
            )
            draw = ColdPaths(directory, size, info, options.cold_budget)
            for name in scenarios:
                result = measure(
                    server,
                    server.base,
                    options.seconds,
                    options.connections,
                    paths=functools.partial(draw.file, name),
                )
                ratio = result["rps"] / healthz["rps"]
                note(f"cold, {size} events", COLD_LABELS[name], result["rps"], ratio)
                errors = result["errors"] + result["status_errors"]
                # No request finished in the run: wrk has no latency, so say so.
                p50[name][size] = result["p50_us"] / 1000 if result["requests"] else math.inf
                bar = COLD_RATIO.get(name) if size == 10000 else None
                verdict = f"≥ {bar} " + ("ok" if ratio >= bar else "MISSED") if bar else ""
                if result["requests"] > options.cold_budget:
                    verdict += " (paths reused: raise --cold-budget)"
                print(
                    f"{COLD_LABELS[name]:<40}{result['rps']:>9.0f}{p50[name][size]:>9.2f}"
                    f"{result['p99_us'] / 1000:>9.2f}{errors:>8}{ratio:>8.2f}"
                    f"{resident(server):>10}  {verdict}" + retried(result)
                )
            rss = server.worker_rss_mb()
            print(
                f"\nworker RSS after the cold run at {size} events: "
                + ", ".join(f"{mb:.0f} MB" for mb in rss)
                + ("  (< 80 MB: " + ("ok" if rss and max(rss) < 80 else "no") + ")")
            )
        finally:
            server.stop()
    if len(sizes) >= 2:
        low, high = sizes[0], sizes[-1]
        print(f"\nCold growth, p50 at {high} events over p50 at {low} events:")
        for name in scenarios:
            growth = p50[name][high] / p50[name][low]
            bar = COLD_GROWTH.get(name, 2.0)
            print(
                f"  {COLD_LABELS[name]:<40}{p50[name][low]:>8.2f} ms →{p50[name][high]:>8.2f} ms"
                f"  {growth:>5.2f}x (bar ≤ {bar:g}x: {'ok' if growth <= bar else 'MISSED'})"
            )


# What each engine measured, for the side-by-side table: {engine: {(section, scenario):
# (req/s or ms, ratio to /healthz)}}.
RESULTS: dict[str, dict[tuple[str, str], tuple[float, float | None]]] = {}
_ENGINE = ["SQLite"]


def note(section: str, scenario: str, value: float, ratio: float | None) -> None:
    RESULTS.setdefault(_ENGINE[0], {})[(section, scenario)] = (value, ratio)


def side_by_side() -> None:
    """Both engines' figures of the same scenarios, and PostgreSQL's ratio over SQLite's
    (SPEC §14, issue 35: at least 0.8)."""
    sqlite, postgres = RESULTS.get("SQLite", {}), RESULTS.get("PostgreSQL", {})
    print("\nBoth engines: req/s and ratio to /healthz of the same server; PG/SQLite of the ratios")
    print(f"{'scenario':<44}{'SQLite':>16}{'PostgreSQL':>16}{'PG/SQLite':>11}")
    section = None
    for key, (value, ratio) in sqlite.items():
        if key not in postgres:
            continue
        if key[0] != section:
            section = key[0]
            print(f"  {section}")
        other, other_ratio = postgres[key]
        if ratio is None:  # a time, lower is better
            print(f"    {key[1]:<40}{value:>13.0f} ms{other:>13.0f} ms")
            continue
        relative = other_ratio / ratio if ratio else 0.0
        if key[1].startswith("POST"):  # its bar is its own rate on each engine
            verdict = "ok" if min(value, other) >= 300 else "MISSED (≥ 300/s each)"
        else:
            verdict = "" if "healthz" in key[1] else ("ok" if relative >= 0.8 else "MISSED")
        print(
            f"    {key[1]:<40}{value:>9.0f} {ratio:>5.2f}{other:>10.0f} {other_ratio:>5.2f}"
            f"{relative:>10.2f}  {verdict}"
        )


def run_engine(options, directory: str) -> None:
    engine = "PostgreSQL " + BENCH_DATABASE.split("@")[-1] if BENCH_DATABASE else "SQLite"
    print(f"\nDatabase: {engine}")
    _ENGINE[0] = "PostgreSQL" if BENCH_DATABASE else "SQLite"
    _seeded.clear()
    if not options.cold:
        warm(options, directory)
    if not options.warm:
        cold(options, directory)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", 2)))
    parser.add_argument("--growth", default="1000,100000", help="event counts for the growth check")
    parser.add_argument("--warm", action="store_true", help="the warm scenarios only")
    parser.add_argument("--cold", action="store_true", help="the cold mode only")
    parser.add_argument(
        "--sizes", default="1000,10000,100000", help="event counts for the cold mode"
    )
    parser.add_argument(
        "--cold-budget", type=int, default=60000, help="distinct paths per cold scenario"
    )
    parser.add_argument(
        "--postgres-only", action="store_true", help="with BENCH_DATABASE: PostgreSQL alone"
    )
    options = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is needed: apt-get install wrk (make bench installs it when run as root)")
        return 2
    directory = tempfile.mkdtemp(prefix="calendar-bench-")
    global BENCH_DATABASE
    server_url = BENCH_DATABASE
    # With a PostgreSQL server, both engines in one run (SQLite first), side by side at the end.
    engines = [""] + ([server_url] if server_url and not options.postgres_only else [])
    if options.postgres_only:
        engines = [server_url]
    try:
        for url in engines:
            BENCH_DATABASE = url
            run_engine(options, directory)
        if len(engines) == 2:
            side_by_side()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        BENCH_DATABASE = server_url
        if server_url:
            drop_databases()
    return 0


if __name__ == "__main__":
    sys.exit(main())
