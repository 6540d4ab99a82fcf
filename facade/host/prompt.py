"""The system prompt, in two parts split by an explicit cache boundary.

Before `BOUNDARY`: the static sections (the host's and the agent's instructions), byte-identical
from call to call, so a provider can cache them (Anthropic's `cache_control` goes on that block;
OpenAI-compatible servers reuse the prefix on their own). After it, what changes with the folder,
the turn or the agent's state, in this order:

1. the environment (time, language, working folder: the context manager's live snapshot), and
   what the facade's paths are relative to — not that working folder, which is the host's;
2. instruction files — `AGENTS.md`, `AGENTS.local.md`, `CLAUDE.md`, `CLAUDE.local.md` — found in
   every folder from the repository root down to the working folder, merged root-first so that
   the nearest (most specific) file is read last; each file is capped at 4,000 characters and all
   of them together at 12,000, and every cut is marked `[truncated]`;
3. TOOLS.md (the facade renders it per agent);
4. the memory block.

The repository root is the nearest folder at or above the working folder holding `.git`; outside
a repository only the working folder itself is read — never the home folder or `/` by accident.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BOUNDARY = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"
# Within a folder: the shared file, then its .local override (uncommitted, personal), so the
# override is read after what it overrides.
INSTRUCTION_FILES = ("AGENTS.md", "AGENTS.local.md", "CLAUDE.md", "CLAUDE.local.md")
MAX_FILE_CHARS = 4_000
MAX_TOTAL_CHARS = 12_000
MAX_MEMORY_CHARS = 4_000
TRUNCATED = "[truncated]"
# The working folder is where the host runs, and a model given only that builds facade paths from
# it (`/tmp/e2e/files/todo.txt`, seen with Qwen2.5-Coder-0.5B, issue 19): say what they start from.
FACADE_PATHS = (
    "- Facade paths: the tools' paths are relative to each domain's own folder on the facade's server "
    "(files.read takes `notes/todo.txt`), never to the working folder above, which is this host's."
)


@dataclass(frozen=True)
class InstructionFile:
    """One instruction file as it enters the prompt.

    Attributes:
        path: where it was found.
        label: its path relative to the repository root (or its name outside a repository).
        text: its text after the caps.
        truncated: whether a cap cut it.
    """

    path: Path
    label: str
    text: str
    truncated: bool


@dataclass(frozen=True)
class SystemPrompt:
    """A built system prompt.

    Attributes:
        text: static, the boundary line, then dynamic — the whole prompt as one string.
        static: the sections before the boundary: cacheable.
        dynamic: the sections after it: environment, instruction files, TOOLS.md, memory.
        files: the instruction files it holds, root-first.
    """

    text: str
    static: str
    dynamic: str
    files: list[InstructionFile] = field(default_factory=list)


def repository_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds `.git` (a folder, or a worktree's file)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def instruction_paths(cwd: str | Path) -> list[Path]:
    """Every instruction file from the repository root down to `cwd`, root-first; the same file
    reached twice (a symlink, `CLAUDE.md → AGENTS.md`) counts once."""
    start = Path(cwd).resolve()
    root = repository_root(start)
    folders = [start] if root is None else [start, *start.parents[: len(start.parts) - len(root.parts)]]
    found: list[Path] = []
    seen: set[Path] = set()
    for folder in reversed(folders):
        for name in INSTRUCTION_FILES:
            path = folder / name
            if path.is_file() and path.resolve() not in seen:
                seen.add(path.resolve())
                found.append(path)
    return found


def cap(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[:limit].rstrip() + f"\n{TRUNCATED}", True


def load_instructions(
    cwd: str | Path, *, max_file_chars: int = MAX_FILE_CHARS, max_total_chars: int = MAX_TOTAL_CHARS
) -> list[InstructionFile]:
    """The instruction files' texts under both caps, root-first. The total is shared out
    nearest-first: when it runs short, the root's general rules are cut before the working
    folder's specific ones, which the model must not lose. Identical texts are kept once. The caps
count each file's own characters; the `[truncated]` marks come on top."""
    paths = instruction_paths(cwd)
    root = repository_root(Path(cwd).resolve())
    texts: dict[Path, str] = {}
    seen: set[str] = set()
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        if text and text not in seen:
            seen.add(text)
            texts[path] = text
    remaining = max_total_chars
    capped: dict[Path, InstructionFile] = {}
    for path in reversed(list(texts)):
        full = texts[path]
        limit = min(max_file_chars, remaining)
        cut = len(full) > limit
        body = full[:limit].rstrip() if cut else full
        remaining -= len(body)
        shown = (f"{body}\n{TRUNCATED}" if body else TRUNCATED) if cut else body
        label = str(path.relative_to(root)) if root else path.name
        capped[path] = InstructionFile(path, label, shown, cut)
    return [capped[p] for p in texts]


class SystemPromptBuilder:
    """Builds the system prompt of one model call.

    Attributes:
        static_sections: the sections before the boundary, in order (empty ones are skipped).
        cwd: the working folder; instruction files are found by walking up from it.
        tools_md: the agent's TOOLS.md, as the facade rendered it.
        memory: the memory block (capped at 4,000 characters, marked `[truncated]`).
        env: the environment lines (`Snapshot.as_env()`); the working folder alone when None.
    """

    def __init__(
        self,
        static_sections: Sequence[str],
        *,
        cwd: str | Path,
        tools_md: str | None = None,
        memory: str | None = None,
        env: Mapping[str, str] | None = None,
        max_file_chars: int = MAX_FILE_CHARS,
        max_total_chars: int = MAX_TOTAL_CHARS,
        max_memory_chars: int = MAX_MEMORY_CHARS,
    ) -> None:
        self.static_sections = list(static_sections)
        self.cwd = Path(cwd)
        self.tools_md = tools_md
        self.memory = memory
        self.env = dict(env) if env is not None else {"Working folder": str(self.cwd.resolve())}
        self.max_file_chars = max_file_chars
        self.max_total_chars = max_total_chars
        self.max_memory_chars = max_memory_chars

    def build(self) -> SystemPrompt:
        static = "\n\n".join(s.strip() for s in self.static_sections if s and s.strip())
        files = load_instructions(self.cwd, max_file_chars=self.max_file_chars, max_total_chars=self.max_total_chars)
        sections = ["# Environment\n" + "\n".join([*(f"- {k}: {v}" for k, v in self.env.items()), FACADE_PATHS])]
        if files:
            sections.append(
                "# Instructions from the repository (root first; later files are more specific and win)\n\n"
                + "\n\n".join(f"## {f.label}\n\n{f.text}" for f in files)
            )
        if self.tools_md and self.tools_md.strip():
            sections.append("# TOOLS.md\n\n" + self.tools_md.strip())
        if self.memory and self.memory.strip():
            sections.append("# Memory\n\n" + cap(self.memory.strip(), self.max_memory_chars)[0])
        dynamic = "\n\n".join(sections)
        text = "\n\n".join(part for part in (static, BOUNDARY, dynamic) if part)
        return SystemPrompt(text=text, static=static, dynamic=dynamic, files=files)

