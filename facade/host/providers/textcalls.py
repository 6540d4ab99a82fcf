"""Tool calls a native-protocol model wrote as text, in its family's own syntax, lifted into calls.

A server lifts them itself only when it knows the family's format (llama.cpp's `llama-server
--jinja`, vLLM with `--tool-call-parser`); llama-cpp-python's server, a vLLM started without a
parser, or a small model that forgets the API hand back the raw text. Read here:

- Hermes/Qwen `<tool_call>{"name": …, "arguments": …}</tool_call>`, one or several: the tag is the
  family's protocol, so its content is a call whatever it names (an unknown name is answered with
  the real ones), and prose around the tags stays the reply's text;
- a reply that is nothing but one JSON object (bare, or in a ```json / ```tool / unlabelled block)
  naming an offered tool. Naming none, it is an answer written in JSON (`{"name": "Kestrel"}`).

The JSON inside is read by the fenced path's reader (facade/host/providers/blocks.py): the same
forgiving repair, the same keys, the provider spelling `files-read` mapped back to `files.read`.
What meant a call but cannot be read becomes `problem`, for the model to fix: a text-shaped call is
never shown to the user as the answer.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field, replace

from facade.host.messages import ToolCall
from facade.host.providers.blocks import blocks, meant_call, read_call

OPEN, CLOSE = "<tool_call>", "</tool_call>"
TAGGED = re.compile(re.escape(OPEN) + r"(.*?)(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL)
FORM = '<tool_call>{"name": "domain-action", "arguments": {"field": "value"}}</tool_call>'


@dataclass
class Lifted:
    """What a reply's text asked for.

    Attributes:
        calls: the calls written as text, in order.
        text: the reply without them (what the model said besides).
        problem: set when the text meant a call that could not be read; written for the model.
    """

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    problem: str | None = None


def lift(reply: str, tools: Collection[str]) -> Lifted:
    """The calls written in `reply`; `tools` are the names offered."""
    if OPEN in reply:
        return _tagged(reply)
    return _whole(reply, set(tools))


def fix(what: str) -> str:
    """The message a model gets when the call it wrote as text could not be read."""
    return f"I could not read your tool call: {what}\nCall the tool again, with its arguments as one JSON object, e.g. {FORM}"


def _tagged(reply: str) -> Lifted:
    calls: list[ToolCall] = []
    for match in TAGGED.finditer(reply):
        if not match.group(0).endswith(CLOSE):
            return Lifted(text=reply, problem=fix("your reply ends inside a <tool_call> that never closes: it was cut off."))
        call, problem = read_call(match.group(1), None)
        if problem is not None or call is None:
            return Lifted(text=reply, problem=fix(problem or "the <tool_call> holds no call."))
        calls.append(_native(call))
    return Lifted(calls, TAGGED.sub("", reply).strip())


def _whole(reply: str, known: set[str]) -> Lifted:
    body, problem = _only_object(reply)
    if body is None:
        return Lifted(text=reply)
    call = None
    if problem is None:
        call, problem = read_call(body, known)
    if problem is not None:
        return Lifted(text=reply, problem=fix(problem)) if meant_call(body, known, problem) else Lifted(text=reply)
    return Lifted([_native(call)], "") if call is not None else Lifted(text=reply)


def _only_object(reply: str) -> tuple[str | None, str | None]:
    """The JSON object that is the whole reply — bare, or alone in a ```json, ```tool or unlabelled
    block — and a problem when where its block ends cannot be known; (None, None) when the reply
    is anything else."""
    stripped = reply.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        return stripped, None
    found = list(blocks(reply))
    if len(found) != 1 or found[0].whole.strip() != stripped or found[0].lang not in ("json", "", "tool"):
        return None, None
    if not found[0].body.lstrip().startswith("{"):
        return None, None
    return found[0].body, found[0].problem


def _native(call: ToolCall) -> ToolCall:
    return replace(call, id=f"call_{uuid.uuid4().hex[:12]}")
