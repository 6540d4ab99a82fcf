"""Tasks: the work of a project, with a status, a priority, a due date and assignees."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement

from domains.projects import inputs, rules, serialize
from domains.projects.entities import PERSON, PROJECT, REFERENCED_BY, TASK
from domains.projects.tables import Assignment, Task
from facade.kit import CallContext, NotFound, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability(
    "task_create",
    tier="core",
    example={
        "project_id": 1,
        "title": "Update the privacy policy page",
        "priority": "high",
        "due_date": "2027-01-08",
        "milestone_id": 2,
        "assignee_ids": [1],
    },
)
def task_create(ctx: CallContext, args: inputs.TaskCreate) -> Result:
    """Create a task in a project."""
    project = PROJECT.fetch(ctx.db, args.project_id)
    people = [PERSON.fetch(ctx.db, person_id) for person_id in dict.fromkeys(args.assignee_ids)]
    return {"task": serialize.task(rules.new_task(ctx.db, project, args, people))}


def _tasks_where(args: inputs.TaskFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.assignee_id is not None:
        conditions.append(Task.assignments.any(Assignment.person_id == args.assignee_id))
    if args.due_before is not None:
        conditions.append(Task.due_date < args.due_before)
    return conditions


records.add_get(tools, TASK, example_id=2)
records.add_list(
    tools, TASK, inputs.TaskFilter, example={"project_id": 1, "status": "todo"}, where=_tasks_where, references=REFERENCED_BY
)
records.add_update(
    tools, TASK, inputs.TaskUpdate, example={"task_id": 3, "status": "in_progress"}, check=rules.check_task_update
)


@tools.capability("task_assign", tier="core", idempotent=True, example={"task_id": 7, "person_id": 1})
def task_assign(ctx: CallContext, args: inputs.TaskPerson) -> Result:
    """Assign a person to a task."""
    task = TASK.fetch(ctx.db, args.task_id)
    rules.writable(task.project)
    changed = rules.assign(task, PERSON.fetch(ctx.db, args.person_id))
    ctx.db.flush()
    return {"task": serialize.task(task), "changed": changed}


@tools.capability("task_unassign", tier="core", idempotent=True, example={"task_id": 4, "person_id": 3})
def task_unassign(ctx: CallContext, args: inputs.TaskPerson) -> Result:
    """Remove a person from a task."""
    task = TASK.fetch(ctx.db, args.task_id)
    rules.writable(task.project)
    assignment = next((a for a in task.assignments if a.person_id == args.person_id), None)
    if assignment is None:
        raise NotFound(
            f"person {args.person_id} is not assigned to task {task.id}; its assignees are listed by projects.task_get"
        )
    task.assignments.remove(assignment)
    ctx.db.flush()
    return {"task": serialize.task(task)}


records.add_delete(tools, TASK, example_id=14, check=rules.on_task_delete, description="Delete a task and its comments.")
