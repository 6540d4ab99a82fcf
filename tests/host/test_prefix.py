"""The requests of a tool turn share their prefix byte for byte, so that a local runtime reuses
its KV cache for the second one (issue 16): the shared scripted model behind each real adapter
(ScriptedServer), a real `facade serve` for the tools, and the bodies compared as posted.

The second request of a tool turn (the one that reads the tool's result) is the first one plus the
call and its result: same system prompt, same tools array in the same order, and the first
request's messages unchanged at the head of its own. The live snapshot (the time, to the minute)
sits in the system prompt before the history, so it is taken once per turn: a clock that ticks
between the two requests must not reach the second one.
"""

from __future__ import annotations

import datetime as real_dt
import json
from types import SimpleNamespace
from typing import Any

import pytest

from facade.host import context
from facade.host.providers import AnthropicProvider, FencedProvider, OpenAIProvider, Provider, Retry
from facade.host.testing import ScriptedServer, call, say
from facade.host.trajectory import model_requests, read_trajectory
from facade.host.usage import Usage
from tests.host.conftest import Host
from tests.host.test_providers import conversation

pytestmark = pytest.mark.anyio


class TickingClock:
    """`datetime.now()` a minute later at every call: each request of a turn sees another minute."""

    calls = 0

    @classmethod
    def now(cls, tz: real_dt.tzinfo | None = None) -> real_dt.datetime:
        cls.calls += 1
        return real_dt.datetime(2026, 12, 2, 9, 0, tzinfo=real_dt.UTC) + real_dt.timedelta(minutes=cls.calls)


@pytest.fixture
def ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    TickingClock.calls = 0
    monkeypatch.setattr(context, "dt", SimpleNamespace(datetime=TickingClock))


def adapter(kind: str, server: ScriptedServer) -> Provider:
    if kind == "anthropic":
        return AnthropicProvider(model="claude-sonnet-5-5", api_key="k", http=server.client(), retry=Retry(retries=0))
    openai = OpenAIProvider(base_url="http://127.0.0.1:8080/v1", model="qwen2.5-0.5b", http=server.client(), retry=Retry(retries=0))
    return FencedProvider(openai) if kind == "fenced" else openai


def shares_prefix(first: bytes, second: bytes) -> str | None:
    """None when `second` is `first` with more messages after the first's; else what differs."""
    one, two = json.loads(first), json.loads(second)
    for key in one.keys() | two.keys():
        if key != "messages" and json.dumps(one.get(key)) != json.dumps(two.get(key)):
            return f"{key} differs: {json.dumps(one.get(key))[:300]} vs {json.dumps(two.get(key))[:300]}"
    if list(one) != list(two):
        return f"the keys are in another order: {list(one)} vs {list(two)}"
    head = json.dumps(one["messages"], ensure_ascii=False)[:-1]  # without the closing bracket
    if not json.dumps(two["messages"], ensure_ascii=False).startswith(head):
        return "the first request's messages are not the head of the second's"
    # As posted: everything up to the end of the first request's messages is the same bytes.
    text_one, text_two = first.decode(), second.decode()
    cut = text_one.index(head) + len(head)
    if text_two[:cut] != text_one[:cut]:
        return f"the posted bodies part at byte {next(i for i, (a, b) in enumerate(zip(text_one, text_two)) if a != b)}"
    return None


@pytest.mark.parametrize("kind", ["openai", "anthropic", "fenced"])
class TestTheTwoRequestsOfAToolTurn:
    """The request that reads a tool's result starts with the request that asked for it."""

    async def test_the_prefix_is_byte_identical(self, host: Host, kind: str, ticking: None) -> None:
        fenced = '```tool\n{"tool": "projects.project_list", "args": {}}\n```'
        server = ScriptedServer(
            [fenced if kind == "fenced" else call("projects.project_list", {}), say("There are projects."),
             fenced if kind == "fenced" else call("projects.project_list", {"status": "active"}), say("Two are active.")],
            wire="anthropic" if kind == "anthropic" else "openai",
        )
        async with host(adapter(kind, server)) as loop:
            await loop.run("How many projects are there?")
            await loop.run("And how many are active?")
        assert len(server.bodies) == 4
        assert shares_prefix(server.bodies[0], server.bodies[1]) is None, shares_prefix(server.bodies[0], server.bodies[1])
        assert shares_prefix(server.bodies[2], server.bodies[3]) is None, shares_prefix(server.bodies[2], server.bodies[3])
        # The tools array is the same bytes from turn to turn, in a stable order.
        first, later = server.sent(0), server.sent(2)
        assert json.dumps(first.get("tools")) == json.dumps(later.get("tools"))
        # The clock did move between the requests: the snapshot was taken once per turn, not held for ever.
        system = [e["data"]["system"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "context.compiled"]
        text = [s if isinstance(s, str) else "".join(b["text"] for b in s) for s in system]
        assert text[0] == text[1] and text[2] == text[3] and text[0] != text[2]


class TestCachedTokensInTheTrajectory:
    """Every model request's prompt, cached, prefilled and completion tokens are in the trajectory,
    as the server reported them, so a run's table can say how much of a tool turn's second
    request was prefilled."""

    async def test_each_request_records_its_tokens(self, host: Host) -> None:
        server = ScriptedServer(
            [
                call("projects.project_list", {}, usage=Usage(input_tokens=1200, output_tokens=18)),
                say("There are projects.", usage=Usage(input_tokens=90, output_tokens=7, cache_read_tokens=1180)),
            ]
        )
        async with host(adapter("openai", server)) as loop:
            await loop.run("How many projects are there?")
        completed = [e["data"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "model.completed"]
        assert [(c["call"], c["tokens"]) for c in completed] == [
            (1, {"prompt": 1200, "cached": 0, "prefilled": 1200, "completion": 18}),
            (2, {"prompt": 1270, "cached": 1180, "prefilled": 90, "completion": 7}),
        ]
        rows = model_requests(read_trajectory(loop.session.trajectory_path))
        assert [(r["turn"], r["call"], r["tool_calls"], r["prefilled_share"]) for r in rows] == [
            (1, 1, ["projects.project_list"], 1.0),
            (1, 2, [], round(90 / 1270, 4)),  # the share of the tool turn's second request that was prefilled
        ]

    async def test_the_body_asks_the_server_to_keep_its_cache(self, host: Host) -> None:
        server = ScriptedServer([call("projects.project_list", {}), say("Done.")])
        provider = OpenAIProvider(base_url="http://127.0.0.1:8080/v1", model="qwen", http=server.client(), keep_cache=True, slot=1)
        async with host(provider) as loop:
            await loop.run("How many projects are there?")
        assert [(server.sent(i)["cache_prompt"], server.sent(i)["id_slot"]) for i in range(2)] == [(True, 1), (True, 1)]


def test_the_payload_is_deterministic() -> None:
    """The same request gives the same bytes (no ids, no clock): the cache's precondition."""
    bodies: list[Any] = [json.dumps(OpenAIProvider(base_url="http://x/v1", model="m").payload(conversation())) for _ in range(2)]
    assert bodies[0] == bodies[1]
