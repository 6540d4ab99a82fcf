"""The domain's rules, each written once: archived projects are frozen, a task's milestone
belongs to its project and is open, status moves along allowed transitions, names are unique."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.projects.entities import MILESTONE, PROJECT, writable
from domains.projects.inputs import TaskItem
from domains.projects.serialize import OPEN_STATUSES
from domains.projects.tables import Assignment, Comment, Milestone, Person, Project, Task
from facade.kit import Conflict, InvalidRequest, utcnow

# Where a task may go from each status; "done" and "cancelled" reopen to "todo" only, so that a
# reopened task is triaged again rather than silently resumed.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "todo": ("in_progress", "blocked", "done", "cancelled"),
    "in_progress": ("todo", "blocked", "done", "cancelled"),
    "blocked": ("todo", "in_progress", "cancelled"),
    "done": ("todo",),
    "cancelled": ("todo",),
}


def set_archived(db: Session, project: Project, archived: bool) -> bool:
    """Archive or unarchive; False when the project already is in that state."""
    if (project.archived_at is not None) == archived:
        return False
    project.archived_at = utcnow() if archived else None
    db.flush()
    return True


def writable_project(db: Session, project_id: int) -> Project:
    return writable(PROJECT.fetch(db, project_id))


def milestone_for(db: Session, milestone_id: int, project: Project) -> Milestone:
    """The milestone, if it belongs to `project` and is open."""
    milestone = MILESTONE.fetch(db, milestone_id)
    if milestone.project_id != project.id:
        raise InvalidRequest(
            f"milestone {milestone.id} belongs to project {milestone.project_id}, not project {project.id}; "
            f"pick one from projects.milestone_list with project_id={project.id}, or omit milestone_id"
        )
    if milestone.status == "closed":
        raise Conflict(
            f"milestone {milestone.id} is closed; reopen it with projects.milestone_update status='open' "
            "or pick an open milestone"
        )
    return milestone


def set_status(task: Task, status: str) -> bool:
    """Move the task to `status` if the transition is allowed; False when it already is there."""
    if status == task.status:
        return False
    allowed = TRANSITIONS[task.status]
    if status not in allowed:
        raise Conflict(
            f"task {task.id} cannot go from {task.status} to {status}; "
            f"from {task.status} it can go to {', '.join(allowed)}"
        )
    task.status = status
    task.completed_at = utcnow() if status == "done" else None
    return True


def assign(task: Task, person: Person) -> bool:
    """Assign `person` to `task`; False when already assigned."""
    if any(a.person_id == person.id for a in task.assignments):
        return False
    task.assignments.append(Assignment(person=person))
    return True


def open_task_ids(db: Session, milestone: Milestone) -> list[int]:
    rows = db.scalars(
        select(Task.id).where(Task.milestone_id == milestone.id, Task.status.in_(OPEN_STATUSES)).order_by(Task.id)
    )
    return list(rows)


def project_name_free(db: Session, name: str, except_id: int | None = None) -> None:
    # Case-insensitive, so that "Website" and "website" cannot both exist to confuse a reader.
    clash = db.scalar(select(Project.id).where(func.lower(Project.name) == name.lower(), Project.id != except_id))
    if clash is not None:
        raise Conflict(f"project {clash} is already named {name!r}; choose another name")


def milestone_name_free(db: Session, project_id: int, name: str, except_id: int | None = None) -> None:
    clash = db.scalar(
        select(Milestone.id).where(
            Milestone.project_id == project_id,
            func.lower(Milestone.name) == name.lower(),
            Milestone.id != except_id,
        )
    )
    if clash is not None:
        raise Conflict(f"milestone {clash} of project {project_id} is already named {name!r}; choose another name")


def email_free(db: Session, email: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(Person.id).where(Person.email == email, Person.id != except_id))
    if clash is not None:
        raise Conflict(f"person {clash} already has the email {email}; use that person or another email")


# Update checks: run by the data-driven update after the record is fetched and before the
# changes are written. A check may apply a change itself and remove it from `changes`.


def check_project_update(db: Session, project: Project, changes: dict[str, Any]) -> None:
    if "name" in changes:
        project_name_free(db, changes["name"], project.id)


def check_milestone_update(db: Session, milestone: Milestone, changes: dict[str, Any]) -> None:
    if "name" in changes:
        milestone_name_free(db, milestone.project_id, changes["name"], milestone.id)
    if changes.get("status") == "closed" and milestone.status != "closed":
        still_open = open_task_ids(db, milestone)
        if still_open:
            raise Conflict(
                f"milestone {milestone.id} still has open tasks {still_open}; finish, cancel or move them "
                "(projects.task_update) before closing it"
            )


def check_person_update(db: Session, person: Person, changes: dict[str, Any]) -> None:
    if "email" in changes:
        email_free(db, changes["email"], person.id)


def check_task_update(db: Session, task: Task, changes: dict[str, Any]) -> None:
    if "milestone_id" in changes and changes["milestone_id"] == task.milestone_id:
        del changes["milestone_id"]  # unchanged: a closed milestone may keep the tasks it has
    if "milestone_id" in changes:
        milestone_id = changes.pop("milestone_id")
        task.milestone = milestone_for(db, milestone_id, task.project) if milestone_id is not None else None
    if "status" in changes:
        set_status(task, changes.pop("status"))


def new_task(db: Session, project: Project, item: TaskItem, assignees: Sequence[Person] = ()) -> Task:
    """A task in a writable project, placed in one of that project's open milestones if given."""
    writable(project)
    milestone = milestone_for(db, item.milestone_id, project) if item.milestone_id is not None else None
    task = Task(
        project=project,
        milestone=milestone,
        title=item.title,
        description=item.description,
        priority=item.priority,
        due_date=item.due_date,
    )
    for person in assignees:
        assign(task, person)
    db.add(task)
    db.flush()
    return task


# Delete checks: report what a delete takes with it, so the caller is not surprised later.


def on_milestone_delete(db: Session, milestone: Milestone) -> dict[str, Any]:
    detached = db.scalars(select(Task.id).where(Task.milestone_id == milestone.id).order_by(Task.id))
    return {"detached_task_ids": list(detached)}


def on_task_delete(db: Session, task: Task) -> dict[str, Any]:
    return {"deleted_comments": db.scalar(select(func.count()).where(Comment.task_id == task.id))}


def on_person_delete(db: Session, person: Person) -> dict[str, Any]:
    return {"unassigned_task_ids": sorted(a.task_id for a in person.assignments)}
