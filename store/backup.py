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
import sqlite3
import tarfile
import tempfile
from datetime import UTC, datetime

from store.copy import CopyError, copy_database
from store.db import backup_to, is_url

FORMAT = 1
MANIFEST = "backup.json"
DATABASE = "calendar.db"
UPLOADS = "uploads"


class BackupError(Exception):
    """A backup or restore that cannot be done, said in one line."""


def write_backup(destination: str, setting: str, upload_folder: str) -> tuple[str, dict]:
    """Writes the archive to ``destination`` (a new file, or a folder to name it in) and
    returns its path and manifest. The bound database is ``setting``'s."""
    path = _archive_path(destination)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as work:
        copy = os.path.join(work, DATABASE)
        try:
            if is_url(setting):
                copy_database(setting, copy)
            else:
                backup_to(copy)
        except (CopyError, RuntimeError, OSError, sqlite3.Error) as error:
            raise BackupError(f"cannot back up to {path}: {error}") from None
        manifest = {
            "format": FORMAT,
            "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
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
        os.replace(partial, path)  # the archive appears whole or not at all
    return path, manifest


def restore_backup(archive_path: str, setting: str, upload_folder: str, replace: bool) -> dict:
    """Puts the archive's calendar into ``setting`` and its images into ``upload_folder``;
    a site that already holds a calendar or images is refused unless ``replace``. Returns
    the manifest."""
    try:
        archive = tarfile.open(archive_path, "r:*")
    except FileNotFoundError:
        raise BackupError(f"no file {archive_path}") from None
    except (tarfile.TarError, OSError):
        raise BackupError(f"{archive_path} is not a backup archive") from None
    with archive, tempfile.TemporaryDirectory() as work:
        manifest = _manifest(archive, archive_path)
        if not replace and _upload_files(upload_folder):
            raise BackupError(
                f"{upload_folder} already holds images; --force replaces the site's calendar"
            )
        try:
            archive.extract(DATABASE, work, filter="data")
            copy_database(os.path.join(work, DATABASE), setting, replace=replace)
        except KeyError:
            raise BackupError(f"{archive_path} holds no {DATABASE}") from None
        except CopyError as error:
            hint = "; --force replaces it" if "already holds" in str(error) else ""
            raise BackupError(f"cannot restore: {error}{hint}") from None
        os.makedirs(upload_folder, exist_ok=True)
        for member in archive.getmembers():
            if member.isfile() and member.name.startswith(UPLOADS + "/"):
                member.name = member.name[len(UPLOADS) + 1 :]
                archive.extract(member, upload_folder, filter="data")
    return manifest


def _archive_path(destination: str) -> str:
    path = os.path.abspath(destination)
    if os.path.isdir(path):
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        path = os.path.join(path, f"calendar-{stamp}.tar.gz")
    if os.path.lexists(path):
        raise BackupError(f"cannot back up to {path}: it exists (name a new file, or a folder)")
    if not os.path.isdir(os.path.dirname(path)):
        raise BackupError(f"cannot back up to {path}: no folder {os.path.dirname(path)}")
    return path


def _upload_files(folder: str) -> list[tuple[str, str]]:
    """(name relative to the folder, full path) of every regular file under ``folder``."""
    found = []
    for parent, _dirs, names in os.walk(folder):
        for name in sorted(names):
            full = os.path.join(parent, name)
            if os.path.isfile(full) and not os.path.islink(full):
                found.append((os.path.relpath(full, folder).replace(os.sep, "/"), full))
    return found


def _counts(path: str) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {
            table: db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
            for table in ("event", "venue", "organizer", "term", "media", "user")
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
    return manifest
