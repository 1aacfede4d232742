"""The systemd units of docs/systemd/ (docs/deploy.md): each is checked by
``systemd-analyze verify`` where systemd is installed, with the project where the units
expect it (/srv/calendar) replaced by this checkout, so that every command they run exists."""

import os
import shutil
import subprocess

import pytest

from tests.helpers import ROOT

UNITS = os.path.join(ROOT, "docs", "systemd")
ANALYZE = shutil.which("systemd-analyze")


def test_each_timer_starts_a_service_that_runs_the_installed_program():
    names = sorted(os.listdir(UNITS))
    assert "calendar.service" in names
    for timer in (n for n in names if n.endswith(".timer")):
        assert timer.replace(".timer", ".service") in names
    for name in names:
        text = open(os.path.join(UNITS, name)).read()
        assert "make run" not in text and "pip" not in text  # nothing installed at boot
        if name.endswith(".service"):
            assert "User=calendar" in text and "/srv/calendar/.venv/bin/" in text
            assert "NoNewPrivileges=yes" in text and "ProtectSystem=strict" in text


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed here")
def test_the_units_pass_systemd_analyze_verify(tmp_path):
    for name in os.listdir(UNITS):
        text = open(os.path.join(UNITS, name)).read().replace("/srv/calendar", ROOT)
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [ANALYZE, "verify", "--man=no", *sorted(str(p) for p in tmp_path.iterdir())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", done.stderr  # not even a warning (an unknown key)
