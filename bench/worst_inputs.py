"""The worst import and upload one user can send within the limits (issue 28): the CPU and
the peak memory each costs, one case per fresh process, through Flask's test client as an
administrator (who may do most).

    .venv/bin/python bench/worst_inputs.py            # every case
    .venv/bin/python bench/worst_inputs.py zones-daily

Prints, per case: the answer's status, the request's CPU seconds in this process and its
wall-clock seconds (an image decoded in a child process shows in the second only), the
process's resident memory before, after and at its peak, in MB. Run it on another checkout (PYTHONPATH) to compare.
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

NS = "/wp-json/calendar/events/v1"
EVENT = (
    "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTART:20300101T100000Z\r\nSUMMARY:x\r\n{extra}END:VEVENT\r\n"
)


def calendar(body: str) -> bytes:
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:bench\r\n{body}END:VCALENDAR\r\n".encode()


def zone(rules) -> str:
    blocks = "".join(
        f"BEGIN:STANDARD\r\nDTSTART:{start}\r\nRRULE:{rule}\r\n"
        "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nEND:STANDARD\r\n"
        for start, rule in rules
    )
    return f"BEGIN:VTIMEZONE\r\nTZID:Bench\r\n{blocks}END:VTIMEZONE\r\n"


def event(uid="e", extra="", start="DTSTART") -> str:
    return EVENT.format(uid=uid, extra=extra).replace("DTSTART", start)


# The zone cases' event is placed in the file's zone: the parser expands a zone's rules
# when a time in it is read.
IN_ZONE = "DTSTART;TZID=Bench"


def image(kind: str) -> bytes:
    from PIL import Image

    gradient = Image.linear_gradient("L").resize((7000, 7000))
    picture = Image.merge("RGBA", [gradient, gradient.rotate(90), gradient, gradient.rotate(270)])
    out = io.BytesIO()
    if kind == "png":
        picture.save(out, "PNG")
    else:
        picture.convert("RGB").save(out, "JPEG", quality=90)
    return out.getvalue()


def _made(kind: str) -> bytes:
    """The image made by the runner (making it here would count in this process's peak)."""
    with open(os.path.join(tempfile.gettempdir(), f"worst-input.{kind}"), "rb") as made:
        return made.read()


CASES = {
    # Finding 1: a 564-byte file of two daily zone rules from 1601.
    "zones-daily": lambda: calendar(
        zone(
            [
                ("16010101T000000", "FREQ=DAILY"),
                ("16010101T000000", "FREQ=DAILY;BYHOUR=" + ",".join(map(str, range(1, 24)))),
            ]
        )
        + event(start=IN_ZONE).replace("100000Z", "100000")
    ),
    # 2,000 yearly STANDARD blocks from 1600 to 3599.
    "zones-2000": lambda: calendar(
        zone([(f"{1600 + n}0101T000000", "FREQ=YEARLY") for n in range(2000)])
        + event(start=IN_ZONE).replace("100000Z", "100000")
    ),
    # Finding 2: 1,000 nested VALARMs.
    "nesting": lambda: calendar(event(extra="BEGIN:VALARM\r\n" * 1000 + "END:VALARM\r\n" * 1000)),
    # Finding 3: 20,000 EXDATEs, 140,000 X- lines, 3,000 VEVENTs (within the 1 MB body).
    "exdates": lambda: calendar(
        event(extra="RRULE:FREQ=DAILY\r\n" + "EXDATE:20300102T100000Z\r\n" * 20000)
    ),
    "x-lines": lambda: calendar(event(extra="X-A:1\r\n" * 140000)),
    "events-3000": lambda: calendar("".join(event(uid=f"e{n}") for n in range(3000))),
    # The largest the limits allow today, for comparison.
    "events-250": lambda: calendar("".join(event(uid=f"e{n}") for n in range(250))),
    # Finding 6: 49-megapixel uploads.
    "upload-png": lambda: _made("png"),
    "upload-jpeg": lambda: _made("jpeg"),
}


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_case(name: str) -> dict:
    from app import create_app
    from store.db import database
    from store.users import create_user

    folder = tempfile.mkdtemp()
    app = create_app(
        {
            "CALENDAR_DATABASE": os.path.join(folder, "bench.db"),
            "UPLOAD_FOLDER": os.path.join(folder, "uploads"),
        }
    )
    with app.app_context(), database.connection_context():
        _user, password = create_user("bench", "administrator")
    import base64

    token = base64.b64encode(f"bench:{password}".encode()).decode()
    headers = {"Authorization": f"Basic {token}"}
    body = CASES[name]()
    client = app.test_client()
    before = rss_mb()
    started, wall_started = time.process_time(), time.perf_counter()
    if name.startswith("upload"):
        answer = client.post(
            f"{NS}/media",
            data=body,
            headers={**headers, "Content-Disposition": "attachment; filename=big.img"},
        )
    else:
        answer = client.post(
            f"{NS}/events/import",
            data=body,
            headers={**headers, "Content-Type": "text/calendar"},
        )
    cpu = time.process_time() - started
    wall = time.perf_counter() - wall_started
    return {
        "case": name,
        "bytes": len(body),
        "status": answer.status_code,
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "rss_before_mb": round(before),
        "rss_after_mb": round(rss_mb()),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(run_case(argv[1])))
        return
    if argv[:1] == ["--make-images"]:
        for kind in ("png", "jpeg"):
            with open(os.path.join(tempfile.gettempdir(), f"worst-input.{kind}"), "wb") as out:
                out.write(image(kind))
        return
    # In a process of its own: a peak resident size is inherited across fork and exec.
    subprocess.run([sys.executable, os.path.abspath(__file__), "--make-images"], check=True)
    for name in argv or list(CASES):
        result = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--one", name],
            capture_output=True,
            text=True,
            timeout=600,
        )
        line = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
        print(line or f'{{"case": "{name}", "error": {json.dumps(result.stderr[-300:])}}}')


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    main(sys.argv[1:])
