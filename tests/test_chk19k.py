"""Outside check chk19k (operator and reliability): each test fails on the code it was
written against for the defect it names, and passes once that defect is fixed."""

import os
import subprocess

from tests.helpers import BIN, ROOT, migrated_database  # noqa: F401


def cli(database, *args, **settings):
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=ROOT,
        env={**os.environ, "CALENDAR_DATABASE": str(database), **settings},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_restore_of_an_empty_archive_name_is_one_error_line_not_a_traceback(database):
    """README: "A command given something it cannot do ... says so in one `Error:` line and
    exits non-zero". `calendar restore ""` (an empty variable in a script) printed a
    Python traceback (tarfile: ValueError: nothing to open)."""
    result = cli(database, "restore", "")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr[-500:]
    assert "Error:" in result.stderr
