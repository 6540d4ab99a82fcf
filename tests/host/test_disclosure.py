"""Progressive disclosure end to end: the host against a real `facade serve`, as `pocket` (a
5,000-token agent that discloses by search), with a scripted model.

The model is scripted to do what a good small model does and nothing a real one could not: it
knows which tool the user's request needs and recognises it when the tool is offered, and
otherwise does what TOOLS.md tells it — search with the user's own words, elevate when the
search says the tool needs it. It never calls a tool it was not given. So each task measures the
host and the server: whether search and prompt routing delivered the right tool, what it cost in
tokens sent and model calls, and that the tool array only grew at its end.

Set DISCLOSURE_REPORT to a file path (or `-`) to write the per-task table the README shows.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from facade.catalogue.disclosure import ALWAYS_LOADED_LIMIT
from facade.host.compaction import CompactionConfig
from facade.host.disclosure import SEARCH_TOOL, Disclosure
from facade.host.messages import ToolSpec
from facade.host.loop import AgentLoop, LoopConfig, TurnResult
from facade.host.permissions import PermissionPolicy
from facade.host.runtime import HostOptions, start
from facade.host.providers.base import ModelRequest, ModelTurn
from facade.host.testing import ScriptedModel, call, say
from facade.host.tools import FacadeTools
from facade.host.trajectory import read_trajectory
from tests.host.conftest import Host
from tests.support import DEV, ServerProcess, mcp_client, text_of

AGENT = "pocket"
pytestmark = pytest.mark.anyio
OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}
ALWAYS = {"files.read", "files.list", "skills.apps_list", "skills.tool_search", "skills.elevate", "skills.card_status", "skills.tool_describe"}


@dataclass(frozen=True)
class Task:
    """A request in everyday words, the tool it needs, and the arguments the model would write."""

    request: str
    tool: str
    arguments: dict[str, Any]


TASKS = [
    Task("How many projects have we got on the go right now?", "projects.project_list", {}),
    Task("What's still open on project 1? Only the things nobody has started.", "projects.task_list", {"project_id": 1, "status": "todo"}),
    Task("Put a 'Store release' checkpoint on project 2 for the end of February 2027.", "projects.milestone_create", {"project_id": 2, "name": "Store release", "due_date": "2027-02-26"}),
    Task("Which bills have we sent to customers that they haven't paid yet?", "finance.invoice_list", {"status": "sent"}),
    Task("Who are the companies we buy from?", "finance.vendor_list", {}),
    Task("What rate are we using for dollars at the moment?", "finance.exchange_rate_list", {"currency": "USD"}),
    Task("Save Jonas Weber, jonas@example.com, in my address book.", "mail.contact_create", {"name": "Jonas Weber", "email": "jonas@example.com"}),
    Task("What came into my inbox?", "mail.message_list", {"folder_id": 1}),
    Task("Answer message 3: agreed, we freeze it on Friday.", "mail.message_reply", {"message_id": 3, "body": "Agreed, let's freeze it Friday."}),
    Task("Am I free at all between the 7th and the 12th of December?", "calendar.freebusy_get", {"start": "2026-12-07T00:00:00+01:00", "end": "2026-12-12T00:00:00+01:00", "timezone": "Europe/Berlin"}),
    Task("How much have we got on the shelves in the main warehouse?", "inventory.stock_list", {"warehouse_id": 1}),
    Task("Which orders to suppliers are still drafts we never sent?", "inventory.purchase_order_list", {"status": "draft"}),
    Task("Show me the pictures in album 1.", "photos.photo_list", {"album_id": 1}),
    Task("Label photo 4 as tulips and spring.", "photos.tag_add", {"photo_id": 4, "tags": ["tulips", "spring"]}),
    Task("Dig out any paperwork that mentions revenue.", "documents.document_search", {"query": "revenue"}),
    Task("Can I get to PostgreSQL on host 1? Is port 5432 answering?", "hosts.tcp_probe", {"host_id": 1, "port": 5432, "timeout": 1}),
    Task("What's running on this box?", "services.service_list", {}),
    Task("Is anything on fire? Show me the alerts nobody has dealt with.", "monitoring.alert_list", {"open": True}),
    Task("When does backup job 2 go off next? The next four times.", "backups.job_next_runs", {"job_id": 2, "count": 4}),
    Task("Read me my to-do notes.", "files.read", {"path": "notes/todo.txt"}),
    # Needs an elevation: a full-tier tool of an app the agent has in core mode.
    Task("Make sure last night's backup (run 2) could actually be restored.", "backups.run_verify", {"run_id": 2}),
    Task("What does localhost resolve to from here?", "dns.resolve", {"name": "localhost"}),
]


@dataclass
class Outcome:
    task: Task
    mode: str
    done: bool
    found: bool
    calls: int
    tokens: int
    largest: int
    compactions: int
    first_tools: int
    searches: int
    elevated: bool
    result: TurnResult
    requests: list[ModelRequest]


class RecognisingModel:
    """One conversation's scripted model for `task` (see the module's docstring)."""

    def __init__(self, task: Task, server: ServerProcess) -> None:
        self.task = task
        self.server = server
        self.tools: FacadeTools | None = None
        self.searches = 0
        self.elevated = False

    async def __call__(self, request: ModelRequest) -> ModelTurn:
        task = self.task
        offered = {t.name for t in request.tools}
        results = [m for m in request.messages if m["role"] == "tool"]
        mine = [m for m in results if m["name"] == task.tool]
        if mine:
            return say(f"Done ({'failed' if mine[-1]['is_error'] else 'ok'}).")
        if task.tool in offered:
            return call(task.tool, task.arguments)
        searches = [m for m in results if m["name"] == SEARCH_TOOL]
        if not searches:
            self.searches += 1
            return call(SEARCH_TOOL, {"query": task.request})
        rows = json.loads(searches[-1]["content"])["tools"]
        row = next((r for r in rows if r["name"] == task.tool), None)
        if row is None:
            return say("I could not find a tool for that.")
        if row["callable_now"]:
            return say("The search found the tool, but it was not given to me.")  # a delivery failure
        elevations = [m for m in results if m["name"] == "skills.elevate"]
        if not elevations:
            domain = task.tool.split(".")[0]
            return call("skills.elevate", {"domain": domain, "reason": task.request[:120]})
        # The card waits for an operator: approve it as one would, then check on it; the
        # elevation's list_changed brings the tool, which the search already asked for.
        card = json.loads(elevations[-1]["content"])["card_id"]
        assert self.tools is not None
        seen = self.tools.changes
        async with httpx2.AsyncClient(headers=OPERATOR) as api:
            approved = await api.post(f"{self.server.base}/api/cards/{card}/approve", json={"reason": "ok", "by": "tests"})
        assert approved.status_code == 200, approved.text
        await self.tools.wait_for_change(seen)
        self.elevated = True
        return call("skills.card_status", {"card_id": card})


@contextlib.contextmanager
def fresh_server(tmp_path: Path, name: str) -> Iterator[ServerProcess]:
    """A server of its own for each mode: the tasks write (a milestone, a contact, a reply), and
    each mode starts from the same demo data."""
    (tmp_path / name).mkdir()
    proc = ServerProcess(tmp_path / name).start()
    try:
        yield proc
    finally:
        proc.stop()


@contextlib.asynccontextmanager
async def pocket(server: ServerProcess, tmp_path: Path, model: ScriptedModel, config: LoopConfig) -> AsyncIterator[AgentLoop]:
    options = HostOptions(
        url=server.url,
        token=DEV[AGENT],
        sessions_dir=tmp_path / "sessions",
        agents_dir=server.workdir / "agents",
        policy=PermissionPolicy(),
        config=config,
    )
    async with start(AGENT, model, options) as loop:
        yield loop


async def run_task(server: ServerProcess, tmp_path: Path, task: Task, mode: str) -> Outcome:
    model = RecognisingModel(task, server)
    scripted = ScriptedModel([model] * 8)
    config = LoopConfig(max_steps=8, cwd=tmp_path, defer=mode != "full view", preload_tools=3 if mode == "disclosure + routing" else 0)
    if mode == "full view":
        # The full view (~35,000 tokens a request) does not fit pocket's 5,000-token window at
        # all; it is measured as if the window were large, so that compaction's own model calls
        # do not muddy what the tools alone cost.
        config.compaction = CompactionConfig(context_window=1_000_000)
    async with pocket(server, tmp_path, scripted, config) as loop:
        model.tools = loop.tools  # type: ignore[assignment]
        result = await loop.run(task.request)
        conversation = loop.session.id
    httpx2.delete(f"{server.base}/api/conversations/{conversation}", headers=OPERATOR)
    trajectory = [json.loads(line) for line in Path(loop.session.trajectory_path).read_text().splitlines()]
    prompts = [e["data"]["prompt"]["tokens"] for e in trajectory if e["type"] == "context.compiled" and e["data"]["purpose"] == "turn"]
    compactions = sum(e["type"] == "context.compacted" for e in trajectory)
    mine = [e for e in result.executed if e.name == task.tool]
    done = bool(mine) and not mine[-1].is_error
    return Outcome(
        task, mode, done, bool(mine), len(scripted.requests), sum(prompts), max(prompts), compactions,
        len(scripted.requests[0].tools), model.searches, model.elevated, result, scripted.requests,
    )


MODES = ["disclosure + routing", "disclosure", "full view"]


async def test_the_tasks_in_disclosure_mode_and_in_the_full_view(tmp_path: Path) -> None:
    outcomes: dict[str, list[Outcome]] = {}
    for index, mode in enumerate(MODES):
        with fresh_server(tmp_path, f"server-{index}") as server:
            outcomes[mode] = [await run_task(server, tmp_path, t, mode) for t in TASKS]
    report(outcomes)
    for mode in ("disclosure + routing", "disclosure"):
        for o in outcomes[mode]:
            first = {t.name for t in o.requests[0].tools}
            # It starts with the always-loaded set (plus what routing preloaded): never the view.
            assert ALWAYS <= first and len(first - ALWAYS) <= (3 if mode == "disclosure + routing" else 0), (o.task.request, first)
            # The tool array only ever grows at its end: each request's tools are a prefix of the next's.
            for before, after in zip(o.requests, o.requests[1:]):
                names = [t.name for t in after.tools]
                assert [t.name for t in before.tools] == names[: len(before.tools)], o.task.request
            # Whenever the tool was called it was one the model had been given (the model never
            # calls anything else), and it ran.
            if o.found:
                assert o.done, (o.task.request, o.result.executed[-1].text[:300])
    # Full view: every callable tool is there from the start, so a task is one call and an answer.
    full = outcomes["full view"]
    assert all(o.first_tools > 300 for o in full)
    assert all(o.done for o in full), [(o.task.request, o.result.answer) for o in full if not o.done]
    # Disclosure reaches a task when the search ranks its one expected tool in the top 5: a
    # strict oracle (for "what's running on this box?" services.status_report would do as well as
    # service_list, but only service_list counts). Search quality is bench_search's to measure;
    # this floor sits under what the suite measured (13 and 11 of 22, 2026-12-02) and guards the
    # delivery, for a fraction of the full view's tokens.
    for mode in ("disclosure + routing", "disclosure"):
        done = sum(o.done for o in outcomes[mode])
        assert done >= 10, f"{mode}: {done}/{len(TASKS)} tasks done"
        assert sum(o.tokens for o in outcomes[mode]) * 3 < sum(o.tokens for o in full)
    # The elevation task went through a card, and the found tool arrived after it.
    verify = next(o for o in outcomes["disclosure"] if o.task.tool == "backups.run_verify")
    assert verify.elevated and verify.done


def report(outcomes: dict[str, list[Outcome]]) -> None:
    target = os.environ.get("DISCLOSURE_REPORT")
    if not target:
        return
    lines = [
        "| task (agent pocket, 5,000-token window) | tool | " + " | ".join(f"{m}: done, calls, tokens sent" for m in MODES) + " |",
        "|---|---|" + "---|" * len(MODES),
    ]
    for index, task in enumerate(TASKS):
        cells = []
        for mode in MODES:
            o = outcomes[mode][index]
            cells.append(f"{'yes' if o.done else 'no'}, {o.calls}, {o.tokens:,}")
        lines.append(f"| {task.request} | `{task.tool}` | " + " | ".join(cells) + " |")
    totals = []
    for mode in MODES:
        rows = outcomes[mode]
        totals.append(f"**{sum(o.done for o in rows)}/{len(rows)}**, {sum(o.calls for o in rows)}, {sum(o.tokens for o in rows):,}")
    lines.append("| **all** | | " + " | ".join(totals) + " |")
    lines.append("")
    for mode in MODES:
        rows = outcomes[mode]
        lines.append(
            f"- {mode}: {max(o.first_tools for o in rows)} tools in a first request at most; the largest request "
            f"{max(o.largest for o in rows):,} tokens; {sum(o.compactions for o in rows)} compactions; "
            f"{sum(o.searches for o in rows)} searches by the model."
        )
    text = "\n".join(lines) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")


class TestARealClientInDisclosureMode:
    """The official SDK client, both eras: pocket is listed its whole view, the tools not always
    loaded marked deferred, and a deferred tool is called like any other."""

    async def test_listing_and_calling(self, server: ServerProcess, era: str) -> None:
        async with mcp_client(server.url, DEV[AGENT], mode=era) as client:
            tools = (await client.list_tools()).tools
            names = {t.name for t in tools}
            marked = {t.name for t in tools if (t.meta or {}).get("facade/deferred") is True}
            assert len(names) > 300 and names - marked == ALWAYS and "backups.run_verify" not in names
            # A deferred tool runs when called: the mark is advice to a host, not a permission.
            listed = await client.call_tool("projects.project_list", {})
            assert not listed.is_error and json.loads(text_of(listed))["total"] > 0
            # A tool outside the view is not found however it was learnt of: search grants nothing.
            hidden = await client.call_tool("backups.run_verify", {"run_id": 2})
            assert hidden.is_error and "run_verify" in text_of(hidden)
            found = await client.call_tool(SEARCH_TOOL, {"query": "check a backup can be restored", "limit": 5})
            assert not found.is_error


def test_the_always_loaded_set_is_small() -> None:
    from facade.catalogue.agents import load_agents
    from facade.catalogue.discovery import discover
    from facade.catalogue.views import Views
    from facade.access.elevation import MemoryElevations
    from facade.settings import DEMO_AGENTS
    from facade.tokencount import count_exact

    registry = discover()
    agents = load_agents(DEMO_AGENTS, registry)
    views = Views(registry, agents, MemoryElevations())
    view = views.view(agents[AGENT], None)
    assert set(view.always_loaded.names) == ALWAYS
    assert count_exact(view.always_loaded.json, "o200k_base") <= ALWAYS_LOADED_LIMIT


class TestTheHostsHalf:
    """facade/host/disclosure.py on its own: what is offered, in what order."""

    @staticmethod
    def specs(*names: str, deferred: set[str]) -> list[ToolSpec]:
        return [ToolSpec(n, deferred=n in deferred) for n in names]

    def test_found_tools_are_appended_in_the_order_they_arrive(self) -> None:
        disclosure = Disclosure()
        listing = self.specs("skills.tool_search", "a.one", "b.two", deferred={"a.one", "b.two"})
        assert [s.name for s in disclosure.offered(listing)] == ["skills.tool_search"]
        # c.three needs an elevation: wanted first, it is listed (and appended) only later.
        disclosure.want(["c.three", "b.two"])
        assert [s.name for s in disclosure.offered(listing)] == ["skills.tool_search", "b.two"]
        elevated = self.specs("skills.tool_search", "a.one", "b.two", "c.three", deferred={"a.one", "b.two", "c.three"})
        assert [s.name for s in disclosure.offered(elevated)] == ["skills.tool_search", "b.two", "c.three"]

    def test_a_listing_without_marks_is_offered_whole(self) -> None:
        listing = self.specs("a.one", "b.two", deferred=set())
        assert Disclosure().offered(listing) == listing
        marked = self.specs("a.one", "b.two", deferred={"b.two"})
        assert Disclosure(enabled=False).offered(marked) == marked  # the fallback: the full view

    def test_a_resumed_session_keeps_what_it_found(self) -> None:
        search = {"tools": [{"name": "b.two", "callable_now": True}]}
        messages = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "name": SEARCH_TOOL, "arguments": {}}]},
            {"role": "tool", "tool_call_id": "1", "name": SEARCH_TOOL, "content": json.dumps(search) + "\n\nnote", "is_error": False},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "2", "name": "a.one", "arguments": {}}]},
        ]
        disclosure = Disclosure()
        disclosure.replay(messages)
        listing = self.specs(SEARCH_TOOL, "a.one", "b.two", deferred={"a.one", "b.two"})
        assert [s.name for s in disclosure.offered(listing)] == [SEARCH_TOOL, "b.two", "a.one"]


# Capabilities at approval 1, the host asking first (issue 19, item 8).
IRREVERSIBLE = {"files.delete", "files.bulk_delete", "backups.run_delete", "backups.job_delete", "backups.job_prune", "photos.photo_delete"}


@pytest.mark.anyio
async def test_routing_never_preloads_a_tool_that_destroys(host: Host) -> None:
    """Prompt routing loads what the search ranks first for the request, unasked: for a request
    about deleting, the search ranks destructive tools first, and none of them is loaded."""
    model = ScriptedModel([say("Done.")])
    async with host(model, agent="pocket", preload_tools=5) as loop:
        await loop.run("Delete the old files and remove every backup run of last year, permanently.")
    [routed] = [e["data"] for e in read_trajectory(loop.session.trajectory_path) if e["type"] == "tools.routed"]
    destructive = {name for name in routed["found"] if name in IRREVERSIBLE}
    assert destructive, routed  # the search did rank some: the test would prove nothing otherwise
    assert not destructive & set(routed["wanted"]) and not destructive & {t.name for t in model.requests[0].tools}
