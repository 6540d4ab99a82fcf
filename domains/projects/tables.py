"""The projects domain's tables: a project holds milestones and tasks; a task holds comments and
the assignments of people to it."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import Date, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from facade.kit import NO_ID_REUSE, Base, UTCDateTime, created_column, one_of, updated_column, utcnow

ProjectStatus = Literal["active", "on_hold", "completed"]
MilestoneStatus = Literal["open", "closed"]
TaskStatus = Literal["todo", "in_progress", "blocked", "done", "cancelled"]
Priority = Literal["low", "medium", "high", "urgent"]


class Project(Base):
    __tablename__ = "projects_project"
    __table_args__ = (one_of("status", ProjectStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), default="active")
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    # The database cascades deletes (ON DELETE CASCADE); passive_deletes spares loading children.
    milestones: Mapped[list[Milestone]] = relationship(
        back_populates="project", cascade="all, delete-orphan", passive_deletes=True, order_by="Milestone.id"
    )
    tasks: Mapped[list[Task]] = relationship(
        back_populates="project", cascade="all, delete-orphan", passive_deletes=True, order_by="Task.id"
    )


class Milestone(Base):
    __tablename__ = "projects_milestone"
    __table_args__ = (UniqueConstraint("project_id", "name"), one_of("status", MilestoneStatus), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The unique (project_id, name) constraint's index serves lookups by project.
    project_id: Mapped[int] = mapped_column(ForeignKey("projects_project.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    due_date: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(20), default="open")
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    project: Mapped[Project] = relationship(back_populates="milestones")
    # Deleting a milestone detaches its tasks (ON DELETE SET NULL); it never deletes them.
    tasks: Mapped[list[Task]] = relationship(back_populates="milestone", passive_deletes=True, order_by="Task.id")


class Person(Base):
    __tablename__ = "projects_person"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(254), unique=True)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    assignments: Mapped[list[Assignment]] = relationship(
        back_populates="person", cascade="all, delete-orphan", passive_deletes=True
    )


class Task(Base):
    __tablename__ = "projects_task"
    __table_args__ = (one_of("status", TaskStatus), one_of("priority", Priority), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects_project.id", ondelete="CASCADE"), index=True)
    milestone_id: Mapped[int | None] = mapped_column(
        ForeignKey("projects_milestone.id", ondelete="SET NULL"), index=True
    )
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), default="todo")
    priority: Mapped[str] = mapped_column(String(10), default="medium")
    due_date: Mapped[date | None] = mapped_column(Date)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    project: Mapped[Project] = relationship(back_populates="tasks")
    milestone: Mapped[Milestone | None] = relationship(back_populates="tasks")
    comments: Mapped[list[Comment]] = relationship(
        back_populates="task", cascade="all, delete-orphan", passive_deletes=True, order_by="Comment.id"
    )
    assignments: Mapped[list[Assignment]] = relationship(
        back_populates="task", cascade="all, delete-orphan", passive_deletes=True, order_by="Assignment.id"
    )


class Comment(Base):
    __tablename__ = "projects_comment"
    __table_args__ = (NO_ID_REUSE,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("projects_task.id", ondelete="CASCADE"), index=True)
    author: Mapped[str] = mapped_column(String(120))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = created_column()
    updated_at: Mapped[datetime] = updated_column()

    task: Mapped[Task] = relationship(back_populates="comments")


class Assignment(Base):
    """A person assigned to a task; a person is assigned to a task at most once."""

    __tablename__ = "projects_assignment"
    __table_args__ = (UniqueConstraint("task_id", "person_id"), NO_ID_REUSE)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("projects_task.id", ondelete="CASCADE"))
    person_id: Mapped[int] = mapped_column(ForeignKey("projects_person.id", ondelete="CASCADE"), index=True)
    assigned_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    task: Mapped[Task] = relationship(back_populates="assignments")
    person: Mapped[Person] = relationship(back_populates="assignments", lazy="joined")
