"""Projects themselves: creating, reading, changing and deleting them, and (listed last, in the
full tier) duplicating, archiving and unarchiving them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select

from domains.projects import bulk, inputs, rules, serialize
from domains.projects.entities import PROJECT, REFERENCED_BY
from domains.projects.tables import Project, Task
from facade.kit import CallContext, Conflict, Toolset, records

Result = dict[str, Any]
tools = Toolset()
full_tools = Toolset()  # listed after every other module's tools


@tools.capability(
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


records.add_get(tools, PROJECT, example_id=1)
records.add_list(tools, PROJECT, inputs.ProjectFilter, example={}, where=_projects_where, references=REFERENCED_BY)
records.add_update(
    tools,
    PROJECT,
    inputs.ProjectUpdate,
    example={"project_id": 1, "description": "Relaunch of the public website on the new CMS."},
    check=rules.check_project_update,
)


# A project goes with all its tasks (force=true) and nothing restores it: the host asks first (approval 1).
@tools.capability("project_delete", tier="core", approval=1, destructive=True, idempotent=True, example={"project_id": 5})
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


@full_tools.capability("project_duplicate", tier="full", example={"project_id": 4, "name": "2026 annual report"})
def project_duplicate(ctx: CallContext, args: inputs.ProjectDuplicate) -> Result:
    """Copy a project's milestones and tasks, reopened, into a new project."""
    source = PROJECT.fetch(ctx.db, args.project_id)
    return bulk.duplicate_project(ctx.db, source, args.name, args.include_tasks)


@full_tools.capability("project_archive", tier="full", idempotent=True, example={"project_id": 3})
def project_archive(ctx: CallContext, args: inputs.ProjectRef) -> Result:
    """Archive a project, freezing it and its contents."""
    project = PROJECT.fetch(ctx.db, args.project_id)
    changed = rules.set_archived(ctx.db, project, True)
    return {"project": serialize.project(project), "changed": changed}


@full_tools.capability("project_unarchive", tier="full", idempotent=True, example={"project_id": 4})
def project_unarchive(ctx: CallContext, args: inputs.ProjectRef) -> Result:
    """Unarchive a project so that it can change again."""
    project = PROJECT.fetch(ctx.db, args.project_id)
    changed = rules.set_archived(ctx.db, project, False)
    return {"project": serialize.project(project), "changed": changed}
