"""The domain's entities as data: what each is called, its table, how it renders, and which
project guards writes to it (facade.kit.records builds their get/list/update/delete from these)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import selectinload

from domains.projects import serialize
from domains.projects.tables import Comment, Milestone, Person, Project, Task
from facade.kit import Conflict, Entity


def writable(project: Project) -> Project:
    """The project, if it is not archived: an archived project and everything in it is frozen."""
    if project.archived_at is not None:
        raise Conflict(
            f"project {project.id} is archived and read-only; unarchive it with projects.project_unarchive first"
        )
    return project


def _guard(project_of: Callable[[Any], Project]) -> Callable[[Any], None]:
    """A record is frozen while the project it belongs to is archived."""

    def guard(record: Any) -> None:
        writable(project_of(record))

    return guard


PROJECT: Entity[Project] = Entity("projects", "project", "projects", Project, serialize.project, _guard(lambda p: p))
MILESTONE: Entity[Milestone] = Entity(
    "projects", "milestone", "milestones", Milestone, serialize.milestone, _guard(lambda m: m.project)
)
PERSON: Entity[Person] = Entity("projects", "person", "people", Person, serialize.person)
TASK: Entity[Task] = Entity(
    "projects", "task", "tasks", Task, serialize.task, _guard(lambda t: t.project), load=(selectinload(Task.assignments),)
)
COMMENT: Entity[Comment] = Entity(
    "projects", "comment", "comments", Comment, serialize.comment, _guard(lambda c: c.task.project)
)

# Filter fields that name a record: a list filtered by a missing record says so instead of
# answering with an empty page the model would misread as "none yet".
REFERENCED_BY: dict[str, Entity[Any]] = {
    "project_id": PROJECT,
    "milestone_id": MILESTONE,
    "task_id": TASK,
    "person_id": PERSON,
    "assignee_id": PERSON,
}
