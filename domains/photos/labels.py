"""Tags and people on photos: the kit's tag capabilities (add, remove, list, bulk-add), and
people labelled in a photo, optionally with the box around them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from facade.kit import CallContext, Conflict, InvalidRequest, NotFound, Toolset

from domains.photos import inputs
from domains.photos.library import PHOTO, TAGS, render
from domains.photos.tables import PersonLabel

tools = Toolset()

TAGS.add_capabilities(
    tools,
    tag_add=(inputs.TagAdd, {"photo_id": 4, "tags": ["tulips", "spring"]}),
    tag_remove=(inputs.TagRemove, {"photo_id": 5, "tag": "blurry"}),
    tag_list=(inputs.NameFilter, {}),
    tag_bulk_add=(inputs.TagBulkAdd, {"photo_ids": [1, 2, 3], "tag": "portugal"}),
)


@tools.capability(
    "person_add", example={"photo_id": 1, "name": "Inês", "box": {"left": 40, "top": 120, "width": 90, "height": 160}}
)
def person_add(ctx: CallContext, args: inputs.PersonAdd) -> dict[str, Any]:
    """Label a person in a photo, optionally with where they are."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    if any(p.name.lower() == args.name.lower() for p in photo.people):
        raise Conflict(f"{args.name} is already labelled in photo {photo.id}; remove the label first to redraw its box")
    box = args.box
    if box is not None and (box.left + box.width > photo.width or box.top + box.height > photo.height):
        raise InvalidRequest(
            f"the box reaches past the photo, which is {photo.width}x{photo.height} pixels; keep it inside"
        )
    photo.people.append(PersonLabel(
        name=args.name,
        box_left=box.left if box else None,
        box_top=box.top if box else None,
        box_width=box.width if box else None,
        box_height=box.height if box else None,
    ))
    ctx.db.flush()
    return {"photo": render(photo)}


@tools.capability("person_remove", idempotent=True, example={"photo_id": 6, "name": "Tomás"})
def person_remove(ctx: CallContext, args: inputs.PersonRemove) -> dict[str, Any]:
    """Remove a person's label from a photo."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    label = next((p for p in photo.people if p.name.lower() == args.name.lower()), None)
    if label is None:
        named = ", ".join(p.name for p in photo.people) or "nobody"
        raise NotFound(f"{args.name} is not labelled in photo {photo.id}; it shows: {named}")
    photo.people.remove(label)
    ctx.db.flush()
    return {"photo": render(photo)}


@tools.capability("person_list", read_only=True, example={})
def person_list(ctx: CallContext, args: inputs.NameFilter) -> dict[str, Any]:
    """List the people labelled in photos with how many photos show each."""
    conditions = [func.lower(PersonLabel.name).startswith(args.prefix.lower(), autoescape=True)] if args.prefix else []
    total = ctx.db.scalar(select(func.count(func.distinct(PersonLabel.name))).where(*conditions)) or 0
    rows = ctx.db.execute(
        select(PersonLabel.name, func.count(PersonLabel.id), func.min(PersonLabel.photo_id))
        .where(*conditions)
        .group_by(PersonLabel.name)
        .order_by(func.count(PersonLabel.id).desc(), PersonLabel.name)
        .limit(args.limit)
        .offset(args.offset)
    ).all()
    return {"people": [{"name": name, "photos": n, "first_photo_id": first} for name, n, first in rows], "total": total}
