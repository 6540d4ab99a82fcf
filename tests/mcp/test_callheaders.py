"""The direct path's one pass over the headers, and its remembered transport verdicts
(facade/mcp/callheaders.py), decide exactly as the SDK's transport does."""

from __future__ import annotations

import itertools

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared.inbound import find_duplicated_routing_header
from starlette.datastructures import Headers
from starlette.requests import Request

from facade.mcp.callheaders import VERDICTS_KEPT, TransportVerdicts, read_headers
from facade.web.app import LOOPBACK_SECURITY


def scope(pairs: list[tuple[str, str]]) -> dict[str, object]:
    raw = [(k.lower().encode(), v.encode("latin-1")) for k, v in pairs]
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": raw}


def sdk_verdict(pairs: list[tuple[str, str]]) -> bool:
    request = Request(scope(pairs))  # type: ignore[arg-type]
    refused = anyio.run(TransportSecurityMiddleware(LOOPBACK_SECURITY).validate_request, request, True)
    has_json, has_sse = check_accept_headers(request)
    return refused is None and has_json and has_sse


CONTENT_TYPES = [None, "application/json", "APPLICATION/JSON; charset=utf-8", "text/plain"]
HOSTS = [None, "127.0.0.1:8765", "localhost", "evil.example:8765", ""]
ORIGINS = [None, "http://127.0.0.1:8765", "http://evil.example", ""]
ACCEPTS = [None, "application/json, text/event-stream", "*/*", "application/json", "text/*;q=0.5, application/*"]


def combinations() -> list[list[tuple[str, str]]]:
    found = []
    for values in itertools.product(CONTENT_TYPES, HOSTS, ORIGINS, ACCEPTS):
        found.append([(k, v) for k, v in zip(("Content-Type", "Host", "Origin", "Accept"), values) if v is not None])
    return found


class TestReadHeaders:
    """One pass gives what Starlette's `Headers` and the SDK's duplicate check give."""

    def test_a_repeated_name_reads_as_its_first_value(self) -> None:
        pairs = [("authorization", "Bearer one"), ("x-conversation-id", "c"), ("authorization", "Bearer two"),
                 ("host", "localhost"), ("mcp-session-id", "s1"), ("mcp-session-id", "s2")]
        read = read_headers(scope(pairs)["headers"])  # type: ignore[arg-type]
        by_name = Headers(scope=scope(pairs))
        for name in ("authorization", "x-conversation-id", "host", "mcp-session-id", "origin", "x-request-id"):
            assert read.get(name) == by_name.get(name)
        assert not read.routing_repeated  # only the routing headers count

    def test_repeated_routing_headers_and_param_headers_are_seen(self) -> None:
        for pairs in ([("mcp-method", "tools/call"), ("mcp-method", "tools/call")],
                      [("mcp-name", "a"), ("MCP-Name", "a")],
                      [("mcp-protocol-version", "2026-07-28"), ("mcp-name", "a"), ("mcp-protocol-version", "x")],
                      [("mcp-method", "tools/call"), ("mcp-name", "a")]):
            read = read_headers(scope(pairs)["headers"])  # type: ignore[arg-type]
            assert read.routing_repeated == (find_duplicated_routing_header(pairs) is not None)
        assert read_headers(scope([("Mcp-Param-Region", "eu")])["headers"]).has_param_header  # type: ignore[arg-type]
        assert not read_headers(scope([("mcp-parameter", "x")])["headers"]).has_param_header  # type: ignore[arg-type]


class TestTransportVerdicts:
    """A remembered verdict is the SDK's own, for every set of values, however they were met."""

    def test_every_combination_is_decided_as_the_sdk_decides_it(self) -> None:
        verdicts = TransportVerdicts(LOOPBACK_SECURITY)
        cases = combinations()
        for pairs in [*cases, *reversed(cases)]:  # decided once, then remembered
            s = scope(pairs)
            assert anyio.run(verdicts.passes, s, read_headers(s["headers"])) == sdk_verdict(pairs), pairs  # type: ignore[arg-type]

    def test_a_bad_header_is_refused_after_a_good_one_was_remembered(self) -> None:
        verdicts = TransportVerdicts(LOOPBACK_SECURITY)
        good = [("Content-Type", "application/json"), ("Host", "127.0.0.1:8765"), ("Accept", "application/json, text/event-stream")]
        bad = [
            [("Content-Type", "text/plain"), *good[1:]],
            [good[0], ("Host", "evil.example:8765"), good[2]],
            [*good, ("Origin", "http://evil.example")],
            [*good[:2], ("Accept", "application/json")],
            good[1:],
        ]
        for pairs in [good, *bad, good]:
            s = scope(pairs)
            assert anyio.run(verdicts.passes, s, read_headers(s["headers"])) == (pairs == good), pairs  # type: ignore[arg-type]

    def test_what_it_remembers_is_bounded(self) -> None:
        verdicts = TransportVerdicts(LOOPBACK_SECURITY)
        for n in range(VERDICTS_KEPT + 50):
            s = scope([("Content-Type", "application/json"), ("Host", f"host{n}:1"), ("Accept", "*/*")])
            assert not anyio.run(verdicts.passes, s, read_headers(s["headers"]))  # type: ignore[arg-type]
        assert len(verdicts._kept) == VERDICTS_KEPT  # noqa: SLF001
