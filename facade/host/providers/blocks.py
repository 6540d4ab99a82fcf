"""Reading a fenced reply: ```tool blocks holding `{"tool": ..., "args": ...}` and ```html apps.

Small models without function calling get the JSON almost right: prose around the block, a
```json fence instead of ```tool, a missing closing brace or quote, trailing or missing commas,
single quotes, Python's True/None, unquoted keys and values, comments, unescaped inner quotes.
`json-repair` mends those, and its result is taken only when it kept every letter and digit the
model wrote and closed no string on a bracket it guessed; otherwise the model is told what to fix
(`problem`, written for the model: it reads it as the next message), never handed a guess.

What is a call: a ```tool block, always (the protocol says so); a ```json block, an unlabelled
block or a bare object only when it names one of the tools offered — a model asked to answer in
JSON writes `{"name": "Kestrel"}`, which is an answer. A tool name may come in the provider form
(`files-read`, as a native API would spell it): it is mapped back (facade/host/names.py).

Where a block ends: a ``` inside a JSON string does not end it (a markdown file with a code block
is written whole). The block's JSON is scanned string by string; when it does not close — a
string left open, a brace missing — and more fences follow, where it ends cannot be known, and
the block is refused rather than cut short.
"""

from __future__ import annotations

import difflib
import json
import re
import uuid
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

import json_repair

from facade.host.messages import ToolCall
from facade.host.names import from_provider
from facade.host.providers.base import Artifact

