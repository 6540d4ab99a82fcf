"""A small, believable demo data set; written only into an empty projects table, always the same
rows in the same order, so ids are 1..N on a fresh database (capability examples rely on them)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.projects.tables import Assignment, Comment, Milestone, Person, Project, Task

# Fixed timestamps rather than "now", so that two seeded databases hold the same rows.
T0 = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
ARCHIVED_AT = datetime(2026, 4, 2, 12, 0, tzinfo=UTC)

PEOPLE = [
    ("Ada Lovelace", "ada@example.com"),
    ("Grace Hopper", "grace@example.com"),
    ("Alan Turing", "alan@example.com"),
    ("Katherine Johnson", "katherine@example.com"),
    ("Hedy Lamarr", "hedy@example.com"),  # assigned nothing: person_delete's example
]

# name, description, status, archived
PROJECTS = [
    ("Website relaunch", "Move the public website to the new CMS and design.", "active", False),
    ("Mobile app 2.0", "Offline-first rewrite of the notes app.", "active", False),
    ("Office move", "Move the Berlin team to a bigger office.", "on_hold", False),
    ("2025 annual report", "Figures, narrative and print run of the 2025 report.", "completed", True),
    ("Intranet wiki", "Replace the old wiki; dropped in favour of the new CMS.", "on_hold", False),  # project_delete's
    ("Housekeeping", "Small chores that belong to no bigger project.", "active", False),
]

# project (1-based), name, due date, status
MILESTONES = [
    (1, "Design sign-off", date(2026, 9, 30), "closed"),
    (1, "Public launch", date(2027, 1, 15), "open"),
    (2, "Beta", date(2026, 12, 15), "open"),
    (3, "Lease signed", date(2027, 2, 1), "open"),
    (4, "Report published", date(2026, 3, 31), "closed"),
]

# project, milestone, title, status, priority, due date, assignees (people, 1-based)
TaskRow = tuple[int, int | None, str, str, str, date | None, list[int]]
TASKS: list[TaskRow] = [
    (1, 1, "Approve homepage mockups", "done", "high", date(2026, 9, 25), [1]),
    (1, 2, "Migrate blog posts", "in_progress", "medium", date(2026, 12, 18), [2]),
    (1, 2, "Set up redirects for old URLs", "todo", "high", date(2027, 1, 8), [3]),
    (1, 2, "Load-test the new stack", "todo", "urgent", date(2026, 11, 20), [2, 3]),
    (1, 2, "Write the launch announcement", "blocked", "medium", date(2027, 1, 12), [4]),
    (2, 3, "Offline sync for notes", "in_progress", "high", date(2026, 12, 1), [1]),
    (2, 3, "Push notification opt-in screen", "todo", "medium", date(2026, 12, 10), [4]),
    (2, 3, "Crash reporting", "done", "high", date(2026, 10, 15), [3]),
    (2, None, "Update app download links on the website", "todo", "low", None, []),
    (3, 4, "Shortlist three buildings", "done", "medium", date(2026, 10, 31), [4]),
    (3, 4, "Get quotes from movers", "todo", "low", date(2027, 1, 20), []),
    (4, 5, "Collect figures from finance", "done", "high", date(2026, 2, 28), [2]),
    (4, 5, "Send to print", "done", "medium", date(2026, 3, 25), [1]),
    # For task_delete's and task_bulk_delete's examples alone.
    (6, None, "Retire the old sitemap generator", "todo", "low", None, []),
    (6, None, "Spike: dark mode", "cancelled", "low", None, []),
]

# task (1-based), author, body
COMMENTS = [
    (2, "Grace Hopper", "Half of the 2019-2022 archive is migrated; images still point at the old CDN."),
    (4, "Alan Turing", "Need staging credentials from ops before the first run."),
    (5, "Katherine Johnson", "Waiting on legal review of the pricing section."),
    (6, "Ada Lovelace", "Conflict resolution works for text; attachments are next."),
    (10, "Katherine Johnson", "Shortlist: Torstrasse 12, Kastanienallee 3, Invalidenstrasse 90."),
]


def seed(session: Session) -> None:
    """Insert the demo data set unless the projects table already has rows."""
    if session.scalar(select(Project.id).limit(1)) is not None:
        return
    clock = (T0 + timedelta(hours=i) for i in range(1000))

    def insert(rows: list[Any]) -> list[Any]:
        # Flushed kind by kind, in list order, so that ids follow the lists above.
        session.add_all(rows)
        session.flush()
        return rows

    people = insert([Person(name=n, email=e, created_at=(t := next(clock)), updated_at=t) for n, e in PEOPLE])
    projects = insert(
        [
            Project(
                name=name,
                description=description,
                status=status,
                archived_at=ARCHIVED_AT if archived else None,
                created_at=(t := next(clock)),
                updated_at=t,
            )
            for name, description, status, archived in PROJECTS
        ]
    )
    milestones = insert(
        [
            Milestone(
                project=projects[p - 1], name=n, due_date=d, status=st, created_at=(t := next(clock)), updated_at=t
            )
            for p, n, d, st in MILESTONES
        ]
    )
    tasks = insert([_task(row, projects, milestones, next(clock)) for row in TASKS])
    insert(
        [
            Assignment(task=task, person=people[i - 1], assigned_at=task.created_at)
            for task, row in zip(tasks, TASKS, strict=True)
            for i in row[6]
        ]
    )
    insert(
        [
            Comment(task=tasks[i - 1], author=a, body=b, created_at=(t := next(clock)), updated_at=t)
            for i, a, b in COMMENTS
        ]
    )


def _task(row: TaskRow, projects: list[Project], milestones: list[Milestone], created: datetime) -> Task:
    project, milestone, title, status, priority, due, _assignees = row
    done = status == "done" and due is not None
    return Task(
        project=projects[project - 1],
        milestone=milestones[milestone - 1] if milestone else None,
        title=title,
        status=status,
        priority=priority,
        due_date=due,
        completed_at=datetime.combine(due, time(17, 0), UTC) if done and due else None,
        created_at=created,
        updated_at=created,
    )
