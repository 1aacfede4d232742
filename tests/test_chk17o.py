"""chk17o: an operator following README.md and docs/ on a fresh clone (settings, CLI,
upgrade). Each test fails on the current code for the defect named in /tmp/w/chk17o.md."""

import os
import sqlite3
import subprocess

from tests.helpers import BIN, ROOT

# A release of 2026-11-25 (schema version 16): a site that installed it and upgrades now.
OLD_RELEASE = "38cf6cb"
LINK_TABLES = ("event_venue", "event_organizer", "event_term", "app_password")


def _counts(path):
    with sqlite3.connect(path) as db:
        return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in LINK_TABLES}


def _old_cli(code, env, *args):
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=code,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout


def test_seed_counts_say_one_in_the_singular(app, admin):
    """README: "A message that counts something is said with ngettext ... its forms for one
    and for many"."""
    runner = app.test_cli_runner()
    added = runner.invoke(args=["seed", "--events", "1"])
    assert added.exit_code == 0, added.output
    line = [x for x in added.output.splitlines() if x.startswith("Added")][0]
    assert "1 demo events" not in line and "1 organizers" not in line, line
    removed = runner.invoke(args=["seed", "--remove"])
    line = [x for x in removed.output.splitlines() if x.startswith("Removed")][0]
    assert "1 demo events" not in line and "1 organizers" not in line, line


def _instance(tmp_path, config: str):
    folder = tmp_path / "instance"
    folder.mkdir()
    (folder / "config.py").write_text(config)
    return folder


def _start(tmp_path, folder):
    env = {
        **os.environ,
        "CALENDAR_INSTANCE": str(folder),
        "CALENDAR_DATABASE": str(tmp_path / "calendar.db"),
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
    }
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "users", "list"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _read_only(path):
    """Makes ``path`` read-only for this process: chattr +i as root (who ignores modes)."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        os.chmod(path, 0o444)


def _writable(path):
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], check=False)
    else:
        os.chmod(path, 0o644)
