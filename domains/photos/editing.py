"""Edits: rotate, resize, crop and convert. Each writes a new file beside the original and
imports it (with the original's caption, rating and tags), unless asked to replace the
original, which then keeps its id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image

from facade.kit import CallContext, Conflict, InvalidRequest, Toolset

from domains.photos import inputs
from domains.photos.exif import TAG
from domains.photos.images import JPEG_QUALITY, WRITE_SUFFIX, encode, free_name, load_bytes, opened, upright
from domains.photos.library import PHOTO, refresh, register, render
from domains.photos.sandbox import display, existing_file, os_errors, resolve, write_file
from domains.photos.settings import settings

tools = Toolset()

Transform = Callable[[Image.Image], Image.Image]
# What an edit of each source format is saved as: the same where Pillow writes it well, else
# PNG, which loses nothing (MPO is the multi-picture JPEG some cameras write).
SAVE_AS = {"JPEG": "JPEG", "MPO": "JPEG", "PNG": "PNG", "WEBP": "WEBP"}


def _edit(
    ctx: CallContext,
    photo_id: int,
    label: str,
    transform: Transform,
    *,
    dest: str | None = None,
    replace_original: bool = False,
    to_format: str | None = None,
    quality: int = JPEG_QUALITY,
) -> dict[str, Any]:
    photo = PHOTO.fetch(ctx.db, photo_id)
    source = existing_file(photo.path)
    data = load_bytes(source, photo.path)
    with opened(data, photo.path) as image:
        original = image.format or ""
        fmt = to_format or SAVE_AS.get(original, "PNG")
        if replace_original and fmt != original:
            raise InvalidRequest(f"{photo.path} is {original}, which edits cannot write back; leave replace_original out")
        edited = transform(upright(image))
        exif = image.getexif()
        exif.pop(TAG.Orientation, None)  # the pixels were turned upright above
        width, height = edited.size
        new = encode(edited, fmt, exif=exif, quality=quality)
    if replace_original:
        write_file(source, photo.path, new, overwrite=True)
        refresh(photo, source)
        boxed = [p.name for p in photo.people if p.box_width is not None]
        for person in photo.people:  # the geometry changed, so the boxes no longer fit
            person.box_left = person.box_top = person.box_width = person.box_height = None
        ctx.db.flush()
        return {"photo": render(photo), "replaced_original": True, "cleared_boxes": boxed}
    if dest is not None:
        target = resolve(dest)
        allowed = {".jpg", ".jpeg"} if fmt == "JPEG" else {WRITE_SUFFIX[fmt]}
        if target.suffix.lower() not in allowed:
            raise InvalidRequest(f"{dest} must end in {WRITE_SUFFIX[fmt]} for a {fmt} file; rename it")
        with os_errors(dest):
            if target.exists():
                raise Conflict(f"{dest} already exists; give another dest or leave it out for a free name")
    else:
        stem = f"{source.stem}-{label}" if label else source.stem
        with os_errors(photo.path):
            target = free_name(source.parent, stem, WRITE_SUFFIX[fmt])
    rel = display(target)
    write_file(target, rel, new, overwrite=False)
    copy = register(ctx.db, target, rel, caption=photo.caption, tags=[t.name for t in photo.tags])
    copy.rating = photo.rating
    ctx.db.flush()
    return {"photo": render(copy), "source_photo_id": photo.id, "size": [width, height]}


ROTATIONS = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


@tools.capability("photo_rotate", example={"photo_id": 4, "degrees": 90})
def photo_rotate(ctx: CallContext, args: inputs.Rotate) -> dict[str, Any]:
    """Rotate a photo clockwise by 90, 180 or 270 degrees into a new file."""
    return _edit(
        ctx, args.photo_id, f"rotated-{args.degrees}", lambda image: image.transpose(ROTATIONS[args.degrees]),
        dest=args.dest, replace_original=args.replace_original,
    )


@tools.capability("photo_resize", example={"photo_id": 6, "width": 320})
def photo_resize(ctx: CallContext, args: inputs.Resize) -> dict[str, Any]:
    """Resize a photo into a new file, keeping its proportions."""
    if args.width is None and args.height is None:
        raise InvalidRequest("give width, height or both (both: the photo fits inside that box)")

    def resize(image: Image.Image) -> Image.Image:
        scale = min(args.width / image.width if args.width else float("inf"),
                    args.height / image.height if args.height else float("inf"))
        size = (max(round(image.width * scale), 1), max(round(image.height * scale), 1))
        limit = settings().max_pixels
        if size[0] * size[1] > limit:
            raise InvalidRequest(f"{size[0]}x{size[1]} is over the {limit:,}-pixel limit of the library; ask for a smaller size")
        return image.resize(size, Image.Resampling.LANCZOS)

    label = f"{args.width or ''}x{args.height or ''}"
    return _edit(ctx, args.photo_id, label, resize, dest=args.dest, replace_original=args.replace_original)


@tools.capability("photo_crop", example={"photo_id": 2, "left": 100, "top": 80, "width": 400, "height": 300})
def photo_crop(ctx: CallContext, args: inputs.Crop) -> dict[str, Any]:
    """Crop a photo to a rectangle (in pixels, as the photo is shown) into a new file."""

    def crop(image: Image.Image) -> Image.Image:
        if args.left + args.width > image.width or args.top + args.height > image.height:
            raise InvalidRequest(
                f"the rectangle reaches past the photo, which is {image.width}x{image.height} pixels; keep it inside"
            )
        return image.crop((args.left, args.top, args.left + args.width, args.top + args.height))

    return _edit(ctx, args.photo_id, "crop", crop, dest=args.dest, replace_original=args.replace_original)


@tools.capability("photo_convert", example={"photo_id": 7, "format": "jpeg", "quality": 85})
def photo_convert(ctx: CallContext, args: inputs.Convert) -> dict[str, Any]:
    """Convert a photo to JPEG, PNG or WebP as a new file."""
    photo = PHOTO.fetch(ctx.db, args.photo_id)
    fmt = args.format.upper()
    if photo.format.upper() == fmt:
        raise InvalidRequest(f"photo {photo.id} is already {fmt}; pick another format")
    return _edit(ctx, args.photo_id, "", lambda image: image, dest=args.dest, to_format=fmt, quality=args.quality)
