"""``flask backup`` and ``flask restore``: a site in one archive (``.tar.gz``) holding the
calendar as a SQLite file, whichever engine the site runs on, and the uploaded images.

The database is copied online, as of one moment: SQLite's backup API, or on PostgreSQL a
copy into a SQLite file in one REPEATABLE READ transaction (store/copy.py). So an archive
restores into either engine, and nothing outside Python (``pg_dump``) is needed. The images
are read after the database: one removed in between is left out (its event keeps its
link, as it would after any removal)."""

from __future__ import annotations

import io
import json
import os
import posixpath
import sqlite3
import tarfile
import tempfile
import zlib

from rules import clock
from store.copy import CopyError, copy_database
from store.db import backup_to, is_url
from store.media import KEPT_FOLDER
from store.schema import MIGRATIONS

FORMAT = 1
MANIFEST = "backup.json"
DATABASE = "calendar.db"
UPLOADS = "uploads"
COUNTED = ("event", "venue", "organizer", "term", "media", "user")


class BackupError(Exception):
    """A backup or restore that cannot be done, said in one line."""


def write_backup(destination: str, setting: str, upload_folder: str) -> tuple[str, dict]:
    """Writes the archive to ``destination`` (a new file, or a folder to name it in) and
    returns its path and manifest. The bound database is ``setting``'s."""
    path = _archive_path(destination)
    try:
        return path, _write(path, setting, upload_folder)
    except OSError as error:  # a folder that refuses files, a full disk: nothing left behind
        raise BackupError(f"cannot back up to {path}: {error.strerror or error}") from None


def _write(path: str, setting: str, upload_folder: str) -> dict:
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as work:
        copy = os.path.join(work, DATABASE)
        try:
            if is_url(setting):
                copy_database(setting, copy)
            else:
                backup_to(copy)
        except (CopyError, RuntimeError, sqlite3.Error) as error:
            raise BackupError(f"cannot back up to {path}: {error}") from None
        manifest = {
            "format": FORMAT,
            "created": clock.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
            "schema": len(MIGRATIONS),
            "rows": _counts(copy),
            "files": 0,
        }
        partial = os.path.join(work, "archive.tar.gz")
        with tarfile.open(partial, "w:gz", compresslevel=6) as archive:
            archive.add(copy, arcname=DATABASE)
            for name, full in _upload_files(upload_folder):
                try:
                    archive.add(full, arcname=f"{UPLOADS}/{name}", recursive=False)
                except FileNotFoundError:  # removed since the database was copied
                    continue
                manifest["files"] += 1
            _add_bytes(archive, MANIFEST, json.dumps(manifest, indent=1).encode())
        # Readable by its owner only, as the database and instance/secret_key: the archive
        # holds the key that signs the editor's sessions.
        os.chmod(partial, 0o600)
        try:  # a hard link appears whole, and never replaces a file of the same name
            os.link(partial, path)
        except FileExistsError:
            raise BackupError(f"cannot back up to {path}: it exists (made meanwhile)") from None
    return manifest


def restore_backup(archive_path: str, setting: str, upload_folder: str, replace: bool) -> dict:
    """Puts the archive's calendar into ``setting`` and its images into ``upload_folder``
    (with ``replace``, the images the site held are removed: the site is the archive's); a
    site that already holds a calendar or images is refused unless ``replace``. Every
    member is read and checked before anything is written. Returns the manifest."""
    if not archive_path:  # tarfile would open no file at all (a script's empty variable)
        raise BackupError("no archive named (the name is empty)")
    try:
        archive = tarfile.open(archive_path, "r:*")
    except FileNotFoundError:
        raise BackupError(f"no file {archive_path}") from None
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        raise BackupError(f"{archive_path} is not a backup archive") from None
    with archive, tempfile.TemporaryDirectory() as work:
        members = _members(archive, archive_path)
        manifest = _manifest(archive, archive_path)
        images = _images(members, archive_path)
        if not replace and _upload_files(upload_folder):
            raise BackupError(
                f"{upload_folder} already holds images; --force replaces the site's calendar"
            )
        try:
            archive.extract(DATABASE, work, filter="data")
        except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
            raise BackupError(f"cannot read {archive_path}: {error}") from None
        copy = os.path.join(work, DATABASE)
        _check_schema(copy, archive_path)
        try:
            copy_database(copy, setting, replace=replace)
        except CopyError as error:
            hint = "; --force replaces it" if "already holds" in str(error) else ""
            raise BackupError(f"cannot restore: {error}{hint}") from None
        try:
            _put_images(archive, images, upload_folder, replace)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
            raise BackupError(
                f"the calendar is restored, its images not all ({error}); "
                "`restore --force` again puts them back"
            ) from None
    return manifest


