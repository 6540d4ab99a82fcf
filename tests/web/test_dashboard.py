"""The operator dashboard: a real browser (Debian's Chromium driven by Playwright) signs in, sees
the pending card with its reason, approves it and sees the agent's mode change; forms without
their CSRF token are refused."""

from __future__ import annotations

import contextlib
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.support import DEV, REPO, ServerProcess, raw_call

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts"
# No outside network here: every background fetch Chromium would make is switched off.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def hold_elevation(server: ServerProcess, conversation: str, reason: str) -> int:
    result = raw_call(
        server.url,
        "skills.elevate",
        {"domain": "files", "reason": reason},
        {"Authorization": f"Bearer {DEV['francis']}", "X-Conversation-Id": conversation},
    )
    return int(result["structuredContent"]["card_id"])


@pytest.fixture
def browser_context(tmp_path: Path):  # type: ignore[no-untyped-def]
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        from tests.support import need_service

        need_service("Playwright", "the playwright package is not installed")
    if not Path(CHROMIUM).exists():
        from tests.support import need_service

        need_service("Chromium", f"{CHROMIUM} not found (apt-get install chromium)")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        # Anything the Content-Security-Policy blocks is recorded on the page and in the console.
        context.add_init_script(
            "window.__blocked = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__blocked.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        yield context
        context.close()


def watch_console(page) -> list[str]:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


def nothing_blocked(page, console: list[str]) -> None:  # type: ignore[no-untyped-def]
    assert page.evaluate("window.__blocked") == [], page.evaluate("window.__blocked")
    assert not [m for m in console if "Content Security Policy" in m], console


class TestInABrowser:
    """Sign in, see who asks for what and why, approve, see the mode change."""

    def test_sign_in_approve_and_see_the_mode_change(self, server: ServerProcess, browser_context) -> None:  # type: ignore[no-untyped-def]
        conversation = f"dash-{uuid.uuid4().hex[:6]}"
        reason = "Reconcile the Q3 invoice folder for the accountant"
        card_id = hold_elevation(server, conversation, reason)
        page = browser_context.new_page()
        console = watch_console(page)
        page.goto(f"{server.base}/dashboard")
        nothing_blocked(page, console)
        page.fill("input[name=token]", DEV["operator"])
        page.click("button[type=submit]")
        card = page.locator(f"[data-card='{card_id}']")
        card.wait_for()
        assert reason in card.inner_text() and "francis" in card.inner_text()
        assert re.search(r"files is\s+core", card.inner_text())
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dashboard-pending.png"), full_page=True)
        card.locator("input[type=text][name=reason]").fill("fine for this conversation")
        card.locator("button.approve").click()
        page.wait_for_selector("[role=status]")
        assert f"card {card_id} approved and run" in page.inner_text("[role=status]")
        row = page.locator(f"[data-elevated='francis/{conversation}']")
        assert "files=full" in row.inner_text()
        assert page.locator(f"[data-card='{card_id}']").count() == 0
        assert "files (full)" in page.locator(f"[data-budget='francis/{conversation}']").inner_text()
        page.screenshot(path=str(ARTIFACTS / "dashboard-approved.png"), full_page=True)
        nothing_blocked(page, console)
        httpx2.delete(f"{server.base}/api/conversations/{conversation}", headers={"Authorization": f"Bearer {DEV['operator']}"})


class TestBudgetBars:
    """One bar per agent; estimated segments are striped, measured ones solid."""

    def test_bars(self, server: ServerProcess, browser_context) -> None:  # type: ignore[no-untyped-def]
        page = browser_context.new_page()
        console = watch_console(page)
        page.goto(f"{server.base}/dashboard")
        page.fill("input[name=token]", DEV["operator"])
        page.click("button[type=submit]")
        page.wait_for_selector("#budgets")
        agents = httpx2.get(f"{server.base}/api/agents", headers={"Authorization": f"Bearer {DEV['operator']}"}).json()
        for agent in agents["agents"]:
            bar = page.locator(f"#budgets [data-budget='{agent['name']}']")
            assert bar.count() == 1, agent["name"]
        atlas = page.locator("#budgets [data-budget='atlas'] .seg")
        # atlas names no tokenizer (Gemma has none offline): every segment is an estimate.
        for i in range(atlas.count()):
            segment = atlas.nth(i)
            assert segment.get_attribute("data-source") == "estimate"
            assert "repeating-linear-gradient" in segment.evaluate("e => getComputedStyle(e).backgroundImage")
        francis_apps = page.locator("#budgets [data-budget='francis'] .seg[data-source='measured']")
        assert francis_apps.count() > 0
        assert francis_apps.first.evaluate("e => getComputedStyle(e).backgroundImage") == "none"
        # The page's own styles apply under its policy: segments have their widths and colours.
        segments = page.locator("#budgets [data-budget='francis'] .seg")
        widths = [segments.nth(i).evaluate("e => e.getBoundingClientRect().width") for i in range(segments.count())]
        assert sum(widths) > 0 and all(w >= 0 for w in widths), widths
        colour = segments.first.evaluate("e => getComputedStyle(e).backgroundColor")
        assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), colour
        nothing_blocked(page, console)
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("#budgets").screenshot(path=str(ARTIFACTS / "dashboard-budgets.png"))


