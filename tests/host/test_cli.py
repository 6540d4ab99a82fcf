"""`facade run` and `facade chat` as the functions the command line calls: the scripted model
against the real server, printed answers, exit codes, the terminal prompter."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from facade.host.commands import chat, run
from facade.host.session import Session
from facade.host.testing import ScriptedModel, call, say
from tests.support import DEV, ServerProcess, base_env, free_port


def common(server: ServerProcess, tmp_path: Path) -> dict[str, Any]:
    return {"url": server.url, "token": DEV["francis"], "sessions_dir": tmp_path, "agents_dir": server.workdir / "agents"}


def lines(*typed: str) -> Any:
    """An input function that types `typed`, then ends the input (EOF)."""
    queue: Iterator[str] = iter(typed)

    def typed_in(prompt: str) -> str:
        try:
            return next(queue)
        except StopIteration:
            raise EOFError from None

    return typed_in


class TestRun:
    """One shot: the answer on stdout, the session id and usage on stderr, honest exit codes."""

    def test_answer_and_usage(self, server: ServerProcess, tmp_path: Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        model = ScriptedModel([call("projects.project_list", {"limit": 1}), say("Website relaunch is first.")])
        code = run("francis", "Which project is first?", provider=model, show_usage=True, out=out, err=err, **common(server, tmp_path))
        assert code == 0 and out.getvalue() == "Website relaunch is first.\n"
        assert "turn 1: 2 model calls" in err.getvalue() and "call 1 (asked for 1 tool call)" in err.getvalue()
        session_id = err.getvalue().split("session: ")[1].strip()
        assert len(Session.load(tmp_path / "francis" / f"{session_id}.jsonl").ledger.calls) == 2

    def test_the_step_cap_exits_3_and_prompts_are_denied(self, server: ServerProcess, tmp_path: Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        model = ScriptedModel([call("projects.project_create", {"name": "Needs a yes"}), call("projects.project_list", {"limit": 1})])
        code = run("francis", "go", provider=model, max_steps=2, ask=["projects.project_create"], out=out, err=err, **common(server, tmp_path))
        assert code == 3 and out.getvalue().startswith("I stopped after 2 model steps")
        assert "projects.project_create {\"name\":\"Needs a yes\"} denied: Permission denied" in out.getvalue()

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [({"default": "sometimes"}, "choose allow, deny or prompt"), ({"max_steps": 0}, "--max-steps must be at least 1"), ({"provider": "gemini"}, "unknown provider 'gemini'")],
    )
    def test_a_wrong_command_exits_2(self, tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
        err = io.StringIO()
        kwargs.setdefault("provider", ScriptedModel([]))
        assert run("francis", "x", err=err, sessions_dir=tmp_path, **kwargs) == 2
        assert err.getvalue().startswith("error: ") and message in err.getvalue()

    def test_an_unreachable_facade_exits_1_in_one_line(self, tmp_path: Path) -> None:
        err = io.StringIO()
        code = run("francis", "x", provider=ScriptedModel([]), url=f"http://127.0.0.1:{free_port()}/mcp", sessions_dir=tmp_path, err=err)
        assert code == 1 and err.getvalue().startswith("error: ") and err.getvalue().count("\n") == 1


class TestChat:
    """The REPL: requests, commands, the prompter that asks on the terminal."""

    def test_a_conversation(self, server: ServerProcess, tmp_path: Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        model = ScriptedModel([call("projects.project_create", {"name": "From chat"}), say("Created."), say("You are welcome.")])
        typed = lines("/tools", "Create a project called From chat", "a", "/usage", "thanks", "/exit", "never read")
        code = chat("francis", provider=model, ask=["projects.project_create"], input_fn=typed, out=out, err=err, **common(server, tmp_path))
        shown = out.getvalue()
        assert code == 0
        assert "tools: " in shown and "projects.project_create" in shown.split("tools: ")[1].splitlines()[0]
        assert "projects.project_create {\"name\": \"From chat\"}\n  (the rule projects.project_create=prompt asks the user first)" in shown
        assert "Created.\n" in shown and "You are welcome.\n" in shown
        assert "turn 1: 2 model calls" in shown  # /usage
        assert err.getvalue().count("[") == 2 and "[2 model calls: in " in err.getvalue() and "[1 model call: in " in err.getvalue()
        assert len(model.requests) == 3  # "never read" came after /exit

    def test_declining_reaches_the_model(self, server: ServerProcess, tmp_path: Path) -> None:
        model = ScriptedModel([call("projects.project_create", {"name": "Declined"}), lambda r: say(r.messages[-1]["content"])])
        out = io.StringIO()
        chat("francis", provider=model, ask=["projects.*"], input_fn=lines("make it", "n"), out=out, err=io.StringIO(), **common(server, tmp_path))
        assert "Permission denied: The user declined projects.project_create" in out.getvalue()


class TestCommandLine:
    """`facade run` and `facade chat` hand every option they have to these functions, by keyword."""

    @pytest.mark.parametrize("command", [["run", "francis", "x"], ["chat", "francis"]])
    def test_every_option_is_taken(self, tmp_path: Path, command: list[str]) -> None:
        options = [
            "--url", f"http://127.0.0.1:{free_port()}/mcp", "--token", "t", "--provider", "gemini", "--model", "m",
            "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k", "--mode", "legacy", "--session", "s1",
            "--allow", "files.*", "--deny", "mail.*", "--ask", "projects.*", "--default", "deny",
            "--max-steps", "2", "--history-budget", "100",
        ]
        done = subprocess.run(
            [sys.executable, "-m", "facade.cli", *command, *options],
            cwd=tmp_path, env={**os.environ, **base_env(tmp_path), "FACADE_HOST_SESSIONS": str(tmp_path / "sessions")},
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )
        # The options become HostArgs before anything is checked: one it lacked would end in a
        # traceback (exit 1), never in this line.
        assert done.returncode == 2, done.stderr
        assert done.stderr == "error: unknown provider 'gemini': choose one of openai, anthropic, fenced\n"
