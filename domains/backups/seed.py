"""The demo data set: three jobs over folders of `sources/`, and four past runs with real
archives. The runs are packed from the file versions below (not from disk), so their archives
are byte-for-byte the same everywhere; the documents changed between runs 1 and 2, which gives
`run_diff` something to show. Written only into an empty domain, so ids are 1..N when fresh."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.backups import packing
from domains.backups.archive import Entry
from domains.backups.sandbox import SOURCES, root
from domains.backups.tables import Job, Run
from facade.kit import pixel_png

Tree = dict[str, tuple[bytes, datetime]]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _text(body: str, when: str) -> tuple[bytes, datetime]:
    return body.encode("utf-8"), _at(when)


BUDGET_V1 = "category,planned,spent\nrent,14400.00,9600.00\nsoftware,3600.00,2150.00\ntravel,5000.00,1875.40\n"
BUDGET_V2 = BUDGET_V1.replace("2150.00", "2480.00") + "training,2000.00,450.00\n"

DOCUMENTS_BEFORE: Tree = {
    "budget-2026.csv": _text(BUDGET_V1, "2026-08-20T16:10:00"),
    "contracts/office-lease.txt": _text(
        "Lease of Torstrasse 12, 3rd floor, from 1 March 2026 for 36 months.\n", "2026-02-11T10:00:00"
    ),
    "invoices/INV-2026-0399-void.txt": _text("VOID: issued twice, replaced by INV-2026-0412.\n", "2026-08-03T09:20:00"),
    "invoices/INV-2026-0412.txt": _text(
        "Invoice INV-2026-0412\nCustomer: Nordlicht GmbH\nTotal: 4,250.00 EUR\n", "2026-08-04T09:25:00"
    ),
    "invoices/INV-2026-0413.txt": _text(
        "Invoice INV-2026-0413\nCustomer: Harbour Books Ltd\nTotal: 1,180.00 EUR\n", "2026-08-18T14:02:00"
    ),
    "notes/meeting-2026-08-28.md": _text(
        "# Team sync, 28 August 2026\n\n- Budget review moves to 1 September.\n- Lease renewal: ask for a quote.\n",
        "2026-08-28T11:45:00",
    ),
}
DOCUMENTS_NOW: Tree = {
    **{k: v for k, v in DOCUMENTS_BEFORE.items() if k != "invoices/INV-2026-0399-void.txt"},
    "budget-2026.csv": _text(BUDGET_V2, "2026-09-01T17:30:00"),
    "notes/meeting-2026-09-01.md": _text(
        "# Budget review, 1 September 2026\n\n- Software spend is 330.00 over plan: renew fewer seats.\n"
        "- New line: training, 2,000.00.\n",
        "2026-09-01T15:00:00",
    ),
}
# On disk only: a lock file the documents job excludes, as an editor would leave one.
DOCUMENTS_DISK: Tree = {**DOCUMENTS_NOW, "draft.tmp": _text("unsaved changes\n", "2026-09-02T08:00:00")}

PHOTOS_BEFORE: Tree = {
    "2026-08-offsite/IMG_0101.png": (pixel_png((200, 40, 40)), _at("2026-08-21T14:02:11")),
    "2026-08-offsite/IMG_0102.png": (pixel_png((40, 40, 200)), _at("2026-08-21T14:05:40")),
}
PHOTOS_NOW: Tree = {
    **PHOTOS_BEFORE,
    "2026-08-offsite/IMG_0103.png": (pixel_png((40, 160, 40)), _at("2026-08-22T10:31:05")),
}
PHOTOS_DISK: Tree = {
    **PHOTOS_NOW,
    "2026-08-offsite/Thumbs.db": (b"\x00thumbnail cache\x00", _at("2026-08-22T10:31:09")),
}

CONFIG_DISK: Tree = {
    "nginx.conf": _text(
        "server {\n    listen 8080;\n    location / { proxy_pass http://127.0.0.1:8765; }\n}\n", "2026-07-01T09:00:00"
    ),
    "app.yaml": _text("log_level: info\nworkers: 4\n", "2026-07-14T12:30:00"),
    "notes.txt": _text("Ports: web 8080, app 8765.\n", "2026-07-01T09:05:00"),
}

# name, source, schedule, retention, include, exclude, enabled, description
JOBS = [
    ("documents", "sources/documents", "0 2 * * *", 3, ["*"], ["*.tmp", "~*"], True, "Office documents, nightly."),
    ("photos", "sources/photos", "30 3 * * 0", 2, ["*.png", "*.jpg"], [], True, "Photo library, weekly on Sundays."),
    ("server-config", "sources/config", "0 */6 * * *", 5, ["*.conf", "*.yaml"], [], False, "Web server configuration."),
]
# job (1-based), started at, the files as they were
RUNS: list[tuple[int, datetime, Tree]] = [
    (1, _at("2026-09-01T02:00:00"), DOCUMENTS_BEFORE),
    (1, _at("2026-09-02T02:00:00"), DOCUMENTS_NOW),
    (2, _at("2026-08-23T03:30:00"), PHOTOS_BEFORE),
    (2, _at("2026-08-30T03:30:00"), PHOTOS_NOW),
]
DISK: dict[str, Tree] = {"documents": DOCUMENTS_DISK, "photos": PHOTOS_DISK, "config": CONFIG_DISK}


def seed(session: Session) -> None:
    """Write the demo sources when `sources/` is empty, and the jobs and runs when there are no
    jobs; each part is skipped when present, so seeding is idempotent and never overwrites a
    user's files."""
    base = root()
    sources = base / SOURCES
    if not any(sources.iterdir()):
        for folder, tree in DISK.items():
            for rel, (content, modified) in tree.items():
                path = sources / folder / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
                os.utime(path, (modified.timestamp(), modified.timestamp()))
    if session.scalar(select(Job.id).limit(1)) is not None:
        return
    clock = datetime(2026, 8, 1, 9, 0, tzinfo=UTC)
    jobs = [
        Job(
            name=name,
            source=source,
            schedule=cron,
            retention_count=keep,
            include=include,
            exclude=exclude,
            enabled=enabled,
            description=description,
            created_at=clock + timedelta(minutes=i),
            updated_at=clock + timedelta(minutes=i),
        )
        for i, (name, source, cron, keep, include, exclude, enabled, description) in enumerate(JOBS)
    ]
    session.add_all(jobs)
    session.flush()
    for job_number, started, tree in RUNS:
        job = jobs[job_number - 1]
        run = Run(job=job, status="failed", started_at=started)
        session.add(run)
        session.flush()  # the archive's name carries the run's id
        entries = [
            Entry(rel, len(content), modified, 0o644, _reader(content))
            for rel, (content, modified) in sorted(tree.items())
            if packing.matches(rel, job.include) and not packing.matches(rel, job.exclude)
        ]
        packing.pack(job, run, entries)
        run.finished_at = started + timedelta(seconds=4)
        session.flush()


def _reader(content: bytes) -> Callable[[], BinaryIO]:
    return lambda: io.BytesIO(content)
