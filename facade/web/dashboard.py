"""The operator dashboard at /dashboard: server-rendered pages, sign-in with the operator token,
CSRF-protected forms.

The session cookie and the CSRF token are HMACs keyed by the operator token, so that they are
valid on every replica that shares the token, and they stop working the moment it rotates. The
CSRF token is bound to the session, and every form posts it back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from anyio.to_thread import run_sync as off_loop
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from facade.access.approvals import card_view
from facade.reports.budget import agent_budget
from facade.serving.service import Service
from facade.errors import FacadeError
from facade.access.identity import DEV_OPERATOR_TOKEN, accepted_operator_token

COOKIE = "facade_session"
SESSION_SECONDS = 12 * 3600
TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
)


class Signer:
    """Signs sessions and CSRF tokens with a key derived from the operator token."""

    def __init__(self, operator_token: str) -> None:
        self.key = hashlib.sha256(b"facade-dashboard\x00" + operator_token.encode()).digest()

    def _mac(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def session(self, now: float | None = None) -> str:
        issued = str(int(now if now is not None else time.time()))
        return f"{issued}.{self._mac('session:' + issued)}"

    def valid_session(self, cookie: str | None) -> bool:
        if not cookie or "." not in cookie:
            return False
        issued, mac = cookie.split(".", 1)
        if not issued.isdigit() or time.time() - int(issued) > SESSION_SECONDS:
            return False
        return hmac.compare_digest(mac, self._mac("session:" + issued))

    def csrf(self, cookie: str) -> str:
        return self._mac("csrf:" + cookie)

    def valid_csrf(self, cookie: str, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf(cookie), token or "")


def dashboard_routes(service: Service) -> list[Route]:
    operator = accepted_operator_token(service.settings.operator_token, on_loopback=service.settings.on_loopback)
    signer = Signer(operator) if operator else None
    secure = service.settings.public_url.startswith("https")

    def render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(TEMPLATES.get_template(name).render(**context), status_code=status)

    def login_page(error: str = "", status: int = 200) -> HTMLResponse:
        hint = DEV_OPERATOR_TOKEN if service.settings.on_loopback and not service.settings.operator_token else ""
        return render("login.html", status, error=error, dev_hint=hint)

    def signed_in(request: Request) -> str | None:
        cookie = request.cookies.get(COOKIE)
        return cookie if signer is not None and signer.valid_session(cookie) else None

    async def show(request: Request) -> Response:
        cookie = signed_in(request)
        if cookie is None:
            return login_page()
        assert signer is not None
        return render(
            "dashboard.html",
            csrf=signer.csrf(cookie),
            flash=request.query_params.get("flash", ""),
            flash_error=request.query_params.get("error") == "1",
            **await off_loop(overview, service),
        )

    async def login(request: Request) -> Response:
        form = await request.form()
        token = str(form.get("token", ""))
        principal = service.token_book.lookup(token)
        if signer is None or principal is None or principal.kind != "operator":
            return login_page("That is not the operator token; nothing was signed in.", 401)
        response = RedirectResponse("/dashboard", status_code=303)
        response.set_cookie(COOKIE, signer.session(), max_age=SESSION_SECONDS, httponly=True, samesite="strict", secure=secure)
        return response

    async def posted(request: Request) -> tuple[str | None, dict[str, str], Response | None]:
        """The session and form of a POST, or the refusal to send instead."""
        cookie = signed_in(request)
        if cookie is None:
            return None, {}, login_page("Your session has ended; sign in again.", 401)
        form = {k: str(v) for k, v in (await request.form()).items()}
        assert signer is not None
        if not signer.valid_csrf(cookie, form.get("csrf")):
            return None, {}, HTMLResponse("refused: the form's CSRF token is missing or wrong; reload the dashboard", 403)
        return cookie, form, None

    async def logout(request: Request) -> Response:
        _, _, refusal = await posted(request)
        if refusal is not None:
            return refusal
        response = RedirectResponse("/dashboard", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    async def decide(request: Request) -> Response:
        _, form, refusal = await posted(request)
        if refusal is not None:
            return refusal
        raw, decision = request.path_params["card"], request.path_params["decision"]
        if not raw.isdigit() or decision not in ("approve", "deny"):
            return _back(f"there is no card {raw!r} to {decision}", error=True)
        reason = form.get("reason", "").strip()[:2000]
        try:
            if decision == "approve":
                card = await service.approvals.approve(int(raw), "operator:dashboard", reason)
            else:
                card = await off_loop(service.approvals.deny, int(raw), "operator:dashboard", reason)
        except FacadeError as exc:
            return _back(str(exc), error=True)
        outcome = card.outcome or {}
        done = f"card {card.id} {card.status}"
        if card.status == "approved":
            done += " and run" if outcome.get("ok") else f", but it failed: {outcome.get('error')}"
        return _back(done)

    return [
        Route("/dashboard", show, methods=["GET"]),
        Route("/dashboard/login", login, methods=["POST"]),
        Route("/dashboard/logout", logout, methods=["POST"]),
        Route("/dashboard/cards/{card}/{decision}", decide, methods=["POST"]),
    ]


def _back(message: str, *, error: bool = False) -> RedirectResponse:
    return RedirectResponse(f"/dashboard?flash={quote(message)}{'&error=1' if error else ''}", status_code=303)


def overview(service: Service) -> dict[str, Any]:
    """What the dashboard shows: pending cards with the mode they would change, the agents'
    default modes, the conversations elevated by approved cards, and recent decisions. Reads
    the card store, the elevations and the audit log: run it in a worker thread."""
    now = time.time()
    pending = []
    for card in service.approvals.list("pending"):
        view = card_view(card)
        agent = service.agents.get(card.agent)
        domain = card.arguments.get("domain")
        modes = service.views.modes(agent, card.conversation) if agent else {}
        view.update(
            age=_age(now - card.created_at),
            arguments_text=json.dumps(card.arguments)[:300],
            mode=modes.get(domain, "?") if isinstance(domain, str) else "",
        )
        pending.append(view)
    elevated, seen = [], set()
    for card in service.approvals.list("approved"):
        key = (card.agent, card.conversation)
        agent = service.agents.get(card.agent)
        if card.tool != "skills.elevate" or key in seen or agent is None:
            continue
        seen.add(key)
        modes = service.views.modes(agent, card.conversation)
        if modes != service.views.modes(agent, None):
            elevated.append({"agent": card.agent, "conversation": card.conversation, "modes": modes})
    agents = [
        {"name": a.name, "model": a.model, "modes": service.views.modes(a, None)} for a in service.agents.values()
    ]
    base = service.settings.base_prompt_tokens
    budgets = [bar(agent_budget(service.views, a, None, base_tokens=base)) for a in service.agents.values()]
    for row in elevated:
        report = agent_budget(service.views, service.agents[row["agent"]], row["conversation"], base_tokens=base)
        row["budget"] = bar(report)
    return {"pending": pending, "agents": agents, "elevated": elevated, "audit": service.audit.entries(20), "budgets": budgets}


def bar(report: dict[str, Any]) -> dict[str, Any]:
    """A budget as the dashboard draws it: segments as percentages of the scale (the window, or
    what is used when the window is unknown), each marked estimated or measured."""
    seg = report["segments"]
    window = report["model_window"]
    scale = max(window or 0, report["used"]) or 1
    parts = [
        {"name": "base", "tokens": seg["base"]["tokens"], "source": seg["base"]["source"]},
        {"name": "system prompt", "tokens": seg["system_prompt"]["tokens"], "source": seg["system_prompt"]["source"]},
        *[
            {"name": a["domain"], "tokens": a["tokens"], "source": a["source"], "mode": a["mode"]}
            for a in seg["apps"]["domains"]
        ],
    ]
    for part in parts:
        part["pct"] = round(100 * part["tokens"] / scale, 3)
    return {
        "agent": report["agent"],
        "conversation": report["conversation"],
        "window": window,
        "used": report["used"],
        "free": seg["free"]["tokens"],
        "over": report["over_budget"],
        "overshoot": report["overshoot"],
        "window_pct": round(100 * window / scale, 3) if window else None,
        "parts": parts,
        "notes": report["notes"],
    }


def _age(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    if seconds < 5400:
        return f"{int(seconds // 60)} minutes ago"
    return f"{int(seconds // 3600)} hours ago"
