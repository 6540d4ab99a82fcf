"""A small, believable set of service definitions; written only into an empty services table,
always the same rows in the same order, so ids are 1..N on a fresh database (capability
examples rely on them). Every command is harmless: a loopback-only web server, a sleeper."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.services import sandbox
from domains.services.tables import Service
from facade.kit import DomainError

# Fixed timestamps rather than "now", so that two seeded databases hold the same rows.
T0 = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)

# name, description, command, working dir, port, health URL, enabled
SERVICES: list[tuple[str, str, str, str, int | None, str | None, bool]] = [
    (
        "static-site",
        "Serves the marketing site's build output for previews.",
        "python3 -m http.server 8701 --bind 127.0.0.1",
        "www",
        8701,
        "http://127.0.0.1:8701/",
        True,
    ),
    (
        "heartbeat",
        "Stand-in for a background worker: sleeps, logs its starts and stops.",
        "sleep 300",
        "",
        None,
        None,
        True,
    ),
    (
        "legacy-cron",
        "Old nightly export, replaced by the scheduler; kept until cleanup.",
        "sleep 5",
        "",
        None,
        None,
        False,
    ),
]

INDEX_HTML = "<!doctype html>\n<title>Preview</title>\n<h1>Marketing site preview</h1>\n"


def seed(session: Session) -> None:
    """Insert the demo definitions unless the services table already has rows."""
    if session.scalar(select(Service.id).limit(1)) is not None:
        return
    for index, (name, description, command, workdir, port, health, enabled) in enumerate(SERVICES):
        stamp = T0 + timedelta(hours=index)
        session.add(
            Service(
                name=name,
                description=description,
                command=command,
                working_dir=workdir,
                port=port,
                health_url=health,
                log_file=f"logs/{name}.log",
                enabled=enabled,
                created_at=stamp,
                updated_at=stamp,
            )
        )
        session.flush()  # one by one, so that ids follow the list
    try:
        page = sandbox.resolve("www/index.html")
        if not page.exists():  # the page static-site serves; a real user's file is never replaced
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(INDEX_HTML, encoding="utf-8")
    except (OSError, DomainError):
        pass  # a root that cannot be written is reported by the first call that needs it
