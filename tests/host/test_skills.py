"""Skills (issue 19, item 11): SKILL.md bundles found in the skills folder, their summaries in the
system prompt, a bundle's instructions read through `host.skill_read` — against a real facade."""

from __future__ import annotations

from pathlib import Path

import pytest

from facade.host.messages import ToolSpec
from facade.host.providers import ModelRequest
from facade.host.skills import READ_TOOL, SkillError, load_skills, skills_folder
from facade.host.testing import ScriptedModel, call, say
from tests.host.conftest import Host

EXPENSES = """---
name: expense-report
description: >
  How to file an expense report at Larkspur;
  use it when the user asks to claim costs.
---
# Filing an expense

1. Find the receipt under receipts/ with files.search.
2. Create a task in project 3 titled "Expense: <what>".
"""
STYLE = '---\nname: house-style\ndescription: "The house style: dates as 2 December 2026, no Oxford comma."\n---\nWrite plainly.\n'


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class TestLoading:
    """What a skills folder holds, and what is wrong with a SKILL.md when it cannot be used."""

    def test_every_bundle_by_name(self, tmp_path: Path) -> None:
        write(tmp_path, "zz-expenses", EXPENSES)
        write(tmp_path, "style", STYLE)
        (tmp_path / "notes.md").write_text("not a skill")
        (tmp_path / "empty").mkdir()
        skills = load_skills(tmp_path)
        assert [(s.name, s.path.parent.name) for s in skills] == [("expense-report", "zz-expenses"), ("house-style", "style")]
        assert skills[0].description == "How to file an expense report at Larkspur; use it when the user asks to claim costs."
        assert skills[0].instructions().startswith("# Filing an expense\n\n1. Find the receipt")
        assert skills[1].description == "The house style: dates as 2 December 2026, no Oxford comma."

    def test_the_folder_is_the_variable_else_the_working_folders(self, tmp_path: Path) -> None:
        assert skills_folder(tmp_path, {}) == (tmp_path / ".facade" / "skills", False)
        assert skills_folder(tmp_path, {"FACADE_HOST_SKILLS": "/srv/skills"}) == (Path("/srv/skills"), True)
        assert load_skills(tmp_path / "absent") == []
        with pytest.raises(SkillError, match="FACADE_HOST_SKILLS=.*absent: no such folder"):
            load_skills(tmp_path / "absent", required=True)

    @pytest.mark.parametrize(
        ("text", "says"),
        [
            ("# Just instructions\n", "must start with front matter naming the skill"),
            ("---\nname: Expense Report\ndescription: x\n---\n", "name must be lowercase letters, digits and hyphens"),
            ("---\nname: expenses\n---\nbody", "description must say what the skill is for"),
            ("---\nname: expenses\ndescription: use: it: now\n---\n", "not valid YAML"),
            ("---\nname: expenses\ndescription: " + "x" * 1100 + "\n---\n", "description is 1100 characters; keep it to 1024"),
        ],
    )
    def test_a_bad_skill_file_says_what_to_fix(self, tmp_path: Path, text: str, says: str) -> None:
        path = write(tmp_path, "expenses", text)
        with pytest.raises(SkillError, match=says) as raised:
            load_skills(tmp_path)
        assert str(raised.value).startswith(str(path))

    def test_two_skills_may_not_share_a_name(self, tmp_path: Path) -> None:
        write(tmp_path, "a", STYLE)
        write(tmp_path, "b", STYLE)
        with pytest.raises(SkillError, match="already taken"):
            load_skills(tmp_path)


@pytest.mark.anyio
class TestInUse:
    """The loop against the test server: the summary in the prompt, the body read when used."""

    async def test_the_model_sees_the_summaries_and_reads_a_skill(self, host: Host, tmp_path: Path) -> None:
        write(tmp_path / ".facade" / "skills", "expenses", EXPENSES)  # the host's working folder is tmp_path

        def answer(request: ModelRequest) -> object:
            result = request.messages[-1]
            assert result["role"] == "tool" and not result["is_error"], result
            return say("Step one: " + result["content"].split("1. ", 1)[1].split("\n", 1)[0])

        model = ScriptedModel([call(READ_TOOL, {"name": "expense-report"}), answer, call(READ_TOOL, {"name": "taxes"}), say("none")])
        async with host(model) as loop:
            first = await loop.run("Claim my taxi receipt")
            second = await loop.run("and my taxes?")
        static = model.requests[0].system.static
        assert static.rstrip().endswith("- expense-report: How to file an expense report at Larkspur; use it when the user asks to claim costs.")
        assert "# Filing an expense" not in model.requests[0].system.text  # the body only when read
        offered = {t.name: t for t in model.requests[0].tools}
        assert offered[READ_TOOL] == ToolSpec(
            READ_TOOL,
            "Read one of your skills (listed under # Skills): its full instructions.",
            {"type": "object", "properties": {"name": {"type": "string", "enum": ["expense-report"]}}, "required": ["name"]},
            read_only=True,
        )
        assert "projects.project_list" in offered  # the facade's tools are still all there
        assert first.answer == "Step one: Find the receipt under receipts/ with files.search."
        assert second.executed[0].is_error and "There is no skill named 'taxes'. The skills are: expense-report." in second.executed[0].text

    async def test_no_skills_folder_changes_nothing(self, host: Host) -> None:
        model = ScriptedModel([say("hi")])
        async with host(model) as loop:
            await loop.run("hello")
        assert "# Skills" not in model.requests[0].system.text and READ_TOOL not in model.tool_names(0)
