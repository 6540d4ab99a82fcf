"""Projects, tasks, milestones, comments and the people assigned to tasks."""

from domains.projects.capabilities import domain

__all__ = ["domain"]
