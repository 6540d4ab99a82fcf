"""Which tool calls run: Allow, Deny or Prompt per tool, by glob rules and a default.

The most specific matching rule wins (more literal characters; on a tie the more cautious
decision), so `files.*=allow` with `files.delete=deny` means what it says whatever the order
the rules were given in. Capabilities of approval 1 (`_meta["facade/approval"]`) are ones the
host must ask its user about: they default to Prompt, and only a rule naming the tool exactly
can allow them outright — a wildcard Allow written for a whole domain does not silently waive
a confirmation the capability's author asked for. A tool that announces `destructiveHint:
true` (it may delete or overwrite) is asked about too when no rule names it — whatever the
default, short of deny: a rule that matches it (`files.*=allow`, even `*=allow`) is the user's
own word and is followed. Prompt with nobody to ask is Deny, with a reason the model can pass on. A denial is a value (`Verdict`), never an exception: the loop
turns it into an error tool result.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any

from facade.host.messages import ToolSpec

WILDCARDS = "*?["


class Decision(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    PROMPT = "prompt"


# On a tie between equally specific rules, the more cautious one wins.
CAUTION = {Decision.DENY: 2, Decision.PROMPT: 1, Decision.ALLOW: 0}


@dataclass(frozen=True)
class Rule:
    """A decision for every tool whose facade name matches `pattern` (fnmatch globs: `files.*`).

    Attributes:
        pattern: the glob, matched case-sensitively against `domain.action`.
        decision: what to do with a matching call.
    """

    pattern: str
    decision: Decision

    @property
    def exact(self) -> bool:
        return not any(c in self.pattern for c in WILDCARDS)

    @property
    def specificity(self) -> int:
        return sum(1 for c in self.pattern if c not in WILDCARDS)

    def matches(self, name: str) -> bool:
        return fnmatchcase(name, self.pattern)

    @classmethod
    def parse(cls, text: str) -> Rule:
        """`PATTERN=allow|deny|prompt`."""
        pattern, sep, word = text.rpartition("=")
        try:
            if not sep or not pattern:
                raise ValueError
            return cls(pattern.strip(), Decision(word.strip().lower()))
        except ValueError:
            raise ValueError(f"permission rule {text!r}: write PATTERN=allow, PATTERN=deny or PATTERN=prompt (e.g. 'files.*=prompt')") from None


@dataclass(frozen=True)
class PermissionRequest:
    """What a prompter is asked.

    Attributes:
        tool: the facade name of the tool.
        arguments: the arguments the model gave (identity fields are added later, by the hook).
        approval: the tool's approval level.
        reason: why the user is asked.
    """

    tool: str
    arguments: dict[str, Any]
    approval: int
    reason: str


Prompter = Callable[[PermissionRequest], bool | Awaitable[bool]]


@dataclass(frozen=True)
class Verdict:
    """The outcome for one call.

    Attributes:
        allowed: run the call.
        decision: what the policy decided before anyone was asked.
        reason: why; for a denial, written for the model, which reads it as the tool's result.
    """

    allowed: bool
    decision: Decision
    reason: str


@dataclass
class PermissionPolicy:
    """Rules and a default.

    Attributes:
        rules: the rules, in any order (the most specific match wins).
        default: the decision for a tool no rule matches.
    """

    rules: list[Rule] = field(default_factory=list)
    default: Decision = Decision.ALLOW

    @classmethod
    def of(cls, *, allow: Iterable[str] = (), deny: Iterable[str] = (), prompt: Iterable[str] = (), default: str = "allow") -> PermissionPolicy:
        """From the command line's `--allow`, `--deny`, `--ask` patterns and `--default`."""
        rules = [Rule(p, Decision.ALLOW) for p in allow] + [Rule(p, Decision.DENY) for p in deny] + [Rule(p, Decision.PROMPT) for p in prompt]
        try:
            chosen = Decision(default.lower())
        except ValueError:
            raise ValueError(f"default permission {default!r}: choose allow, deny or prompt") from None
        return cls(rules, chosen)

    def decide(self, tool: ToolSpec) -> tuple[Decision, Rule | None]:
        matching = [r for r in self.rules if r.matches(tool.name)]
        rule = max(matching, key=lambda r: (r.specificity, CAUTION[r.decision]), default=None)
        decision = rule.decision if rule else self.default
        if rule is None and tool.destructive and decision is Decision.ALLOW:
            decision = Decision.PROMPT
        if tool.approval == 1 and decision is Decision.ALLOW and not (rule and rule.exact):
            decision = Decision.PROMPT
        return decision, rule

    async def authorize(self, tool: ToolSpec, arguments: dict[str, Any], prompter: Prompter | None) -> Verdict:
        decision, rule = self.decide(tool)
        source = f"the rule {rule.pattern}={rule.decision}" if rule else f"the default ({self.default})"
        if decision is Decision.ALLOW:
            return Verdict(True, decision, f"allowed by {source}")
        if decision is Decision.DENY:
            return Verdict(False, decision, f"{tool.name} is not allowed in this session ({source}). Do not call it again; do the task another way or tell the user it is blocked.")
        if tool.approval == 1 and (rule is None or rule.decision is Decision.ALLOW):
            why = "the capability asks for the user's confirmation"
        elif rule is None and tool.destructive and self.default is Decision.ALLOW:
            why = "the tool says it may delete or overwrite data"
        else:
            why = f"{source} asks the user first"
        if prompter is None:
            return Verdict(
                False,
                decision,
                f"{tool.name} needs the user's approval ({why}) and nobody is here to give it: this session is not "
                f"interactive. Do not call it again; tell the user it needs their approval (they can allow it with --allow {tool.name}).",
            )
        answer = prompter(PermissionRequest(tool.name, arguments, tool.approval, why))
        if inspect.isawaitable(answer):
            answer = await answer
        if answer:
            return Verdict(True, decision, "approved by the user")
        return Verdict(False, decision, f"The user declined {tool.name} with these arguments. Do not retry it unchanged; ask the user what they want instead.")
