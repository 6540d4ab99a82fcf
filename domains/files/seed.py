"""The demo tree a fresh root gets: a few believable notes, reports and photos, plus the files
the capability examples move, delete and rename — each example its own, so that none depends
on another having run. Deterministic, contents and dates alike."""

from __future__ import annotations

import io
import os
import zipfile
from datetime import UTC, datetime
from typing import Any

from facade.kit import pixel_png

from domains.files.sandbox import root


TODO = """# To do
- [ ] Send the Q2 sales report to Dana
- [ ] Book the venue for the offsite
- [x] Renew the domain name
- [ ] Review the marketing budget draft
"""


def _zip(members: dict[str, str], when: tuple[int, int, int, int, int, int]) -> bytes:
    """A zip holding `members`, every entry dated `when`, so that its bytes never vary."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)
    return buffer.getvalue()


OFFSITE_2025 = {
    "offsite-2025/agenda.md": "# Offsite 2025\n\n- Morning: the year in numbers\n- Afternoon: plans for 2026\n",
    "offsite-2025/attendees.csv": "name,team\nDana,sales\nLee,engineering\nSam,marketing\n",
}

# path -> (content, modified date); folders get the date of their newest file.
TREE: dict[str, tuple[str | bytes, str]] = {
    "notes/meeting-2026-03-02.md": (
        "# Weekly sync, 2 March 2026\n\nPresent: Dana, Lee, Sam\n\n"
        "- Q1 closed 8% above plan.\n- Marketing asks for a bigger budget in Q2.\n"
        "- Next sync: 9 March.\n",
        "2026-03-02T11:30:00",
    ),
    "notes/todo.txt": (TODO, "2026-04-20T09:15:00"),
    "notes/ideas.md": (
        "# Ideas\n\n- A loyalty card for repeat customers\n- Ship the Gadget in a second colour\n"
        "- Move the budget review to the first week of the quarter\n",
        "2026-02-14T16:45:00",
    ),
    "reports/q1-sales.csv": (
        "month,product,units,revenue\n2026-01,Widget,120,2400.00\n2026-01,Gadget,45,1575.00\n"
        "2026-02,Widget,132,2640.00\n2026-02,Gadget,51,1785.00\n2026-03,Widget,150,3000.00\n"
        "2026-03,Gadget,60,2100.00\n",
        "2026-04-02T08:00:00",
    ),
    "reports/q2-sales.csv": (
        "month,product,units,revenue\n2026-04,Widget,141,2820.00\n2026-04,Gadget,58,2030.00\n",
        "2026-05-02T08:00:00",
    ),
    "reports/summary.md": (
        "# Sales summary\n\nQ1 revenue: 13,500.00 (Widget 8,040.00; Gadget 5,460.00).\n"
        "April revenue: 4,850.00.\n",
        "2026-05-03T10:00:00",
    ),
    "photos/README.md": ("Photos from the March offsite.\n", "2026-03-20T18:00:00"),
    "photos/IMG_0001.png": (pixel_png((200, 30, 30)), "2026-03-18T14:02:11"),
    "photos/IMG_0002.png": (pixel_png((30, 30, 200)), "2026-03-18T14:05:40"),
    "photos/IMG_0003.png": (pixel_png((200, 30, 30)), "2026-03-18T14:05:52"),  # a duplicate of 0001
    "archive/todo-2025.txt": (TODO, "2025-12-31T17:00:00"),  # a duplicate of notes/todo.txt
    "archive/offsite-2025.zip": (_zip(OFFSITE_2025, (2025, 11, 14, 17, 0, 0)), "2025-11-14T17:00:00"),
    "scratch/delete-me.txt": ("A file to practise deleting.\n", "2026-05-01T12:00:00"),
    "scratch/move-me.txt": ("A file to practise moving.\n", "2026-05-01T12:00:00"),
    "scratch/build-1.log": (
        "".join(f"[2026-05-01 12:00:{s:02d}] step {s} ok\n" for s in range(1, 13)),
        "2026-05-01T12:00:12",
    ),
    "scratch/build-2.log": ("[2026-05-02 09:00:01] step 1 failed: disk full\n", "2026-05-02T09:00:01"),
    # Interrupted uploads, for bulk_delete's example.
    "scratch/upload-1.part": ("partial upload\n", "2026-05-02T10:00:00"),
    "scratch/upload-2.part": ("partial upload, second try\n", "2026-05-02T10:05:00"),
}


def seed(session: Any = None) -> None:
    """Create the root and the demo tree, only when the root is empty (so it is idempotent
    and never touches a real user's files). The session is unused: this domain has no tables."""
    base = root()
    if any(base.iterdir()):
        return
    folders: dict[str, float] = {}
    for rel, (content, modified) in TREE.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        stamp = datetime.fromisoformat(modified).replace(tzinfo=UTC).timestamp()
        os.utime(path, (stamp, stamp))
        folder = rel.split("/", 1)[0]
        folders[folder] = max(folders.get(folder, 0.0), stamp)
    for folder, stamp in folders.items():
        os.utime(base / folder, (stamp, stamp))
