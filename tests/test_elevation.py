"""Elevation with operator approval, end to end over real HTTP: core → skills.elevate → approve
→ list_changed → full → conversation deleted → list_changed → core, in both protocol eras, the
counts checked against the registry — and the security rules around it."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client

from facade.catalogue.discovery import discover
from tests.support import DEV, ServerProcess, mcp_client, text_of

pytestmark = pytest.mark.anyio
REGISTRY = discover()
FILES_FULL = sorted(c.name for c in REGISTRY if c.domain == "files" and c.tier == "full")
OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}


def api(server: ServerProcess, method: str, path: str, token: str | None = DEV["operator"], **kwargs: Any) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.request(method, f"{server.base}{path}", headers=headers, timeout=60, **kwargs)


def denied(server: ServerProcess, agent: str, conversation: str) -> list[str]:
    return api(server, "GET", f"/api/agents/{agent}/denylist?format=json&conversation_id={conversation}").json()["deny"]


class Changes:
    """Counts the list_changed a client receives, in either era."""

    def __init__(self) -> None:
        self.count = 0
        self.event = anyio.Event()

    def hit(self) -> None:
        self.count += 1
        self.event.set()

    async def wait(self, seen: int, timeout: float = 15) -> None:
        with anyio.fail_after(timeout):
            while self.count <= seen:
                self.event = anyio.Event()
                if self.count > seen:
                    break
                await self.event.wait()

    async def handler(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.hit()


@contextlib.asynccontextmanager
async def watched(server: ServerProcess, agent: str, era: str, conversation: str) -> AsyncIterator[tuple[Client, Changes]]:
    """A client of `agent` in `conversation` that counts list_changed."""
    headers = {"X-Conversation-Id": conversation}
    connect = partial(mcp_client, server.url, DEV[agent], mode=era, headers=headers)
    async with counting(lambda handler: connect(message_handler=handler), era) as watching:
        yield watching


@contextlib.asynccontextmanager
async def counting(
    connect: Callable[[Any], AbstractAsyncContextManager[Client]], era: str
) -> AsyncIterator[tuple[Client, Changes]]:
    """The client `connect(message_handler)` opens, counting list_changed: handshake-era
    sessions hear it as a notification, 2026-07-28 clients on a subscriptions/listen stream."""
    changes = Changes()
    # Each era counts on one channel only: a listen stream's events also reach message handlers.
    handler = changes.handler if era == "legacy" else None
    async with connect(handler) as client:
        if era == "legacy":
            yield client, changes
            return
        async with client.listen(tools_list_changed=True) as subscription, anyio.create_task_group() as tg:

            async def pump() -> None:
                async for _event in subscription:
                    changes.hit()

            tg.start_soon(pump)
            yield client, changes
            tg.cancel_scope.cancel()


async def names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


class TestCycle:
    """The cycle a real deployment verified only at the database, here through a real client."""

    async def test_core_elevate_approve_full_delete_core(self, server: ServerProcess, era: str) -> None:
        conversation = f"cycle-{era}-{uuid.uuid4().hex[:6]}"
        async with watched(server, "francis", era, conversation) as (client, changes):
            before = await names(client)
            assert not set(FILES_FULL) & before
            deny_before = denied(server, "francis", conversation)
            hidden = [n for n in deny_before if n.startswith("facade__files-")]
            assert len(hidden) == len(FILES_FULL) > 0

            held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "bulk rename asked by the user"})
            card_id = held.structured_content["card_id"]
            status = await client.call_tool("skills.card_status", {"card_id": card_id})
            assert status.structured_content["card"]["status"] == "pending"
            assert "files" in api(server, "GET", "/api/agents/francis/tools-md").text  # untouched outside the conversation

            seen = changes.count
            approved = api(server, "POST", f"/api/cards/{card_id}/approve", json={"reason": "ok", "by": "tests"})
            assert approved.status_code == 200 and approved.json()["card"]["outcome"]["ok"]
            await changes.wait(seen)
            after = await names(client)
            assert after - before == set(FILES_FULL)
            deny_after = denied(server, "francis", conversation)
            assert not [n for n in deny_after if n.startswith("facade__files-")]
            assert len(deny_before) - len(deny_after) == len(FILES_FULL)
            md = api(server, "GET", f"/api/agents/francis/tools-md?conversation_id={conversation}").text
            assert "**files** (full)" in md
            status = await client.call_tool("skills.card_status", {"card_id": card_id})
            assert status.structured_content["card"]["status"] == "approved"
            assert status.structured_content["card"]["outcome"]["data"]["mode"] == "full"

            seen = changes.count
            deleted = api(server, "DELETE", f"/api/conversations/{conversation}")
            assert deleted.json()["reverted"] == [{"agent": "francis", "domain": "files"}]
            await changes.wait(seen)
            assert await names(client) == before
            assert denied(server, "francis", conversation) == deny_before

    async def test_elevation_stays_in_its_conversation(self, server: ServerProcess) -> None:
        mine, other = f"mine-{uuid.uuid4().hex[:6]}", f"other-{uuid.uuid4().hex[:6]}"
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": mine}) as client:
            held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "needed here only"})
        api(server, "POST", f"/api/cards/{held.structured_content['card_id']}/approve")
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": other}) as client:
            assert not set(FILES_FULL) & await names(client)
            refused = await client.call_tool(FILES_FULL[0], {})
            assert refused.is_error and "unknown tool" in text_of(refused)
        # Another agent reusing the same conversation id gets nothing of francis's elevation.
        async with mcp_client(server.url, DEV["infra"], headers={"X-Conversation-Id": mine}) as client:
            assert not set(FILES_FULL) & await names(client)
        api(server, "DELETE", f"/api/conversations/{mine}")


class TestRefusals:
    """skills.elevate refuses what cannot be granted, before any card exists."""

    async def test_not_an_app_and_already_full(self, server: ServerProcess) -> None:
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": "refusals"}) as client:
            foreign = await client.call_tool("skills.elevate", {"domain": "docker", "reason": "not mine"})
            full = await client.call_tool("skills.elevate", {"domain": "skills", "reason": "already full"})
        assert foreign.is_error and "docker is not one of your apps" in text_of(foreign)
        assert full.is_error and "already in full mode" in text_of(full)
        assert not [c for c in api(server, "GET", "/api/cards?status=all").json()["cards"] if c["conversation"] == "refusals"]

    async def test_the_same_request_twice_makes_one_card(self, server: ServerProcess) -> None:
        args = {"domain": "photos", "reason": "twice"}
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": "twice"}) as client:
            first = (await client.call_tool("skills.elevate", args)).structured_content
            second = (await client.call_tool("skills.elevate", args)).structured_content
        assert first["card_id"] == second["card_id"] and "already pending" in second["message"]
        api(server, "POST", f"/api/cards/{first['card_id']}/deny")


class TestSecurity:
    """Operator routes refuse agents; agents see only their own conversation's cards; a denied
    card changes nothing."""

    async def test_operator_routes_refuse_agents_and_nobody(self, server: ServerProcess) -> None:
        for token in (DEV["francis"], DEV["runtime"], None, "forged"):
            assert api(server, "GET", "/api/cards", token).status_code in (401, 403)
            assert api(server, "POST", "/api/cards/1/approve", token).status_code in (401, 403)
            assert api(server, "POST", "/api/cards/1/deny", token).status_code in (401, 403)
            assert api(server, "DELETE", "/api/conversations/x", token).status_code in (401, 403)

    async def test_an_agent_asks_only_about_its_own_cards(self, server: ServerProcess) -> None:
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": "own"}) as client:
            card_id = (await client.call_tool("skills.elevate", {"domain": "mail", "reason": "own"})).structured_content["card_id"]
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": "elsewhere"}) as client:
            other = await client.call_tool("skills.card_status", {"card_id": card_id})
        async with mcp_client(server.url, DEV["atlas"], headers={"X-Conversation-Id": "own"}) as client:
            stranger = await client.call_tool("skills.card_status", {"card_id": card_id})
            missing = await client.call_tool("skills.card_status", {"card_id": 999999})
        for result in (other, stranger, missing):
            assert result.is_error and "is not a card of this conversation" in text_of(result)
        assert text_of(stranger).replace(str(card_id), "N") == text_of(missing).replace("999999", "N")
        api(server, "POST", f"/api/cards/{card_id}/deny")

    async def test_a_denied_card_changes_nothing_and_cannot_be_approved(self, server: ServerProcess) -> None:
        conversation = f"denied-{uuid.uuid4().hex[:6]}"
        async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": conversation}) as client:
            before = await names(client)
            card_id = (await client.call_tool("skills.elevate", {"domain": "files", "reason": "not needed"})).structured_content["card_id"]
            denial = api(server, "POST", f"/api/cards/{card_id}/deny", json={"reason": "not today"})
            assert denial.json()["card"]["status"] == "denied"
            late = api(server, "POST", f"/api/cards/{card_id}/approve")
            assert late.status_code == 409 and "already denied" in late.json()["error"]
            assert await names(client) == before
            status = (await client.call_tool("skills.card_status", {"card_id": card_id})).structured_content["card"]
            assert status["status"] == "denied" and "outcome" not in status

    def test_decisions_are_audited(self, server: ServerProcess) -> None:
        entries = api(server, "GET", "/api/audit").json()["entries"]
        actions = {e["action"] for e in entries}
        assert {"requested", "approved", "denied", "ran", "revoked"} <= actions
        approved = next(e for e in entries if e["action"] == "approved")
        assert approved["actor"].startswith("operator") and approved["agent"] and approved["conversation"]


class TestHeldCalls:
    """Any other approval-2 capability is held as a card that carries the call: denied, nothing
    runs; approved, it runs with the original identity and its result waits on the card."""

    async def test_deny_runs_nothing_and_approve_runs_it_once(self, server: ServerProcess) -> None:
        payment = next(c for c in REGISTRY if c.name == "finance.payment_create")
        headers = {"X-Conversation-Id": f"pay-{uuid.uuid4().hex[:6]}"}
        async with mcp_client(server.url, DEV["francis"], headers=headers) as client:
            count = (await client.call_tool("finance.payment_list", {})).structured_content["total"]
            first = (await client.call_tool(payment.name, payment.example)).structured_content
            assert first["held"] == payment.name and "nothing has run yet" in first["message"]
            api(server, "POST", f"/api/cards/{first['card_id']}/deny", json={"reason": "wrong amount"})
            assert (await client.call_tool("finance.payment_list", {})).structured_content["total"] == count

            second = (await client.call_tool(payment.name, payment.example)).structured_content
            assert second["card_id"] != first["card_id"]
            assert (await client.call_tool("finance.payment_list", {})).structured_content["total"] == count
            card = api(server, "POST", f"/api/cards/{second['card_id']}/approve").json()["card"]
            assert card["outcome"]["ok"], card
            assert (await client.call_tool("finance.payment_list", {})).structured_content["total"] == count + 1
            status = (await client.call_tool("skills.card_status", {"card_id": second["card_id"]})).structured_content
            assert status["card"]["outcome"]["data"]["payment"]["amount"] == payment.example["amount"]
