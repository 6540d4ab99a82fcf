"""Reads across records: text search, per-project statistics, people's workload and exports."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from typing import Any, get_args

from sqlalchemy import ColumnElement, and_, case, func, or_, select
from sqlalchemy.orm import InstrumentedAttribute, Session, selectinload

from domains.projects import inputs, serialize
from domains.projects.entities import PERSON, PROJECT
from domains.projects.serialize import OPEN_STATUSES
from domains.projects.tables import Assignment, Comment, Milestone, Person, Priority, Project, Task, TaskStatus
from facade.kit import CallContext, Toolset, contains_text

tools = Toolset()
full_tools = Toolset()  # listed after the bulk tools

Hit = Callable[[Any], dict[str, Any]]

# kind -> (table, searched columns, what a hit shows besides kind and id)
SEARCHABLE: dict[str, tuple[type[Any], tuple[InstrumentedAttribute[str], ...], Hit]] = {
    "project": (Project, (Project.name, Project.description), lambda p: {"project_id": p.id, "text": p.name}),
    "milestone": (
        Milestone,
        (Milestone.name, Milestone.description),
        lambda m: {"project_id": m.project_id, "text": m.name},
    ),
    "task": (
        Task,
        (Task.title, Task.description),
        lambda t: {"project_id": t.project_id, "text": t.title, "status": t.status},
    ),
    "comment": (
        Comment,
        (Comment.body,),
        lambda c: {"project_id": c.task.project_id, "task_id": c.task_id, "text": _snippet(c.body)},
    ),
}


def search(db: Session, query: str, kinds: Sequence[str] | None, limit: int, offset: int) -> dict[str, Any]:
    """Case-insensitive substring search; hits are ordered by kind, then id, and paginated as one list."""
    hits: list[dict[str, Any]] = []
    total = 0
    for kind in dict.fromkeys(kinds or SEARCHABLE):
        table, columns, show = SEARCHABLE[kind]
        matches = or_(*(contains_text(column, query) for column in columns))
        count = db.scalar(select(func.count()).select_from(table).where(matches)) or 0
        start, room = max(offset - total, 0), limit - len(hits)
        if room > 0 and start < count:
            rows = db.scalars(select(table).where(matches).order_by(table.id).offset(start).limit(room))
            hits.extend({"kind": kind, "id": row.id, **show(row)} for row in rows)
        total += count
    return {"results": hits, "total": total}


def _snippet(text: str, width: int = 120) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _today() -> date:
    return datetime.now(UTC).date()


def _is_open() -> ColumnElement[bool]:
    return Task.status.in_(OPEN_STATUSES)


def _is_overdue(today: date) -> ColumnElement[bool]:
    return and_(_is_open(), Task.due_date.is_not(None), Task.due_date < today)


def _completion(done: int, total: int, cancelled: int) -> int | None:
    """Percent of the work that was not cancelled which is done; None when there is none."""
    counted = total - cancelled
    return round(100 * done / counted) if counted else None


def project_stats(db: Session, project: Project) -> dict[str, Any]:
    in_project = Task.project_id == project.id
    by_status = dict.fromkeys(get_args(TaskStatus), 0)
    # .all(): a Result has keys() (its column names), which dict.update would take for a mapping.
    by_status.update(db.execute(select(Task.status, func.count()).where(in_project).group_by(Task.status)).all())
    open_by_priority = dict.fromkeys(get_args(Priority), 0)
    open_by_priority.update(
        db.execute(select(Task.priority, func.count()).where(in_project, _is_open()).group_by(Task.priority)).all()
    )
    overdue = db.scalar(select(func.count()).select_from(Task).where(in_project, _is_overdue(_today())))
    per_milestone: dict[int | None, dict[str, int]] = {}
    for milestone_id, status, count in db.execute(
        select(Task.milestone_id, Task.status, func.count())
        .where(in_project, Task.milestone_id.is_not(None))
        .group_by(Task.milestone_id, Task.status)
    ):
        per_milestone.setdefault(milestone_id, {})[status] = count
    assignees = db.execute(
        select(Person.id, Person.name, func.count(Task.id))
        .join(Assignment, Assignment.person_id == Person.id)
        .join(Task, Task.id == Assignment.task_id)
        .where(in_project, _is_open())
        .group_by(Person.id, Person.name)
        .order_by(Person.id)
    ).all()
    total = sum(by_status.values())
    return {
        "project_id": project.id,
        "tasks": {
            "total": total,
            "by_status": by_status,
            "open_by_priority": open_by_priority,
            "overdue": overdue,
            "completion_percent": _completion(by_status["done"], total, by_status["cancelled"]),
        },
        "milestones": [_milestone_stats(m, per_milestone.get(m.id, {})) for m in project.milestones],
        "open_tasks_by_assignee": [{"person_id": i, "name": n, "open_tasks": c} for i, n, c in assignees],
    }


def _milestone_stats(milestone: Milestone, counts: dict[str, int]) -> dict[str, Any]:
    total, done, cancelled = sum(counts.values()), counts.get("done", 0), counts.get("cancelled", 0)
    return {
        "id": milestone.id,
        "name": milestone.name,
        "status": milestone.status,
        "due_date": serialize.iso(milestone.due_date),
        "tasks": total,
        "done": done,
        "completion_percent": _completion(done, total, cancelled),
    }


def workload(db: Session, people: list[Person]) -> dict[str, Any]:
    """Open tasks per person in projects that are not archived (archived work is frozen, not owed)."""
    rows = db.execute(
        select(
            Assignment.person_id,
            Task.priority,
            func.count(),
            func.sum(case((_is_overdue(_today()), 1), else_=0)),
        )
        .join(Task, Task.id == Assignment.task_id)
        .join(Project, Project.id == Task.project_id)
        .where(_is_open(), Project.archived_at.is_(None), Assignment.person_id.in_([p.id for p in people]))
        .group_by(Assignment.person_id, Task.priority)
    ).all()
    report: dict[int, dict[str, Any]] = {
        p.id: {"person_id": p.id, "name": p.name, "open_tasks": 0, "overdue": 0, "by_priority": {}} for p in people
    }
    for entry in report.values():
        entry["by_priority"] = dict.fromkeys(get_args(Priority), 0)
    for person_id, priority, count, overdue in rows:
        entry = report[person_id]
        entry["open_tasks"] += count
        entry["overdue"] += int(overdue or 0)
        entry["by_priority"][priority] = count
    return {"people": list(report.values())}


CSV_COLUMNS = ("id", "title", "status", "priority", "milestone", "due_date", "assignees", "completed_at")


def export(db: Session, project: Project, fmt: str) -> dict[str, Any]:
    tasks = db.scalars(
        select(Task)
        .where(Task.project_id == project.id)
        .options(selectinload(Task.assignments), selectinload(Task.comments))
        .order_by(Task.id)
    ).all()
    if fmt == "csv":
        names = {m.id: m.name for m in project.milestones}
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for t in tasks:
            writer.writerow(
                [
                    t.id,
                    t.title,
                    t.status,
                    t.priority,
                    names.get(t.milestone_id, "") if t.milestone_id else "",
                    serialize.iso(t.due_date) or "",
                    "; ".join(a.person.name for a in t.assignments),
                    serialize.iso(t.completed_at) or "",
                ]
            )
        data: Any = out.getvalue()
    else:
        data = {
            "project": serialize.project(project),
            "milestones": [serialize.milestone(m) for m in project.milestones],
            "tasks": [{**serialize.task(t), "comments": [serialize.comment(c) for c in t.comments]} for t in tasks],
        }
    return {"project_id": project.id, "format": fmt, "data": data}


@tools.capability("search", tier="core", read_only=True, example={"query": "launch"})
def search_text(ctx: CallContext, args: inputs.Search) -> dict[str, Any]:
    """Find projects, milestones, tasks and comments containing some text."""
    return search(ctx.db, args.query, args.kinds, args.limit, args.offset)


@full_tools.capability("project_stats", tier="full", read_only=True, example={"project_id": 1})
def stats(ctx: CallContext, args: inputs.ProjectRef) -> dict[str, Any]:
    """Count a project's tasks by status, priority, milestone and assignee."""
    return project_stats(ctx.db, PROJECT.fetch(ctx.db, args.project_id))


@full_tools.capability("person_workload", tier="full", read_only=True, example={})
def person_workload(ctx: CallContext, args: inputs.Workload) -> dict[str, Any]:
    """Count each person's open and overdue tasks in active projects."""
    if args.person_id is not None:
        people = [PERSON.fetch(ctx.db, args.person_id)]
    else:
        people = list(ctx.db.scalars(select(Person).order_by(Person.id)))
    return workload(ctx.db, people)


@full_tools.capability("project_export", tier="full", read_only=True, example={"project_id": 1})
def project_export(ctx: CallContext, args: inputs.ProjectExport) -> dict[str, Any]:
    """Export a project with its milestones, tasks and comments as JSON or CSV."""
    return export(ctx.db, PROJECT.fetch(ctx.db, args.project_id), args.format)
