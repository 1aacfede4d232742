"""Media: uploaded images, their rows and their files.

Files are written under generated names (``{token}.{ext}`` and
``{token}-{width}x{height}.{ext}`` for the sizes, as WordPress names them): nothing a
client sends ever becomes part of a path. Events, venues and organizers store a media id
in their ``image`` column as a numeric string (a URL is never all digits).
"""

from __future__ import annotations

import operator
import os
import re
import secrets
from functools import reduce

import orjson
from peewee import Cast, fn

from rules.clock import utcnow_str
from rules.ids import as_id, is_digits
from store.db import insert_row, write_transaction
from store.images import Processed
from store.models import Event, Media, Organizer, Venue
from store.posts import allocate_id, readable_clause
from store.sql import Statement, in_list
from store.users import Viewer

# The only names the upload folder serves: what ``_file_names`` generates.
FILE_NAME = re.compile(r"[0-9a-f]{32}(?:-[0-9]+x[0-9]+)?\.(?:jpg|png|gif|webp)")  # fullmatch

# The one folder inside the upload folder, holding no image of the site: the editor's
# files kept for a form that comes back (app/editor/kept_images.py). There, every host
# behind a load balancer sees them (docs/deploy.md, "Several hosts": a shared upload
# folder, an instance folder each); never served (``FILE_NAME`` names no folder; nginx's
# own rule in docs/deploy.md), nor backed up (store/backup.py).
KEPT_FOLDER = "kept-images"


def is_media_id(value) -> bool:
    """A stored ``image`` value that names a media row rather than a URL."""
    return isinstance(value, str) and is_digits(value)


def _write(folder: str, name: str, data: bytes) -> None:
    path = os.path.join(folder, name)
    # O_EXCL: a generated name never overwrites anything.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def remove_files(folder: str, names: list[str]) -> None:
    for name in names:
        try:
            os.remove(os.path.join(folder, name))
        except FileNotFoundError:
            pass


def file_names(row) -> list[str]:
    sizes = orjson.loads(row.sizes or "{}")
    return [row.file, *(size["file"] for size in sizes.values())]


def save_media(processed: Processed, author: int, folder: str, original_name: str = ""):
    """Writes the files, then the row; on any failure no file is left behind.
    ``original_name``: the uploaded file's name, kept (its last path part, printable, at
    most 255 characters) to find the image by."""
    os.makedirs(folder, exist_ok=True)
    token = secrets.token_hex(16)
    extension = processed.extension
    written: list[str] = []
    try:
        original = f"{token}.{extension}"
        _write(folder, original, processed.original.data)
        written.append(original)
        sizes = {}
        for size_name, encoded in processed.sizes.items():
            name = f"{token}-{encoded.width}x{encoded.height}.{extension}"
            if name not in written:
                _write(folder, name, encoded.data)
                written.append(name)
            sizes[size_name] = {
                "width": encoded.width,
                "height": encoded.height,
                "mime-type": processed.mime_type,
                "filesize": len(encoded.data),
                "file": name,
            }
        now = utcnow_str()
        with write_transaction():
            row = {
                "id": allocate_id("media"),
                "author": author,
                "date": now,
                "date_utc": now,
                "file": original,
                "mime_type": processed.mime_type,
                "extension": extension,
                "width": processed.original.width,
                "height": processed.original.height,
                "filesize": len(processed.original.data),
                "sizes": orjson.dumps(sizes).decode(),
                "original_name": _kept_name(original_name),
            }
            insert_row(Media, row)
        return Media(**row)
    except BaseException:
        remove_files(folder, written)
        raise


