"""The audit log: every decision about a card or an elevation — who, when, what, why — kept in
the database, so that it outlives the ephemeral cards and elevations it describes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from facade.access.audit_table import AuditEntry, IssuedCardId


class Audit:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def record(
        self,
        *,
        actor: str,
        action: str,
        subject: str,
        reason: str = "",
        card_id: int | None = None,
        agent: str | None = None,
        conversation: str | None = None,
    ) -> None:
        with self.sessions.begin() as session:
            session.add(
                AuditEntry(
                    actor=actor[:120],
                    action=action,
                    subject=subject[:200],
                    reason=reason,
                    card_id=card_id,
                    agent=agent,
                    conversation=conversation,
                )
            )

    def new_card_id(self) -> int:
        """A card id never issued before (facade/access/audit_table.py `IssuedCardId`)."""
        with self.sessions.begin() as session:
            issued = IssuedCardId()
            session.add(issued)
            session.flush()
            return issued.id

    def entries(self, limit: int = 200) -> list[dict[str, Any]]:
        with self.sessions() as session:
            rows = session.scalars(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit))
            return [
                {
                    "id": r.id,
                    "at": r.at.isoformat(),
                    "actor": r.actor,
                    "action": r.action,
                    "card_id": r.card_id,
                    "agent": r.agent,
                    "conversation": r.conversation,
                    "subject": r.subject,
                    "reason": r.reason,
                }
                for r in rows
            ]
