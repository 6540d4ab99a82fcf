"""The metadata index: a registered document's row holds its file's size, hash and extracted
text, refreshed whenever the domain writes the file or is asked to reindex it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from facade.kit import Conflict, Entity, Tags, iso, utcnow

from domains.documents.extract import Extracted, count_words, extract
from domains.documents.sandbox import display, os_errors
from domains.documents.tables import Document, Tag

PREVIEW_CHARS = 200


def render(doc: Document) -> dict[str, Any]:
    """A document's metadata; its full text is read with documents.document_read."""
    return {
        "id": doc.id,
        "path": doc.path,
        "title": doc.title,
        "kind": doc.kind,
        "size_bytes": doc.size_bytes,
        "sha256": doc.sha256,
        "word_count": doc.word_count,
        "page_count": doc.page_count,
        "tags": [t.name for t in doc.tags],
        "notes": doc.notes,
        "preview": " ".join(doc.text[:PREVIEW_CHARS].split()),
        "file_modified_at": iso(doc.file_modified_at),
        "indexed_at": iso(doc.indexed_at),
        "created_at": iso(doc.created_at),
        "updated_at": iso(doc.updated_at),
    }


DOCUMENT: Entity[Document] = Entity(
    "documents", "document", "documents", Document, render=render, load=(selectinload(Document.tags),)
)
TAGS: Tags[Document] = Tags(DOCUMENT, Tag)


def title_from(real: Path) -> str:
    """A readable title from a file name: 'q3-board_report' -> 'Q3 board report'."""
    words = real.stem.replace("_", " ").replace("-", " ").split()
    text = " ".join(words) or real.name
    return (text[0].upper() + text[1:])[:200]


def by_path(db: Session, rel: str) -> Document | None:
    return db.scalar(select(Document).where(Document.path == rel).options(selectinload(Document.tags)))


def refresh(
    doc: Document, real: Path, given: str, *, now: datetime | None = None, extracted: Extracted | None = None
) -> tuple[bool, str | None]:
    """Read the file again into its row; returns whether the content changed, and the title
    the file's own metadata gives (None when it gives none). `extracted` is the file's text
    when the caller knows it already (the seed's own files)."""
    extracted = extracted or extract(real, given)
    with os_errors(given):
        info = real.stat()
        digest = hashlib.sha256(real.read_bytes()).hexdigest()
    changed = digest != doc.sha256
    doc.kind = extracted.kind
    doc.size_bytes = info.st_size
    doc.sha256 = digest
    doc.text = extracted.text
    doc.word_count = count_words(extracted.text)
    doc.page_count = extracted.page_count
    doc.file_modified_at = datetime.fromtimestamp(info.st_mtime, UTC)
    doc.indexed_at = now or utcnow()
    return changed, extracted.title


def register(
    db: Session,
    real: Path,
    given: str,
    *,
    title: str | None = None,
    notes: str = "",
    tags: Iterable[str] = (),
    refresh_existing: bool = True,
    now: datetime | None = None,
    extracted: Extracted | None = None,
) -> Document:
    """The row of the file at `real`, created or (when refresh_existing) refreshed."""
    rel = display(real)
    doc = by_path(db, rel)
    if doc is not None and not refresh_existing:
        raise Conflict(
            f"{rel} is already document {doc.id}; update it with documents.document_update "
            "or re-read the file with documents.document_reindex"
        )
    fresh = doc is None
    if doc is None:
        doc = Document(path=rel, title="", sha256="", notes=notes, tags=[])
        if now is not None:
            doc.created_at = doc.updated_at = now
    _, own_title = refresh(doc, real, given, now=now, extracted=extracted)
    if fresh:  # only once the file was read: a damaged one leaves nothing behind to flush
        db.add(doc)
    if title is not None:
        doc.title = title
    elif not doc.title:
        doc.title = (own_title or title_from(real))[:200]
    TAGS.add(doc, tags)
    db.flush()
    return doc
