"""Records as JSON-friendly dicts: ids, plain strings, ISO dates and timestamps."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from domains.projects.tables import Comment, Milestone, Person, Project, Task
from facade.kit import iso

OPEN_STATUSES: tuple[str, ...] = ("todo", "in_progress", "blocked")


def is_overdue(task: Task, today: date | None = None) -> bool:
    today = today or datetime.now(UTC).date()
    return task.status in OPEN_STATUSES and task.due_date is not None and task.due_date < today


def project(p: Project) -> dict[str, Any]:
    return {
        "id": p.id,
        "name": p.name,
        "description": p.description,
        "status": p.status,
        "archived": p.archived_at is not None,
        "archived_at": iso(p.archived_at),
        "created_at": iso(p.created_at),
        "updated_at": iso(p.updated_at),
    }


def milestone(m: Milestone) -> dict[str, Any]:
    return {
        "id": m.id,
        "project_id": m.project_id,
        "name": m.name,
        "description": m.description,
        "due_date": iso(m.due_date),
        "status": m.status,
        "created_at": iso(m.created_at),
        "updated_at": iso(m.updated_at),
    }


def person(p: Person) -> dict[str, Any]:
    return {"id": p.id, "name": p.name, "email": p.email, "created_at": iso(p.created_at)}


def task(t: Task) -> dict[str, Any]:
    return {
        "id": t.id,
        "project_id": t.project_id,
        "milestone_id": t.milestone_id,
        "title": t.title,
        "description": t.description,
        "status": t.status,
        "priority": t.priority,
        "due_date": iso(t.due_date),
        "overdue": is_overdue(t),
        "completed_at": iso(t.completed_at),
        "assignees": [{"id": a.person.id, "name": a.person.name} for a in t.assignments],
        "created_at": iso(t.created_at),
        "updated_at": iso(t.updated_at),
    }


def comment(c: Comment) -> dict[str, Any]:
    return {
        "id": c.id,
        "task_id": c.task_id,
        "author": c.author,
        "body": c.body,
        "created_at": iso(c.created_at),
        "updated_at": iso(c.updated_at),
    }
