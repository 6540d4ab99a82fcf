"""Milestones: the dated goals of a project that its tasks work towards."""

from __future__ import annotations

from typing import Any

from domains.projects import inputs, rules, serialize
from domains.projects.entities import MILESTONE, REFERENCED_BY
from domains.projects.tables import Milestone
from facade.kit import CallContext, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability(
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


records.add_get(tools, MILESTONE, example_id=2)
records.add_list(tools, MILESTONE, inputs.MilestoneFilter, example={"project_id": 1}, references=REFERENCED_BY)
records.add_update(
    tools,
    MILESTONE,
    inputs.MilestoneUpdate,
    example={"milestone_id": 3, "due_date": "2026-12-22"},
    check=rules.check_milestone_update,
)
records.add_delete(
    tools,
    MILESTONE,
    example_id=1,
    check=rules.on_milestone_delete,
    description="Delete a milestone; its tasks stay, detached from it.",
)
