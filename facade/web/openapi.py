"""`/openapi.json`: the HTTP surface described from what serves it — the operator API from its
route table (facade/web/api.py) and every body from the pydantic models the routes build and
read them with (facade/web/models.py) — plus `/healthz`, `/readyz` and `/mcp`, so that the
description cannot drift from the routes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from facade.web import models
from facade.web.api import ApiRoute

REF = "#/components/schemas/{model}"
ERRORS = {
    "400": "The request is malformed; the message says what to change.",
    "401": "No token, or one this server does not know.",
    "403": "The token may not use this route.",
    "404": "No such agent, card or route.",
    "409": "The card was already decided.",
    "503": "A store the server needs (database, Redis) is unreachable; retry.",
}
# The JSON-RPC 2.0 envelope MCP speaks over /mcp; the SDK validates the messages themselves.
JSON_RPC = {
    "type": "object",
    "description": "A JSON-RPC 2.0 request, notification or response (MCP's schema defines the methods).",
    "properties": {
        "jsonrpc": {"const": "2.0"},
        "id": {"type": ["string", "integer"]},
        "method": {"type": "string", "examples": ["initialize", "tools/list", "tools/call"]},
        "params": {"type": "object"},
        "result": {"type": "object"},
        "error": {
            "type": "object",
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}},
            "required": ["code", "message"],
        },
    },
    "required": ["jsonrpc"],
}
MCP_HEADERS = [
    ("Mcp-Session-Id", "The 2025-11-25 handshake era's session, from the initialize answer; absent in 2026-07-28."),
    ("MCP-Protocol-Version", "The protocol era of the request, e.g. 2025-11-25 or 2026-07-28."),
    ("X-Conversation-Id", "On an agent's own connection, the conversation the call belongs to (its elevations count): "
     "1 to 128 characters of A-Z a-z 0-9 . _ : @ -. Without it the MCP session is the conversation."),
]


def openapi(routes: list[ApiRoute], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 description of `routes` and the paths served beside them."""
    refs, schemas = _schemas(routes)
    paths: dict[str, Any] = {}
    for r in routes:
        paths.setdefault(r.path, {})[r.method.lower()] = _operation(r, refs)
    health = refs[models.Health]
    for path, what in (
        ("/healthz", "Liveness: the process answers and reaches its database."),
        ("/readyz", "Readiness: the database and, when configured, Redis are reachable; a balancer sends traffic only on 200."),
    ):
        paths[path] = {
            "get": {
                "summary": what,
                "operationId": path.strip("/"),
                "tags": ["health"],
                "security": [],
                "responses": {
                    "200": _json("Ready to serve.", health),
                    "503": _json("Degraded: a store named in the body is unreachable.", health),
                },
            }
        }
    paths["/openapi.json"] = {
        "get": {
            "summary": "This document.",
            "operationId": "openapi",
            "tags": ["meta"],
            "security": [],
            "responses": {"200": _json("The OpenAPI description.", {"type": "object"})},
        }
    }
    paths["/mcp"] = _mcp()
    schemas["JsonRpcMessage"] = JSON_RPC
    return {
        "openapi": "3.1.0",
        "info": {"title": "Facade", "version": version, "description": "The operator API, health, and the MCP endpoint."},
        "paths": paths,
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}, "schemas": schemas},
    }


def _schemas(routes: list[ApiRoute]) -> tuple[dict[type[BaseModel], dict[str, Any]], dict[str, Any]]:
    """Each model's `$ref` and the components they share, in one pass so that a model used by two
    routes is one schema."""
    wanted = [models.Error, models.Health]
    for r in routes:
        wanted += [m for m in (r.response, r.request) if m is not None and m not in wanted]
    found, top = models_json_schema([(m, "validation") for m in wanted], ref_template=REF)
    return {m: found[(m, "validation")] for m in wanted}, top.get("$defs", {})


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _operation(r: ApiRoute, refs: dict[type[BaseModel], dict[str, Any]]) -> dict[str, Any]:
    params = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in ("agent", "card", "conversation")
        if "{" + name + "}" in r.path
    ]
    params += [
        {"name": q[0], "in": "query", "required": False, "description": q[1], "schema": q[2] if len(q) > 2 else {"type": "string"}}  # type: ignore[misc]
        for q in r.query
    ]
    content: dict[str, Any] = {}
    if r.response is not None:
        content["application/json"] = {"schema": refs[r.response]}
    if r.text is not None:
        content[r.text] = {"schema": {"type": "string"}}
    error = refs[models.Error]
    operation: dict[str, Any] = {
        "summary": r.summary,
        "operationId": r.handler.__name__,
        "tags": list(r.tags),
        "parameters": params,
        "security": [{"bearer": []}],
        "responses": {"200": {"description": "OK", "content": content}, **{s: _json(d, error) for s, d in ERRORS.items()}},
    }
    if r.request is not None:
        operation["requestBody"] = {
            "required": False,
            "description": (r.request.__doc__ or "").strip(),
            "content": {"application/json": {"schema": refs[r.request]}},
        }
    return operation


def _mcp() -> dict[str, Any]:
    message = {"$ref": REF.format(model="JsonRpcMessage")}
    headers = [{"name": n, "in": "header", "required": False, "description": d, "schema": {"type": "string"}} for n, d in MCP_HEADERS]
    stream = {"text/event-stream": {"schema": {"type": "string", "description": "Server-sent events, one JSON-RPC message each."}}}
    common = {"tags": ["mcp"], "security": [{"bearer": []}], "parameters": headers}
    refused = {
        "400": _json("Not a valid MCP request (or a conversation id that breaks the rule).", message),
        "401": {"description": "No valid token."},
        "404": {"description": "The session is unknown or ended: open a new one with initialize."},
    }
    return {
        "post": {
            **common,
            "summary": "MCP over streamable HTTP: one JSON-RPC message per POST, in the 2025-11-25 handshake era "
            "(a session from initialize) or the stateless 2026-07-28 era; the answer is JSON or an SSE stream.",
            "operationId": "mcp_post",
            "requestBody": {"required": True, "content": {"application/json": {"schema": message}}},
            "responses": {
                "200": {"description": "The JSON-RPC answer.", "content": {"application/json": {"schema": message}, **stream}},
                "202": {"description": "A notification or response, accepted; nothing to answer."},
                **refused,
                "413": _json("The body is over FACADE_MAX_BODY_BYTES; the error names the limit.", message),
                "429": {"description": "This token holds FACADE_MAX_SESSIONS_PER_TOKEN open sessions; close one."},
            },
        },
        "get": {
            **common,
            "summary": "A handshake-era session's server-push stream (notifications/tools/list_changed).",
            "operationId": "mcp_stream",
            "responses": {"200": {"description": "The session's event stream.", "content": stream}, **refused},
        },
        "delete": {
            **common,
            "summary": "End a handshake-era session.",
            "operationId": "mcp_end",
            "responses": {"200": {"description": "The session is closed."}, **refused},
        },
    }
