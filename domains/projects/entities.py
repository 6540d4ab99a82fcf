"""The domain's entities as data: what each is called, its table, how it renders, and which
project guards writes to it. Lookups and the data-driven get/list/update/delete read these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy.orm import Session, selectinload
from sqlalchemy.orm.interfaces import LoaderOption

from domains.projects import serialize
from domains.projects.tables import Comment, Milestone, Person, Project, Task
from facade.kit import NotFound

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Entity(Generic[T]):
    """One kind of record.

    Attributes:
        name: singular, as in capability names (`task` in `projects.task_get`).
        plural: the key of list results.
        table: the mapped class.
        render: record -> JSON-friendly dict.
        project_of: the project whose archived state freezes this record; None if none does.
        load: loader options that keep `render` from querying once per row.
    """

    name: str
    plural: str
    table: type[T]
    render: Callable[[T], dict[str, Any]]
    project_of: Callable[[T], Project] | None = None
    load: tuple[LoaderOption, ...] = ()

    @property
    def id_field(self) -> str:
        return f"{self.name}_id"

    def fetch(self, db: Session, record_id: int) -> T:
        """The record, or NotFound naming the tool that lists the valid ids."""
        record = db.get(self.table, record_id, options=self.load)
        if record is None:
            raise NotFound(f"{self.name} {record_id} does not exist; list {self.plural} with projects.{self.name}_list")
        return record


PROJECT: Entity[Project] = Entity("project", "projects", Project, serialize.project, project_of=lambda p: p)
MILESTONE: Entity[Milestone] = Entity(
    "milestone", "milestones", Milestone, serialize.milestone, project_of=lambda m: m.project
)
PERSON: Entity[Person] = Entity("person", "people", Person, serialize.person)
TASK: Entity[Task] = Entity(
    "task",
    "tasks",
    Task,
    serialize.task,
    project_of=lambda t: t.project,
    load=(selectinload(Task.assignments),),
)
COMMENT: Entity[Comment] = Entity(
    "comment", "comments", Comment, serialize.comment, project_of=lambda c: c.task.project
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
