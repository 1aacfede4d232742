"""Values made once per data version, per process.

A version is ``(database, data version)`` (store/db.py): any write moves the data version,
so whatever was made for the old one is dropped at the first use of the new one. A request
that began before a write never winds the memo back (it works for itself). Something that
also changes with the clock alone (a scheduled item's date passing) must carry that in its
key or check it on use.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from store.db import data_version, database


# Not cachetools: two bounds (entries, bytes) to its one maxsize; FIFOCache reads no faster.
class VersionMemo:
    MAX_ENTRIES = 4096  # per version; past it, the oldest entry makes room for a new one
    # What the entries of a version may take, as ``size_of`` counts it (None: no bound but
    # the count); past it, the oldest entries make room, as past ``MAX_ENTRIES``.
    MAX_BYTES: int | None = None

    def __init__(self):
        self.state: tuple = (None, {})  # (version, entries), read and replaced as one
        self.lock = threading.Lock()
        self.used = 0  # what the current version's entries take, by ``size_of``

    def size_of(self, value) -> int:
        """Bytes ``value`` takes, for ``MAX_BYTES`` (none unless a subclass counts them)."""
        return 0

    def lookup(self, version, key):
        """(True, value) when ``key`` was made for ``version``, else (False, None)."""
        value = self.entries_for(version).get(key, _MISSING)  # one step: a thread may evict
        return (False, None) if value is _MISSING else (True, value)

    def entries_for(self, version) -> dict:
        """The entries made for ``version``, to read (empty when it is not the memo's): a
        caller that looks up many keys reads the state once."""
        state_version, entries = self.state
        return entries if version is not None and state_version == version else _NONE

    def get(self, version, key, make):
        value = self.entries_for(version).get(key, _MISSING)
        if value is not _MISSING:
            return value
        value = make()
        if version is not None:
            self.put(version, key, value)
        return value

    def many(self, version, kind, ids, fetch, keep=None) -> dict:
        """``{id: value}`` for each of ``ids`` under the key ``(kind, id)``: those made for
        ``version`` from the memo, the others by one ``fetch(missing ids)`` (a dict; an id
        it leaves out is remembered as ``None``). With no ``version`` (a write), nothing is
        looked up or kept; nor when ``keep()``, asked after the fetch, says no."""
        entries = self.entries_for(version)
        found, missing = {}, []
        for item in ids:
            value = entries.get((kind, item), _MISSING)
            if value is _MISSING:
                missing.append(item)
            else:
                found[item] = value
        if missing:
            fetched = fetch(missing)
            made = [((kind, item), fetched.get(item)) for item in missing]
            found.update((key[1], value) for key, value in made)
            if version is not None and (keep is None or keep()):
                self.put_many(version, made)
        return found

    def put(self, version, key, value) -> None:
        self.put_many(version, ((key, value),))

    def put_many(self, version, items) -> None:
        """Adds ``(key, value)`` pairs made for ``version``, under one hold of the lock."""
        bound, size_of = self.MAX_BYTES, self.size_of
        with self.lock:
            state_version, entries = self.state
            if state_version != version:
                if _older(version, state_version):
                    return  # made for a request that began before the last write
                # A new dict: never one of another version.
                # Oldest first: a plain dict's first key is found by skipping the slots
                # its evictions left (2 us an insert at a full memo; 0.2 us here).
                entries, self.used = OrderedDict(), 0
                self.state = (version, entries)
            for key, value in items:
                size = size_of(value)
                # The same version: added in place, the oldest entries making room.
                if key in entries:
                    self.used -= size_of(entries.pop(key))
                while entries and (
                    len(entries) >= self.MAX_ENTRIES
                    or (bound is not None and self.used + size > bound)
                ):
                    self.used -= size_of(entries.popitem(last=False)[1])
                entries[key] = value
                self.used += size


_MISSING = object()
_NONE: dict = {}  # never written: the entries of no version


def _older(version, than) -> bool:
    """Whether ``version`` precedes ``than`` on the same database."""
    return than is not None and version[0] == than[0] and version[1] < than[1]


def current_version() -> tuple:
    """This process's view of the data now: ``(database, data version)``."""
    return (database.database, data_version())


MEMO = VersionMemo()  # the store's own: scheduled dates, term counts, linked rows
# The venues and organizers of a large calendar fit (8,333 at 100,000 demo events): a month
# at a random minute meets new ones on every page, and re-reading them was a fifth of it.
MEMO.MAX_ENTRIES = 16384
