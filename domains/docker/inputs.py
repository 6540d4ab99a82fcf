"""The arguments of every docker capability. Names and references are checked by pattern before
they become part of a request path, so no argument can reach another endpoint."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, field_validator

from facade.kit import Input, Page

ContainerRef = Annotated[
    str,
    Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$", description="Container name or id."),
]
ImageRef = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$",
        description="Image reference, e.g. nginx:1.25, or an image id.",
    ),
]
StopWait = Annotated[int, Field(ge=0, le=120, description="Seconds to wait before killing it.")]
ContainerState = Literal["created", "running", "paused", "restarting", "exited", "dead"]


def _no_climbing(value: str) -> str:
    if ".." in value or "//" in value:
        raise ValueError("an image reference has no '..' or '//'")
    return value


class ContainerFilter(Page):
    state: ContainerState | None = None
    name: str | None = Field(None, max_length=128, pattern=r"^[A-Za-z0-9_.-]+$", description="Part of a name.")
    include_stopped: bool = True


class ImageFilter(Page):
    reference: str | None = Field(
        None, max_length=255, pattern=r"^[A-Za-z0-9._/:@*-]+$", description="Glob, e.g. nginx:*."
    )
    include_intermediate: bool = False


class NameFilter(Page):
    name: str | None = Field(None, max_length=128, pattern=r"^[A-Za-z0-9_.-]+$", description="Part of a name.")


class ContainerArgs(Input):
    container: ContainerRef


class ContainerLogs(Input):
    container: ContainerRef
    tail: int = Field(100, ge=1, le=2000, description="Lines from the end.")
    since: datetime | None = None
    timestamps: bool = False
    stdout: bool = True
    stderr: bool = True


class ContainerStop(Input):
    container: ContainerRef
    wait: StopWait = 10


class ContainerRemove(Input):
    container: ContainerRef
    force: bool = Field(False, description="Kill it first if it is running.")
    volumes: bool = Field(False, description="Also remove its anonymous volumes.")


class ContainerExec(Input):
    container: ContainerRef
    command: list[Annotated[str, Field(max_length=4096)]] = Field(
        min_length=1, max_length=64, description='Argv, e.g. ["ls", "-l", "/etc"].'
    )
    workdir: str | None = Field(None, max_length=4096, pattern=r"^/", description="Absolute path in the container.")
    timeout: int = Field(30, ge=1, le=300, description="Seconds.")


class ImageArgs(Input):
    image: ImageRef

    _checked = field_validator("image")(_no_climbing)


class ImagePull(Input):
    image: ImageRef = Field(description="Repository with optional tag, e.g. nginx:1.25 (default tag: latest).")

    _checked = field_validator("image")(_no_climbing)


class ImageRemove(Input):
    image: ImageRef
    force: bool = Field(False, description="Remove it even if stopped containers use it.")

    _checked = field_validator("image")(_no_climbing)


class Prune(Input):
    what: Literal["containers", "images", "networks", "volumes"]
    all_images: bool = Field(False, description="images: every unused image, not only dangling ones.")


class Nothing(Input):
    pass
