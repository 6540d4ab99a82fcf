"""The operator dashboard at /dashboard: server-rendered pages, sign-in with the operator token,
CSRF-protected forms.

The session cookie, the CSRF token and the message a decision leaves ("card 7 approved and
run") are signed by facade/web/signer.py. The message is shown once, on the next page; the URL
carries none, so a crafted link cannot put words on an operator's screen. Each page is served
with a Content-Security-Policy that allows its own nonce'd styles and nothing else
(facade/web/headers.py), and shows one page of pending cards. The dashboard page also runs one
script, by nonce (static/live.js), which polls /dashboard/pending — the same template, alone —
so that new cards appear and decided ones go without a reload.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jinja2
from facade.threads import off_loop
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from facade.access.approvals import card_view
from facade.reports.budget import agent_budget
from facade.serving.service import Service
from facade.errors import FacadeError
from facade.access.identity import DEV_OPERATOR_TOKEN, accepted_operator_token
from facade.web.api import whole
from facade.web.headers import CSP, new_nonce, page_policy
from facade.web.signer import SESSION_SECONDS, Signer

COOKIE = "facade_session"
FLASH_COOKIE = "facade_flash"
FLASH_SECONDS = 120  # from the decision's redirect to the page that shows it
CARDS_PER_PAGE = 20
LIVE_SCRIPT = Path(__file__).parent / "static" / "live.js"
TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
)


def dashboard_routes(service: Service) -> list[Route]:
    operator = accepted_operator_token(service.settings.operator_token, on_loopback=service.settings.on_loopback)
    signer = Signer(operator) if operator else None
    secure = service.settings.public_url.startswith("https")

    def render(name: str, status: int = 200, *, live: bool = False, **context: Any) -> HTMLResponse:
        nonce = new_nonce()
        page = TEMPLATES.get_template(name).render(nonce=nonce, **context)
        return HTMLResponse(page, status_code=status, headers={CSP: page_policy(nonce, script=live)})

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
        offset = whole(request.query_params.get("offset", "0")) or 0
        flash, flash_error = signer.read_flash(cookie, request.cookies.get(FLASH_COOKIE))
        response = render(
            "dashboard.html",
            live=True,
            csrf=signer.csrf(cookie),
            flash=flash,
            flash_error=flash_error,
            **await off_loop(overview, service, offset),
        )
        if FLASH_COOKIE in request.cookies:
            response.delete_cookie(FLASH_COOKIE, path="/dashboard", httponly=True, samesite="strict", secure=secure)
        return response

    async def pending(request: Request) -> Response:
        """The pending cards alone, as live.js merges them into the page."""
        cookie = signed_in(request)
        if cookie is None:
            return HTMLResponse("sign in again", 401)
        assert signer is not None
        offset = whole(request.query_params.get("offset", "0")) or 0
        cards = await off_loop(pending_cards, service, offset)
        return render("pending.html", csrf=signer.csrf(cookie), **cards)

    async def live_script(_: Request) -> Response:
        return Response(LIVE_SCRIPT.read_bytes(), media_type="text/javascript; charset=utf-8")

    def back(cookie: str, message: str, *, error: bool = False) -> RedirectResponse:
        """To the dashboard, which shows `message` once."""
        assert signer is not None
        response = RedirectResponse("/dashboard", status_code=303)
        response.set_cookie(
            FLASH_COOKIE, signer.flash(cookie, message, error), max_age=FLASH_SECONDS, path="/dashboard",
            httponly=True, samesite="strict", secure=secure,
        )
        return response

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
        cookie, form, refusal = await posted(request)
        if refusal is not None:
            return refusal
        assert cookie is not None
        raw, decision = request.path_params["card"], request.path_params["decision"]
        card_id = whole(raw)
        if card_id is None or decision not in ("approve", "deny"):
            return back(cookie, f"there is no card {raw!r} to {decision}", error=True)
        reason = form.get("reason", "").strip()[:2000]
        try:
            if decision == "approve":
                card = await service.approvals.approve(card_id, "operator:dashboard", reason)
            else:
                card = await off_loop(service.approvals.deny, card_id, "operator:dashboard", reason)
        except FacadeError as exc:
            return back(cookie, str(exc), error=True)
        outcome = card.outcome or {}
        done = f"card {card.id} {card.status}"
        if card.status == "approved":
            done += " and run" if outcome.get("ok") else f", but it failed: {outcome.get('error')}"
        return back(cookie, done)

    return [
        Route("/dashboard", show, methods=["GET"]),
        Route("/dashboard/pending", pending, methods=["GET"]),
        Route("/dashboard/live.js", live_script, methods=["GET"]),
        Route("/dashboard/login", login, methods=["POST"]),
        Route("/dashboard/logout", logout, methods=["POST"]),
        Route("/dashboard/cards/{card}/{decision}", decide, methods=["POST"]),
    ]


def pending_cards(service: Service, offset: int = 0) -> dict[str, Any]:
    """One page of pending cards (`CARDS_PER_PAGE` from `offset`, oldest first) with the mode
    each would change, and where the page sits. Reads the card store: run it in a worker thread."""
    now = time.time()
    waiting = service.approvals.list("pending")
    pending = []
    for card in waiting[offset : offset + CARDS_PER_PAGE]:
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
    return {"pending": pending, "pages": pages(len(waiting), offset)}


def overview(service: Service, offset: int = 0) -> dict[str, Any]:
    """What the dashboard shows: one page of pending cards (`pending_cards`), the agents'
    default modes, the conversations elevated by approved cards, and recent decisions. Reads the
    card store, the elevations and the audit log: run it in a worker thread."""
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
    budgets = [
        bar(agent_budget(service.views, a, None, base_tokens=base), f"budget-{i}")
        for i, a in enumerate(service.agents.values())
    ]
    for i, row in enumerate(elevated):
        report = agent_budget(service.views, service.agents[row["agent"]], row["conversation"], base_tokens=base)
        row["budget"] = bar(report, f"budget-e{i}")
    return {
        **pending_cards(service, offset),
        "agents": agents,
        "elevated": elevated,
        "audit": service.audit.entries(20),
        "budgets": budgets,
    }


def pages(total: int, offset: int) -> dict[str, Any]:
    """Where the shown page of pending cards sits: its range, and the previous and next pages."""
    return {
        "total": total,
        "first": min(offset + 1, total),
        "last": min(offset + CARDS_PER_PAGE, total),
        "previous": max(offset - CARDS_PER_PAGE, 0) if offset > 0 else None,
        "next": offset + CARDS_PER_PAGE if offset + CARDS_PER_PAGE < total else None,
    }


def bar(report: dict[str, Any], dom_id: str) -> dict[str, Any]:
    """A budget as the dashboard draws it: segments as percentages of the scale (the window, or
    what is used when the window is unknown), each marked estimated or measured. `dom_id` names
    the bar on its page, where the page's nonce'd style block sizes its segments."""
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
        "dom_id": dom_id,
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
