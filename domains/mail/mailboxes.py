"""Folders, labels and contacts. Labels and contacts are plain records (data-driven through
facade.kit.records); folders carry the system-folder rules and their message counts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, case, func, or_, select

from domains.mail import checks, inputs, serialize
from domains.mail.entities import CONTACT, FOLDER, LABEL
from domains.mail.tables import Contact, Folder, Message
from facade.kit import CallContext, Page, Toolset, contains_text, records

tools = Toolset()

Result = dict[str, Any]

# Folders


@tools.capability("folder_create", example={"name": "Clients"})
def folder_create(ctx: CallContext, args: inputs.FolderCreate) -> Result:
    """Create a custom folder."""
    checks.folder_name_free(ctx.db, args.name)
    folder = Folder(name=args.name, role="custom")
    ctx.db.add(folder)
    ctx.db.flush()
    return {"folder": serialize.folder(folder, 0, 0)}


@tools.capability("folder_list", read_only=True, example={})
def folder_list(ctx: CallContext, args: Page) -> Result:
    """List folders with their message and unread counts."""
    unread = func.sum(case((Message.is_read.is_(False), 1), else_=0))
    rows = ctx.db.execute(
        select(Folder, func.count(Message.id), unread)
        .outerjoin(Message, Message.folder_id == Folder.id)
        .group_by(Folder.id)
        .order_by(Folder.id)
        .limit(args.limit)
        .offset(args.offset)
    ).all()
    total = ctx.db.scalar(select(func.count()).select_from(Folder))
    return {"folders": [serialize.folder(f, n, int(u or 0)) for f, n, u in rows], "total": total}


@tools.capability("folder_update", idempotent=True, example={"folder_id": 6, "name": "Receipts and invoices"})
def folder_update(ctx: CallContext, args: inputs.FolderUpdate) -> Result:
    """Rename a custom folder."""
    folder = checks.custom(FOLDER.fetch(ctx.db, args.folder_id), "renamed")
    checks.folder_name_free(ctx.db, args.name, folder.id)
    folder.name = args.name
    ctx.db.flush()
    return {"folder": serialize.folder(folder)}


@tools.capability("folder_delete", destructive=True, example={"folder_id": 7})
def folder_delete(ctx: CallContext, args: inputs.FolderRef) -> Result:
    """Delete a custom folder, moving its messages to Trash."""
    return checks.delete_folder(ctx.db, FOLDER.fetch(ctx.db, args.folder_id))


# Labels

records.add_create(
    tools, LABEL, inputs.LabelCreate, example={"name": "waiting", "color": "#f5a623"}, check=checks.label_name_free
)
records.add_list(tools, LABEL, example={}, description="List labels.")
records.add_delete(
    tools,
    LABEL,
    example_id=2,
    check=checks.on_label_delete,
    description="Delete a label, removing it from its messages.",
)

# Contacts


def _contacts_where(args: inputs.ContactFilter) -> list[ColumnElement[bool]]:
    if not args.query:
        return []
    return [or_(contains_text(Contact.name, args.query), contains_text(Contact.email, args.query))]


records.add_create(
    tools,
    CONTACT,
    inputs.ContactCreate,
    example={"name": "Jonas Weber", "email": "jonas@example.com"},
    check=checks.check_contact_create,
    description="Add a contact.",
)
records.add_list(tools, CONTACT, inputs.ContactFilter, example={"query": "example.com"}, where=_contacts_where)
records.add_update(
    tools,
    CONTACT,
    inputs.ContactUpdate,
    example={"contact_id": 3, "notes": "People & HR; runs the onboarding week."},
    check=checks.check_contact_update,
)
records.add_delete(tools, CONTACT, example_id=4)
