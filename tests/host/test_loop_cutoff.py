"""A reply cut off at the token cap (`finish_reason: length`, Anthropic's `max_tokens`), driven by
the shared scripted model against a real `facade serve`: the model is asked once for less, and
if it is cut off again the turn stops with the true reason — never "could not be read as a tool
call", never six "send the whole document again" (issue 19 item 5)."""

from __future__ import annotations

import pytest

from facade.host.providers import FencedProvider, ModelTurn
from facade.host.stop import honest_stop
from facade.host.testing import ScriptedModel, call, say
from facade.host.trajectory import read_trajectory
from facade.host.usage import Usage
from tests.host.conftest import Host

pytestmark = pytest.mark.anyio
CAP = 512
APP = "Here is your app:\n```html\n<!DOCTYPE html><html><head><title>Board</title></head><body>" + "<div>task</div>" * 40


def cut(text: str = "", turn: ModelTurn | None = None) -> ModelTurn:
    """A reply the server stopped at the cap."""
    base = turn or ModelTurn(text=text)
    return ModelTurn(base.text, base.tool_calls, Usage(900, CAP), "length")


class TestCutOff:
    async def test_a_cut_off_app_is_asked_once_for_less_then_stopped_with_the_reason(self, host: Host) -> None:
        inner = ScriptedModel([cut(APP), cut(APP), cut(APP)])
        async with host(FencedProvider(inner)) as loop:
            result = await loop.run("Make me a task board page.")
        assert len(inner.requests) == 2 and result.stopped and not result.executed
        ask = inner.requests[1].messages[-1]["content"]
        assert f"cut off at {CAP} tokens" in ask and "shorter" in ask and "whole document again" not in ask
        assert f"cut off at the token cap ({CAP} tokens)" in result.answer and "max_tokens" in result.answer
        assert "could not be read as a tool call" not in result.answer
        assert loop.session.messages[-1] == {"role": "assistant", "content": result.answer}
        # The usage and the trajectory say what those calls were.
        assert [c.describe() for c in result.calls] == [f"cut off at the token cap ({CAP} tokens)"] * 2
        assert "cut off at the token cap" in loop.session.ledger.describe()
        done = [e["data"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "model.completed"]
        assert [d["cut_off"] for d in done] == [True, True]

    async def test_a_cut_off_native_call_does_not_run_and_a_shorter_one_does(self, host: Host) -> None:
        model = ScriptedModel([cut(turn=call("projects.project_list", {"limit": 2})), call("projects.project_list", {"limit": 3}), say("Three.")])
        async with host(model) as loop:
            result = await loop.run("List three projects.")
        assert not result.stopped and result.answer == "Three."
        assert [e.arguments for e in result.executed] == [{"limit": 3}]  # the cut-off call never ran
        assert f"cut off at {CAP} tokens" in model.requests[1].messages[-1]["content"]
        assert [c.describe() for c in result.calls][0] == f"cut off at the token cap ({CAP} tokens)"

    async def test_a_cut_off_answer_says_so(self, host: Host) -> None:
        model = ScriptedModel([cut("The projects are Harbour, Kestrel and")])
        async with host(model) as loop:
            result = await loop.run("Name the projects.")
        assert result.answer.startswith("The projects are Harbour, Kestrel and") and f"cut off at the token cap ({CAP} tokens)" in result.answer


def test_the_step_cap_after_a_cut_off_reply_says_so() -> None:
    answer = honest_stop(6, [], cut("```tool\n{\"tool\": \"files.write\", \"args\": {\"text\": \"abc"))
    assert f"Where I stopped: my last reply was cut off at the token cap ({CAP} tokens)." in answer
    assert "could not be read" not in answer


def test_anthropic_max_tokens_is_a_cut_off_too() -> None:
    assert ModelTurn(stop_reason="max_tokens").cut_off and not ModelTurn(stop_reason="end_turn").cut_off
    assert not ModelTurn(stop_reason="tool_calls").cut_off and not ModelTurn().cut_off
