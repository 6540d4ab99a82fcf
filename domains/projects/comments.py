"""Comments on tasks."""

from __future__ import annotations

from typing import Any

from domains.projects import inputs, rules, serialize
from domains.projects.entities import COMMENT, REFERENCED_BY, TASK
from domains.projects.tables import Comment
from facade.kit import CallContext, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability(
    "comment_create",
    tier="core",
    example={"task_id": 3, "body": "Redirect map drafted: 212 old URLs covered so far."},
)
def comment_create(ctx: CallContext, args: inputs.CommentCreate) -> Result:
    """Comment on a task."""
    task = TASK.fetch(ctx.db, args.task_id)
    rules.writable(task.project)
    comment = Comment(task=task, body=args.body, author=args.author or ctx.agent[:120])
    ctx.db.add(comment)
    ctx.db.flush()
    return {"comment": serialize.comment(comment)}


records.add_get(tools, COMMENT, example_id=1)
records.add_list(tools, COMMENT, inputs.CommentFilter, example={"task_id": 2}, references=REFERENCED_BY)
records.add_update(
    tools,
    COMMENT,
    inputs.CommentUpdate,
    example={"comment_id": 2, "body": "Staging credentials received from ops; first run tonight."},
)
records.add_delete(tools, COMMENT, example_id=4)
