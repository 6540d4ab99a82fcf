"""projects: initial tables

Revision ID: projects_0001
Revises:
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "projects_0001"
down_revision = None
branch_labels = ("projects",)
depends_on = None

# Frozen copies of the schema in domains/projects/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def _timestamps() -> list[sa.Column[Any]]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "projects_project",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("status IN ('active', 'on_hold', 'completed')", name=op.f("ck_projects_project_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects_project")),
        sa.UniqueConstraint("name", name=op.f("uq_projects_project_name")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "projects_person",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects_person")),
        sa.UniqueConstraint("email", name=op.f("uq_projects_person_email")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "projects_milestone",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        *_timestamps(),
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_projects_milestone_status")),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects_project.id"],
            name=op.f("fk_projects_milestone_project_id_projects_project"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects_milestone")),
        sa.UniqueConstraint("project_id", "name", name=op.f("uq_projects_milestone_project_id")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "projects_task",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("milestone_id", sa.Integer(), nullable=True),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("priority", sa.String(length=10), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        sa.CheckConstraint(
            "status IN ('todo', 'in_progress', 'blocked', 'done', 'cancelled')",
            name=op.f("ck_projects_task_status"),
        ),
        sa.CheckConstraint("priority IN ('low', 'medium', 'high', 'urgent')", name=op.f("ck_projects_task_priority")),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects_project.id"],
            name=op.f("fk_projects_task_project_id_projects_project"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["milestone_id"],
            ["projects_milestone.id"],
            name=op.f("fk_projects_task_milestone_id_projects_milestone"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects_task")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_projects_task_project_id"), "projects_task", ["project_id"], unique=False)
    op.create_index(op.f("ix_projects_task_milestone_id"), "projects_task", ["milestone_id"], unique=False)
    op.create_table(
        "projects_comment",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=False),
        sa.Column("author", sa.String(length=120), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["projects_task.id"],
            name=op.f("fk_projects_comment_task_id_projects_task"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects_comment")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_projects_comment_task_id"), "projects_comment", ["task_id"], unique=False)
    op.create_table(
        "projects_assignment",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("assigned_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["projects_task.id"],
            name=op.f("fk_projects_assignment_task_id_projects_task"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["person_id"],
            ["projects_person.id"],
            name=op.f("fk_projects_assignment_person_id_projects_person"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects_assignment")),
        sa.UniqueConstraint("task_id", "person_id", name=op.f("uq_projects_assignment_task_id")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_projects_assignment_person_id"), "projects_assignment", ["person_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_projects_assignment_person_id"), table_name="projects_assignment")
    op.drop_table("projects_assignment")
    op.drop_index(op.f("ix_projects_comment_task_id"), table_name="projects_comment")
    op.drop_table("projects_comment")
    op.drop_index(op.f("ix_projects_task_milestone_id"), table_name="projects_task")
    op.drop_index(op.f("ix_projects_task_project_id"), table_name="projects_task")
    op.drop_table("projects_task")
    op.drop_table("projects_milestone")
    op.drop_table("projects_person")
    op.drop_table("projects_project")
