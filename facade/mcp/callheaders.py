"""What the direct `tools/call` path (facade/mcp/direct.py) reads of a request's headers, in one
pass over the ASGI list, and the SDK transport's verdict on them, kept per distinct value set.

Starlette's `Headers` scans the whole list on every lookup; the direct path made ~15 of them per
call (2026-12, issue 17). A repeated name reads as its first value here, as `Headers.get` reads
it, so everything downstream sees what the SDK's transport sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PARAM_HEADER_PREFIX, MCP_PROTOCOL_VERSION_HEADER
from starlette.requests import Request
from starlette.types import Scope

from facade.access.identity import CONVERSATION_HEADER
from facade.logs import REQUEST_ID_HEADER

_PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.lower().encode()
# The routing headers a 2026-07-28 request may carry once each (the SDK's
# find_duplicated_routing_header); the ASGI server gives every name in lower case.
_ROUTING = (MCP_PROTOCOL_VERSION_HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER)
_READ = {
    name.lower().encode(): name.lower()
    for name in (
        "content-type", "host", "origin", "accept", "authorization", MCP_SESSION_ID_HEADER, CONVERSATION_HEADER,
        REQUEST_ID_HEADER, *_ROUTING,
    )
}
# Distinct (Content-Type, Host, Origin, Accept) sets remembered; a client varying them past this
# only costs what every request cost before (the SDK's checks, run again).
VERDICTS_KEPT = 256


@dataclass(slots=True)
class CallHeaders:
    """The first value of each header the direct path reads (by lower-case name), and what the
    rest of the list holds that sends a request to the SDK."""

    values: dict[str, str] = field(default_factory=dict)
    routing_repeated: bool = False  # a routing header sent more than once
    has_param_header: bool = False  # any `Mcp-Param-*` header

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def routing(self) -> dict[str, str]:
        """The routing headers, as the SDK's classify_inbound_request reads them."""
        return {name: self.values[name] for name in _ROUTING if name in self.values}

    def verdict_key(self) -> tuple[str | None, ...]:
        """The values the transport's security and Accept checks decide on, and nothing else."""
        v = self.values
        return v.get("content-type"), v.get("host"), v.get("origin"), v.get("accept")


def read_headers(raw: list[tuple[bytes, bytes]]) -> CallHeaders:
    read = CallHeaders()
    values = read.values
    for key, value in raw:
        name = _READ.get(key)
        if name is None:
            if key.startswith(_PARAM_PREFIX):
                read.has_param_header = True
        elif name not in values:
            values[name] = value.decode("latin-1")
        elif name in _ROUTING:
            read.routing_repeated = True
    return read


class TransportVerdicts:
    """Whether the SDK's transport would let a POST through its security check (Host, Origin,
    Content-Type: `TransportSecurityMiddleware.validate_request`) and its Accept check (both
    JSON and SSE: `check_accept_headers`), decided by the SDK's own code the first time a set of
    those values is seen and remembered for the next request with the same set. Both checks read
    those four headers and the settings alone, so a remembered verdict is the one the SDK would
    reach again."""

    def __init__(self, settings: TransportSecuritySettings | None) -> None:
        self.security = TransportSecurityMiddleware(settings)
        self._kept: dict[tuple[str | None, ...], bool] = {}

    async def passes(self, scope: Scope, headers: CallHeaders) -> bool:
        key = headers.verdict_key()
        verdict = self._kept.get(key)
        if verdict is None:
            verdict = await self._decide(Request(scope))
            if len(self._kept) >= VERDICTS_KEPT:
                del self._kept[next(iter(self._kept))]  # the oldest set
            self._kept[key] = verdict
        return verdict

    async def _decide(self, request: Request) -> bool:
        if await self.security.validate_request(request, is_post=True) is not None:
            return False
        has_json, has_sse = check_accept_headers(request)
        return has_json and has_sse
