"""Drafts: writing, replying, forwarding and sending. A draft lives in Drafts; sending hands it
to the SMTP server first and only then files it in Sent, with the Message-ID it went out with."""

from __future__ import annotations

from typing import Any

from domains.mail import addresses, checks, compose, inputs, serialize, smtp, threads
from domains.mail.entities import MESSAGE, system_folder
from domains.mail.settings import settings
from domains.mail.tables import Message
from facade.kit import CallContext, InvalidRequest, Toolset, Unavailable, utcnow

tools = Toolset()

Result = dict[str, Any]


def sender() -> str:
    configured = settings().sender
    try:
        return addresses.normalise(configured, "FACADE_MAIL_FROM")
    except InvalidRequest:
        raise Unavailable(
            f"FACADE_MAIL_FROM is {configured!r}, not an address; an operator must set it to 'Name <addr>'"
        ) from None


def new_draft(
    ctx: CallContext,
    *,
    to: str,
    cc: str = "",
    bcc: str = "",
    subject: str,
    body: str,
    in_reply_to: str | None = None,
    references: str = "",
) -> Message:
    """A draft from the configured sender, threaded by its headers."""
    db = ctx.db
    from_addr = sender()
    draft = Message(
        folder=system_folder(db, "drafts"),
        thread=threads.assign(db, subject, in_reply_to, references),
        message_id=compose.new_message_id(from_addr),
        in_reply_to=in_reply_to,
        reference_ids=references,
        from_addr=from_addr,
        to_addrs=to,
        cc_addrs=cc,
        bcc_addrs=bcc,
        subject=subject,
        body=body,
        is_read=True,
        received_at=utcnow(),
    )
    db.add(draft)
    db.flush()
    return draft


@tools.capability(
    "draft_create",
    example={
        "to": ["Priya Shah <priya@example.com>"],
        "subject": "Budget slides for Thursday",
        "body": "Hi Priya,\n\nI attached nothing yet: the slides follow tomorrow morning.\n\nSam",
    },
)
def draft_create(ctx: CallContext, args: inputs.DraftCreate) -> Result:
    """Write a new draft."""
    draft = new_draft(
        ctx,
        to=addresses.join(args.to, "to"),
        cc=addresses.join(args.cc, "cc"),
        bcc=addresses.join(args.bcc, "bcc"),
        subject=args.subject,
        body=args.body,
    )
    return {"draft": serialize.message(draft)}


@tools.capability(
    "draft_update", idempotent=True, example={"message_id": 12, "subject": "Team lunch on Friday at 12:30?"}
)
def draft_update(ctx: CallContext, args: inputs.DraftUpdate) -> Result:
    """Change the recipients, subject or body of a draft."""
    draft = checks.draft(ctx.db, args.message_id)
    given = (args.model_fields_set & set(inputs.DraftUpdate.model_fields)) - {"message_id"}
    if not given:
        raise InvalidRequest("nothing to change; give at least one of: to, cc, bcc, subject, body")
    for field, column in (("to", "to_addrs"), ("cc", "cc_addrs"), ("bcc", "bcc_addrs")):
        if field in given:
            setattr(draft, column, addresses.join(getattr(args, field) or [], field))
    if "subject" in given:
        draft.subject = args.subject or ""
    if "body" in given:
        draft.body = args.body or ""
    draft.received_at = utcnow()
    ctx.db.flush()
    return {"draft": serialize.message(draft)}


# Replying and forwarding are everyday mail, not advanced use: core, whatever the verb says.
@tools.capability("message_reply", tier="core", example={"message_id": 3, "body": "Agreed, let's freeze it Friday."})
def message_reply(ctx: CallContext, args: inputs.Reply) -> Result:
    """Start a reply draft with the right recipients, subject, threading headers and quote."""
    original = MESSAGE.fetch(ctx.db, args.message_id)
    me = addresses.email_of(sender())
    mine = addresses.email_of(original.from_addr) == me
    # A reply to one's own sent mail goes to its recipients again, as mail clients do.
    to = original.to_addrs if mine else (compose.reply_to_of(original) or original.from_addr)
    cc = ""
    if args.reply_all:
        everyone = addresses.split(f"{original.to_addrs}, {original.cc_addrs}")
        others = [a for a in everyone if addresses.email_of(a) != me]
        taken = set(addresses.emails(to))
        cc = addresses.join([a for a in others if addresses.email_of(a) not in taken], "cc")
    if not to:
        raise InvalidRequest(f"message {original.id} names nobody to reply to; write a draft with mail.draft_create")
    draft = new_draft(
        ctx,
        to=addresses.join(addresses.split(to), "to"),
        cc=cc,
        subject=compose.prefixed("Re:", original.subject),
        body=f"{args.body}\n\n{compose.quote(original)}",
        in_reply_to=original.message_id,
        references=threads.references_for(original),
    )
    return {"draft": serialize.message(draft)}


@tools.capability(
    "message_forward",
    tier="core",  # everyday mail, like replying
    example={"message_id": 4, "to": ["Marco Bianchi <marco@example.com>"], "body": "Flight details for the offsite."},
)
def message_forward(ctx: CallContext, args: inputs.Forward) -> Result:
    """Start a draft forwarding a message, its headers and body quoted below a note."""
    original = MESSAGE.fetch(ctx.db, args.message_id)
    draft = new_draft(
        ctx,
        to=addresses.join(args.to, "to"),
        cc=addresses.join(args.cc, "cc"),
        subject=compose.prefixed("Fwd:", original.subject),
        body=f"{args.body}\n\n{compose.forwarded(original)}".lstrip(),
        references=threads.references_for(original),
    )
    return {"draft": serialize.message(draft)}


# Sending a draft is the point of a mailbox: core, whatever the verb says.
@tools.capability("draft_send", tier="core", example={"message_id": 6})
def draft_send(ctx: CallContext, args: inputs.MessageRef) -> Result:
    """Send a draft through the SMTP server and file it in Sent."""
    draft = checks.draft(ctx.db, args.message_id)
    if not draft.to_addrs and not draft.cc_addrs and not draft.bcc_addrs:
        raise InvalidRequest(f"draft {draft.id} has no recipients; add some with mail.draft_update")
    draft.from_addr = sender()  # the sender configured now, not when the draft was begun
    sent_at = utcnow()
    mail = compose.to_email(draft, sent_at)
    with smtp.connection() as send:
        refused = send(mail)
    draft.folder = system_folder(ctx.db, "sent")
    draft.headers = compose.header_text(mail)
    draft.received_at = sent_at
    ctx.db.flush()
    return {"message": serialize.message(draft), "refused_recipients": refused}
