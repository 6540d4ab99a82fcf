"""The catalogue lock (`catalogue.lock`): every capability's tier, approval and read-only hint, as
last accepted. Most tiers follow the action's verb (facade.kit.domain `tier_for`), so renaming a
capability can move it between core and full, and one declaration can change what an operator
must approve; `facade check` compares the live registry with this file so that any such change
shows in review, and `facade check --update-lock` accepts it.

One line per capability, grouped by domain, so that a diff names exactly what changed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from facade.errors import ConfigError
from facade.kit.capability import Capability, Tier

LOCK_FILE = Path("catalogue.lock")
ACCEPT = "accept it with `facade check --update-lock` and commit catalogue.lock"
HEADER = """\
# The catalogue lock: every capability's tier, approval (0 none, 1 the host asks, 2 an operator
# approves a card) and read-only hint, as last accepted. `facade check` fails when the registry
# differs; review the change, then accept it with `facade check --update-lock`. Do not edit by hand.
"""


@dataclass(frozen=True, slots=True)
class Locked:
    """What the lock holds of one capability."""

    tier: Tier
    approval: int
    read_only: bool

    def describe(self) -> str:
        return f"tier {self.tier}, approval {self.approval}, read-only {str(self.read_only).lower()}"


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tier: Tier
    approval: int
    read_only: bool


def locked(capability: Capability) -> Locked:
    return Locked(capability.tier, int(capability.approval), capability.annotations.read_only)


def live(capabilities: Iterable[Capability]) -> dict[str, Locked]:
    return {c.name: locked(c) for c in capabilities}


def read_lock(path: Path) -> dict[str, Locked] | None:
    """The lock's entries by capability name; None when there is no lock file."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"catalogue lock {path}: cannot read it as TOML ({exc}); rewrite it with `facade check --update-lock`") from None
    entries: dict[str, Locked] = {}
    try:
        for domain, actions in raw.items():
            for action, entry in dict(actions).items():
                parsed = _Entry.model_validate(entry)
                entries[f"{domain}.{action}"] = Locked(parsed.tier, parsed.approval, parsed.read_only)
    except (ValidationError, TypeError, ValueError) as exc:
        raise ConfigError(f"catalogue lock {path}: not a lock ({exc}); rewrite it with `facade check --update-lock`") from None
    return entries


def render_lock(entries: Mapping[str, Locked]) -> str:
    """The lock as TOML: a table per domain, an inline table per capability, sorted."""
    lines = [HEADER.rstrip("\n")]
    domain = None
    for name in sorted(entries):
        head, action = name.split(".", 1)
        if head != domain:
            lines += ["", f"[{head}]"]
            domain = head
        e = entries[name]
        lines.append(f'{action} = {{ tier = "{e.tier}", approval = {e.approval}, read_only = {str(e.read_only).lower()} }}')
    return "\n".join(lines) + "\n"


def write_lock(path: Path, capabilities: Iterable[Capability]) -> int:
    entries = live(capabilities)
    path.write_text(render_lock(entries), encoding="utf-8")
    return len(entries)


def lock_changes(was: Mapping[str, Locked], now: Mapping[str, Locked]) -> list[str]:
    """Each difference between the lock and the registry, naming the capability and the change."""
    problems = []
    for name in sorted(set(now) | set(was)):
        before, after = was.get(name), now.get(name)
        if before is None and after is not None:
            change = f"is new ({after.describe()})"
        elif after is None and before is not None:
            change = f"was removed (it was {before.describe()})"
        elif before is not None and after is not None and before != after:
            change = ", ".join(
                f"{field.replace('_', '-')} {_value(getattr(before, field))} → {_value(getattr(after, field))}"
                for field in ("tier", "approval", "read_only")
                if getattr(before, field) != getattr(after, field)
            )
            change = f"changed {change}"
        else:
            continue
        problems.append(f"lock: {name} {change}; if that is intended, {ACCEPT}")
    return problems


def _value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
