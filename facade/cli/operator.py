"""An operator's client for a running server's API: what `facade cards …` talks to."""

from __future__ import annotations

import datetime as dt
import os
from typing import Any
from urllib.parse import urlsplit

import httpx2

from facade.errors import UsageError
from facade.access.identity import DEV_OPERATOR_TOKEN
from facade.settings import DEFAULT_PORT, is_loopback


class OperatorClient:
    def __init__(self, url: str | None = None, token: str | None = None) -> None:
        self.url = (url or os.environ.get("FACADE_URL") or f"http://127.0.0.1:{DEFAULT_PORT}").rstrip("/")
        self.url = self.url.removesuffix("/mcp")
        host = urlsplit(self.url).hostname or ""
        self.token = token or os.environ.get("FACADE_OPERATOR_TOKEN") or (DEV_OPERATOR_TOKEN if is_loopback(host) else None)
        if not self.token:
            raise UsageError("no operator token: set FACADE_OPERATOR_TOKEN (development tokens work only on loopback)")

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = httpx2.request(
                method, f"{self.url}{path}", headers={"Authorization": f"Bearer {self.token}"}, timeout=60, **kwargs
            )
        except httpx2.HTTPError as exc:
            raise UsageError(f"cannot reach the facade at {self.url} ({exc.__class__.__name__}); is `facade serve` running? set FACADE_URL") from None
        try:
            body = response.json()
        except ValueError:
            body = {"error": response.text[:200]}
        if response.status_code >= 400:
            raise UsageError(f"{response.status_code}: {body.get('error', body)}")
        return body

    def cards(self, status: str) -> list[dict[str, Any]]:
        """Every card of `status`, page by page (the API pages them)."""
        cards: list[dict[str, Any]] = []
        while True:
            page = self.request("GET", "/api/cards", params={"status": status, "limit": 1000, "offset": len(cards)})
            cards += page["cards"]
            if not page["cards"] or len(cards) >= page.get("total", 0):
                return cards

    def decide(self, card_id: int, decision: str, reason: str, by: str) -> dict[str, Any]:
        return self.request("POST", f"/api/cards/{card_id}/{decision}", json={"reason": reason, "by": by})["card"]

    def audit(self, limit: int = 50) -> list[dict[str, Any]]:
        return self.request("GET", "/api/audit", params={"limit": limit})["entries"]


def render_cards(cards: list[dict[str, Any]]) -> str:
    if not cards:
        return "no cards"
    lines = [f"{'id':>4}  {'status':<10}{'agent':<10}{'conversation':<22}{'request':<34}reason"]
    for c in cards:
        request = c["tool"] if c["tool"] != "skills.elevate" else f"elevate {c['arguments'].get('domain')} → full"
        lines.append(f"{c['card_id']:>4}  {c['status']:<10}{c['agent']:<10}{c['conversation'][:21]:<22}{request[:33]:<34}{c['reason']}")
        if c.get("decided_by"):
            when = dt.datetime.fromtimestamp(c["decided_at"], dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
            why = f": {c['decision_reason']}" if c.get("decision_reason") else ""
            lines.append(f"{'':>6}{c['status']} by {c['decided_by']} at {when} UTC{why}")
    return "\n".join(lines)


def render_audit(entries: list[dict[str, Any]]) -> str:
    if not entries:
        return "no decisions yet"
    lines = [f"{'when (UTC)':<20}{'who':<22}{'what':<11}{'card':>5}  subject — why"]
    for e in entries:
        card = e["card_id"] if e["card_id"] is not None else "-"
        why = f" — {e['reason']}" if e["reason"] else ""
        lines.append(f"{e['at'][:19].replace('T', ' '):<20}{e['actor'][:21]:<22}{e['action']:<11}{card:>5}  {e['subject']}{why}")
    return "\n".join(lines)
