"""`GET /metrics`: the service's metrics in Prometheus text.

Open like `/healthz` (DESIGN.md lists it beside the probes, outside `/api`, whose routes take the
operator token): a scraper is configured with a URL, and the body holds names and counts only —
agent and domain names, which `/healthz` already lists, never a token, conversation or argument.
Where the port is reachable from outside, restrict `/metrics` at the proxy or network.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from facade.serving.metrics import Metrics
from facade.threads import off_loop


def metrics_route(metrics: Metrics) -> Route:
    async def scrape(_: Request) -> Response:
        # Collecting reads the card and elevation stores (Redis, when configured): off the loop.
        body = await off_loop(metrics.render)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return Route("/metrics", scrape, methods=["GET"])
