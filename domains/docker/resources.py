"""Images, networks, volumes, the engine itself, and pruning what is unused."""

from __future__ import annotations

from typing import Any

from domains.docker import engine, render
from domains.docker.engine import Hints, path_part
from domains.docker.inputs import ImageArgs, ImageFilter, ImagePull, ImageRemove, NameFilter, Nothing, Prune
from facade.kit import CallContext, NotFound, Toolset, Unavailable

tools = Toolset()

Result = dict[str, Any]

# Phrases a registry's refusal uses when the image is not there (as opposed to unreachable).
ABSENT = ("not found", "manifest unknown", "does not exist", "pull access denied", "repository does not exist")


def _page(key: str, rows: list[dict[str, Any]], args: NameFilter | ImageFilter) -> Result:
    return {key: rows[args.offset : args.offset + args.limit], "total": len(rows)}


def _image_hints(image: str) -> Hints:
    return Hints(
        missing=f"image {image!r} does not exist on the engine; list images with docker.image_list "
        "or pull it with docker.image_pull",
        conflict="remove the containers that use it (docker.container_remove) first, or pass force=true",
    )


def split_reference(image: str) -> tuple[str, str]:
    """(repository, tag or digest) of an image reference; the tag defaults to latest. A colon
    before the last '/' belongs to a registry's port, not to a tag."""
    if "@" in image:
        repository, digest = image.split("@", 1)
        return repository, digest
    slash, colon = image.rfind("/"), image.rfind(":")
    if colon > slash:
        return image[:colon], image[colon + 1 :]
    return image, "latest"


@tools.capability("image_list", read_only=True, example={})
def image_list(ctx: CallContext, args: ImageFilter) -> Result:
    """List the images on the engine, optionally matching a reference glob."""
    params: dict[str, Any] = {"all": args.include_intermediate}
    if args.reference:
        params["filters"] = engine.json_param({"reference": [args.reference]})
    rows = [render.image(i) for i in engine.request("GET", "/images/json", params=params).json()]
    return _page("images", rows, args)


@tools.capability("inspect_image", read_only=True, example={"image": "nginx:1.25"})
def inspect_image(ctx: CallContext, args: ImageArgs) -> Result:
    """Dump an image's full engine record: layers, config, entrypoint and labels."""
    answer = engine.request("GET", f"/images/{path_part(args.image)}/json", hints=_image_hints(args.image))
    return {"image": answer.json()}


@tools.capability("image_pull", idempotent=True, example={"image": "busybox:1.36"})
def image_pull(ctx: CallContext, args: ImagePull) -> Result:
    """Pull an image from its registry."""
    repository, tag = split_reference(args.image)
    answer = engine.request(
        "POST",
        "/images/create",
        params={"fromImage": repository, "tag": tag},
        hints=Hints(
            missing=f"image {args.image!r} was not found by its registry; check the name and tag",
            slow="the pull may go on in the engine; retry later, or an operator may raise FACADE_DOCKER_PULL_TIMEOUT",
        ),
        timeout=engine.settings().pull_timeout,
    )
    items = engine.stream_items(answer)
    # The engine answers 200 and then reports a failed pull inside the stream.
    failure = next((str(i.get("error") or i["errorDetail"].get("message")) for i in items if _failed(i)), None)
    if failure is not None:
        if any(phrase in failure.lower() for phrase in ABSENT):
            raise NotFound(f"image {args.image!r} was not found by its registry ({failure}); check the name and tag")
        raise Unavailable(f"docker could not pull {args.image!r} ({failure}); retry later")
    statuses = [str(i["status"]) for i in items if "status" in i]
    digest = next((s.split(":", 1)[1].strip() for s in statuses if s.startswith("Digest:")), None)
    last = statuses[-1] if statuses else ""
    return {"image": f"{repository}:{tag}", "digest": digest, "status": last, "changed": "up to date" not in last}


def _failed(item: dict[str, Any]) -> bool:
    return bool(item.get("error")) or isinstance(item.get("errorDetail"), dict)


@tools.capability("image_remove", approval=2, destructive=True, idempotent=True, example={"image": "alpine:3.19"})
def image_remove(ctx: CallContext, args: ImageRemove) -> Result:
    """Remove an image (untag it, and delete its layers when nothing else uses them)."""
    answer = engine.request(
        "DELETE", f"/images/{path_part(args.image)}", params={"force": args.force}, hints=_image_hints(args.image)
    )
    items = answer.json() if answer.body else []
    return {
        "image": args.image,
        "untagged": [i["Untagged"] for i in items if "Untagged" in i],
        "deleted": [render.short_id(i["Deleted"]) for i in items if "Deleted" in i],
    }


@tools.capability("network_list", read_only=True, example={})
def network_list(ctx: CallContext, args: NameFilter) -> Result:
    """List networks."""
    params = {"filters": engine.json_param({"name": [args.name]})} if args.name else {}
    rows = [render.network(n) for n in engine.request("GET", "/networks", params=params).json()]
    return _page("networks", sorted(rows, key=lambda n: str(n["name"])), args)


@tools.capability("volume_list", read_only=True, example={})
def volume_list(ctx: CallContext, args: NameFilter) -> Result:
    """List volumes."""
    params = {"filters": engine.json_param({"name": [args.name]})} if args.name else {}
    found = engine.request("GET", "/volumes", params=params).json()
    rows = [render.volume(v) for v in (found.get("Volumes") or [])]
    return {
        **_page("volumes", sorted(rows, key=lambda v: str(v["name"])), args),
        "warnings": found.get("Warnings") or [],
    }


@tools.capability("engine_info", read_only=True, example={})
def engine_info(ctx: CallContext, args: Nothing) -> Result:
    """Show the engine's version, host resources and container counts."""
    version = engine.request("GET", "/version").json()
    info = engine.request("GET", "/info").json()
    return {"engine": render.engine(version, info)}


# What each prune answers with: the key listing what went, and how to render one entry.
PRUNED = {
    "containers": "ContainersDeleted",
    "images": "ImagesDeleted",
    "networks": "NetworksDeleted",
    "volumes": "VolumesDeleted",
}


@tools.capability("prune", approval=2, destructive=True, example={"what": "images"})
def prune(ctx: CallContext, args: Prune) -> Result:
    """Delete every stopped container, unused image, network or volume of one kind."""
    params: dict[str, Any] = {}
    if args.what == "images":
        # Without the filter the engine prunes dangling images only.
        params["filters"] = engine.json_param({"dangling": ["false" if args.all_images else "true"]})
    found = engine.request("POST", f"/{args.what}/prune", params=params, extra_time=60).json()
    deleted = found.get(PRUNED[args.what]) or []
    if args.what == "images":
        deleted = [render.short_id(i.get("Deleted")) or i.get("Untagged") for i in deleted]
    else:
        deleted = [render.short_id(d) if args.what == "containers" else d for d in deleted]
    return {"what": args.what, "deleted": deleted, "space_reclaimed_bytes": found.get("SpaceReclaimed", 0)}
