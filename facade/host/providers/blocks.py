"""Reading a fenced reply: ```tool blocks holding `{"tool": ..., "args": ...}` and ```html apps.

Small models without function calling get the JSON almost right: prose around the block, a
```json fence instead of ```tool, a missing closing brace, trailing commas, single quotes,
Python's True/None, unquoted keys. All of that is repaired silently. What cannot be repaired
comes back as a `problem` that says what was wrong and shows the exact form to send — the model
reads it as the next message, so it is written for the model.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from facade.host.messages import ToolCall
from facade.host.providers.base import Artifact

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
BARE_CALL = re.compile(r"""\{\s*["']?(?:tool|name)["']?\s*:""")
TOOL_KEYS = ("tool", "name", "tool_name", "function")
ARGS_KEYS = ("args", "arguments", "parameters", "params", "input")
LITERALS = {"True": "true", "False": "false", "None": "null", "true": "true", "false": "false", "null": "null"}
SMART = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
FORM = '```tool\n{"tool": "domain.action", "args": {"field": "value"}}\n```'
TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


@dataclass
class Reading:
    """What a fenced reply asked for.

    Attributes:
        calls: the tool call to run (at most one: the protocol is one call per reply).
        problem: set when the reply meant a tool call or an app that could not be read; the
            text tells the model what to fix.
        notes: remarks to show the model with the call's result.
        artifacts: complete HTML documents to save.
        text: the reply with each ```html block replaced by a short placeholder.
    """

    calls: list[ToolCall] = field(default_factory=list)
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    text: str = ""


def fix(what: str) -> str:
    """The message a model gets when its call could not be read."""
    return f"I could not read your tool call: {what}\nReply again with only this block, nothing before or after it:\n{FORM}"


def read_reply(reply: str) -> Reading:
    reading = Reading(text=reply)
    tool_bodies: list[str] = []
    for match in FENCE.finditer(reply):
        lang, body = match.group(1).lower(), match.group(2)
        if lang == "html" or (not lang and body.lstrip().lower().startswith(("<!doctype html", "<html"))):
            if not _take_html(body, reading):
                return reading
            reading.text = reading.text.replace(match.group(0), f"[HTML app: {reading.artifacts[-1].title or 'untitled'}]", 1)
        elif lang.startswith("tool") or (lang in ("json", "") and BARE_CALL.search(body)):
            tool_bodies.append(body)
    if not tool_bodies and "```" not in reply and BARE_CALL.search(reply):
        # No fence at all, but the reply carries a call: prose around a bare object.
        tool_bodies.append(reply[BARE_CALL.search(reply).start() :])  # type: ignore[union-attr]
    if not tool_bodies:
        return reading
    call = _read_call(tool_bodies[0], reading)
    if call is not None:
        reading.calls.append(call)
        if len(tool_bodies) > 1:
            reading.notes.append(
                f"You wrote {len(tool_bodies)} tool blocks in one reply; only the first ({call.name}) ran. "
                "Send one block per reply and wait for its result before the next."
            )
    return reading


def _take_html(body: str, reading: Reading) -> bool:
    document = body.strip()
    if "</html>" not in document.lower() or "<html" not in document.lower():
        tail = document[-60:].replace("\n", " ")
        reading.problem = (
            "Your ```html block is not a complete HTML document: it must run from <!DOCTYPE html> to "
            f"</html>, and yours ends with «{tail}». Send the whole document again in one ```html block."
        )
        return False
    title = TITLE.search(document)
    reading.artifacts.append(Artifact("html", document, title.group(1).strip() if title else None))
    return True


def _read_call(body: str, reading: Reading) -> ToolCall | None:
    value, error = loads_forgiving(body)
    if error is not None:
        reading.problem = fix(error)
        return None
    if isinstance(value, list):
        reading.problem = fix("the block holds a list; send one JSON object, one tool call per reply.")
        return None
    if not isinstance(value, dict):
        reading.problem = fix(f"the block holds {json.dumps(value)[:80]}, not a JSON object.")
        return None
    name_key = next((k for k in TOOL_KEYS if k in value), None)
    if name_key is None or not isinstance(value[name_key], str) or not value[name_key].strip():
        reading.problem = fix(f'the object has no "tool" naming the tool to call (its keys: {", ".join(value) or "none"}).')
        return None
    args_key = next((k for k in ARGS_KEYS if k in value), None)
    args: Any = value[args_key] if args_key else {k: v for k, v in value.items() if k != name_key}
    if isinstance(args, str):
        args, error = loads_forgiving(args) if args.strip() else ({}, None)
        if error is not None:
            reading.problem = fix(f'"args" is a string that is not a JSON object ({error}).')
            return None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        reading.problem = fix(f'"args" must be an object of named fields, not {type(args).__name__}.')
        return None
    return ToolCall(f"fenced_{uuid.uuid4().hex[:10]}", value[name_key].strip(), args)


def loads_forgiving(text: str) -> tuple[Any, str | None]:
    """Parse the first JSON object in `text`, repairing what small models get wrong; the value,
    or an error that says where it broke."""
    text = text.translate(SMART)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None, "the block holds no JSON object (no { found)."
    repaired = _repair(text[start:])
    try:
        return json.loads(repaired, strict=False), None
    except json.JSONDecodeError as exc:
        near = repaired[max(exc.pos - 25, 0) : exc.pos + 25].replace("\n", " ")
        return None, f"the JSON is broken at character {exc.pos} ({exc.msg}), near «{near}»."


def _repair(src: str) -> str:
    """One pass that quotes single-quoted strings and bare keys, maps Python literals, drops
    trailing commas, stops after the top-level value closes (prose after it is ignored), and
    closes whatever is still open at the end (a string, then brackets)."""
    out: list[str] = []
    stack: list[str] = []
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch in "\"'":
            j, buf = i + 1, []
            while j < n and src[j] != ch:
                if src[j] == "\\" and j + 1 < n:
                    buf.append("'" if (ch == "'" and src[j + 1] == "'") else src[j : j + 2])
                    j += 2
                    continue
                buf.append('\\"' if (ch == "'" and src[j] == '"') else src[j])
                j += 1
            out.append('"' + "".join(buf) + '"')
            i = j + 1
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
            out.append(ch)
        elif ch in "}]":
            _drop_trailing_comma(out)
            if stack and stack[-1] == ch:
                stack.pop()
            out.append(ch)
            if not stack:
                return "".join(out)
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] in "_.-"):
                j += 1
            word = src[i:j]
            # A bare word is a key or a string the model forgot to quote.
            out.append(LITERALS.get(word) or json.dumps(word))
            i = j
            continue
        else:
            out.append(ch)
        i += 1
    _drop_trailing_comma(out)
    out.extend(reversed(stack))
    return "".join(out)


def _drop_trailing_comma(out: list[str]) -> None:
    k = len(out) - 1
    while k >= 0 and out[k].isspace():
        k -= 1
    if k >= 0 and out[k] == ",":
        del out[k]
