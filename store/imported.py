"""What ``import-tec`` brought (app/tec_import.py): each source item's local id and the
source's ``modified`` when it was last written; terms by slug."""

from __future__ import annotations

from store.db import upsert
from store.models import Imported, Term


def imported(source: str) -> Imported | None:
    """The record of a source item (``events:host:port/path?id=6``, ``images:URL``)."""
    return Imported.get_or_none(Imported.source == source)


def note_imported(source: str, local: int, modified: str = "") -> None:
    """Call inside the write transaction of the item itself."""
    upsert(Imported, source=source, local=local, modified=modified)


def term_by_slug(taxonomy: str, slug: str) -> Term | None:
    return Term.get_or_none((Term.taxonomy == taxonomy) & (Term.slug == slug))