def _members(archive: tarfile.TarFile, path: str) -> list[tarfile.TarInfo]:
    """Every member, read before anything is written: a cut archive is found here."""
    try:
        return archive.getmembers()
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        raise BackupError(f"{path} is not a backup archive (cut short, or damaged)") from None


def _images(members: list[tarfile.TarInfo], path: str) -> list[tarfile.TarInfo]:
    """The image members, refusing the archive for any member that is not ours: a name
    outside ``uploads/``, a link, a device, a name that climbs out (``..``) or starts at
    the root."""
    images = []
    for member in members:
        name = member.name
        if name in (MANIFEST, DATABASE) and member.isfile():
            continue
        parts = name.split("/")
        relative = posixpath.normpath(name[len(UPLOADS) + 1 :]) if len(parts) > 1 else ""
        if (
            parts[0] != UPLOADS
            or not (member.isfile() or member.isdir())
            or name.startswith("/")
            or ".." in parts
            or relative.startswith((".", "/"))
        ):
            raise BackupError(f"{path}: {name!r} is no member of a backup; nothing was restored")
        if member.isfile():
            images.append(member)
    return images


def _check_schema(copy: str, path: str) -> None:
    """An archive made by a newer version holds what this one cannot keep: refused."""
    try:
        with sqlite3.connect(copy) as db:
            row = db.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error:
        raise BackupError(f"{path}: its {DATABASE} is no calendar") from None
    version = int(row[0]) if row else 0
    if version > len(MIGRATIONS):
        raise BackupError(
            f"{path} was made by a newer version (schema {version}; this one knows up to "
            f"{len(MIGRATIONS)}): upgrade first"
        )


def _put_images(archive, images, upload_folder: str, replace: bool) -> None:
    os.makedirs(upload_folder, exist_ok=True)
    keep = set()
    for member in images:
        member.name = member.name[len(UPLOADS) + 1 :]
        keep.add(posixpath.normpath(member.name))
        archive.extract(member, upload_folder, filter="data")
    if replace:  # the site's images are the archive's: the others are no longer served
        for name, full in _upload_files(upload_folder):
            if name not in keep:
                os.remove(full)


def _archive_path(destination: str) -> str:
    if not destination.strip():
        raise BackupError("name the archive to write, or a folder to write it in")
    path = os.path.abspath(destination)
    if destination.endswith(("/", os.sep)) and not os.path.isdir(path):
        raise BackupError(f"cannot back up to {destination}: no folder {path}")
    if os.path.isdir(path):
        folder, stamp = path, clock.utcnow().strftime("%Y%m%d-%H%M%S")
        path = os.path.join(folder, f"calendar-{stamp}.tar.gz")
        number = 1
        while os.path.lexists(path):  # two backups in one second: the second is -2
            number += 1
            path = os.path.join(folder, f"calendar-{stamp}-{number}.tar.gz")
    if os.path.lexists(path):
        raise BackupError(f"cannot back up to {path}: it exists (name a new file, or a folder)")
    if not os.path.isdir(os.path.dirname(path)):
        raise BackupError(f"cannot back up to {path}: no folder {os.path.dirname(path)}")
    return path


def _upload_files(folder: str) -> list[tuple[str, str]]:
    """(name relative to the folder, full path) of every regular file under ``folder``,
    but the editor's kept files (``KEPT_FOLDER``: a form's, for a day, not the site's)."""
    found = []
    for parent, dirs, names in os.walk(folder):
        if parent == folder and KEPT_FOLDER in dirs:
            dirs.remove(KEPT_FOLDER)
        for name in sorted(names):
            full = os.path.join(parent, name)
            if os.path.isfile(full) and not os.path.islink(full):
                found.append((os.path.relpath(full, folder).replace(os.sep, "/"), full))
    return found


def _counts(path: str) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {
            table: db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] for table in COUNTED
        }


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    archive.addfile(info, io.BytesIO(data))


def _manifest(archive: tarfile.TarFile, path: str) -> dict:
    try:
        manifest = json.load(archive.extractfile(MANIFEST))
    except (KeyError, AttributeError, ValueError, tarfile.TarError, OSError):
        raise BackupError(f"{path} is not a backup archive of this calendar") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path}: a backup format this version does not read")
    rows, files = manifest.get("rows"), manifest.get("files")
    if (
        not isinstance(rows, dict)
        or not isinstance(files, int)
        or not all(isinstance(rows.get(table), int) for table in COUNTED)
    ):
        raise BackupError(f"{path} is not a backup archive of this calendar (its manifest)")
    return manifest
