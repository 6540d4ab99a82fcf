"""The system prompt builder: the cache boundary, the section order, the walk up to the
repository root, and the caps."""

from __future__ import annotations

from pathlib import Path

import pytest

from facade.host.prompt import (
    BOUNDARY,
    TRUNCATED,
    SystemPromptBuilder,
    instruction_paths,
    load_instructions,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """outer/ (not part of the repository) → outer/repo/.git, repo/a/b the working folder."""
    root = tmp_path / "outer" / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "a" / "b").mkdir(parents=True)
    (tmp_path / "outer" / "AGENTS.md").write_text("OUTSIDE THE REPOSITORY")
    (root / "AGENTS.md").write_text("root agents")
    (root / "CLAUDE.local.md").write_text("root claude local")
    (root / "a" / "CLAUDE.md").write_text("a claude")
    (root / "a" / "b" / "AGENTS.md").write_text("b agents")
    (root / "a" / "b" / "AGENTS.local.md").write_text("b agents local")
    return root


class TestBoundary:
    """Static sections, the boundary, then everything that changes."""

    def test_static_then_boundary_then_dynamic(self, repo: Path) -> None:
        prompt = SystemPromptBuilder(["You are the host.", "", "Be brief."], cwd=repo, tools_md="T", memory="M").build()
        assert prompt.static == "You are the host.\n\nBe brief."
        assert prompt.text == f"{prompt.static}\n\n{BOUNDARY}\n\n{prompt.dynamic}"
        assert BOUNDARY not in prompt.static + prompt.dynamic
        assert prompt.text.count(BOUNDARY) == 1

    def test_dynamic_sections_in_order(self, repo: Path) -> None:
        env = {"Time": "2026-11-30T09:41+00:00", "Language": "en-GB", "Working folder": str(repo)}
        dynamic = SystemPromptBuilder(["S"], cwd=repo, tools_md="# TOOLS\nuse files.read", memory="likes tea", env=env).build().dynamic
        positions = [dynamic.index(s) for s in ("# Environment", "- Time: 2026-11-30T09:41+00:00", "root agents", "use files.read", "likes tea")]
        assert positions == sorted(positions)
        assert "- Language: en-GB" in dynamic

    def test_environment_defaults_to_the_working_folder(self, tmp_path: Path) -> None:
        dynamic = SystemPromptBuilder([], cwd=tmp_path).build().dynamic
        assert dynamic.startswith(f"# Environment\n- Working folder: {tmp_path.resolve()}\n")

    def test_the_environment_says_what_facade_paths_are_relative_to(self, tmp_path: Path) -> None:
        # Issue 19, item 9: "Working folder: /tmp/e2e" alone made a real model ask files.read for
        # /tmp/e2e/files/todo.txt.
        dynamic = SystemPromptBuilder([], cwd=tmp_path, env={"Working folder": "/tmp/e2e"}).build().dynamic
        lines = dynamic.splitlines()
        assert lines[:2] == ["# Environment", "- Working folder: /tmp/e2e"]
        assert "never to the working folder" in lines[2] and "files.read" in lines[2] and "notes/todo.txt" in lines[2]

    def test_static_part_does_not_change_with_the_moment(self, repo: Path) -> None:
        one = SystemPromptBuilder(["S"], cwd=repo, env={"Time": "09:41"}).build()
        two = SystemPromptBuilder(["S"], cwd=repo / "a", env={"Time": "09:42"}, memory="new").build()
        assert one.static == two.static and one.dynamic != two.dynamic


class TestWalk:
    """Instruction files from the repository root down to the working folder, root-first."""

    def test_root_first_each_file_before_its_local_override(self, repo: Path) -> None:
        found = instruction_paths(repo / "a" / "b")
        assert [str(p.relative_to(repo)) for p in found] == [
            "AGENTS.md", "CLAUDE.local.md", "a/CLAUDE.md", "a/b/AGENTS.md", "a/b/AGENTS.local.md",
        ]

    def test_nothing_above_the_repository_root(self, repo: Path) -> None:
        text = SystemPromptBuilder([], cwd=repo / "a" / "b").build().text
        assert "OUTSIDE THE REPOSITORY" not in text
        order = [text.index(s) for s in ("root agents", "root claude local", "a claude", "b agents\n", "b agents local")]
        assert order == sorted(order)
        assert "## a/b/AGENTS.local.md" in text

    def test_outside_a_repository_only_the_working_folder(self, tmp_path: Path) -> None:
        (tmp_path / "AGENTS.md").write_text("parent")
        (tmp_path / "work").mkdir()
        (tmp_path / "work" / "CLAUDE.md").write_text("here")
        assert [f.text for f in load_instructions(tmp_path / "work")] == ["here"]

    def test_a_symlinked_file_counts_once(self, repo: Path) -> None:
        (repo / "CLAUDE.md").symlink_to(repo / "AGENTS.md")
        texts = [f.text for f in load_instructions(repo)]
        assert texts.count("root agents") == 1


class TestCaps:
    """Per-file and total caps, every cut marked [truncated]."""

    def test_a_long_file_is_cut_and_marked(self, tmp_path: Path) -> None:
        (tmp_path / ".git").mkdir()
        (tmp_path / "AGENTS.md").write_text("a" * 5_000)
        [file] = load_instructions(tmp_path)
        assert file.truncated and file.text == "a" * 4_000 + f"\n{TRUNCATED}"

    def test_the_total_cap_cuts_the_root_before_the_nearest(self, tmp_path: Path) -> None:
        (tmp_path / ".git").mkdir()
        folder = tmp_path
        for name in "wxyz":
            (folder / "AGENTS.md").write_text(name * 3_900)
            folder = folder / name
            folder.mkdir()
        files = load_instructions(folder)
        assert [f.label for f in files] == ["AGENTS.md", "w/AGENTS.md", "w/x/AGENTS.md", "w/x/y/AGENTS.md"]
        assert [f.truncated for f in files] == [True, False, False, False]
        assert files[0].text == "w" * 300 + f"\n{TRUNCATED}"
        assert sum(len(f.text.removesuffix(f"\n{TRUNCATED}")) for f in files) == 12_000

    def test_a_file_past_the_total_shows_only_the_mark(self, tmp_path: Path) -> None:
        (tmp_path / ".git").mkdir()
        (tmp_path / "AGENTS.md").write_text("root rules")
        (tmp_path / "CLAUDE.md").write_text("c" * 4_000)
        files = load_instructions(tmp_path, max_total_chars=4_000)
        assert [f.text for f in files] == [TRUNCATED, "c" * 4_000]

    def test_memory_is_capped(self, tmp_path: Path) -> None:
        dynamic = SystemPromptBuilder([], cwd=tmp_path, memory="m" * 5_000).build().dynamic
        assert dynamic.endswith("m" * 10 + f"\n{TRUNCATED}") and "m" * 4_001 not in dynamic
