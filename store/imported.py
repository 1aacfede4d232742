"""What ``import-tec`` brought (app/tec_import.py): each source item's local id and the
digest of the source's answer when it was last written; terms by their id there, or by
slug."""

from __future__ import annotations

from store.db import upsert
from store.models import Imported, Term


def imported(source: str) -> Imported | None:
    """The record of a source item (``events:host:port/path?id=6``, ``images:URL``)."""
    return Imported.get_or_none(Imported.source == source)


def note_imported(source: str, local: int, modified: str = "") -> None:
    """Call inside the write transaction of the item itself."""
    upsert(Imported, source=source, local=local, modified=modified)


def note_former_slug(kind: str, slug: str, local: int) -> None:
    """An address an imported item had here before the source renamed it (WordPress keeps
    it as ``_wp_old_slug`` and redirects it): kept, so the old address still leads to it.
    Call inside the write transaction of the item itself."""
    upsert(Imported, source=f"slug:{kind}:{slug}", local=local, modified="")


def former_slug_owner(kind: str, slug: str) -> int | None:
    """Our id of the imported item that had ``slug`` before the source renamed it."""
    record = imported(f"slug:{kind}:{slug}")
    return record.local if record is not None else None


def note_floating(local: int, floating: bool) -> None:
    """Whether an imported draft or pending event came without a publication date
    (WordPress's ``0000-00-00 00:00:00``): it is dated when it is published, as there. Call
    inside the write transaction of the event itself."""
    if floating:
        upsert(Imported, source=f"floating:{local}", local=local, modified="")
    else:
        Imported.delete().where(Imported.source == f"floating:{local}").execute()


def is_floating(local: int) -> bool:
    return imported(f"floating:{local}") is not None


def term_by_slug(taxonomy: str, slug: str) -> Term | None:
    return Term.get_or_none((Term.taxonomy == taxonomy) & (Term.slug == slug))


def term_imported(source: str, taxonomy: str) -> Term | None:
    """The term of ``taxonomy`` recorded for a source term (``categories:host/path?id=14``),
    when it is still there."""
    record = imported(source)
    if record is None:
        return None
    return Term.get_or_none((Term.id == record.local) & (Term.taxonomy == taxonomy))
