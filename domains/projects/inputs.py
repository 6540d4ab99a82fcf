"""The arguments of every projects capability. Field names say what they hold; a description is
given only where the name alone does not."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from domains.projects.tables import MilestoneStatus, Priority, ProjectStatus, TaskStatus
from facade.kit import Id, Input, Page
Name = Annotated[str, Field(min_length=1, max_length=120)]
Title = Annotated[str, Field(min_length=1, max_length=200)]
Text = Annotated[str, Field(max_length=5000)]
Body = Annotated[str, Field(min_length=1, max_length=5000)]
Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
TaskIds = Annotated[list[Id], Field(min_length=1, max_length=100)]


# Projects


class ProjectCreate(Input):
    name: Name
    description: Text = ""
    status: ProjectStatus = "active"


class ProjectRef(Input):
    project_id: Id


class ProjectUpdate(Input):
    project_id: Id
    name: Name | None = None
    description: Text | None = None
    status: ProjectStatus | None = None


class ProjectFilter(Page):
    status: ProjectStatus | None = None
    include_archived: bool = False


class ProjectDelete(Input):
    project_id: Id
    force: bool = Field(False, description="Also delete its tasks, milestones and comments.")


class ProjectExport(Input):
    project_id: Id
    format: Literal["json", "csv"] = Field("json", description="csv: one row per task.")


class ProjectDuplicate(Input):
    project_id: Id
    name: Name = Field(description="Name of the copy.")
    include_tasks: bool = True


# Milestones


class MilestoneCreate(Input):
    project_id: Id
    name: Name
    description: Text = ""
    due_date: date | None = None


class MilestoneUpdate(Input):
    milestone_id: Id
    name: Name | None = None
    description: Text | None = None
    due_date: date | None = None
    status: MilestoneStatus | None = None


class MilestoneFilter(Page):
    project_id: Id | None = None
    status: MilestoneStatus | None = None


# People


class PersonCreate(Input):
    name: Name
    email: Email


class PersonUpdate(Input):
    person_id: Id
    name: Name | None = None
    email: Email | None = None


class PersonFilter(Page):
    pass


# Tasks


class TaskItem(Input):
    title: Title
    description: Text = ""
    priority: Priority = "medium"
    due_date: date | None = None
    milestone_id: Id | None = None


class TaskCreate(TaskItem):
    project_id: Id
    assignee_ids: list[Id] = Field(default_factory=list, max_length=20, description="Person ids.")


class TaskUpdate(Input):
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


class TaskMove(Input):
    task_id: Id
    project_id: Id = Field(description="The project to move it to.")
    milestone_id: Id | None = Field(None, description="A milestone of that project.")


class TaskPerson(Input):
    task_id: Id
    person_id: Id


# Comments


class CommentCreate(Input):
    task_id: Id
    body: Body
    author: Name | None = Field(None, description="Defaults to the calling agent.")


class CommentUpdate(Input):
    comment_id: Id
    body: Body


class CommentFilter(Page):
    task_id: Id | None = None


# Search, bulk and reports


class Search(Page):
    query: str = Field(min_length=2, max_length=100)
    kinds: list[Literal["project", "milestone", "task", "comment"]] | None = Field(None, description="Default: all.")


class TaskBulkCreate(Input):
    project_id: Id
    tasks: list[TaskItem] = Field(min_length=1, max_length=100)


class TaskBulkStatus(Input):
    task_ids: TaskIds
    status: TaskStatus


class TaskBulkAssign(Input):
    task_ids: TaskIds
    person_id: Id


class TaskBulkDelete(Input):
    task_ids: TaskIds


class Workload(Input):
    person_id: Id | None = Field(None, description="Default: everyone.")
