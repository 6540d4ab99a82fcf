"""The projects domain and its capabilities, in registration order.

The order matters: every capability's example runs, in this order, against a freshly seeded
database and must succeed, so a delete comes after the reads of what it deletes and targets a
record the seed or an earlier example made for it. Seeded ids: projects 1-4 (4 archived),
milestones 1-5, people 1-4, tasks 1-13, comments 1-5; ids are never reused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, func, select

from domains.projects import bulk, inputs, reports, rules, serialize
from domains.projects.entities import COMMENT, MILESTONE, PERSON, PROJECT, REFERENCED_BY, TASK
from domains.projects.seed import seed
from domains.projects.tables import Assignment, Comment, Milestone, Person, Project, Task
from facade.kit import CallContext, Conflict, Domain, NotFound, records

Result = dict[str, Any]

domain = Domain(
    "projects",
    description="Projects, tasks, milestones and comments.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# Projects


@domain.capability(
    "project_create",
    tier="core",
    example={"name": "Customer portal", "description": "Self-service invoices and support tickets."},
)
def project_create(ctx: CallContext, args: inputs.ProjectCreate) -> Result:
    """Create a project."""
    rules.project_name_free(ctx.db, args.name)
    project = Project(name=args.name, description=args.description, status=args.status)
    ctx.db.add(project)
    ctx.db.flush()
    return {"project": serialize.project(project)}


def _projects_where(args: inputs.ProjectFilter) -> list[ColumnElement[bool]]:
    return [] if args.include_archived else [Project.archived_at.is_(None)]


records.add_get(domain, PROJECT, example_id=1)
records.add_list(domain, PROJECT, inputs.ProjectFilter, example={}, where=_projects_where, references=REFERENCED_BY)
records.add_update(
    domain,
    PROJECT,
    inputs.ProjectUpdate,
    example={"project_id": 1, "description": "Relaunch of the public website on the new CMS."},
    check=rules.check_project_update,
)


@domain.capability("project_delete", tier="core", destructive=True, idempotent=True, example={"project_id": 5})
def project_delete(ctx: CallContext, args: inputs.ProjectDelete) -> Result:
    """Delete a project; one that still has tasks needs force=true."""
    project = PROJECT.fetch(ctx.db, args.project_id)
    task_count = ctx.db.scalar(select(func.count()).where(Task.project_id == project.id)) or 0
    if task_count and not args.force:
        raise Conflict(
            f"project {project.id} still has {task_count} tasks; pass force=true to delete them with it, "
            "or archive the project instead (projects.project_archive)"
        )
    ctx.db.delete(project)
    ctx.db.flush()
    return {"deleted": {"project_id": args.project_id}, "deleted_tasks": task_count}


# Milestones


@domain.capability(
    "milestone_create",
    tier="core",
    example={"project_id": 2, "name": "Store release", "due_date": "2027-02-26"},
)
def milestone_create(ctx: CallContext, args: inputs.MilestoneCreate) -> Result:
    """Create a milestone in a project."""
    project = rules.writable_project(ctx.db, args.project_id)
    rules.milestone_name_free(ctx.db, project.id, args.name)
    milestone = Milestone(project=project, name=args.name, description=args.description, due_date=args.due_date)
    ctx.db.add(milestone)
    ctx.db.flush()
    return {"milestone": serialize.milestone(milestone)}


records.add_get(domain, MILESTONE, example_id=2)
records.add_list(domain, MILESTONE, inputs.MilestoneFilter, example={"project_id": 1}, references=REFERENCED_BY)
records.add_update(
    domain,
    MILESTONE,
    inputs.MilestoneUpdate,
    example={"milestone_id": 3, "due_date": "2026-12-22"},
    check=rules.check_milestone_update,
)
records.add_delete(
    domain,
    MILESTONE,
    example_id=6,
    check=rules.on_milestone_delete,
    description="Delete a milestone; its tasks stay, detached from it.",
)

# People


@domain.capability("person_create", tier="core", example={"name": "Margaret Hamilton", "email": "margaret@example.com"})
def person_create(ctx: CallContext, args: inputs.PersonCreate) -> Result:
    """Add a person who can be assigned to tasks."""
    rules.email_free(ctx.db, args.email)
    person = Person(name=args.name, email=args.email)
    ctx.db.add(person)
    ctx.db.flush()
    return {"person": serialize.person(person)}


records.add_get(domain, PERSON, example_id=1)
records.add_list(domain, PERSON, inputs.PersonFilter, example={}, description="List people.", references=REFERENCED_BY)
records.add_update(
    domain,
    PERSON,
    inputs.PersonUpdate,
    example={"person_id": 4, "email": "katherine.johnson@example.com"},
    check=rules.check_person_update,
)
records.add_delete(
    domain,
    PERSON,
    example_id=5,
    check=rules.on_person_delete,
    description="Delete a person and their task assignments.",
)

# Tasks


@domain.capability(
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


records.add_get(domain, TASK, example_id=2)
records.add_list(
    domain, TASK, inputs.TaskFilter, example={"project_id": 1, "status": "todo"}, where=_tasks_where, references=REFERENCED_BY
)
records.add_update(
    domain, TASK, inputs.TaskUpdate, example={"task_id": 3, "status": "in_progress"}, check=rules.check_task_update
)


@domain.capability("task_assign", tier="core", idempotent=True, example={"task_id": 7, "person_id": 1})
def task_assign(ctx: CallContext, args: inputs.TaskPerson) -> Result:
    """Assign a person to a task."""
    task = TASK.fetch(ctx.db, args.task_id)
    rules.writable(task.project)
    changed = rules.assign(task, PERSON.fetch(ctx.db, args.person_id))
    ctx.db.flush()
    return {"task": serialize.task(task), "changed": changed}


@domain.capability("task_unassign", tier="core", idempotent=True, example={"task_id": 4, "person_id": 3})
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


records.add_delete(domain, TASK, example_id=14, check=rules.on_task_delete, description="Delete a task and its comments.")

# Comments


@domain.capability(
    "comment_create",
    tier="core",
    example={"task_id": 3, "body": "Redirect map drafted: 212 old URLs covered so far."},
)
def comment_create(ctx: CallContext, args: inputs.CommentCreate) -> Result:
    """Comment on a task."""
    task = TASK.fetch(ctx.db, args.task_id)
    rules.writable(task.project)
    comment = Comment(task=task, body=args.body, author=args.author or ctx.agent[:120])
    ctx.db.add(comment)
    ctx.db.flush()
    return {"comment": serialize.comment(comment)}


records.add_get(domain, COMMENT, example_id=1)
records.add_list(domain, COMMENT, inputs.CommentFilter, example={"task_id": 2}, references=REFERENCED_BY)
records.add_update(
    domain,
    COMMENT,
    inputs.CommentUpdate,
    example={"comment_id": 6, "body": "Redirect map done: all 240 old URLs covered."},
)
records.add_delete(domain, COMMENT, example_id=6)


@domain.capability("search", tier="core", read_only=True, example={"query": "launch"})
def search(ctx: CallContext, args: inputs.Search) -> Result:
    """Find projects, milestones, tasks and comments containing some text."""
    return reports.search(ctx.db, args.query, args.kinds, args.limit, args.offset)


# Full tier: moving, bulk operations, statistics, export, duplication, archiving.


@domain.capability("task_move", tier="full", example={"task_id": 9, "project_id": 1, "milestone_id": 2})
def task_move(ctx: CallContext, args: inputs.TaskMove) -> Result:
    """Move a task, with its comments and assignees, to another project."""
    task = TASK.fetch(ctx.db, args.task_id)
    target = PROJECT.fetch(ctx.db, args.project_id)
    return {"task": serialize.task(bulk.move_task(ctx.db, task, target, args.milestone_id))}


@domain.capability(
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
def task_bulk_create(ctx: CallContext, args: inputs.TaskBulkCreate) -> Result:
    """Create several tasks in a project, reporting each one's result."""
    return bulk.create_tasks(ctx.db, PROJECT.fetch(ctx.db, args.project_id), args.tasks)


