"""Keeping the index true to the folder, and looking at the library as a whole: raw metadata,
reindexing, importing a folder, statistics and export."""

from __future__ import annotations

import csv
import hashlib
import io
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from facade.kit import CallContext, DomainError, NotFound, Toolset, deadline

from domains.documents import inputs
from domains.documents.errors import parsing
from domains.documents.extract import SUFFIXES, csv_rows, kind_of, open_docx, open_pdf, open_xlsx, read_text_file
from domains.documents.index import DOCUMENT, by_path, iso, refresh, register, render
from domains.documents.sandbox import display, existing_file, os_errors, resolve, root
from domains.documents.tables import Document, Tag

tools = Toolset()

EXPORT_CAP = 10_000


@tools.capability("metadata_dump", read_only=True, example={"path": "contracts/nda-northwind.pdf"})
def metadata_dump(ctx: CallContext, args: inputs.PathArg) -> dict[str, Any]:
    """Dump a document's raw file metadata and its full index record."""
    real = existing_file(args.path)
    kind = kind_of(real, args.path)
    with os_errors(args.path):
        data = real.read_bytes()
        info = real.stat()
    doc = by_path(ctx.db, display(real))
    return {
        "path": display(real),
        "kind": kind,
        "file": {
            "size_bytes": info.st_size,
            "modified": datetime.fromtimestamp(info.st_mtime, UTC).isoformat(),
            "sha256": hashlib.sha256(data).hexdigest(),
        },
        "metadata": _raw(real, args.path, kind),
        "record": {**render(doc), "text_chars": len(doc.text)} if doc is not None else None,
    }


def _raw(real: Path, given: str, kind: str) -> dict[str, Any]:
    if kind == "docx":
        document = open_docx(real, given)
        with parsing(given, kind):
            props = document.core_properties
            names = [n for n in dir(props) if not n.startswith("_")]
            styles = sorted({p.style.name for p in document.paragraphs if p.style is not None})
            return {
                "core_properties": {n: _plain(getattr(props, n)) for n in names},
                "sections": len(document.sections),
                "paragraphs": len(document.paragraphs),
                "tables": len(document.tables),
                "styles_used": styles,
            }
    if kind == "xlsx":
        book = open_xlsx(real, given)
        with parsing(given, kind):
            props = book.properties
            fields = ("creator", "title", "subject", "description", "keywords", "category", "lastModifiedBy", "created", "modified")
            return {
                "properties": {f: _plain(getattr(props, f, None)) for f in fields},
                "sheets": book.sheetnames,
                "defined_names": sorted(book.defined_names),
            }
    if kind == "pdf":
        reader = open_pdf(real, given)
        with parsing(given, kind):
            box = reader.pages[0].mediabox if reader.pages else None
            return {
                "info": {str(k): _plain(v) for k, v in (reader.metadata or {}).items()},
                "page_count": len(reader.pages),
                "header": reader.pdf_header,
                "encrypted": reader.is_encrypted,
                "first_page_size_pt": [float(box.width), float(box.height)] if box is not None else None,
            }
    text = read_text_file(real, given)
    raw: dict[str, Any] = {"lines": len(text.splitlines()), "characters": len(text)}
    if kind == "csv":
        rows = csv_rows(text)
        raw.update({"rows": len(rows), "header": rows[0] if rows else []})
    return raw


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


@tools.capability("document_reindex", idempotent=True, example={})
def document_reindex(ctx: CallContext, args: inputs.Reindex) -> dict[str, Any]:
    """Re-read one or every registered document's file into the index."""
    if args.document_id is not None:
        docs = [DOCUMENT.fetch(ctx.db, args.document_id)]
    else:
        docs = list(ctx.db.scalars(select(Document).options(selectinload(Document.tags)).order_by(Document.id)))
    results: list[dict[str, Any]] = []
    for doc in docs:
        try:
            real = resolve(doc.path)
            if not real.is_file():
                raise NotFound(f"{doc.path} is gone; delete the record with documents.document_delete")
            changed, _ = refresh(doc, real, doc.path)
            results.append({"document_id": doc.id, "path": doc.path, "changed": changed})
        except DomainError as exc:  # one bad file must not stop the others
            results.append({"document_id": doc.id, "path": doc.path, "error": str(exc)})
    ctx.db.flush()
    return {
        "reindexed": sum(1 for r in results if "error" not in r),
        "changed": sum(1 for r in results if r.get("changed")),
        "failed": sum(1 for r in results if "error" in r),
        "results": results,
    }


