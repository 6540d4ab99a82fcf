"""`/openapi.json`: the operator API described from the same route table that serves it
(facade/web/api.py), so the description cannot drift from the routes."""

from __future__ import annotations

from typing import Any

from facade.web.api import ApiRoute


def openapi(routes: list[ApiRoute], version: str) -> dict[str, Any]:
    """The OpenAPI description of `routes`, derived from the same table that serves them."""
    paths: dict[str, Any] = {}
    error = {"description": "A refusal that says what to change.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for r in routes:
        params = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in ("agent", "card", "conversation")
            if "{" + name + "}" in r.path
        ]
        params += [
            {"name": q[0], "in": "query", "required": False, "description": q[1], "schema": q[2] if len(q) > 2 else {"type": "string"}}  # type: ignore[misc]
            for q in r.query
        ]
        body = {"schema": {"type": "string"}} if not r.produces.endswith("json") else {"schema": {"type": "object"}}
        paths.setdefault(r.path, {})[r.method.lower()] = {
            "summary": r.summary,
            "operationId": r.handler.__name__,
            "parameters": params,
            "security": [{"bearer": []}],
            "responses": {
                "200": {"description": "OK", "content": {r.produces: body}},
                "400": error,
                "401": error,
                "403": error,
                "404": error,
                "409": error,
                "503": error,
            },
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Facade operator API", "version": version},
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}},
        },
    }
