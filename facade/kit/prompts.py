"""Prompts: message templates a client offers its user (MCP `prompts/list`, `prompts/get`),
declared by a domain beside its capabilities. A prompt renders its arguments into messages whose
content is any of the kit's blocks (facade/kit/content.py). It is listed to the agents whose
apps include its domain."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from facade.kit.capability import declared_description
from facade.errors import InvalidRequest, RegistryError
from facade.kit.content import BLOCK_TYPES, Block, Text
from facade.kit.resources import Completer

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a prompt; `complete` suggests values for it (`completion/complete`)."""

    name: str
    description: str = ""
    required: bool = True
    complete: Completer | None = None


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a rendered prompt."""

    role: Literal["user", "assistant"]
    content: Block

    def __init__(self, role: Literal["user", "assistant"], content: Block | str) -> None:
        object.__setattr__(self, "role", role)
        object.__setattr__(self, "content", Text(content) if isinstance(content, str) else content)


Renderer = Callable[[dict[str, str]], Sequence[Message] | str]
"""`(arguments) -> messages`; a plain string is one user message."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt, as data."""

    name: str
    description: str
    arguments: tuple[Argument, ...]
    render: Renderer

    def messages(self, given: dict[str, str] | None) -> list[Message]:
        """The prompt rendered; a missing required argument or an unknown one is refused."""
        given = dict(given or {})
        known = {a.name for a in self.arguments}
        missing = [a.name for a in self.arguments if a.required and a.name not in given]
        unknown = sorted(set(given) - known)
        if missing or unknown:
            problems = [f"`{m}` is required" for m in missing] + [f"`{u}` is not an argument of it" for u in unknown]
            takes = ", ".join(a.name + (" (required)" if a.required else "") for a in self.arguments)
            raise InvalidRequest(f"prompt {self.name}: {'; '.join(problems)}. It takes: {takes or 'no arguments'}.")
        rendered = self.render(given)
        messages = [Message("user", rendered)] if isinstance(rendered, str) else list(rendered)
        if not all(isinstance(m, Message) and isinstance(m.content, BLOCK_TYPES) for m in messages):
            raise TypeError(f"prompt {self.name}: its renderer must return a str or a list of Message")
        return messages


def make_prompt(
    name: str, render: Renderer, *, description: str | None = None, arguments: Sequence[Argument] = ()
) -> Prompt:
    """Build a prompt, checking what a declaration can get wrong."""
    where = f"prompt {name!r}"
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RegistryError(f"{where}: a prompt name is 1-64 letters, digits, '_', '.' or '-'")
    text = declared_description(where, "renderer", render, description)
    names = [a.name for a in arguments]
    if len(set(names)) != len(names):
        raise RegistryError(f"{where}: an argument is declared twice")
    return Prompt(name, text, tuple(arguments), render)
