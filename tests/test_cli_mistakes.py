"""An operator's mistakes with the command line: each is refused with one ``Error:`` line
and a non-zero status, never a Python traceback nor a false success, and leaves nothing
behind; a copy taken while the server writes is a consistent calendar."""

import os
import sqlite3
import subprocess
import tarfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import NS
from tests.helpers import (
    BIN,
    ROOT,
    Server,
    event_body,
    flask_cli,
    migrated_database,
    new_admin,
    read_only,
)

# A test marked sqlite_file uses only SQLite files (the `calendar` fixture, copies' sources
# and targets), whatever the engine under test: it runs once, under `make test`.
sqlite_file = pytest.mark.sqlite_file


def cli(database, *args):
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=ROOT,
        env={**os.environ, "CALENDAR_DATABASE": str(database)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def refused(result, said: str) -> bool:
    return (
        result.returncode != 0
        and "Traceback" not in result.stderr
        and said in result.stderr
        and result.stdout == ""
    )


@pytest.fixture
def calendar(tmp_path):
    """A migrated SQLite calendar of its own (these mistakes are about files)."""
    path = tmp_path / "calendar.db"
    flask_cli(path, "migrate")
    return path


@pytest.mark.slow
@sqlite_file
def test_backups_that_cannot_be_made_say_why(calendar, tmp_path):
    missing = cli(calendar, "backup", str(tmp_path / "no" / "such" / "copy.tar.gz"))
    assert refused(missing, "no folder"), missing.stderr
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100)
    onto_text = cli(calendar, "backup", str(notes))
    assert refused(onto_text, "it exists (name a new file, or a folder)"), onto_text.stderr
    assert notes.read_text() == "not a database\n" * 100
    itself = cli(calendar, "backup", str(calendar))
    assert refused(itself, "it exists"), itself.stderr
    done = cli(calendar, "backup", str(tmp_path / "copy.tar.gz"))
    assert done.returncode == 0 and done.stdout.startswith("Backed up 0 events")
    into_folder = cli(calendar, "backup", str(tmp_path))
    named = [p for p in tmp_path.iterdir() if p.name.startswith("calendar-")]
    assert into_folder.returncode == 0 and len(named) == 1 and named[0].suffixes == [".tar", ".gz"]
    with tarfile.open(tmp_path / "copy.tar.gz") as archive:
        archive.extract("calendar.db", tmp_path / "out", filter="data")
    with sqlite3.connect(tmp_path / "out" / "calendar.db") as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("tmp")]  # nothing left over


@sqlite_file
def test_copying_from_a_mistyped_source_creates_nothing(tmp_path):
    """A typo in SOURCE used to create an empty calendar there and an empty TARGET, and
    to report success: the "moved" site was empty."""
    source, target = tmp_path / "typo.db", tmp_path / "target.db"
    result = cli(tmp_path / "unused.db", "copy-database", str(source), str(target))
    assert refused(result, f"no database at {source}"), result.stderr
    assert not source.exists() and not target.exists()
    notes = tmp_path / "notes.txt"
    notes.write_text("not a calendar\n" * 100)
    result = cli(tmp_path / "unused.db", "copy-database", str(notes), str(target))
    assert refused(result, "file is not a database"), result.stderr


@sqlite_file
def test_counts_and_horizons_out_of_range_are_refused(calendar):
    seeded = cli(calendar, "seed", "--events", "-5")
    assert refused(seeded, "-5 is not in the range 1<=x<=1000000"), seeded.stderr
    extended = cli(calendar, "recurrence", "extend", "--days", "99999999")
    assert refused(extended, "is not in the range 1<=x<=36500"), extended.stderr


@sqlite_file
def test_seed_of_more_events_than_its_maximum_is_refused_before_anything_is_made(calendar):
    """`seed --events 99999999999999` passed the option's check (x>=1) and died with a
    traceback ending in MemoryError, and 100,000,000 started allocating gigabytes (chk19k
    D1): the count has a documented maximum, in the option's own range."""
    flask_cli(calendar, "users", "create", "admin", "--role", "administrator")
    for count in ("99999999999999", "1000001"):
        seeded = cli(calendar, "seed", "--events", count)
        assert refused(seeded, f"{count} is not in the range 1<=x<=1000000"), seeded.stderr
        errors = [line for line in seeded.stderr.splitlines() if line.startswith("Error:")]
        assert "MemoryError" not in seeded.stderr and len(errors) == 1, seeded.stderr
    with sqlite3.connect(calendar) as db:
        assert db.execute("SELECT count(*) FROM node").fetchone() == (0,)