@tools.capability("folder_import", example={"folder": "inbox"})
def folder_import(ctx: CallContext, args: inputs.FolderImport) -> dict[str, Any]:
    """Register every document in a folder that is not registered yet."""
    base = resolve(args.folder)
    with os_errors(args.folder):
        if not base.is_dir():
            raise NotFound(f"{args.folder} is not a folder; give a folder under the documents root")
        found = sorted(_files(base, args.recursive))
    top = root()
    imported: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    unsupported = already = 0
    for path in found:
        deadline.check()  # outside the per-file refusal: an import past its limit stops, rolled back
        rel = path.relative_to(top).as_posix()
        if path.suffix.lower() not in SUFFIXES:
            unsupported += 1
            continue
        try:
            real = resolve(rel)
            if by_path(ctx.db, display(real)) is not None:
                already += 1
                continue
            doc = register(ctx.db, real, rel, refresh_existing=False)
            imported.append({"id": doc.id, "path": doc.path, "kind": doc.kind})
        except DomainError as exc:  # a damaged file is reported, the rest still imported
            failed.append({"path": rel, "error": str(exc)})
    return {"imported": imported, "already_registered": already, "unsupported": unsupported, "failed": failed}


def _files(base: Path, recursive: bool) -> list[Path]:
    """Files under `base`, skipping hidden names; links are not followed into other folders."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        deadline.check()
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if recursive else []
        found.extend(Path(folder) / f for f in files if not f.startswith("."))
    return found


@tools.capability("library_stats", read_only=True, example={})
def library_stats(ctx: CallContext, args: inputs.Stats) -> dict[str, Any]:
    """Summarise the library: documents, size, words and pages by kind, and the top tags."""
    db = ctx.db
    by_kind = db.execute(
        select(
            Document.kind,
            func.count(Document.id),
            func.coalesce(func.sum(Document.size_bytes), 0),
            func.coalesce(func.sum(Document.word_count), 0),
            func.coalesce(func.sum(Document.page_count), 0),
        )
        .group_by(Document.kind)
        .order_by(Document.kind)
    ).all()
    untagged = db.scalar(select(func.count(Document.id)).where(~Document.tags.any())) or 0
    top_tags = db.execute(
        select(Tag.name, func.count(Tag.id)).group_by(Tag.name).order_by(func.count(Tag.id).desc(), Tag.name).limit(10)
    ).all()
    longest = db.execute(select(Document.id, Document.path, Document.word_count).order_by(Document.word_count.desc(), Document.id).limit(5)).all()
    kinds = [
        {"kind": k, "documents": n, "size_bytes": int(size), "words": int(words), "pages": int(pages)}
        for k, n, size, words, pages in by_kind
    ]
    return {
        "documents": sum(k["documents"] for k in kinds),
        "size_bytes": sum(k["size_bytes"] for k in kinds),
        "words": sum(k["words"] for k in kinds),
        "by_kind": kinds,
        "untagged": untagged,
        "top_tags": [{"name": name, "documents": n} for name, n in top_tags],
        "longest": [{"id": i, "path": p, "words": w} for i, p, w in longest],
    }


@tools.capability("document_export", read_only=True, example={"format": "csv"})
def document_export(ctx: CallContext, args: inputs.Export) -> dict[str, Any]:
    """Export the catalogue's metadata (not the text) as JSON or CSV."""
    query = select(Document).options(selectinload(Document.tags)).order_by(Document.id).limit(EXPORT_CAP)
    if args.tag is not None:
        query = query.where(Document.tags.any(Tag.name == args.tag))
    rows = [
        {
            "id": d.id, "path": d.path, "title": d.title, "kind": d.kind, "size_bytes": d.size_bytes,
            "word_count": d.word_count, "page_count": d.page_count, "tags": [t.name for t in d.tags],
            "notes": d.notes, "indexed_at": iso(d.indexed_at),
        }
        for d in ctx.db.scalars(query)
    ]
    if args.format == "json":
        return {"format": "json", "count": len(rows), "data": rows}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["id"], lineterminator="\n")
    writer.writeheader()
    writer.writerows({**r, "tags": "; ".join(r["tags"])} for r in rows)
    return {"format": "csv", "count": len(rows), "data": buffer.getvalue()}
