"""An image file chosen on an event form that comes back unsaved (its errors, a preview,
the library's search): a browser never fills a file input again, so the file is kept
here, and the form carries its token (``event_form.KEPT_IMAGE``), to be stored with the
event when a save of the form succeeds (SPEC §16: what the user typed is kept). Nothing is
stored in the library before that: bad input changes nothing. The files are kept in a
folder of the upload folder (``store.media.KEPT_FOLDER``), not in the instance folder: the
corrected form may reach another host, which shares the upload folder alone (SPEC §14,
docs/deploy.md "Several hosts").

A token is the user's id and a random part: unguessable, and refused to anyone else. Kept
files go after a day, a user's oldest beyond ``MOST_A_USER`` and the site's oldest beyond
``MOST`` at once."""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass

from flask import current_app

from app.editor.items import decoded, read_image
from app.errors import invalid_params
from app.i18n import N_, _
from rules import clock
from store.media import KEPT_FOLDER, save_media

TOKEN = re.compile(r"([0-9]{1,12})-[A-Za-z0-9_-]{32}")
# How long a kept file waits for its form, and how many may wait at once (each at most the
# upload limit, 10 MB by default: 2 GB at worst).
LIFETIME = 24 * 3600
MOST = 200
# A user's own files make room for each other: one volunteer sending forms in a loop pushes
# out their own kept files, not everyone's (outside check chk19s).
MOST_A_USER = 10
GONE = N_("The image file kept from before is no longer there: choose it again.")


@dataclass(frozen=True)
class Kept:
    token: str
    name: str  # the file's name, as the user's computer named it


def folder() -> str:
    return os.path.join(current_app.config["UPLOAD_FOLDER"], KEPT_FOLDER)


def keep(viewer, storage) -> Kept:
    """The form's file ``storage`` checked as an upload is, and kept; its refusal names
    the form's ``image``."""
    storage.stream.seek(0)  # read once already when a save stored it, then failed
    data, _image = read_image(viewer, storage, "image")
    _prune(viewer.id)
    token = f"{viewer.id}-{secrets.token_urlsafe(24)}"
    os.makedirs(folder(), mode=0o700, exist_ok=True)
    name = os.path.basename((storage.filename or "").replace("\\", "/"))[:255]
    with open(os.path.join(folder(), token + ".name"), "w", encoding="utf-8") as handle:
        handle.write(name)
    with open(os.path.join(folder(), token), "wb") as handle:
        handle.write(data)
    return Kept(token, name)


def kept(viewer, token: str) -> Kept:
    """The file kept as ``token`` for this user; a field error when it is gone (a day
    past, another user's token, a forged one)."""
    match = TOKEN.fullmatch(token)
    path = os.path.join(folder(), token)
    if match is None or int(match.group(1)) != viewer.id or not _fresh(path):
        raise invalid_params({"image": _(GONE)})
    with open(path + ".name", encoding="utf-8") as handle:
        return Kept(token, handle.read())


def store(viewer, token: str):
    """The kept file ``token`` stored in the library as an upload is (``items.upload``)."""
    name = kept(viewer, token).name
    with open(os.path.join(folder(), token), "rb") as handle:
        image = decoded(handle.read(), "image")
    return save_media(image, viewer.id, current_app.config["UPLOAD_FOLDER"], name)


def forget(viewer, token: str) -> None:
    """Removes this user's kept file ``token`` once the form is saved (it was stored, or
    dropped) or another file replaced it."""
    match = TOKEN.fullmatch(token)
    if match is not None and (viewer is None or int(match.group(1)) == viewer.id):
        for path in (os.path.join(folder(), token), os.path.join(folder(), token + ".name")):
            _remove(path)


def _fresh(path: str) -> bool:
    try:
        return clock.timestamp() - os.path.getmtime(path) < LIFETIME and os.path.isfile(
            path + ".name"
        )
    except OSError:
        return False


def _prune(user_id: int) -> None:
    """Before ``user_id`` keeps one more file: removes the kept files past their day, that
    user's oldest beyond ``MOST_A_USER``, and the site's oldest beyond ``MOST``."""
    try:
        entries = [e for e in os.scandir(folder()) if TOKEN.fullmatch(e.name)]
    except FileNotFoundError:
        return
    entries.sort(key=_changed, reverse=True)
    now = clock.timestamp()
    own = 0
    for number, entry in enumerate(entries):
        mine = entry.name.startswith(f"{user_id}-")
        own += mine
        if number >= MOST - 1 or (mine and own >= MOST_A_USER) or now - _changed(entry) >= LIFETIME:
            forget(None, entry.name)


def _changed(entry) -> float:
    try:
        return entry.stat().st_mtime
    except FileNotFoundError:  # removed by another worker's pruning meanwhile
        return 0.0


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
