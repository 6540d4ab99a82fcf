"""The backups domain's tables: a job says what to back up and when; each run of a job is one
archive, and its manifest lists every file it holds with size and checksum."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

RunStatus = Literal["succeeded", "failed"]


class Job(Base):
    __tablename__ = "backups_job"
    __table_args__ = (CheckConstraint("retention_count >= 1", name="retention_count"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(500))  # relative to the sandbox root
    schedule: Mapped[str] = mapped_column(String(100))  # a five-field cron expression
    retention_count: Mapped[int] = mapped_column(Integer)
    include: Mapped[list[str]] = mapped_column(JSON)
    exclude: Mapped[list[str]] = mapped_column(JSON)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    runs: Mapped[list[Run]] = relationship(
        back_populates="job", cascade="all, delete-orphan", passive_deletes=True, order_by="Run.id"
    )


class Run(Base):
    """One execution of a job. A failed run keeps its error and has no archive."""

    __tablename__ = "backups_run"
    __table_args__ = (one_of("status", RunStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("backups_job.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    archive: Mapped[str | None] = mapped_column(String(500))  # relative to the sandbox root
    archive_bytes: Mapped[int | None] = mapped_column(BigInteger)
    archive_sha256: Mapped[str | None] = mapped_column(String(64))
    file_count: Mapped[int] = mapped_column(Integer, default=0)
    source_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    skipped_links: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)

    job: Mapped[Job] = relationship(back_populates="runs")
    files: Mapped[list[RunFile]] = relationship(
        back_populates="run", cascade="all, delete-orphan", passive_deletes=True, order_by="RunFile.path"
    )


class RunFile(Base):
    """One line of a run's manifest: a file in the archive, as it was when packed."""

    __tablename__ = "backups_run_file"
    __table_args__ = (UniqueConstraint("run_id", "path"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The unique (run_id, path) constraint's index serves lookups by run.
    run_id: Mapped[int] = mapped_column(ForeignKey("backups_run.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(String(1024))
    size: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    modified_at: Mapped[datetime] = mapped_column(UTCDateTime)

    run: Mapped[Run] = relationship(back_populates="files")
