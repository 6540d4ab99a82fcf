"""Filter rules: stored conditions and actions, applied to a folder on demand. Conditions are
case-insensitive substrings and must all match; a rule that moves a message takes it out of
the folder, so later rules no longer see it, as in mail clients."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from domains.mail import checks, inputs, serialize
from domains.mail.entities import FOLDER, LABEL, RULE, system_folder
from domains.mail.tables import Message, Rule
from facade.kit import CallContext, Conflict, InvalidRequest, Toolset, contains_text, records, values_of

tools = Toolset()

Result = dict[str, Any]


def _conditions(rule: Rule) -> list[ColumnElement[bool]]:
    pairs = (
        (Message.from_addr, rule.from_contains),
        (Message.subject, rule.subject_contains),
        (Message.body, rule.body_contains),
    )
    return [contains_text(column, needle) for column, needle in pairs if needle]


# Filters are the advanced end of a mailbox (the brief's `full` tier), whatever the CRUD verbs say.
@tools.capability(
    "rule_create",
    tier="full",
    example={"name": "Offsite threads", "subject_contains": "offsite", "add_label_id": 4, "flag": True},
)
def rule_create(ctx: CallContext, args: inputs.RuleCreate) -> Result:
    """Store a filter rule: substrings to match and what to do with matching mail."""
    if not (args.from_contains or args.subject_contains or args.body_contains):
        raise InvalidRequest("a rule needs a condition; give from_contains, subject_contains or body_contains")
    if not (args.move_to_folder_id or args.add_label_id or args.mark_read or args.flag):
        raise InvalidRequest("a rule needs an action; give move_to_folder_id, add_label_id, mark_read or flag")
    if args.move_to_folder_id is not None:
        target = FOLDER.fetch(ctx.db, args.move_to_folder_id)
        if target.role == "drafts":
            raise InvalidRequest(f"a rule cannot file mail in {target.name}; pick another folder")
    if args.add_label_id is not None:
        LABEL.fetch(ctx.db, args.add_label_id)
    clash = ctx.db.scalar(select(Rule.id).where(Rule.name == args.name))
    if clash is not None:
        raise Conflict(f"rule {clash} is already named {args.name!r}; choose another name")
    rule = Rule(**values_of(args))
    ctx.db.add(rule)
    ctx.db.flush()
    return {"rule": serialize.rule(rule)}


records.add_list(tools, RULE, example={}, description="List filter rules.", tier="full")  # as rule_create


def apply(db: Session, rule: Rule, folder_id: int) -> Result:
    matched = list(
        db.scalars(select(Message).where(Message.folder_id == folder_id, *_conditions(rule)).order_by(Message.id))
    )
    target = FOLDER.fetch(db, rule.move_to_folder_id) if rule.move_to_folder_id else None
    label = LABEL.fetch(db, rule.add_label_id) if rule.add_label_id else None
    moved: list[int] = []
    for message in matched:
        if rule.mark_read:
            message.is_read = True
        if rule.flag:
            message.is_flagged = True
        if label is not None and label not in message.labels:
            message.labels.append(label)
        if target is not None and checks.move(db, message, target):
            moved.append(message.id)
    db.flush()
    return {"rule_id": rule.id, "matched": [m.id for m in matched], "moved": moved}


@tools.capability("rule_apply", idempotent=True, example={})
def rule_apply(ctx: CallContext, args: inputs.RuleApply) -> Result:
    """Run the enabled filter rules, or one rule, over a folder's messages."""
    folder = FOLDER.fetch(ctx.db, args.folder_id) if args.folder_id is not None else system_folder(ctx.db, "inbox")
    if folder.role == "drafts":
        raise InvalidRequest(f"rules do not run over {folder.name}; drafts are not incoming mail")
    if args.rule_id is not None:
        rules = [RULE.fetch(ctx.db, args.rule_id)]
    else:
        rules = list(ctx.db.scalars(select(Rule).where(Rule.enabled.is_(True)).order_by(Rule.id)))
    return {"folder_id": folder.id, "rules": [apply(ctx.db, rule, folder.id) for rule in rules]}


records.add_delete(tools, RULE, example_id=2, description="Delete a filter rule.", tier="full")  # as rule_create