@domain.capability(
    "task_bulk_set_status", tier="full", idempotent=True, example={"task_ids": [7, 15], "status": "in_progress"}
)
def task_bulk_set_status(ctx: CallContext, args: inputs.TaskBulkStatus) -> Result:
    """Set the status of several tasks, reporting each one's result."""
    return bulk.set_status(ctx.db, args.task_ids, args.status)


@domain.capability("task_bulk_assign", tier="full", idempotent=True, example={"task_ids": [15, 16], "person_id": 2})
def task_bulk_assign(ctx: CallContext, args: inputs.TaskBulkAssign) -> Result:
    """Assign a person to several tasks, reporting each one's result."""
    return bulk.assign(ctx.db, args.task_ids, args.person_id)


@domain.capability("task_bulk_delete", tier="full", destructive=True, idempotent=True, example={"task_ids": [16]})
def task_bulk_delete(ctx: CallContext, args: inputs.TaskBulkDelete) -> Result:
    """Delete several tasks, reporting each one's result."""
    return bulk.delete(ctx.db, args.task_ids)


@domain.capability("project_stats", tier="full", read_only=True, example={"project_id": 1})
def project_stats(ctx: CallContext, args: inputs.ProjectRef) -> Result:
    """Count a project's tasks by status, priority, milestone and assignee."""
    return reports.project_stats(ctx.db, PROJECT.fetch(ctx.db, args.project_id))


@domain.capability("person_workload", tier="full", read_only=True, example={})
def person_workload(ctx: CallContext, args: inputs.Workload) -> Result:
    """Count each person's open and overdue tasks in active projects."""
    if args.person_id is not None:
        people = [PERSON.fetch(ctx.db, args.person_id)]
    else:
        people = list(ctx.db.scalars(select(Person).order_by(Person.id)))
    return reports.workload(ctx.db, people)


@domain.capability("project_export", tier="full", read_only=True, example={"project_id": 1})
def project_export(ctx: CallContext, args: inputs.ProjectExport) -> Result:
    """Export a project with its milestones, tasks and comments as JSON or CSV."""
    return reports.export(ctx.db, PROJECT.fetch(ctx.db, args.project_id), args.format)


@domain.capability("project_duplicate", tier="full", example={"project_id": 4, "name": "2026 annual report"})
def project_duplicate(ctx: CallContext, args: inputs.ProjectDuplicate) -> Result:
    """Copy a project's milestones and tasks, reopened, into a new project."""
    source = PROJECT.fetch(ctx.db, args.project_id)
    return bulk.duplicate_project(ctx.db, source, args.name, args.include_tasks)


@domain.capability("project_archive", tier="full", idempotent=True, example={"project_id": 3})
def project_archive(ctx: CallContext, args: inputs.ProjectRef) -> Result:
    """Archive a project, freezing it and its contents."""
    project = PROJECT.fetch(ctx.db, args.project_id)
    changed = rules.set_archived(ctx.db, project, True)
    return {"project": serialize.project(project), "changed": changed}


@domain.capability("project_unarchive", tier="full", idempotent=True, example={"project_id": 4})
def project_unarchive(ctx: CallContext, args: inputs.ProjectRef) -> Result:
    """Unarchive a project so that it can change again."""
    project = PROJECT.fetch(ctx.db, args.project_id)
    changed = rules.set_archived(ctx.db, project, False)
    return {"project": serialize.project(project), "changed": changed}
