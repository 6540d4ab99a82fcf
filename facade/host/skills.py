"""Skills: instruction bundles the user writes once and the agent reuses (how to file an expense,
the house style of a report), kept by the host beside the facade's tools.

A skill is a folder holding `SKILL.md`: YAML front matter with `name` (lowercase letters, digits
and hyphens, up to 64) and `description` (what it is for and when to use it, up to 1,024
characters), then the instructions in Markdown — the layout other agent hosts read, so a bundle
written for one works here. The skills folder is `FACADE_HOST_SKILLS`, else `.facade/skills` in
the working folder; each folder directly inside it that holds a SKILL.md is one skill.

What the model sees: every skill's name and description in the system prompt's static part (they
change only when the files do, so the prompt's cached prefix holds), and one tool the host answers
itself, `host.skill_read {name}`, which returns that skill's instructions — a skill costs its
summary line until it is used. Only SKILL.md's text is read; other files in the folder are not.
The tool goes through the permission policy like any other (read-only: allowed by default).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from facade.host.loop import LoopConfig, ToolSource
from facade.host.messages import ToolSpec
from facade.host.prompt import cap
from facade.host.settings import DEFAULT_SKILLS, host_settings
from facade.host.tools import ToolOutcome

VARIABLE = "FACADE_HOST_SKILLS"
DEFAULT_FOLDER = DEFAULT_SKILLS
SKILL_FILE = "SKILL.md"
READ_TOOL = "host.skill_read"
NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
MAX_DESCRIPTION = 1_024
# A skill is read into the conversation whole; past this it is cut, marked [truncated].
MAX_BODY_CHARS = 20_000
FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


class SkillError(ValueError):
    """A SKILL.md the host cannot use; the message names the file and what to fix."""


@dataclass(frozen=True)
class Skill:
    """One bundle.

    Attributes:
        name: what the model calls it by.
        description: when to use it, as its author wrote it.
        path: its SKILL.md.
    """

    name: str
    description: str
    path: Path

    def instructions(self) -> str:
        """The text after the front matter, read now (the file may have changed), capped."""
        text = self.path.read_text(encoding="utf-8", errors="replace")
        found = FRONT_MATTER.match(text)
        return cap((text[found.end() :] if found else text).strip(), MAX_BODY_CHARS)[0]


def skills_folder(cwd: str | Path, env: Mapping[str, str] | None = None) -> tuple[Path, bool]:
    """(the skills folder, whether it was named): the one place FACADE_HOST_SKILLS is read."""
    named = host_settings(env).skills
    return (named.expanduser(), True) if named else (Path(cwd) / DEFAULT_FOLDER, False)


def load_skills(folder: Path, *, required: bool = False) -> list[Skill]:
    """Every skill in `folder`, by name. A folder that is not there holds none — unless it was
    named (`required`), when that is an error that says so."""
    if not folder.is_dir():
        if required:
            raise SkillError(f"{VARIABLE}={folder}: no such folder; create it with one folder per skill holding a {SKILL_FILE}, or unset {VARIABLE}")
        return []
    skills: dict[str, Skill] = {}
    for path in sorted(folder.glob(f"*/{SKILL_FILE}")):
        skill = read_skill(path)
        if skill.name in skills:
            raise SkillError(f"{path}: the name {skill.name!r} is already taken by {skills[skill.name].path}; give each skill its own name")
        skills[skill.name] = skill
    return [skills[name] for name in sorted(skills)]


def read_skill(path: Path) -> Skill:
    """A SKILL.md's name and description; a SkillError says what to fix."""
    text = path.read_text(encoding="utf-8", errors="replace")
    found = FRONT_MATTER.match(text)
    example = "---\\nname: expense-report\\ndescription: How to file an expense report; use it when asked to claim costs.\\n---"
    if found is None:
        raise SkillError(f"{path}: it must start with front matter naming the skill, e.g. {example}")
    try:
        meta: Any = yaml.safe_load(found.group(1))
    except yaml.YAMLError as exc:
        raise SkillError(f"{path}: its front matter is not valid YAML ({str(exc).splitlines()[0]}); quote a description that holds a colon") from None
    meta = meta if isinstance(meta, dict) else {}
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not NAME.match(name):
        raise SkillError(f"{path}: name must be lowercase letters, digits and hyphens (at most 64, e.g. expense-report), not {name!r}")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{path}: description must say what the skill is for and when to use it, e.g. {example}")
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION:
        raise SkillError(f"{path}: description is {len(description)} characters; keep it to {MAX_DESCRIPTION} and put the rest in the instructions")
    return Skill(name, description, path)


def summary(skills: list[Skill]) -> str:
    """The system prompt's section: one line per skill."""
    lines = [
        "# Skills",
        f"Instructions the user wrote for tasks of theirs. When a request fits one, call {READ_TOOL} with its name first and follow what it says.",
    ]
    lines += [f"- {s.name}: {s.description}" for s in skills]
    return "\n".join(lines)


def read_spec(skills: list[Skill]) -> ToolSpec:
    return ToolSpec(
        READ_TOOL,
        "Read one of your skills (listed under # Skills): its full instructions.",
        {"type": "object", "properties": {"name": {"type": "string", "enum": [s.name for s in skills]}}, "required": ["name"]},
        read_only=True,
    )


class SkilledTools:
    """The facade's tools with `host.skill_read` beside them; everything else is the inner
    source's (attributes too: `fetches`, `watching`, …)."""

    def __init__(self, inner: ToolSource, skills: list[Skill]) -> None:
        self.inner = inner
        self.skills = {s.name: s for s in skills}
        self.read_spec = read_spec(skills)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def tools(self) -> list[ToolSpec]:
        return [*await self.inner.tools(), self.read_spec]

    async def tools_md(self) -> str | None:
        return await self.inner.tools_md()

    def spec(self, name: str) -> ToolSpec | None:
        return self.read_spec if name == READ_TOOL else self.inner.spec(name)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        if name != READ_TOOL:
            return await self.inner.call(name, arguments)
        wanted = arguments.get("name")
        skill = self.skills.get(wanted) if isinstance(wanted, str) else None
        if skill is None:
            return ToolOutcome(f"There is no skill named {wanted!r}. The skills are: {', '.join(self.skills)}.", True)
        try:
            return ToolOutcome(f"Skill {skill.name}:\n\n{skill.instructions()}", False)
        except OSError as exc:
            return ToolOutcome(f"The skill {skill.name} could not be read ({exc.strerror or exc}); tell the user its file {skill.path} is unreadable.", True)


def with_skills(tools: ToolSource, config: LoopConfig, env: Mapping[str, str] | None = None) -> tuple[ToolSource, LoopConfig]:
    """The tools and the loop's settings with the user's skills in them (unchanged when there are
    none)."""
    folder, named = skills_folder(config.cwd, env)
    skills = load_skills(folder, required=named)
    if not skills:
        return tools, config
    return SkilledTools(tools, skills), replace(config, static_sections=[*config.static_sections, summary(skills)])