class TestForms:
    """Sign-in needs the operator token; every form needs its CSRF token."""

    def test_wrong_token_does_not_sign_in(self, server: ServerProcess) -> None:
        for token in (DEV["francis"], "nope", ""):
            response = httpx2.post(f"{server.base}/dashboard/login", data={"token": token})
            assert response.status_code == 401 and "facade_session" not in response.cookies

    def test_forms_without_csrf_are_refused(self, server: ServerProcess) -> None:
        card_id = hold_elevation(server, f"csrf-{uuid.uuid4().hex[:6]}", "csrf check")
        with httpx2.Client(base_url=server.base) as browser:
            signed = browser.post("/dashboard/login", data={"token": DEV["operator"]})
            assert signed.status_code == 303 and browser.cookies.get("facade_session")
            page = browser.get("/dashboard").text
            csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
            assert csrf
            for data in ({"reason": "x"}, {"reason": "x", "csrf": "0" * 64}):
                refused = browser.post(f"/dashboard/cards/{card_id}/approve", data=data)
                assert refused.status_code == 403 and "CSRF" in refused.text
            pending = httpx2.get(f"{server.base}/api/cards", headers={"Authorization": f"Bearer {DEV['operator']}"}).json()
            assert card_id in [c["card_id"] for c in pending["cards"]]
            denied = browser.post(f"/dashboard/cards/{card_id}/deny", data={"csrf": csrf.group(1), "reason": "test"})
            assert denied.status_code == 303

    def test_not_signed_in_shows_the_sign_in_form(self, server: ServerProcess) -> None:
        page = httpx2.get(f"{server.base}/dashboard")
        assert page.status_code == 200 and 'name="token"' in page.text and "Waiting for a decision" not in page.text


@contextlib.contextmanager
def signed_in(server: ServerProcess) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server.base, timeout=60) as browser:
        assert browser.post("/dashboard/login", data={"token": DEV["operator"]}).status_code == 303
        yield browser


class TestFlash:
    """The message after a decision lives in the session; a crafted link shows nothing."""

    CRAFTED = "Your session expired: call +1-555-0100 and read them your operator token"

    def test_a_crafted_flash_link_shows_nothing(self, server: ServerProcess) -> None:
        with signed_in(server) as browser:
            for query in ({"flash": self.CRAFTED}, {"flash": self.CRAFTED, "error": "1"}):
                page = browser.get("/dashboard", params=query)
                assert page.status_code == 200 and "Waiting for a decision" in page.text
                assert "call +1-555-0100" not in page.text and 'role="status"' not in page.text

    def test_a_forged_flash_cookie_shows_nothing(self, server: ServerProcess) -> None:
        with signed_in(server) as browser:
            for value in (self.CRAFTED, "e30.0000", "eyJtIjogIngifQ." + "0" * 64):
                browser.cookies.set("facade_flash", value, domain="127.0.0.1")
                page = browser.get("/dashboard")
                assert 'role="status"' not in page.text and "call +1-555-0100" not in page.text, value

    def test_a_decision_is_shown_once(self, server: ServerProcess) -> None:
        card_id = hold_elevation(server, f"flash-{uuid.uuid4().hex[:6]}", "flash check")
        with signed_in(server) as browser:
            csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', browser.get("/dashboard").text)
            assert csrf
            decided = browser.post(f"/dashboard/cards/{card_id}/deny", data={"csrf": csrf.group(1), "reason": "no"})
            assert decided.status_code == 303 and decided.headers["location"] == "/dashboard"
            shown = browser.get("/dashboard").text
            assert re.search(rf'role="status">card {card_id} denied<', shown), shown[:2000]
            assert 'role="status"' not in browser.get("/dashboard").text  # shown once, then gone


