"""The documents domain's tables: one metadata row per registered file, and its tags."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

Kind = Literal["docx", "xlsx", "pdf", "csv", "md", "txt"]


class Document(Base):
    """A file under the root, registered with its extracted text so that it can be searched."""

    __tablename__ = "documents_document"
    __table_args__ = (one_of("kind", Kind), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    path: Mapped[str] = mapped_column(String(500), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(10))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    word_count: Mapped[int] = mapped_column(Integer, default=0)
    page_count: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text, default="")
    notes: Mapped[str] = mapped_column(Text, default="")
    file_modified_at: Mapped[datetime] = mapped_column(UTCDateTime)
    indexed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    # The database cascades deletes (ON DELETE CASCADE); passive_deletes spares loading the tags.
    tags: Mapped[list[Tag]] = relationship(
        back_populates="document", cascade="all, delete-orphan", passive_deletes=True, order_by="Tag.name"
    )


class Tag(Base):
    """A label on a document; a document carries a tag at most once."""

    __tablename__ = "documents_tag"
    __table_args__ = (UniqueConstraint("document_id", "name"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents_document.id", ondelete="CASCADE"))
    # Searches and tag lists go by name; the unique (document_id, name) index serves the rest.
    name: Mapped[str] = mapped_column(String(50), index=True)
    created_at: Mapped[datetime] = created_column()

    document: Mapped[Document] = relationship(back_populates="tags")
