"""Operations over many tasks at once. Each item succeeds or fails on its own and the result
reports every item, so that one bad id does not sink the other ninety-nine; a failed item
changes nothing (every check runs before the item is touched)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from domains.projects import inputs, rules, serialize
from domains.projects.entities import PERSON, PROJECT, TASK
from domains.projects.inputs import TaskItem
from domains.projects.tables import Milestone, Project, Task
from facade.kit import CallContext, InvalidRequest, Toolset, each

tools = Toolset()


def create_tasks(db: Session, project: Project, items: list[TaskItem]) -> dict[str, Any]:
    rules.writable(project)  # the whole call targets one project: refuse it whole, not per item

    def create(index: int) -> dict[str, Any]:
        return {"task_id": rules.new_task(db, project, items[index]).id}

    return each(range(len(items)), "index", create)


def set_status(db: Session, task_ids: list[int], status: str) -> dict[str, Any]:
    def move(task_id: int) -> dict[str, Any]:
        task = TASK.fetch(db, task_id)
        rules.writable(task.project)
        return {"changed": rules.set_status(task, status), "status": task.status}

    outcome = each(task_ids, "task_id", move)
    db.flush()
    return outcome


def assign(db: Session, task_ids: list[int], person_id: int) -> dict[str, Any]:
    person = PERSON.fetch(db, person_id)  # one person for every item: a missing one fails the call

    def add(task_id: int) -> dict[str, Any]:
        task = TASK.fetch(db, task_id)
        rules.writable(task.project)
        return {"changed": rules.assign(task, person)}

    outcome = each(task_ids, "task_id", add)
    db.flush()
    return outcome


def delete(db: Session, task_ids: list[int]) -> dict[str, Any]:
    def remove(task_id: int) -> dict[str, Any]:
        task = TASK.fetch(db, task_id)
        rules.writable(task.project)
        extra = rules.on_task_delete(db, task)
        db.delete(task)
        db.flush()
        return extra

    return each(task_ids, "task_id", remove)


def move_task(db: Session, task: Task, target: Project, milestone_id: int | None) -> Task:
    """Move a task, with its comments and assignees, into another project."""
    rules.writable(task.project)
    rules.writable(target)
    if target.id == task.project_id:
        raise InvalidRequest(
            f"task {task.id} is already in project {target.id}; to change its milestone use projects.task_update"
        )
    # Checked before anything changes, so a refused move leaves the task where it was.
    milestone = rules.milestone_for(db, milestone_id, target) if milestone_id is not None else None
    task.project = target
    task.milestone = milestone
    db.flush()
    return task


def duplicate_project(db: Session, source: Project, name: str, include_tasks: bool) -> dict[str, Any]:
    """A new active project with the source's milestones (reopened) and, optionally, its tasks
    (back to todo, unassigned, without comments): a template for the next round of the same work."""
    rules.project_name_free(db, name)
    # Read before anything is added: autoflush must not run halfway through building the copy.
    source_milestones, tasks = list(source.milestones), list(source.tasks) if include_tasks else []
    copy = Project(name=name, description=source.description, status="active")
    db.add(copy)
    milestones = {
        m.id: Milestone(project=copy, name=m.name, description=m.description, due_date=m.due_date)
        for m in source_milestones
    }
    db.add_all(milestones.values())
    for t in tasks:
        copied = Task(
            project=copy,
            milestone=milestones.get(t.milestone_id) if t.milestone_id else None,
            title=t.title,
            description=t.description,
            priority=t.priority,
            due_date=t.due_date,
        )
        db.add(copied)
    db.flush()
    return {"project": serialize.project(copy), "copied": {"milestones": len(milestones), "tasks": len(tasks)}}


@tools.capability("task_move", tier="full", example={"task_id": 9, "project_id": 1, "milestone_id": 2})
def task_move(ctx: CallContext, args: inputs.TaskMove) -> dict[str, Any]:
    """Move a task, with its comments and assignees, to another project."""
    task = TASK.fetch(ctx.db, args.task_id)
    target = PROJECT.fetch(ctx.db, args.project_id)
    return {"task": serialize.task(move_task(ctx.db, task, target, args.milestone_id))}


@tools.capability(
    "task_bulk_create",
    tier="full",
    example={
        "project_id": 2,
        "tasks": [
            {"title": "Dark mode", "milestone_id": 3},
            {"title": "Tablet layout", "priority": "low"},
        ],
    },
)
def task_bulk_create(ctx: CallContext, args: inputs.TaskBulkCreate) -> dict[str, Any]:
    """Create several tasks in a project, reporting each one's result."""
    return create_tasks(ctx.db, PROJECT.fetch(ctx.db, args.project_id), args.tasks)


@tools.capability(
    "task_bulk_set_status", tier="full", idempotent=True, example={"task_ids": [7, 9], "status": "in_progress"}
)
def task_bulk_set_status(ctx: CallContext, args: inputs.TaskBulkStatus) -> dict[str, Any]:
    """Set the status of several tasks, reporting each one's result."""
    return set_status(ctx.db, args.task_ids, args.status)


@tools.capability("task_bulk_assign", tier="full", idempotent=True, example={"task_ids": [5, 6], "person_id": 2})
def task_bulk_assign(ctx: CallContext, args: inputs.TaskBulkAssign) -> dict[str, Any]:
    """Assign a person to several tasks, reporting each one's result."""
    return assign(ctx.db, args.task_ids, args.person_id)


# Many tasks at once, for good: the host asks its user first (approval 1).
@tools.capability("task_bulk_delete", tier="full", approval=1, destructive=True, idempotent=True, example={"task_ids": [15]})
def task_bulk_delete(ctx: CallContext, args: inputs.TaskBulkDelete) -> dict[str, Any]:
    """Delete several tasks, reporting each one's result."""
    return delete(ctx.db, args.task_ids)
