"""The arguments of every projects capability. Field names say what they hold; a description is
given only where the name alone does not."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field

from domains.projects.tables import MilestoneStatus, Priority, ProjectStatus, TaskStatus
from facade.kit import Input

Id = Annotated[int, Field(ge=1)]
Name = Annotated[str, Field(min_length=1, max_length=120)]
Title = Annotated[str, Field(min_length=1, max_length=200)]
Text = Annotated[str, Field(max_length=5000)]
Body = Annotated[str, Field(min_length=1, max_length=5000)]
Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
TaskIds = Annotated[list[Id], Field(min_length=1, max_length=100)]


class Args(Input):
    """Arguments with surrounding whitespace stripped, so that "  " is no name."""

    model_config = ConfigDict(str_strip_whitespace=True)


class Page(Args):
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0)


# Projects


class ProjectCreate(Args):
    name: Name
    description: Text = ""
    status: ProjectStatus = "active"


class ProjectRef(Args):
    project_id: Id


class ProjectUpdate(Args):
    project_id: Id
    name: Name | None = None
    description: Text | None = None
    status: ProjectStatus | None = None


class ProjectFilter(Page):
    status: ProjectStatus | None = None
    include_archived: bool = False


class ProjectDelete(Args):
    project_id: Id
    force: bool = Field(False, description="Also delete its tasks, milestones and comments.")


class ProjectExport(Args):
    project_id: Id
    format: Literal["json", "csv"] = Field("json", description="csv: one row per task.")


class ProjectDuplicate(Args):
    project_id: Id
    name: Name = Field(description="Name of the copy.")
    include_tasks: bool = True


# Milestones


class MilestoneCreate(Args):
    project_id: Id
    name: Name
    description: Text = ""
    due_date: date | None = None


class MilestoneUpdate(Args):
    milestone_id: Id
    name: Name | None = None
    description: Text | None = None
    due_date: date | None = None
    status: MilestoneStatus | None = None


class MilestoneFilter(Page):
    project_id: Id | None = None
    status: MilestoneStatus | None = None


# People


class PersonCreate(Args):
    name: Name
    email: Email


class PersonUpdate(Args):
    person_id: Id
    name: Name | None = None
    email: Email | None = None


class PersonFilter(Page):
    pass


# Tasks


class TaskItem(Args):
    title: Title
    description: Text = ""
    priority: Priority = "medium"
    due_date: date | None = None
    milestone_id: Id | None = None


class TaskCreate(TaskItem):
    project_id: Id
    assignee_ids: list[Id] = Field(default_factory=list, max_length=20, description="Person ids.")


class TaskUpdate(Args):
    task_id: Id
    title: Title | None = None
    description: Text | None = None
    status: TaskStatus | None = None
    priority: Priority | None = None
    due_date: date | None = None
    milestone_id: Id | None = Field(None, description="null detaches the task from its milestone.")


class TaskFilter(Page):
    project_id: Id | None = None
    milestone_id: Id | None = None
    status: TaskStatus | None = None
    priority: Priority | None = None
    assignee_id: Id | None = Field(None, description="Person id.")
    due_before: date | None = None


class TaskMove(Args):
    task_id: Id
    project_id: Id = Field(description="The project to move it to.")
    milestone_id: Id | None = Field(None, description="A milestone of that project.")


class TaskPerson(Args):
    task_id: Id
    person_id: Id


# Comments


class CommentCreate(Args):
    task_id: Id
    body: Body
    author: Name | None = Field(None, description="Defaults to the calling agent.")


class CommentUpdate(Args):
    comment_id: Id
    body: Body


class CommentFilter(Page):
    task_id: Id | None = None


# Search, bulk and reports


class Search(Page):
    query: str = Field(min_length=2, max_length=100)
    kinds: list[Literal["project", "milestone", "task", "comment"]] | None = Field(None, description="Default: all.")


class TaskBulkCreate(Args):
    project_id: Id
    tasks: list[TaskItem] = Field(min_length=1, max_length=100)


class TaskBulkStatus(Args):
    task_ids: TaskIds
    status: TaskStatus


class TaskBulkAssign(Args):
    task_ids: TaskIds
    person_id: Id


class TaskBulkDelete(Args):
    task_ids: TaskIds


class Workload(Args):
    person_id: Id | None = Field(None, description="Default: everyone.")
