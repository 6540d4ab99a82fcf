"""Projects, tasks, milestones, comments and the people assigned to tasks.

Every example succeeds on a freshly seeded database whichever examples ran before it: each one
that changes, archives or deletes a record targets one no other example changes, archives or
deletes. Seeded ids (never reused): projects 1-6 (3 is archived by its example, 4 is archived
and unarchived and duplicated by theirs, 5 is project_delete's, 6 holds tasks 14 and 15), milestones 1-5 (1 is
milestone_delete's), people 1-5 (5 is person_delete's), tasks 1-15 (14 is task_delete's, 15
task_bulk_delete's), comments 1-5 (2 is comment_update's, 4 comment_delete's).
"""

from pathlib import Path

from domains.projects import bulk, comments, lifecycle, milestones, people, reports, tasks
from domains.projects.seed import seed
from facade.kit import Domain

domain = Domain(
    "projects",
    description="Projects, tasks, milestones and comments.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(
        lifecycle.tools,
        milestones.tools,
        people.tools,
        tasks.tools,
        comments.tools,
        reports.tools,
        bulk.tools,
        reports.full_tools,
        lifecycle.full_tools,
    ),
)

__all__ = ["domain"]
