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
    lines = [f"I stopped after {max_steps} model steps, the limit for one request, without finishing.", *_found(executed)]
    if last is not None and last.cut_off:
        lines.append(f"Where I stopped: my last reply was {_cap(last)}.")
    elif last is not None and last.problem:
        lines.append("Where I stopped: my last reply could not be read as a tool call.")
    elif last is not None and last.tool_calls:
        names = ", ".join(c.name for c in last.tool_calls)
        lines.append(f"Where I stopped: I had just called {names} and had not yet read the result.")
    lines.append("Ask me to continue, or allow more steps with --max-steps.")
    return "\n".join(lines)


def _found(executed: list[Executed]) -> list[str]:
    lines = []
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
    return lines


def _cap(turn: ModelTurn) -> str:
    tokens = turn.usage.output_tokens
    return f"cut off at the token cap ({tokens:,} tokens)" if tokens else "cut off at the token cap"


def ask_shorter(turn: ModelTurn) -> str:
    """What the model is told the first time a reply meant as a call or an app is cut off: the
    cause, and how to fit under the cap — not "send it again", which hits the same cap."""
    tokens = turn.usage.output_tokens
    at = f"at {tokens:,} tokens" if tokens else "at the token cap"
    return (
        f"Your reply was cut off {at}, the most one reply may hold, before it was complete, so nothing ran. "
        "Send a shorter reply: one tool call at a time, and when an argument or a document is long, write it in parts "
        "(the first part now, the rest in the next calls) or make it smaller."
    )


def cut_off_stop(turn: ModelTurn, executed: list[Executed]) -> str:
    """The turn's end when a reply is cut off a second time: the true reason and what to change."""
    return "\n".join(
        [
            f"I stopped: my reply was {_cap(turn)} twice, before the tool call or document I was writing was complete, so it did not run.",
            *_found(executed),
            "Raise the reply cap (the provider's max_tokens: FACADE_HOST_MAX_TOKENS) or ask for something smaller.",
        ]
    )


def cut_off_answer(turn: ModelTurn, answer: str) -> str:
    """An answer the cap cut short, shown with a line that says so."""
    return f"{answer}\n[{_cap(turn)}: the answer is incomplete]"
