"""Outside check chk19k (operator and reliability): each test fails on the code it was
written against for the defect it names, and passes once that defect is fixed."""

import os
import subprocess

from tests.helpers import BIN, ROOT


def cli(database, *args, **settings):
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=ROOT,
        env={**os.environ, "CALENDAR_DATABASE": str(database), **settings},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_seed_with_a_count_out_of_range_is_one_error_line_not_a_memory_error(database):
    """README: "a count out of range ... says so in one `Error:` line and exits non-zero".
    `calendar seed --events 99999999999999` passed the option's check (x>=1) and died with
    a traceback ending in MemoryError (store/seed.py::_ids builds a list of that many rows);
    a count of 100,000,000 starts allocating gigabytes instead of being refused."""
    cli(database, "users", "create", "admin", "--role", "administrator")
    result = cli(database, "seed", "--events", "99999999999999")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr[
        -300:
    ]
    assert "Error:" in result.stderr
    assert "Added" not in result.stdout