def _kept_name(name: str) -> str:
    """A file name as a browser or client sent it, without a path (some send one) or
    characters that cannot be shown."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(c for c in name if c.isprintable()).strip()[:255]


def images_matching(search: str, viewer: Viewer):
    """A condition on ``Media``: its id is ``search``, its file name (stored or uploaded)
    holds it, or an
    event, venue or organizer whose title holds it, and that ``viewer`` may read, shows
    the image (a title it may not read finds nothing)."""
    shown_by = [
        model.select(model.image).where(
            model.title.contains(search) & readable_clause(model, viewer)
        )
        for model in (Event, Venue, Organizer)
    ]
    condition = Media.file.contains(search) | Media.original_name.contains(search)
    for query in shown_by:
        condition |= Cast(Media.id, "TEXT").in_(query)
    if as_id(search) is not None:
        condition |= Media.id == as_id(search)
    return condition


def get_media(media_id) -> Media | None:
    if as_id(media_id) is None:
        return None
    return Media.get_or_none(Media.id == media_id)


def media_of_file(name: str) -> Media | None:
    """The media row whose file (full size, or one of its sizes: ``{token}-150x150.jpg``)
    is ``name``; None for a name the upload folder never serves."""
    if not FILE_NAME.fullmatch(name):
        return None
    return Media.get_or_none(Media.file == _SIZE_SUFFIX.sub("", name))


_SIZE_SUFFIX = re.compile(r"-[0-9]+x[0-9]+(?=\.)")


def _shown(condition):
    """SQL: the image of the ``Media`` row at hand is shown by an event, venue or organizer
    meeting ``condition(model)``."""
    as_text = Cast(Media.id, "TEXT")
    return reduce(
        operator.or_,
        (
            fn.EXISTS(model.select(model.id).where((model.image == as_text) & condition(model)))
            for model in (Event, Venue, Organizer)
        ),
    )


def _visible(viewer: Viewer):
    """As WordPress treats attachments: an image that no item shows is public; one that
    items show is as visible as the most visible of them (the listings'
    ``readable_clause``: visible and not masked by a password)."""
    return ~_shown(lambda model: True) | _shown(lambda model: readable_clause(model, viewer))


def is_visible_to(media_id: int, viewer: Viewer) -> bool:
    return Media.select(Media.id).where((Media.id == media_id) & _visible(viewer)).exists()


def shown_anywhere(media_id: int) -> bool:
    """Whether any event, venue or organizer (of any status) shows this image."""
    return Media.select(Media.id).where((Media.id == media_id) & _shown(lambda m: True)).exists()


def readable_media(viewer: Viewer):
    """The ``Media`` rows ``viewer`` may read: app/auth.py::may_read_media as a query."""
    query = Media.select()
    if not viewer.has("edit_others_posts"):
        readable = _visible(viewer)
        if viewer.logged_in:
            readable = (Media.author == viewer.id) | readable
        query = query.where(readable)
    return query


def list_media(
    viewer: Viewer, offset: int, limit: int, include: list | None = None, search: str | None = None
) -> tuple[list[Media], int]:
    """(a page of the media ``viewer`` may read, newest first; how many there are): the rule
    of app/auth.py::may_read_media (editors, the owner, else ``_visible``) as one query;
    only the ids ``include`` names, and those ``images_matching`` a ``search``, when given."""
    query = readable_media(viewer)
    if include:
        query = query.where(Media.id.in_(include))
    if search:
        query = query.where(images_matching(search, viewer))
    total = query.count()
    rows = list(query.order_by(Media.date_utc.desc(), Media.id.desc()).offset(offset).limit(limit))
    return rows, total


def managed_images(viewer: Viewer):
    """The ``Media`` rows the editor's library shows ``viewer``: their own; editors
    everyone's."""
    if viewer.has("edit_others_posts"):
        return Media.select()
    return Media.select().where(Media.author == viewer.id)


def usable_images(viewer: Viewer):
    """The ``Media`` rows a form offers ``viewer`` to put on an item: those the API lets
    them use (app/auth.py's ``use_media``: authors and up any image, contributors their
    own) among those they may read (``readable_media``)."""
    if viewer.has("upload_files"):
        return readable_media(viewer)
    return Media.select().where(Media.author == viewer.id)


def images_of(
    images, viewer: Viewer, offset: int, limit: int, search: str = "", count: bool = True
) -> tuple[list[Media], int | None]:
    """(a page of ``images`` (``managed_images`` or ``usable_images``), newest first; how
    many there are, when ``count``): with ``search``, those ``images_matching`` it for
    ``viewer``."""
    if search:
        images = images.where(images_matching(search, viewer))
    total = images.count() if count else None
    return list(images.order_by(Media.id.desc()).offset(offset).limit(limit)), total


def shown_by_others(media_id: int, user_id: int) -> bool:
    """Whether items of other authors show this image (deleting it would change them)."""
    return any(
        model.select(model.id)
        .where((model.image == str(media_id)) & (model.author != user_id))
        .exists()
        for model in (Event, Venue, Organizer)
    )


def media_by_id(ids) -> dict[int, Media]:
    """Media rows by id, in one query whatever the number of ids."""
    wanted = sorted({int(i) for i in ids if as_id(i) is not None})
    if not wanted:
        return {}
    rows = _MEDIA_BY_IDS.instances(Media, *wanted, sizes=(len(wanted),))
    return {row.id: row for row in rows}


# Compiled once per list length: every rendered page with images reads them so.
_MEDIA_BY_IDS = Statement(lambda size: Media.select().where(Media.id.in_(in_list(0, size))))


def delete_media(row, folder: str) -> None:
    """Removes the row, every reference to it, then its files."""
    with write_transaction():
        Media.delete().where(Media.id == row.id).execute()
        for model in (Event, Venue, Organizer):
            # The items keep no dangling id: events show ``image: false`` from now on.
            model.update(image="").where(model.image == str(row.id)).execute()
    remove_files(folder, file_names(row))