SECURITY_HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def deny(server: ServerProcess, card_id: int) -> None:
    response = httpx2.post(
        f"{server.base}/api/cards/{card_id}/deny", headers={"Authorization": f"Bearer {DEV['operator']}"}, timeout=60
    )
    assert response.status_code in (200, 409), response.text


class TestLiveCards:
    """The dashboard shows a card made after the page loaded, and drops one decided elsewhere,
    without a reload — keeping what the operator is typing into another card."""

    WAIT_MS = 60_000  # the page polls every few seconds; the bound is for a loaded machine

    def test_new_cards_appear_and_decided_ones_go_without_a_reload(self, server: ServerProcess, browser_context) -> None:  # type: ignore[no-untyped-def]
        first = hold_elevation(server, f"live-{uuid.uuid4().hex[:6]}", "the card already there")
        page = browser_context.new_page()
        console = watch_console(page)
        page.goto(f"{server.base}/dashboard")
        page.fill("input[name=token]", DEV["operator"])
        page.click("button[type=submit]")
        page.locator(f"[data-card='{first}']").wait_for()
        page.evaluate("window.__loaded_once = true")  # a reload would clear it
        typing = page.locator(f"[data-card='{first}'] input[type=text][name=reason]")
        typing.fill("half-typed reason")
        second = hold_elevation(server, f"live-{uuid.uuid4().hex[:6]}", "a card made after the page loaded")
        try:
            card = page.locator(f"[data-card='{second}']")
            card.wait_for(timeout=self.WAIT_MS)
            assert "a card made after the page loaded" in card.inner_text()
            assert page.evaluate("window.__loaded_once") is True
            assert typing.input_value() == "half-typed reason"
            deny(server, first)
            page.locator(f"[data-card='{first}']").wait_for(state="detached", timeout=self.WAIT_MS)
            assert page.evaluate("window.__loaded_once") is True
            # The new card's forms work: its CSRF token came with it.
            card.locator("button.deny").click()
            page.wait_for_selector("[role=status]")
            assert f"card {second} denied" in page.inner_text("[role=status]")
            nothing_blocked(page, console)
        finally:
            deny(server, first)
            deny(server, second)

    def test_the_pending_cards_alone_need_a_session(self, server: ServerProcess) -> None:
        assert httpx2.get(f"{server.base}/dashboard/pending").status_code == 401
        card_id = hold_elevation(server, f"live-{uuid.uuid4().hex[:6]}", "fragment check")
        try:
            with signed_in(server) as browser:
                fragment = browser.get("/dashboard/pending")
            assert fragment.status_code == 200 and f'data-card="{card_id}"' in fragment.text
            assert "<html" not in fragment.text and 'name="csrf"' in fragment.text
        finally:
            deny(server, card_id)


class TestSecurityHeaders:
    """Every dashboard and API answer forbids framing and sniffing, sends no referrer, and
    carries a Content-Security-Policy that allows nothing the page does not use."""

    def test_on_every_kind_of_answer(self, server: ServerProcess) -> None:
        with signed_in(server) as browser:
            answers = {
                "sign-in page": httpx2.get(f"{server.base}/dashboard"),
                "dashboard": browser.get("/dashboard"),
                "refused form": browser.post("/dashboard/logout", data={}),
                "login redirect": httpx2.post(f"{server.base}/dashboard/login", data={"token": DEV["operator"]}),
                "api": httpx2.get(f"{server.base}/api/agents", headers={"Authorization": f"Bearer {DEV['operator']}"}),
                "api refusal": httpx2.get(f"{server.base}/api/cards"),
                "openapi": httpx2.get(f"{server.base}/openapi.json"),
            }
        for what, response in answers.items():
            for header, value in SECURITY_HEADERS.items():
                assert response.headers.get(header) == value, (what, header, response.headers)
            policy = response.headers.get("content-security-policy", "")
            assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, (what, policy)
            assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, (what, policy)
        html = answers["dashboard"].headers["content-security-policy"]
        nonce = re.search(r"'nonce-([A-Za-z0-9_-]+)'", html)
        assert nonce and f'nonce="{nonce.group(1)}"' in answers["dashboard"].text
        assert "form-action 'self'" in html
        # The dashboard runs exactly its one nonce'd script and fetches its own origin only; the
        # sign-in page runs none.
        assert f"script-src 'nonce-{nonce.group(1)}';" in html and "connect-src 'self'" in html
        assert html.count("script-src") == 1 and "'self' " not in html.split("script-src", 1)[1].split(";")[0]
        assert "script-src" not in answers["sign-in page"].headers["content-security-policy"]
        assert "<script" not in answers["sign-in page"].text
