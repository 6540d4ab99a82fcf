"""`/openapi.json` is a valid OpenAPI document that describes every route with the request and
response bodies the routes really use: real answers of a real server are checked against it."""

from __future__ import annotations

from typing import Any

import httpx2
import jsonschema
import pytest
from openapi_spec_validator import validate

from facade.web.api import ROUTES
from tests.support import DEV, ServerProcess, mcp_client, text_of

OPERATOR = {"Authorization": f"Bearer {DEV['operator']}"}
# Served beside the API by facade/web/app.py, and described with it.
OTHER_PATHS = {"/healthz", "/readyz", "/mcp", "/openapi.json"}


@pytest.fixture(scope="module")
def spec(server: ServerProcess) -> dict[str, Any]:
    return httpx2.get(f"{server.base}/openapi.json", timeout=30).json()


def assert_conforms(spec: dict[str, Any], path: str, method: str, response: httpx2.Response) -> None:
    """The answer's body validates against what the document says for its path, method and
    status; a status the document does not list fails."""
    described = spec["paths"][path][method.lower()]["responses"]
    assert str(response.status_code) in described, f"{method} {path} answered {response.status_code}, undescribed"
    content = described[str(response.status_code)]["content"]
    kind = response.headers["content-type"].split(";")[0]
    assert kind in content, f"{method} {path}: {kind} is not described ({sorted(content)})"
    if kind != "application/json":
        return
    schema = {**content[kind]["schema"], "components": spec["components"]}
    jsonschema.Draft202012Validator(schema).validate(response.json())


class TestTheDocument:
    """The document itself."""

    def test_it_is_valid_openapi(self, spec: dict[str, Any]) -> None:
        validate(spec)  # raises, naming the offending part, on an invalid document
        assert spec["openapi"].startswith("3.1")

    def test_every_route_is_described(self, spec: dict[str, Any]) -> None:
        for route in ROUTES:
            assert route.method.lower() in spec["paths"][route.path], f"{route.method} {route.path}"
        assert OTHER_PATHS <= set(spec["paths"])
        assert {"get", "post", "delete"} <= set(spec["paths"]["/mcp"])

    def test_every_json_answer_has_a_real_schema(self, spec: dict[str, Any]) -> None:
        """No answer is described as a bare object: each names a schema with its properties."""
        for path, operations in spec["paths"].items():
            for method, operation in operations.items():
                ok = operation["responses"].get("200") or operation["responses"].get("202")
                for kind, body in ok.get("content", {}).items():
                    if kind == "application/json" and path != "/openapi.json":
                        assert body["schema"] != {"type": "object"}, f"{method} {path}"
                        assert "$ref" in body["schema"] or "oneOf" in body["schema"], f"{method} {path}"

    def test_decisions_take_a_described_body(self, spec: dict[str, Any]) -> None:
        for path in ("/api/cards/{card}/approve", "/api/cards/{card}/deny"):
            body = spec["paths"][path]["post"]["requestBody"]
            assert body["required"] is False
            ref = body["content"]["application/json"]["schema"]["$ref"]
            decision = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
            assert set(decision["properties"]) == {"by", "reason"}
            assert decision["additionalProperties"] is False


class TestRealAnswersConform:
    """Every route's real answers — a held card approved, another denied, a conversation
    deleted — validate against the document."""

    @pytest.mark.anyio
    async def test_every_route(self, server: ServerProcess, spec: dict[str, Any]) -> None:
        cards = []
        for conversation in ("openapi-1", "openapi-2"):
            async with mcp_client(server.url, DEV["francis"], headers={"X-Conversation-Id": conversation}) as client:
                held = await client.call_tool("skills.elevate", {"domain": "files", "reason": "the spec test"})
                assert not held.is_error, text_of(held)
                cards.append(held.structured_content["card_id"])

        def answer(method: str, path: str, real: str | None = None, **kwargs: Any) -> httpx2.Response:
            response = httpx2.request(method, f"{server.base}{real or path}", headers=OPERATOR, timeout=60, **kwargs)
            assert_conforms(spec, path, method, response)
            return response

        answer("GET", "/healthz")
        answer("GET", "/api/agents")
        answer("GET", "/api/catalogue")
        answer("GET", "/api/audit")
        for agent_path in ("tools", "budget", "denylist", "tools-md"):
            answer("GET", f"/api/agents/{{agent}}/{agent_path}", f"/api/agents/francis/{agent_path}?conversation_id=openapi-1")
        for fmt in ("json", "lines"):
            answer("GET", "/api/agents/{agent}/denylist", f"/api/agents/francis/denylist?format={fmt}")
        page = answer("GET", "/api/cards", "/api/cards?status=pending").json()
        assert set(cards) <= {c["card_id"] for c in page["cards"]}
        approved = answer("POST", "/api/cards/{card}/approve", f"/api/cards/{cards[0]}/approve", json={"by": "ada", "reason": "fine"})
        assert approved.json()["card"]["status"] == "approved"
        denied = answer("POST", "/api/cards/{card}/deny", f"/api/cards/{cards[1]}/deny")  # no body at all
        assert denied.json()["card"]["status"] == "denied"
        again = answer("POST", "/api/cards/{card}/deny", f"/api/cards/{cards[1]}/deny")
        assert again.status_code == 409
        answer("GET", "/api/cards", "/api/cards?status=all")
        gone = answer("DELETE", "/api/conversations/{conversation}", "/api/conversations/openapi-1").json()
        assert gone["reverted"] == [{"agent": "francis", "domain": "files"}]
        answer("GET", "/api/agents/{agent}/tools", "/api/agents/nobody/tools")  # a 404, described

    @pytest.mark.parametrize(
        "body, named",
        [({"by": 5}, "by"), ({"reason": "x" * 2001}, "reason"), ({"because": "x"}, "because"), ([1], "object")],
    )
    def test_a_decision_body_the_model_refuses_is_a_400_naming_the_field(
        self, server: ServerProcess, spec: dict[str, Any], body: Any, named: str
    ) -> None:
        response = httpx2.post(f"{server.base}/api/cards/1/approve", headers=OPERATOR, json=body, timeout=30)
        assert response.status_code == 400
        assert named in response.json()["error"]
        assert_conforms(spec, "/api/cards/{card}/approve", "POST", response)