@sqlite_file
def test_import_ics_of_a_malformed_url_is_one_error_line(calendar):
    """`import-ics "http://[::1"` (and a URL with a space, a webcal one with a bad host)
    printed a traceback from urlsplit or http.client (chk19k D2): the URL is checked by
    the one URL rule of every face before anything is fetched, as `import-tec` checks
    its site's."""
    flask_cli(calendar, "users", "create", "admin", "--role", "administrator")
    for url in ("http://[::1", "http://exa mple.org/x.ics", "webcal://[zz]/x"):
        result = cli(calendar, "import-ics", url)
        assert refused(result, "is not an http(s) or webcal address"), (url, result.stderr)
        assert result.stderr.count("\n") == 1, result.stderr
    tec = cli(calendar, "import-tec", "http://exa mple.org/")
    assert refused(tec, "is not an http(s) address of a site"), tec.stderr


@sqlite_file
@pytest.mark.parametrize(
    "args, said",
    [
        (["b" * 61], "a user name has at most 60 characters"),
        (["bob", "--email", "notanemail"], "'notanemail' is not an email address"),
        (["bob", "--email", "a@b.c" + "c" * 100], "is not an email address"),
    ],
)
def test_users_every_engine_can_store(calendar, args, said):
    """A 300-character name was taken by SQLite and a traceback on PostgreSQL: a calendar
    holding one could not be copied there. Both now refuse what WordPress refuses."""
    result = cli(calendar, "users", "create", *args[:1], "--role", "editor", *args[1:])
    assert refused(result, said), result.stderr
    assert "bob" not in flask_cli(calendar, "users", "list")


@pytest.mark.slow
def test_a_copy_taken_while_the_server_writes_is_a_consistent_calendar(tmp_path):
    """The copy reads every table in one read transaction: events written meanwhile are
    left out together with their links, where reading each table at its own moment failed
    on the copy's foreign keys (a link whose event was not copied)."""
    source_rows = migrated_database(tmp_path)
    source = next(source_rows)
    auth = new_admin(source)
    server = Server(source, workers=2)
    stop = threading.Event()

    def write(offset):
        n = offset
        while not stop.is_set():
            server.request("POST", f"{NS}/events", event_body(n), auth)
            n += 4

    writers = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    try:
        for thread in writers:
            thread.start()
        time.sleep(1)
        copies = [tmp_path / f"copy{k}.db" for k in range(3)]
        with ThreadPoolExecutor(len(copies)) as pool:  # three copies at once, while writing
            results = list(
                pool.map(
                    lambda c: cli(tmp_path / "unused.db", "copy-database", str(source), str(c)),
                    copies,
                )
            )
    finally:
        stop.set()
        for thread in writers:
            thread.join()
        server.stop()
        next(source_rows, None)
    assert [r.returncode for r in results] == [0, 0, 0], [r.stderr[-300:] for r in results]
    for copy in copies:
        with sqlite3.connect(copy) as db:
            events = db.execute("SELECT COUNT(*) FROM event").fetchone()[0]
            orphans = db.execute(
                "SELECT COUNT(*) FROM event_term WHERE event_id NOT IN (SELECT id FROM event)"
            ).fetchone()[0]
            assert events > 0 and orphans == 0
            assert db.execute("PRAGMA foreign_key_check").fetchall() == []


@sqlite_file
def test_copying_from_a_database_that_is_no_calendar_leaves_it_alone(tmp_path):
    """daab1de: command-line mistakes are "never a traceback nor a false success", and
    copy-database "reads the source". A SOURCE naming another application's SQLite file
    (or an empty file, such as one `touch`ed by mistake) gets the calendar's whole schema
    written into it (migrate runs on the source), and the command exits 0 having copied
    nothing: the source is modified and the "moved" site is empty."""
    source, target = tmp_path / "other-app.db", tmp_path / "target.db"
    with sqlite3.connect(source) as other:
        other.execute("CREATE TABLE notes (body TEXT)")
    result = cli(tmp_path / "unused.db", "copy-database", str(source), str(target))
    with sqlite3.connect(source) as other:
        tables = [name for (name,) in other.execute("SELECT name FROM sqlite_master")]
    assert tables == ["notes"], tables  # the source was only read
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stdout


@sqlite_file
def test_a_command_on_a_read_only_database_says_one_error_line(calendar):
    """A database file the command cannot write (made by root, or immutable) was a Python
    traceback at its first write (chk17o D5): one line naming CALENDAR_DATABASE now."""
    flask_cli(calendar, "users", "create", "ann", "--role", "administrator")
    with read_only(calendar):
        result = cli(calendar, "users", "create", "zed", "--role", "author")
    assert refused(result, "CALENDAR_DATABASE"), result.stderr[-400:]
    assert "read-only" in result.stderr
    assert len([x for x in result.stderr.splitlines() if x.strip()]) == 1, result.stderr


@sqlite_file
def test_copying_to_a_folder_that_cannot_be_made_says_one_line(calendar, tmp_path):
    """A TARGET under a file (or in /proc) was a traceback from makedirs (chk17o D9)."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    target = blocker / "sub" / "target.db"
    result = cli(calendar, "copy-database", str(calendar), str(target))
    assert refused(result, "Error: cannot copy with"), result.stderr[-300:]
    assert result.stderr.strip().startswith("Error:")
