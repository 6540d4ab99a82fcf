"""calendar: initial tables

Revision ID: calendar_0001
Revises:
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "calendar_0001"
down_revision = None
branch_labels = ("calendar",)
depends_on = None

# Frozen copies of the schema in domains/calendar/tables.py as of this revision; a migration
# must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}


def _id() -> sa.Column[Any]:
    return sa.Column("id", sa.Integer(), autoincrement=True, nullable=False)


def _stamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _event_fk(table: str, column: str = "event_id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["calendar_event.id"], name=op.f(f"fk_{table}_{column}_calendar_event"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "calendar_calendar",
        _id(),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("color", sa.String(length=7), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("owner_email", sa.String(length=320), nullable=True),
        _stamp("created_at"),
        _stamp("updated_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_calendar")),
        sa.UniqueConstraint("name", name=op.f("uq_calendar_calendar_name")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_calendar_calendar_owner_email"), "calendar_calendar", ["owner_email"], unique=False)
    op.create_table(
        "calendar_event",
        _id(),
        sa.Column("calendar_id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=True),
        _stamp("recurrence_id", nullable=True),
        sa.Column("uid", sa.String(length=255), nullable=True),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("location", sa.String(length=300), nullable=False),
        _stamp("start_at"),
        _stamp("end_at"),
        sa.Column("all_day", sa.Boolean(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("rrule", sa.String(length=500), nullable=True),
        sa.Column("show_as", sa.String(length=4), nullable=False),
        _stamp("created_at"),
        _stamp("updated_at"),
        sa.CheckConstraint("show_as IN ('busy', 'free')", name=op.f("ck_calendar_event_show_as")),
        sa.ForeignKeyConstraint(
            ["calendar_id"],
            ["calendar_calendar.id"],
            name=op.f("fk_calendar_event_calendar_id_calendar_calendar"),
            ondelete="CASCADE",
        ),
        _event_fk("calendar_event", "series_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_event")),
        sa.UniqueConstraint("series_id", "recurrence_id", name=op.f("uq_calendar_event_series_id")),
        sa.UniqueConstraint("uid", name=op.f("uq_calendar_event_uid")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_calendar_event_calendar_id"), "calendar_event", ["calendar_id"], unique=False)
    op.create_index(op.f("ix_calendar_event_start_at"), "calendar_event", ["start_at"], unique=False)
    op.create_table(
        "calendar_exdate",
        _id(),
        sa.Column("event_id", sa.Integer(), nullable=False),
        _stamp("original_start"),
        _stamp("created_at"),
        _event_fk("calendar_exdate"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_exdate")),
        sa.UniqueConstraint("event_id", "original_start", name=op.f("uq_calendar_exdate_event_id")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "calendar_attendee",
        _id(),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("rsvp", sa.String(length=12), nullable=False),
        _stamp("created_at"),
        _stamp("updated_at"),
        sa.CheckConstraint(
            "rsvp IN ('needs_action', 'accepted', 'tentative', 'declined')", name=op.f("ck_calendar_attendee_rsvp")
        ),
        _event_fk("calendar_attendee"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_attendee")),
        sa.UniqueConstraint("event_id", "email", name=op.f("uq_calendar_attendee_event_id")),
        **NO_ID_REUSE,
    )
    op.create_table(
        "calendar_reminder",
        _id(),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("minutes_before", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=8), nullable=False),
        _stamp("created_at"),
        sa.CheckConstraint("method IN ('display', 'email')", name=op.f("ck_calendar_reminder_method")),
        sa.CheckConstraint("minutes_before >= 0", name=op.f("ck_calendar_reminder_minutes_before")),
        _event_fk("calendar_reminder"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_reminder")),
        **NO_ID_REUSE,
    )
    op.create_index(op.f("ix_calendar_reminder_event_id"), "calendar_reminder", ["event_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_calendar_reminder_event_id"), table_name="calendar_reminder")
    op.drop_table("calendar_reminder")
    op.drop_table("calendar_attendee")
    op.drop_table("calendar_exdate")
    op.drop_index(op.f("ix_calendar_event_start_at"), table_name="calendar_event")
    op.drop_index(op.f("ix_calendar_event_calendar_id"), table_name="calendar_event")
    op.drop_table("calendar_event")
    op.drop_index(op.f("ix_calendar_calendar_owner_email"), table_name="calendar_calendar")
    op.drop_table("calendar_calendar")
