"""The honest stop: what the user is told when the loop reaches its step cap.

Written by the host from what actually ran, not by one more model call: at the cap the model
has already shown it is not converging, and a summary it wrote could claim what no tool
returned. It says what was found, where it stopped and how to go on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from facade.host.providers.base import ModelTurn

SHOWN_CALLS = 8
RESULT_CHARS = 160


@dataclass(frozen=True)
class Executed:
    """A tool call the loop handled this turn.

    Attributes:
        step: the model call that asked for it.
        name: the tool.
        arguments: as the model gave them.
        text: the result the model read.
        is_error: the call failed or was refused.
        denied: the permission policy refused it (it never reached the facade).
        writes: the tool may change state (not announced read-only).
    """

    step: int
    name: str
    arguments: dict[str, Any]
    text: str
    is_error: bool
    denied: bool = False
    writes: bool = True


def _brief(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= RESULT_CHARS else line[: RESULT_CHARS - 1] + "…"


def _call(e: Executed) -> str:
    args = json.dumps(e.arguments, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"{e.name} {args if len(args) <= 80 else args[:79] + '…'}"


def honest_stop(max_steps: int, executed: list[Executed], last: ModelTurn | None) -> str:
    lines = [f"I stopped after {max_steps} model steps, the limit for one request, without finishing."]
    if executed:
        lines.append("What I found:")
        shown = executed[-SHOWN_CALLS:]
        if len(executed) > len(shown):
            lines.append(f"- ({len(executed) - len(shown)} earlier calls not shown)")
        for e in shown:
            status = "denied" if e.denied else "failed" if e.is_error else "returned"
            lines.append(f"- {_call(e)} {status}: {_brief(e.text)}")
    else:
        lines.append("No tool ran: I found nothing yet.")
    if last is not None and last.problem:
        lines.append("Where I stopped: my last reply could not be read as a tool call.")
    elif last is not None and last.tool_calls:
        names = ", ".join(c.name for c in last.tool_calls)
        lines.append(f"Where I stopped: I had just called {names} and had not yet read the result.")
    lines.append("Ask me to continue, or allow more steps with --max-steps.")
    return "\n".join(lines)