OPENING = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?")
FENCE = "```"
BARE_CALL = re.compile(r"""\{\s*["']?(?:tool|name|tool_name|function)["']?\s*:""")
TOOL_KEYS = ("tool", "name", "tool_name", "function")
ARGS_KEYS = ("args", "arguments", "parameters", "params", "input")
SMART = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
FORM = '```tool\n{"tool": "domain.action", "args": {"field": "value"}}\n```'
# How a call that names no offered tool, but one near it, is told so (read_call, meant_call).
NO_TOOL = "there is no tool named"
TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
# What a repair may drop without losing anything the model meant: comments outside strings, and
# the spelling of literals (True/None become true/null).
_STRING_OR_COMMENT = re.compile(r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*.*?\*/|\#[^\n]*""", re.DOTALL)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_LITERAL = re.compile(r"\b(?:true|false|null|none)\b")
_WORD = re.compile(r"[^\W_]+")


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


@dataclass(frozen=True)
class Block:
    """One candidate call or app in a reply.

    Attributes:
        lang: the fence's label, lowercased ("" unlabelled; "bare" for an object with no fence).
        body: what the block holds; for JSON, from its first bracket to where it ends.
        whole: the block as written, fences included (what an app's placeholder replaces).
        problem: set when where the block ends cannot be known.
    """

    lang: str
    body: str
    whole: str
    problem: str | None = None


def fix(what: str) -> str:
    """The message a model gets when its call could not be read."""
    return f"I could not read your tool call: {what}\nReply again with only this block, nothing before or after it:\n{FORM}"


def read_reply(reply: str, tools: Collection[str] = ()) -> Reading:
    """The calls, problem and apps of one reply; `tools` are the names offered (only a ```tool
    block is a call without naming one of them)."""
    reading = Reading(text=reply)
    known = set(tools)
    calls: list[ToolCall] = []
    for block in blocks(reply):
        if block.lang == "html" or (block.lang == "" and block.body.lstrip().lower().startswith(("<!doctype html", "<html"))):
            if not _take_html(block.body, reading):
                return reading
            reading.text = reading.text.replace(block.whole, f"[HTML app: {reading.artifacts[-1].title or 'untitled'}]", 1)
            continue
        protocol = block.lang.startswith("tool")
        if not protocol and block.lang not in ("json", "", "bare"):
            continue
        if block.problem:
            if protocol or mentions(block.body, known):
                reading.problem = fix(block.problem)
                return reading
            continue
        call, problem = read_call(block.body, known if not protocol else None)
        if problem and (protocol or meant_call(block.body, known, problem)):
            reading.problem = fix(problem)
            return reading
        if call is not None:
            calls.append(call)
    if calls:
        reading.calls.append(calls[0])
        if len(calls) > 1:
            reading.notes.append(
                f"You wrote {len(calls)} tool blocks in one reply; only the first ({calls[0].name}) ran. "
                "Send one block per reply and wait for its result before the next."
            )
    return reading


def blocks(reply: str) -> Iterator[Block]:
    """The fenced blocks of a reply in order, then — when it has no fence — a bare object that
    looks like a call."""
    scan = reply.translate(SMART)  # the same length: positions carry over
    position = 0
    fenced = False
    while (opening := OPENING.search(reply, position)) is not None:
        fenced = True
        lang, start = opening.group(1).lower(), opening.end()
        bracket = _first_bracket(scan, start)
        if lang != "html" and bracket is not None:
            end, close, problem = _json_extent(scan, bracket, fenced=True)
            yield Block(lang, reply[bracket:end], reply[opening.start() : close], problem)
        else:
            found = reply.find(FENCE, start)
            end = len(reply) if found < 0 else found
            close = len(reply) if found < 0 else found + len(FENCE)
            yield Block(lang, reply[start:end], reply[opening.start() : close])
        position = close
    if not fenced and (bare := BARE_CALL.search(scan)) is not None:
        end, _, problem = _json_extent(scan, bare.start(), fenced=False)
        yield Block("bare", reply[bare.start() : end], reply[bare.start() : end], problem)


def _first_bracket(text: str, start: int) -> int | None:
    """Where the block's JSON starts: its first non-space character, when that is a bracket."""
    index = start
    while index < len(text) and text[index].isspace():
        index += 1
    return index if index < len(text) and text[index] in "{[" else None


def _json_extent(text: str, start: int, *, fenced: bool) -> tuple[int, int, str | None]:
    """(where the JSON value from `start` ends, where its block ends, a problem when that cannot
    be known). Strings are skipped whole, so a ``` inside one is text, not the closing fence. In a
    fenced block, JSON-like text after the value closed (a `"`, a bracket) stays in the body: the
    value closed too early, on a quote the model left unescaped, and reading it alone would cut."""
    depth, index, n = 0, start, len(text)
    while index < n:
        ch = text[index]
        if ch == '"' or (ch == "'" and _opens_string(text, index)):
            closing = _string_end(text, index)
            if closing is None:
                return _open_string_extent(text, index)
            index = closing + 1
            continue
        if text.startswith(FENCE, index):
            return index, index + len(FENCE), _unknown_end(text, index + len(FENCE))
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                if not fenced:
                    return index + 1, index + 1, None
                found = text.find(FENCE, index + 1)
                stop = n if found < 0 else found
                rest = text[index + 1 : stop]
                return (stop if any(c in rest for c in '"{}[]') else index + 1), (n if found < 0 else found + len(FENCE)), None
        index += 1
    return n, n, None


def _opens_string(text: str, index: int) -> bool:
    """A single quote opens a string only where a key or a value starts (Python-style quoting),
    never as an apostrophe in a bare word."""
    index -= 1
    while index >= 0 and text[index].isspace():
        index -= 1
    return index >= 0 and text[index] in "{[,:"


def _string_end(text: str, start: int) -> int | None:
    quote, index = text[start], start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            return index
        index += 1
    return None


def _open_string_extent(text: str, quote: int) -> tuple[int, int, str | None]:
    """A string that never closes: the block ends at the first fence that begins a line after it
    (a ``` inside an escaped string never does), and only if no fence follows that one. With no
    fence after it the reply ended inside the string — cut off (a length stop), so whatever closed
    it would be a guess at text the model never wrote."""
    line_fence = re.compile(r"^[ \t]*```", re.MULTILINE).search(text, quote + 1)
    if line_fence is None:
        return len(text), len(text), (
            "your reply ends inside a string, before the block closed: it was cut off. "
            "Send the call again, whole; if a text argument is long, write it in parts."
        )
    fence = line_fence.end() - len(FENCE)
    problem = _unknown_end(text, line_fence.end())
    if problem is None and FENCE in text[quote + 1 : fence]:
        problem = "a string in your block is never closed, and it holds a ```, so I cannot tell where it ends."
    return fence, line_fence.end(), problem


def _unknown_end(text: str, after: int) -> str | None:
    if FENCE not in text[after:]:
        return None
    return (
        "your block's JSON is still open (a string or a brace not closed) where a ``` comes, and more ``` follow, "
        "so I cannot tell where the block ends. Close every string and brace; a ``` inside a string is fine."
    )


def mentions(body: str, known: set[str]) -> bool:
    """Whether an unreadable block that is not a ```tool block names one of the tools: then it
    meant a call; otherwise it is part of the answer."""
    return any(name in body or name.replace(".", "-") in body for name in known)


def meant_call(body: str, known: set[str], problem: str) -> bool:
    """Whether a block that could not be read as a call meant one: it names an offered tool, or
    it is call-shaped and names a tool near one (read_call said so)."""
    return problem.startswith(NO_TOOL) or mentions(body, known)


def near_miss(name: str, known: Collection[str]) -> str | None:
    """The offered tool a call naming an unknown one most likely meant: the one tool with the same
    action under another domain (`orders.task_create` for `projects.task_create`, seen from
    Qwen2.5-Coder-0.5B), else the closest spelling; None when nothing is near."""
    action = name.rpartition(".")[2]
    same = [tool for tool in known if tool.rpartition(".")[2] == action]
    if len(same) == 1:
        return same[0]
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
    return close[0] if close else None


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


def read_call(body: str, known: set[str] | None) -> tuple[ToolCall | None, str | None]:
    """The call a block holds, or what is wrong with it. With `known`, an object naming none of
    those tools is no call (and no problem): it is an answer written in JSON."""
    value, error = loads_forgiving(body)
    if error is not None:
        return None, error
    if isinstance(value, list):
        return None, "the block holds a list; send one JSON object, one tool call per reply."
    if not isinstance(value, dict):
        return None, f"the block holds {json.dumps(value)[:80]}, not a JSON object."
    name_key = next((k for k in TOOL_KEYS if k in value), None)
    if name_key is None or not isinstance(value[name_key], str) or not value[name_key].strip():
        if known is not None:
            return None, None
        return None, f'the object has no "tool" naming the tool to call (its keys: {", ".join(value) or "none"}).'
    name = from_provider(value[name_key].strip())
    args_key = next((k for k in ARGS_KEYS if k in value), None)
    if known is not None and name not in known:
        # An answer in JSON names no tool; an object shaped like a call (a name and its arguments)
        # that names one near an offered tool meant that tool, and the model hears which.
        near = near_miss(name, known) if args_key is not None else None
        if near is None:
            return None, None
        return None, f'{NO_TOOL} "{name}"; the nearest offered tool is "{near}": call it by that name if you meant it, or answer in plain text.'
    args, error = arguments(value[args_key] if args_key else {k: v for k, v in value.items() if k != name_key}, '"args"')
    if error is not None:
        return None, error
    return ToolCall(f"fenced_{uuid.uuid4().hex[:10]}", name, args), None


def arguments(raw: Any, what: str) -> tuple[dict[str, Any], str | None]:
    """A call's arguments as the model gave them — an object, a JSON string (the native APIs' form),
    a JSON string inside a string, or broken JSON the repair is sure of (single quotes, a trailing
    comma, unquoted values) — as a dict; else `{}` and what is wrong, `what` naming them. The one
    rule for both protocols: a native call's arguments are read as forgivingly as a fenced block's."""
    value = raw
    for depth in range(2):  # a JSON string inside a string: one more level
        if not isinstance(value, str):
            break
        text = value.strip()
        if not text:
            value = None
            break
        if depth and text[0] not in "{[":
            break  # a plain string inside the string: not arguments
        try:
            value = json.loads(text, strict=False)
        except json.JSONDecodeError:
            value, error = loads_forgiving(text)
            if error is not None:
                return {}, f"{what} is a string that is not a JSON object ({error})"
            break
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"{what} must be an object of named fields, not {type(value).__name__}."
    return value, None


def loads_forgiving(text: str) -> tuple[Any, str | None]:
    """The JSON value `text` holds from its first bracket on, repaired when the repair is sure;
    else an error that says where it broke."""
    text = text.translate(SMART)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None, "the block holds no JSON object (no { found)."
    source = text[start:]
    try:
        return json.loads(source, strict=False), None
    except json.JSONDecodeError as exc:
        broken = exc
    repaired = json_repair.loads(source)
    doubt = _doubt(source, repaired)
    if doubt is None:
        return repaired, None
    near = source[max(broken.pos - 25, 0) : broken.pos + 25].replace("\n", " ")
    return None, f"the JSON is broken at character {broken.pos} ({broken.msg}), near «{near}», and {doubt}"


def _doubt(source: str, repaired: Any) -> str | None:
    """Why a repair cannot be trusted, or None. It must keep every letter and digit the model
    wrote outside comments (nothing dropped), and must not end a string on a bracket or a quote —
    the mark of a string it closed too late (`"notes/todo.txt}}` read as a path ending in `}}`,
    `'it's done'` as a text ending in `'`)."""
    if repaired in ("", None) and source.strip():
        return "I could not make a JSON object of it."
    written = _ESCAPE.sub(_unescape, _STRING_OR_COMMENT.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else " ", source))
    kept = " ".join(_scalars(repaired))
    if _characters(written) - _characters(kept):
        words = [w for w in dict.fromkeys(_WORD.findall(_LITERAL.sub(" ", written.lower()))) if w not in kept.lower()]
        dropped = ", ".join(f"«{w}»" for w in words[:3]) or "some of its letters"
        return f"mending it would drop {dropped}: check its quotes, commas and brackets."
    guessed = [s for s in _scalars(repaired) if s.rstrip()[-1:] in ("}", "]", "'") and json.dumps(s, ensure_ascii=False) not in source]
    if guessed:
        return f"the string «{guessed[0][:40]}» is not closed where it should be: close it with a \" before the brackets."
    return None


def _unescape(match: re.Match[str]) -> str:
    """A JSON escape as the character it stands for (a control character as a space)."""
    escaped = match.group(1)
    if len(escaped) == 5:
        return chr(int(escaped[1:], 16))
    return " " if escaped in "nrtbf" else escaped


def _characters(text: str) -> Counter[str]:
    return Counter(ch for ch in _LITERAL.sub(" ", text.lower()) if ch.isalnum())


def _scalars(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from _scalars(item)
    elif isinstance(value, str):
        yield value
    elif not isinstance(value, bool) and value is not None:
        yield json.dumps(value)

