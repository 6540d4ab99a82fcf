"""Operations over many messages at once. Each item succeeds or fails on its own and the result
reports every item, so that one bad id does not sink the rest; a failed item changes nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from domains.mail import addresses, checks, compose, inputs, smtp, threads
from domains.mail.drafts import sender
from domains.mail.entities import FOLDER, MESSAGE, system_folder
from domains.mail.tables import Contact, Message
from facade.kit import CallContext, InvalidRequest, NotFound, Toolset, each, utcnow

tools = Toolset()

Result = dict[str, Any]


@tools.capability("message_bulk_mark", idempotent=True, example={"message_ids": [3, 11], "is_read": True})
def message_bulk_mark(ctx: CallContext, args: inputs.BulkMark) -> Result:
    """Mark several messages read or unread, flagged or not."""
    if args.is_read is None and args.is_flagged is None:
        raise InvalidRequest("nothing to change; give is_read, is_flagged or both")

    def mark(message_id: int) -> Result:
        message = MESSAGE.fetch(ctx.db, message_id)
        if args.is_read is not None:
            message.is_read = args.is_read
        if args.is_flagged is not None:
            message.is_flagged = args.is_flagged
        return {}

    outcome = each(args.message_ids, "message_id", mark)
    ctx.db.flush()
    return outcome


@tools.capability("message_bulk_move", idempotent=True, example={"message_ids": [8, 11], "folder_id": 4})
def message_bulk_move(ctx: CallContext, args: inputs.BulkMove) -> Result:
    """File several messages in one folder."""
    target = FOLDER.fetch(ctx.db, args.folder_id)  # one target for every item: a missing one fails the call

    def move(message_id: int) -> Result:
        return {"changed": checks.move(ctx.db, MESSAGE.fetch(ctx.db, message_id), target)}

    outcome = each(args.message_ids, "message_id", move)
    ctx.db.flush()
    return outcome


@tools.capability("message_bulk_delete", destructive=True, example={"message_ids": [7, 10]})
def message_bulk_delete(ctx: CallContext, args: inputs.BulkDelete) -> Result:
    """Move several messages to Trash, deleting for good those already there."""
    return each(
        args.message_ids, "message_id", lambda i: checks.remove(ctx.db, MESSAGE.fetch(ctx.db, i), args.permanent)
    )


# Mail to many people at once is held for an operator (approval 2).
@tools.capability(
    "message_bulk_send",
    approval=2,
    example={
        "subject": "Office closed on 24 December",
        "body": "Hi {name},\n\nthe office is closed on 24 December; the on-call rota is in the wiki.\n\nSam",
        "contact_ids": [1, 2],
        "addresses": ["tom@example.com"],
    },
)
def message_bulk_send(ctx: CallContext, args: inputs.BulkSend) -> Result:
    """Send one personal copy of a message to each of a list of contacts and addresses."""
    recipients = _recipients(ctx, args)
    from_addr = sender()
    sent_folder = system_folder(ctx.db, "sent")
    with smtp.connection() as send:
        thread = threads.assign(ctx.db, args.subject, None, "")  # every copy is the same mail: one thread

        def deliver(recipient: str) -> Result:
            copy = Message(
                folder=sent_folder,
                thread=thread,
                message_id=compose.new_message_id(from_addr),
                from_addr=from_addr,
                to_addrs=recipient,
                subject=args.subject,
                body=args.body.replace("{name}", addresses.name_of(recipient)),
                is_read=True,
                received_at=utcnow(),
            )
            mail = compose.to_email(copy)
            send(mail)  # raises before anything is stored for this recipient
            copy.headers = compose.header_text(mail)
            ctx.db.add(copy)
            ctx.db.flush()
            return {"message_id": copy.id}

        outcome = each(recipients, "recipient", deliver)
    if not outcome["succeeded"]:
        ctx.db.delete(thread)
        ctx.db.flush()
    return outcome


def _recipients(ctx: CallContext, args: inputs.BulkSend) -> list[str]:
    named: list[str] = []
    if args.contact_ids:
        found = {c.id: c for c in ctx.db.scalars(select(Contact).where(Contact.id.in_(args.contact_ids)))}
        missing = [i for i in args.contact_ids if i not in found]
        if missing:
            raise NotFound(f"contacts {missing} do not exist; list contacts with mail.contact_list")
        named = [addresses.normalise(f'"{found[i].name}" <{found[i].email}>') for i in args.contact_ids]
    listed = [addresses.normalise(a, "address") for a in args.addresses]
    unique: dict[str, str] = {}
    for address in [*named, *listed]:
        unique.setdefault(addresses.email_of(address), address)
    if not unique:
        raise InvalidRequest("no recipients; give contact_ids, addresses or both")
    return list(unique.values())
