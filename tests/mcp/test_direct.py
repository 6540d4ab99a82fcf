"""The direct `tools/call` path (facade/mcp/direct.py) answers exactly as the SDK's path does."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from mcp.server.lowlevel import Server
from mcp.server.runner import ServerRunner

from facade.kit.asking import Question
from facade.mcp.elicitation import input_required
from facade.mcp.server import to_result, wire_result
from facade.serving.outcomes import Outcome
from tests.support import DEV, ServerProcess

from benchkit import LEGACY, MODERN, legacy_body, legacy_open, modern_body, modern_headers

ERAS = [LEGACY, MODERN]
OUTCOMES = {
    "ok": Outcome("ok", data={"project": {"id": 1, "name": "Relaunch — phase 2", "ratio": 0.25, "tags": [], "none": None}}),
    "ok, no data": Outcome("ok", data=None),
    "held": Outcome("held", data={"card_id": 3, "status": "pending"}),
    "refused": Outcome("refused", error="projects.project_delete needs the user's consent; nothing ran"),
    "unknown": Outcome("unknown_tool", error="unknown tool 'x.y'"),
    "no message": Outcome("failed", error=None),
}


class TestWireResult:
    """`wire_result` is `to_result` as the SDK's pipeline shapes it for each era, key order included."""

    @pytest.mark.parametrize("era", ERAS)
    @pytest.mark.parametrize("case", list(OUTCOMES))
    def test_same_bytes_as_the_sdk(self, case: str, era: str) -> None:
        server = Server("facade", version="0.1.0")
        sdk = ServerRunner(server, connection=None, lifespan_state=None)._serialize("tools/call", era, to_result(OUTCOMES[case]))  # type: ignore[arg-type]
        ours = wire_result(OUTCOMES[case], era, server.server_info_stamp)
        assert ours is not None
        assert json.dumps(ours, separators=(",", ":")) == json.dumps(sdk, separators=(",", ":"))

    def test_input_requests_are_left_to_the_sdk(self) -> None:
        question = Outcome("input_required", question=Question("Delete it?", {"type": "object", "properties": {}}))
        assert wire_result(question, MODERN, {}) is None
        assert input_required(question.question, None) is not None  # what the SDK path shapes instead


def post(client: httpx2.Client, server: ServerProcess, era: str, name: str, arguments: dict[str, Any],
         session: dict[str, str] | None, meta: dict[str, Any] | None = None) -> httpx2.Response:
    auth = {"Authorization": f"Bearer {DEV['atlas']}", "X-Conversation-Id": "direct-test"}
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if era == MODERN:
        body = json.loads(modern_body("tools/call", params, 7))
        body["params"]["_meta"].update(meta or {})
        return client.post(server.url, content=json.dumps(body), headers={**modern_headers("tools/call", name), **auth})
    assert session is not None
    if meta:
        params["_meta"] = meta
    return client.post(server.url, content=legacy_body("tools/call", params, 7), headers={**session, **auth})


def message(response: httpx2.Response) -> tuple[bytes, dict[str, Any]]:
    """The JSON-RPC message's bytes and value, from a JSON or an event-stream answer."""
    assert response.status_code == 200, response.text
    raw = response.content
    if response.headers["content-type"].startswith("text/event-stream"):
        raw = next(line[len(b"data: "):] for line in raw.split(b"\r\n") if line.startswith(b"data: "))
    return raw, json.loads(raw)


CALLS = {
    "a read": ("projects.project_get", {"project_id": 1}),
    "bad arguments": ("projects.project_get", {"project_id": "one"}),
    "a made-up tool": ("projects.nothing_here", {}),
    "no arguments object": ("projects.project_get", {}),
}


class TestBothPaths:
    """The same call, sent so that the direct path answers it and so that the SDK's does (a
    progress token sends it there), gives the same JSON-RPC answer in both eras."""

    @pytest.mark.parametrize("era", ERAS)
    @pytest.mark.parametrize("case", list(CALLS))
    def test_same_answer(self, server: ServerProcess, era: str, case: str) -> None:
        name, arguments = CALLS[case]
        with httpx2.Client(timeout=30) as client:
            session = legacy_open(client, server.url, {"Authorization": f"Bearer {DEV['atlas']}"}) if era == LEGACY else None
            direct = post(client, server, era, name, arguments, session)
            full = post(client, server, era, name, arguments, session, meta={"progressToken": "p1"})
        # The SDK streams its handshake-era answers without a length; the direct path sends one.
        if era == LEGACY:
            assert "content-length" in direct.headers and "content-length" not in full.headers
        direct_raw, direct_message = message(direct)
        full_raw, full_message = message(full)
        assert direct_message == full_message
        assert direct_raw == full_raw
        assert direct_message["result"]["isError"] == (case != "a read")

    def test_a_call_outside_the_view_is_refused_on_the_direct_path(self, server: ServerProcess) -> None:
        with httpx2.Client(timeout=30) as client:
            response = post(client, server, MODERN, "finance.account_get", {}, None)
        _, answer = message(response)
        assert answer["result"]["isError"] and "unknown tool" in answer["result"]["content"][0]["text"]

    def test_a_request_it_cannot_read_goes_to_the_sdk(self, server: ServerProcess) -> None:
        body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"projects.project_get","arguments":[1]}}'
        with httpx2.Client(timeout=30) as client:
            response = client.post(server.url, content=body, headers={
                **modern_headers("tools/call", "projects.project_get"), "Authorization": f"Bearer {DEV['atlas']}"})
        assert response.status_code in (200, 400), response.text
        assert "error" in response.json() or response.json()["result"]["isError"]


def test_accept_is_still_required(server: ServerProcess) -> None:
    headers = {**modern_headers("tools/call", "projects.project_get"), "Accept": "application/json",
               "Authorization": f"Bearer {DEV['atlas']}"}
    with httpx2.Client(timeout=30) as client:
        response = client.post(server.url, content=modern_body("tools/call", {"name": "projects.project_get", "arguments": {"project_id": 1}}),
                               headers=headers)
    assert response.status_code == 406


def test_a_bad_header_is_refused_after_a_good_call(server: ServerProcess) -> None:
    """The direct path remembers the transport's verdict per set of header values
    (facade/mcp/callheaders.py): a good set answered first never lets a bad one through."""
    good = {**modern_headers("tools/call", "projects.project_get"), "Authorization": f"Bearer {DEV['atlas']}"}
    body = modern_body("tools/call", {"name": "projects.project_get", "arguments": {"project_id": 1}})
    bad = {
        "Accept": ({"Accept": "application/json"}, 406),
        "Content-Type": ({"Content-Type": "text/plain"}, 400),
        "Host": ({"Host": "evil.example"}, 421),
        "Origin": ({"Origin": "http://evil.example"}, 403),
    }
    with httpx2.Client(timeout=30) as client:
        for header, (changed, status) in bad.items():
            assert message(client.post(server.url, content=body, headers=good))[1]["result"]["isError"] is False
            response = client.post(server.url, content=body, headers={**good, **changed})
            assert response.status_code == status, (header, response.text)
