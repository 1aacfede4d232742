"""``flask backup`` / ``flask restore``: one archive of the calendar and its images, put
back into an empty site (either engine) with every answer as it was."""

import io
import json
import subprocess
import tarfile
import urllib.error
import urllib.request

import pytest
from PIL import Image

from tests.conftest import NS
from tests.databases import drop_database, fresh_database
from tests.helpers import (
    LINK_TABLES,
    ROOT,
    Server,
    flask_cli,
    link_counts,
    new_admin,
    old_cli,
    old_release,
)


def _png(color) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 200), color).save(out, "PNG")
    return out.getvalue()


def _upload(server, auth, data) -> dict:
    request = urllib.request.Request(
        f"{server.base}{NS}/media",
        data=data,
        method="POST",
        headers={**auth, "Content-Type": "image/png", "Content-Disposition": "file; name=a.png"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _fill(server, auth) -> None:
    image = _upload(server, auth, _png("teal"))
    bodies = [
        {
            "title": "Jazz night",
            "start_date": "2030-05-01 20:00",
            "end_date": "2030-05-01 23:00",
            "venue": {"venue": "Blue Hall", "city": "Lyon"},
            "organizer": [{"organizer": "Ann"}, {"organizer": "Bob"}],
            "categories": ["Music"],
            "tags": ["jazz", "night"],
            "image": image["id"],
            "cost": "10",
        },
        {
            "title": "Draft idea",
            "start_date": "2030-06-01 10:00",
            "end_date": "2030-06-01 11:00",
            "status": "draft",
        },
        {
            "title": "Weekly choir",
            "start_date": "2030-01-07 18:00",
            "end_date": "2030-01-07 19:00",
            "recurrence": "RRULE:FREQ=WEEKLY;COUNT=5",
        },
        {
            "title": "Private board",
            "start_date": "2030-02-01 10:00",
            "end_date": "2030-02-01 11:00",
            "status": "private",
        },
    ]
    for body in bodies:
        status, answer = server.request("POST", f"{NS}/events", body, auth)
        assert status == 201, answer


def _answers(server, auth) -> dict:
    """Every listing (all pages, as an administrator and anonymously), every item, every
    image file: what a restored site must answer alike."""
    seen = {}
    for listing in ("events", "venues", "organizers", "categories", "tags"):
        for who, headers in (("admin", auth), ("anonymous", {})):
            page, pages = 1, 1
            while page <= pages:
                extra = "&start_date=2000-01-01&end_date=2100-01-01" if listing == "events" else ""
                if (listing, who) == ("events", "admin"):
                    extra += "&status=publish,draft,private"
                status, body = server.request(
                    "GET", f"{NS}/{listing}?per_page=2&page={page}{extra}", None, headers
                )
                assert status == 200, body
                seen[(listing, who, page)] = body
                pages = body.get("total_pages", 1) if isinstance(body, dict) else 1
                page += 1
    events = [e for k, v in seen.items() if k[:2] == ("events", "admin") for e in v["events"]]
    for event in events:
        seen[("event", event["id"])] = server.request("GET", f"{NS}/events/{event['id']}")[1]
        if event["image"]:
            status, image = server.request("GET", f"{NS}/media/{event['image']['id']}")
            seen[("media", image["id"])] = image
            for size in (image["url"], *(s["url"] for s in image["sizes"].values())):
                with urllib.request.urlopen(size, timeout=10) as response:
                    seen[("file", size)] = response.read()
    with urllib.request.urlopen(f"{server.base}{NS}/events?ical=1", timeout=10) as response:
        seen["feed"] = b"".join(
            line for line in response.read().splitlines(True) if not line.startswith(b"DTSTAMP")
        )
    return seen


@pytest.mark.slow
def test_a_backup_restores_into_an_empty_site_answering_alike(database, tmp_path):
    auth = new_admin(database)
    uploads = tmp_path / "uploads"
    server = Server(database, workers=1, UPLOAD_FOLDER=uploads)
    try:
        _fill(server, auth)
        archive = tmp_path / "site.tar.gz"
        said = flask_cli(database, "backup", str(archive), UPLOAD_FOLDER=uploads)
        assert said.startswith("Backed up 8 events") and "1 user and" in said
        before = _answers(server, auth)
    finally:
        server.stop()
    with tarfile.open(archive) as opened:
        names = opened.getnames()
    assert "calendar.db" in names and "backup.json" in names
    assert sum(name.startswith("uploads/") for name in names) == len(list(uploads.iterdir()))

    restored_db, restored_uploads = fresh_database(tmp_path / "restored"), tmp_path / "r-up"
    try:
        said = flask_cli(restored_db, "restore", str(archive), UPLOAD_FOLDER=restored_uploads)
        assert said.startswith("Restored 8 events")
        assert sorted(p.name for p in restored_uploads.iterdir()) == sorted(
            p.name for p in uploads.iterdir()
        )
        restored = Server(restored_db, workers=1, UPLOAD_FOLDER=restored_uploads)
        try:
            # Same port range, other host: links name the server, so compare on its own.
            after = _answers(restored, auth)  # the users and their passwords came too
            new = restored.request(
                "POST",
                f"{NS}/events",
                {
                    "title": "After",
                    "start_date": "2031-01-01 10:00",
                    "end_date": "2031-01-01 11:00",
                },
                auth,
            )
        finally:
            restored.stop()
    finally:
        drop_database(str(restored_db))
    assert _same(before, after, server.base, restored.base)
    assert len(before[("events", "admin", 1)]["events"]) == 2
    assert before[("events", "admin", 1)]["total"] == 8
    assert new[0] == 201 and new[1]["id"] > max(
        e["id"] for e in before[("events", "admin", 1)]["events"]
    )


def _same(before, after, old_base, new_base) -> bool:
    assert len(before) == len(after)
    for key, value in before.items():
        if isinstance(value, bytes):
            new_key = (key[0], key[1].replace(old_base, new_base)) if key[0] == "file" else key
            assert after[new_key] == value.replace(old_base.encode(), new_base.encode()), key
        else:
            text = json.dumps(value, sort_keys=True).replace(old_base, new_base)
            assert json.loads(text) == after[key], key
    return True


@pytest.mark.slow
def test_restore_refuses_a_site_that_holds_a_calendar_unless_forced(database, tmp_path):
    new_admin(database)
    archive = tmp_path / "site.tar.gz"
    flask_cli(database, "backup", str(archive), UPLOAD_FOLDER=tmp_path / "up")
    # The same site: it holds a calendar (its administrator).
    refused = _cli(database, "restore", str(archive), UPLOAD_FOLDER=tmp_path / "up")
    assert refused.returncode == 1
    assert "already holds a calendar (table" in refused.stderr and "--force" in refused.stderr
    forced = _cli(database, "restore", "--force", str(archive), UPLOAD_FOLDER=tmp_path / "up")
    assert forced.returncode == 0, forced.stderr
    assert "1 user and" in forced.stdout


@pytest.mark.parametrize(
    "content, said",
    [
        (b"not an archive at all", "is not a backup archive"),
        (None, "no file"),
    ],
)
def test_restore_of_what_is_no_backup_says_so_and_changes_nothing(
    database, tmp_path, content, said
):
    path = tmp_path / "thing.tar.gz"
    if content is not None:
        path.write_bytes(content)
    done = _cli(database, "restore", str(path), UPLOAD_FOLDER=tmp_path / "up")
    assert done.returncode == 1 and said in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_restore_of_an_empty_archive_name_is_one_error_line(database, tmp_path):
    """README: a command given something it cannot do says so in one `Error:` line.
    `restore ""` (a script's empty $ARCHIVE) printed tarfile's traceback ("nothing to
    open") where `restore /nonexistent` says "no file" (chk19k D3)."""
    done = _cli(database, "restore", "", UPLOAD_FOLDER=tmp_path / "up")
    assert done.returncode == 1 and "Error: no archive named" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_an_archive_without_our_manifest_is_refused(database, tmp_path):
    path = tmp_path / "other.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        data = b"hello"
        info = tarfile.TarInfo("readme.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    done = _cli(database, "restore", str(path), UPLOAD_FOLDER=tmp_path / "up")
    assert done.returncode == 1 and "is not a backup archive of this calendar" in done.stderr


def _cli(database, *args, **settings):
    env = {"CALENDAR_DATABASE": str(database), **{k: str(v) for k, v in settings.items()}}
    import os

    from tests.helpers import BIN

    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _archive(path, members: dict, manifest=None):
    """A .tar.gz of the given members (name: bytes), with a manifest."""
    manifest = manifest or {
        "format": 1,
        "created": "x",
        "rows": dict.fromkeys(("event", "venue", "organizer", "term", "media", "user"), 0),
        "files": 0,
    }
    with tarfile.open(path, "w:gz") as archive:
        for name, data in {**members, "backup.json": json.dumps(manifest).encode()}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize(
    "name", ["uploads/../../escaped.png", "uploads/sub/../../../x", "/etc/x", "other/x"]
)
def test_an_archive_with_a_member_outside_its_folders_restores_nothing(database, tmp_path, name):
    good = tmp_path / "good.tar.gz"
    flask_cli(database, "backup", str(good), UPLOAD_FOLDER=tmp_path / "none")
    with tarfile.open(good) as archive:
        db = archive.extractfile("calendar.db").read()
    evil = tmp_path / "evil.tar.gz"
    _archive(evil, {"calendar.db": db, name: b"x"})
    target, uploads = fresh_database(tmp_path / "t"), tmp_path / "up"
    try:
        done = _cli(target, "restore", str(evil), UPLOAD_FOLDER=uploads)
        assert done.returncode == 1 and "is no member of a backup; nothing was restored" in (
            done.stderr
        )
        assert "Traceback" not in done.stderr
        assert not uploads.exists() or not list(uploads.iterdir())
        assert not (tmp_path / "escaped.png").exists()
        again = _cli(target, "restore", str(good), UPLOAD_FOLDER=uploads)  # nothing half-done
        assert again.returncode == 0, again.stderr
    finally:
        drop_database(str(target))


def test_a_cut_or_foreign_archive_is_one_error_line(database, tmp_path):
    good = tmp_path / "good.tar.gz"
    flask_cli(database, "backup", str(good), UPLOAD_FOLDER=tmp_path / "none")
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    no_rows = tmp_path / "norows.tar.gz"
    _archive(no_rows, {"calendar.db": b""}, manifest={"format": 1})
    for path, said in ((cut, "cut short, or damaged"), (no_rows, "(its manifest)")):
        done = _cli(database, "restore", "--force", str(path), UPLOAD_FOLDER=tmp_path / "up")
        assert done.returncode == 1 and said in done.stderr, done.stderr
        assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1


def test_an_archive_of_a_newer_version_is_refused(database, tmp_path):
    import sqlite3

    good = tmp_path / "good.tar.gz"
    flask_cli(database, "backup", str(good), UPLOAD_FOLDER=tmp_path / "none")
    with tarfile.open(good) as archive:
        archive.extract("calendar.db", tmp_path / "x", filter="data")
    db = sqlite3.connect(tmp_path / "x" / "calendar.db")
    db.execute("UPDATE setting SET value = '999' WHERE key = 'schema_version'")
    db.commit()
    db.close()  # the last connection: its write-ahead log goes into the file
    newer = tmp_path / "newer.tar.gz"
    _archive(newer, {"calendar.db": (tmp_path / "x" / "calendar.db").read_bytes()})
    done = _cli(database, "restore", "--force", str(newer), UPLOAD_FOLDER=tmp_path / "up")
    assert done.returncode == 1 and "was made by a newer version (schema 999" in done.stderr


def test_restore_force_replaces_the_images_too(database, tmp_path):
    """The site's images are the archive's; the editor's kept files (a form's, in
    ``kept-images/`` of the upload folder: app/editor/kept_images.py) are not the site's,
    neither backed up nor removed."""
    auth = new_admin(database)
    uploads = tmp_path / "uploads"
    server = Server(database, workers=1, UPLOAD_FOLDER=uploads)
    try:
        kept = _upload(server, auth, _png("red"))
        form_file = uploads / "kept-images" / ("1-" + "A" * 32)
        form_file.parent.mkdir()
        form_file.write_bytes(_png("green"))
        archive = tmp_path / "site.tar.gz"
        flask_cli(database, "backup", str(archive), UPLOAD_FOLDER=uploads)
        with tarfile.open(archive) as opened:
            assert not [name for name in opened.getnames() if "kept-images" in name]
        later = _upload(server, auth, _png("blue"))
        said = flask_cli(database, "restore", "--force", str(archive), UPLOAD_FOLDER=uploads)
        assert said.startswith("Restored 0 events")
        assert form_file.exists()
        assert server.request("GET", f"{NS}/media/{later['id']}")[0] == 404
        for image, status in ((kept, 200), (later, 404)):
            try:
                with urllib.request.urlopen(image["url"], timeout=10) as response:
                    answer = response.status
            except urllib.error.HTTPError as error:
                answer = error.code
            assert answer == status, image["url"]
    finally:
        server.stop()


def test_backups_never_overwrite_and_name_themselves_in_a_folder(database, tmp_path):
    for _ in range(2):  # in one second: the second archive gets a name of its own
        flask_cli(database, "backup", str(tmp_path), UPLOAD_FOLDER=tmp_path / "none")
    assert len(list(tmp_path.glob("calendar-*.tar.gz"))) == 2
    for destination, said in (
        ("", "name the archive to write, or a folder"),
        (str(tmp_path / "missing") + "/", "no folder"),
        ("/proc/archive.tar.gz", "cannot back up to /proc/archive.tar.gz"),
    ):
        done = _cli(database, "backup", destination, UPLOAD_FOLDER=tmp_path / "none")
        assert done.returncode == 1 and said in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "missing").exists()


@pytest.mark.sqlite_file
def test_restore_of_an_older_archive_keeps_links_and_passwords(tmp_path):
    """docs/deploy.md "Restoring onto a new machine": an archive of an earlier release
    (9534ad6, 2026-11-27, schema 18) restored by this one keeps the links and passwords
    (its database is migrated on the way: store/db.py::schema_transaction)."""
    import os

    from tests.helpers import BIN

    code = old_release("9534ad6", tmp_path)
    (code / "instance").mkdir(exist_ok=True)
    env = {**os.environ, "CALENDAR_INSTANCE": str(code / "instance")}
    old_cli(code, env, "migrate")
    old_cli(code, env, "users", "create", "olduser", "--role", "administrator")
    old_cli(code, env, "seed", "--events", "3")
    before = link_counts(code / "instance" / "calendar.db")
    assert all(before[t] > 0 for t in LINK_TABLES), before
    old_cli(code, env, "backup", str(tmp_path / "old.tar.gz"))

    site = tmp_path / "site"
    site.mkdir()
    done = subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "restore", str(tmp_path / "old.tar.gz")],
        cwd=ROOT,
        env={**os.environ, "CALENDAR_INSTANCE": str(site)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    after = link_counts(site / "calendar.db")
    assert after == before, f"links lost by the restore: {before} -> {after}"


@pytest.mark.sqlite_file
def test_database_and_backup_holding_the_secret_key_are_not_world_readable(tmp_path):
    """chk17o D11. README: SECRET_KEY "is generated into instance/secret_key at the first start and kept
    in the database too"; the key file is 0600, so the copies of the key (the database and
    the backup archive) must not be readable by every local account either."""
    import os
    import sqlite3
    import stat

    from tests.helpers import BIN as BIN_FOLDER

    folder = tmp_path / "instance"
    folder.mkdir()
    env = {
        **os.environ,
        "CALENDAR_INSTANCE": str(folder),
        "CALENDAR_DATABASE": str(folder / "calendar.db"),
        "UPLOAD_FOLDER": str(folder / "uploads"),
    }
    env.pop("SECRET_KEY", None)

    def run(*args):
        return subprocess.run(
            [os.path.join(BIN_FOLDER, "flask"), "--app", "wsgi", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            preexec_fn=lambda: os.umask(0o022),
        )

    run("migrate")
    run("users", "create", "ann", "--role", "administrator")
    server = Server(
        folder / "calendar.db",
        workers=1,
        **{"CALENDAR_INSTANCE": str(folder), "UPLOAD_FOLDER": str(folder / "uploads")},
    )
    server.stop()
    with sqlite3.connect(folder / "calendar.db") as db:
        stored = db.execute("SELECT value FROM setting WHERE key LIKE '%secret%'").fetchall()
    assert stored, "the key is not in the database (then this test has nothing to check)"
    backups = tmp_path / "backups"
    backups.mkdir()
    run("backup", str(backups))
    for path in [folder / "calendar.db", *backups.iterdir()]:
        mode = os.stat(path).st_mode
        assert not mode & stat.S_IROTH, f"{path.name} is world-readable ({oct(mode & 0o777)})"
