"""`facade …`: the command line. Errors reach a person as one line that says what to change,
before any banner. Exit codes: 0 done; 1 a runtime failure (the database, Redis or the port is
not there; a check failed); 2 a usage error (a flag, a setting, an agent file is wrong)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer

from facade.errors import ConfigError, FacadeError, UsageError

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from facade.mcp.preparing import Preparation
    from facade.serving.service import Service
    from facade.settings import Settings

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Facade: an MCP tool-catalogue server.")
db_app = typer.Typer(no_args_is_help=True, help="The database.")
app.add_typer(db_app, name="db")
cards_app = typer.Typer(no_args_is_help=True, help="Approval cards on a running server (FACADE_URL, FACADE_OPERATOR_TOKEN).")
app.add_typer(cards_app, name="cards")

F = TypeVar("F", bound=Callable[..., Any])
USAGE, RUNTIME = 2, 1
# `facade --config PATH`, for every command that reads the settings.
_global: dict[str, Any] = {"config": None}


def friendly(func: F) -> F:
    """Turn a FacadeError into `error: …` on one line, exit 2 for usage and 1 for a runtime
    failure, never a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except FacadeError as exc:
            raise typer.Exit(_said(exc)) from None

    return wrapper  # type: ignore[return-value]


def _said(exc: FacadeError) -> int:
    """`error: …` on stderr, and the exit code that goes with it."""
    typer.echo(f"error: {exc}", err=True)
    return USAGE if isinstance(exc, (ConfigError, UsageError)) else RUNTIME


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"facade {version('facade')}")
        raise typer.Exit()


@app.callback()
def options(
    config: Annotated[
        str | None, typer.Option("--config", help="The config file (FACADE_CONFIG; default facade.toml here).", show_default=False)
    ] = None,
    show_version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Facade: an MCP tool-catalogue server."""
    _global["config"] = config


def _settings(**flags: Any) -> Settings:
    """The settings, the command's flags on top; a ConfigError of one line when one is wrong."""
    from facade.settings import load_settings

    return load_settings(config=_global["config"], **flags)


def _service(settings: Settings, transport: Literal["http", "stdio"] = "http") -> Service:
    """The service, once every `FACADE_*` name and config-file key is known to be a setting."""
    from facade.host.variables import VARIABLES as HOST_VARIABLES
    from facade.reports.settings import check_names
    from facade.serving.service import build_service
    from facade.settings import READ_ELSEWHERE, file_values

    service = build_service(settings, transport=transport)
    tokens = {a.token_env.upper() for a in service.agents.values() if a.token_env}
    also = {*READ_ELSEWHERE, *HOST_VARIABLES, *tokens}
    check_names(service.registry, file_values(settings.config), os.environ, also, str(settings.config))
    return service


Demo = Annotated[
    bool,
    typer.Option(
        "--demo",
        help="The demo: the packaged demo agents (unless FACADE_AGENTS_DIR is set) and, when serving, the demo data.",
    ),
]


def _deployment(demo: bool, **overrides: Any) -> Settings:
    """The settings, turned to the demo's by `--demo`: nothing is seeded without it."""
    settings = _settings(**overrides)
    return settings.for_demo() if demo else settings


@app.command()
@friendly
def init(folder: Annotated[Path, typer.Argument(metavar="DIR", help="The new deployment's folder (created if missing).")]) -> None:
    """Write a starter deployment into DIR: facade.toml, one example agent, its budget file and the catalogue lock."""
    from facade.cli.starter import write_starter

    starter = write_starter(folder)
    for path in starter.written:
        typer.echo(f"wrote {path}")
    typer.echo(f"next: cd {folder} && facade db upgrade && facade serve")


@app.command()
@friendly
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to listen on (FACADE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (FACADE_PORT, default 8765).")] = None,
    anonymous_agent: Annotated[
        str | None,
        typer.Option(help="Loopback only: requests without a token act as this agent (FACADE_ANONYMOUS_AGENT).", show_default=False),
    ] = None,
    demo: Demo = False,
    workers: Annotated[
        int, typer.Option(help="Worker processes on the one port; more than 1 needs FACADE_REDIS_URL, which they share.")
    ] = 1,
) -> None:
    """Serve MCP over streamable HTTP at /mcp, plus /healthz."""
    from facade.serving.pauses import collector_paused

    # Off from the first import until the serving lifecycle has frozen what start-up built and
    # turns it on (facade/serving/pauses.py). The imports alone are ~200,000 objects that live
    # as long as the process: two full collections walked them, and once the collector was on
    # again before the freeze, a young collection walked all that start-up had built (0.12-0.15
    # s). Without them a warm start's CPU went 1.30 -> 1.14 s, 10,449 capabilities healthy
    # 3.67-3.89 -> 2.88-3.19 s (2026-12-07). The parent of `--workers` keeps it off: it only waits on them.
    with collector_paused():
        _serve(host, port, anonymous_agent, demo, workers)


def _serve(host: str | None, port: int | None, anonymous_agent: str | None, demo: bool, workers: int) -> None:
    import socket

    import uvicorn

    from facade.affinity import pin
    from facade.cli.httpstack import http_stack
    from facade.cli.listen import announce, bind
    from facade.cli.workers import check_workers, run_workers
    from facade.serving.prebuild import build_runtime_list, prebuilding
    from facade.serving.service import Service, prepare_database, require_services
    from facade.logs import configure_logging
    from facade.web.app import build_app

    settings = _deployment(demo, host=host, port=port, anonymous_agent=anonymous_agent)
    check_workers(workers, settings.redis_url)
    configure_logging(settings.log_json)
    service = _service(settings)
    # Built before serving: workers inherit the announced tools and a runtime's list, and the
    # first listing waits for neither. The tools are derived (when the data folder holds none)
    # on another CPU while the database is prepared.
    with prebuilding(service.served):
        require_services(service)
        sock = bind(settings.host, settings.port)
        prepare_database(service)
    runtime_list = build_runtime_list(service)
    stack = http_stack()
    announce(service, sock, stack, runtime_list_bytes=runtime_list)

    def run(service: Service, sockets: list[socket.socket], worker: int = 1) -> None:
        pin(settings.cpu_affinity, worker, workers, settings.cpu_claims_scope)
        # log_config=None: uvicorn keeps the handler configure_logging installed (its own would
        # print plain text); its access log is replaced by facade/web/requests.py's line.
        config = uvicorn.Config(
            build_app(service), log_config=None, access_log=False, lifespan="on", **stack.uvicorn_options()
        )
        try:
            uvicorn.Server(config).run(sockets=sockets)
        except KeyboardInterrupt:  # Ctrl-C after a clean shutdown is a normal end, as in uvicorn.run
            pass

    if workers == 1:
        run(service, [sock])
        return
    raise typer.Exit(run_workers(service, sock, workers, run))


@app.command("settings")
@friendly
def settings_command(
    markdown: Annotated[bool, typer.Option("--markdown", help="The README's table: every setting, its default and meaning.")] = False,
) -> None:
    """Every setting (the server's and each domain's), where its value comes from (default,
    facade.toml, environment, flag) and the value, secrets masked."""
    from facade.reports.settings import render_markdown, render_text, rows

    from facade.catalogue.discovery import discover

    settings = _settings()
    registry = discover(settings.extra_domain_modules)  # no agents needed to list the settings
    typer.echo(render_markdown(registry) if markdown else render_text(rows(settings, registry, {})), nl=False)


@app.command()
@friendly
def stdio(agent: Annotated[str, typer.Option("--agent", help="The agent this connection is.")], demo: Demo = False) -> None:
    """Serve MCP over stdin/stdout as one agent (for desktop clients). Elevation and other
    approval-2 calls need FACADE_REDIS_URL, so that an operator decides them on `facade serve`."""
    from facade.serving.pauses import collector_paused

    with collector_paused():  # until serving turns it on, as for `serve`
        _stdio(agent, demo)


def _stdio(agent: str, demo: bool) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    from facade.logs import configure_logging
    from facade.mcp.fanout import Fanout
    from facade.mcp.preparing import Preparation, wait_for
    from facade.mcp.server import build_mcp_server

    settings = _deployment(demo)
    configure_logging(True if settings.log_json is None else settings.log_json)
    fanout = Fanout()

    # The client's greeting is answered first; the service is built and the database prepared
    # after it, in a worker thread (facade/mcp/preparing.py).
    def build() -> Service:
        from facade.reports.inventory import agent_of
        from facade.serving.service import require_services

        service = _service(settings, "stdio")
        agent_of(service, agent)  # an unknown agent still stops the start with one line
        require_services(service)  # and so does a database that is down
        return service

    def prepare(service: Service) -> None:
        from facade.serving.pauses import collector_paused
        from facade.serving.service import prepare_database

        # The announced tools first (a client lists its tools right after the greeting): built
        # before the greeting they held its answer back (facade/catalogue/served.py).
        with collector_paused(freeze=True):  # they live as long as the process (facade/serving/pauses.py)
            service.served.build()
        prepare_database(service)

    def lifecycle(service: Service) -> AbstractAsyncContextManager[None]:
        from facade.serving.lifecycle import serving

        return serving(service, fanout)

    preparation: Preparation[Service] = Preparation(build, prepare)
    server = build_mcp_server(lambda: preparation.service, fanout, fixed_agent=agent)
    wait_for(server, preparation)

    async def run() -> None:
        async with stdio_server() as (read, write), anyio.create_task_group() as tasks:

            async def start() -> None:
                await preparation.run(lifecycle)
                _stopped(preparation)  # it returns only when the service could not be built

            tasks.start_soon(start)
            await server.run(read, write, server.create_initialization_options())
            # The input ended: a start under way ends first (its thread is not interrupted), so
            # that one that fails still says why.
            await preparation.settled()
            _stopped(preparation)
            tasks.cancel_scope.cancel()

    anyio.run(run)


def _stopped(preparation: Preparation[Service]) -> None:
    """When `facade stdio`'s service could not be built: its one line, and the end of the
    process at once (the transport's reader thread would otherwise wait for the client's next
    line). The greeting's answer, all that was sent, is on stdout already."""
    exc = preparation.stopped
    if exc is None:
        return
    if isinstance(exc, FacadeError):
        code = _said(exc)
    else:  # what escaped every check is a defect: its traceback, as before the greeting came first
        import traceback

        traceback.print_exception(exc)
        code = RUNTIME
    sys.stderr.flush()
    os._exit(code)


@app.command()
@friendly
def bridge(
    url: Annotated[str, typer.Option(envvar="FACADE_URL", help="The facade's MCP endpoint.")] = "http://127.0.0.1:8765/mcp",
    token: Annotated[str | None, typer.Option(envvar="FACADE_TOKEN", help="The agent's token.", show_default=False)] = None,
    conversation: Annotated[
        str | None, typer.Option(envvar="FACADE_CONVERSATION_ID", help="Conversation id (default: one per process).")
    ] = None,
) -> None:
    """Proxy stdio MCP to a facade over HTTP, injecting the agent's identity into every call."""
    from facade.cli.bridge import run_bridge
    from facade.logs import configure_logging

    configure_logging(True)
    if not token:
        raise UsageError("no token: set FACADE_TOKEN (or --token) to the agent's bearer token")
    run_bridge(url, token, conversation)


@app.command()
@friendly
def catalogue(
    agent: Annotated[str | None, typer.Option(help="Show this agent's view.")] = None,
    conversation: Annotated[str | None, typer.Option(help="In this conversation (elevations count).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    demo: Demo = False,
) -> None:
    """The catalogue: per-domain counts by tier, or one agent's view."""
    from facade.reports.inventory import catalogue_report, render_report

    service = _service(_deployment(demo))
    report = catalogue_report(service, agent, conversation)
    typer.echo(json.dumps(report, indent=2) if as_json else render_report(report))


@app.command()
@friendly
def denylist(
    agent: Annotated[str, typer.Argument(help="The agent whose hidden tools to list.")],
    fmt: Annotated[str, typer.Option("--format", help="openclaw | json | lines")] = "openclaw",
    server_name: Annotated[str, typer.Option(help="The MCP server's name in the runtime's config.")] = "facade",
    conversation: Annotated[str | None, typer.Option(help="In this conversation.")] = None,
    demo: Demo = False,
) -> None:
    """The tools a runtime must hide from AGENT, named as the runtime names them."""
    from facade.reports import denylist as deny
    from facade.reports.inventory import agent_of

    service = _service(_deployment(demo))
    text, _ = deny.render(service.views, agent_of(service, agent), conversation, fmt, server_name)
    typer.echo(text, nl=False)


@app.command()
@friendly
def budget(
    agent: Annotated[str, typer.Argument(help="The agent to measure.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    demo: Demo = False,
) -> None:
    """How full AGENT's context window is by default: base, system prompt, apps, free."""
    from facade.reports.budget import agent_budget, render_budget
    from facade.reports.inventory import agent_of

    service = _service(_deployment(demo))
    report = agent_budget(service.views, agent_of(service, agent), None, base_tokens=service.settings.base_prompt_tokens)
    typer.echo(json.dumps(report, indent=2) if as_json else render_budget(report))


@app.command("tools-md")
@friendly
def tools_md(
    agent: Annotated[str, typer.Argument(help="The agent to render TOOLS.md for.")],
    write: Annotated[bool, typer.Option("--write", help="Write agents/<name>/TOOLS.md instead of printing.")] = False,
    demo: Demo = False,
) -> None:
    """Render TOOLS.md.j2 for AGENT."""
    from facade.reports.inventory import agent_of
    from facade.reports.toolsmd import render_tools_md, write_tools_md

    service = _service(_deployment(demo))
    target = agent_of(service, agent)
    if write:
        typer.echo(f"wrote {write_tools_md(service.views, target, service.settings.tools_template)}")
    else:
        typer.echo(render_tools_md(service.views, target, None, service.settings.tools_template), nl=False)


@app.command()
@friendly
def check(
    budget: Annotated[
        str | None, typer.Option(help="The budget file (default catalogue-budget.toml; with --demo, the demo's).", show_default=False)
    ] = None,
    lock: Annotated[str, typer.Option(help="The catalogue lock (tier, approval, read-only per capability).")] = "catalogue.lock",
    update_lock: Annotated[bool, typer.Option("--update-lock", help="Accept the live tiers and approvals: rewrite the lock.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    demo: Demo = False,
) -> None:
    """The CI catalogue gate: budgets, floors, description lint, agreement of every surface and
    the catalogue lock."""
    from dataclasses import asdict

    from facade.logs import configure_logging
    from facade.reports.check import BUDGET_FILE, load_budget, render_check, run_check
    from facade.reports.lock import write_lock
    from facade.settings import DEMO_BUDGET

    from facade.serving.pauses import collector_paused

    settings = _deployment(demo)
    configure_logging(settings.log_json)  # discovery's warnings, as JSON lines on stderr in CI
    with collector_paused(freeze=True):
        service = _service(settings)
        if update_lock:
            typer.echo(f"wrote {lock} ({write_lock(Path(lock), service.registry)} capabilities)", err=as_json)
        budget_file = Path(budget) if budget else DEMO_BUDGET if demo else BUDGET_FILE
        report = run_check(service, load_budget(budget_file), Path(lock))
    if as_json:
        rows = [asdict(r) | {"budget": r.budget.model_dump() if r.budget else None} for r in report.rows]
        out = {"ok": report.ok, "rows": rows, "facts": report.facts, "problems": report.problems, "warnings": report.warnings}
        typer.echo(json.dumps(out, indent=2))
    else:
        typer.echo(render_check(report))
    if not report.ok:
        raise typer.Exit(1)


URL_OPTION = typer.Option("--url", help="The server (FACADE_URL; default http://127.0.0.1:8765).")


def _host_options(
    url: str | None,
    token: str | None,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    mode: str,
    session: str | None,
    allow: list[str] | None,
    deny: list[str] | None,
    ask: list[str] | None,
    default: str,
    max_steps: int | None,
    history_budget: int,
) -> dict[str, Any]:
    return {
        "url": url, "token": token, "provider": provider, "model": model, "base_url": base_url,
        "api_key": api_key, "mode": mode, "session": session, "allow": allow or [], "deny": deny or [],
        "ask": ask or [], "default": default, "max_steps": max_steps, "history_budget": history_budget,
    }


HostUrl = Annotated[str | None, typer.Option("--url", envvar="FACADE_URL", help="The facade's MCP endpoint.")]
HostToken = Annotated[str | None, typer.Option(help="The agent's token (default: its token_env, then the dev token).")]
HostProvider = Annotated[str | None, typer.Option(help="openai | anthropic | fenced (FACADE_HOST_PROVIDER).")]
HostModel = Annotated[str | None, typer.Option(help="The model (FACADE_HOST_MODEL, else agent.toml's).")]
HostBase = Annotated[str | None, typer.Option(help="The provider's base URL (FACADE_HOST_BASE_URL).")]
HostKey = Annotated[str | None, typer.Option(help="The provider's API key (FACADE_HOST_API_KEY).")]
HostMode = Annotated[str, typer.Option(help="MCP protocol era: auto | legacy.")]
HostSession = Annotated[str | None, typer.Option(help="Resume this session id.")]
HostAllow = Annotated[list[str] | None, typer.Option(help="Allow tools matching this glob (repeatable).")]
HostDeny = Annotated[list[str] | None, typer.Option(help="Deny tools matching this glob (repeatable).")]
HostAsk = Annotated[list[str] | None, typer.Option(help="Ask before tools matching this glob (repeatable).")]
HostDefault = Annotated[str, typer.Option(help="allow | deny | prompt for tools no rule names.")]
HostSteps = Annotated[int | None, typer.Option(help="The step cap (default 16 native, 6 fenced).")]
HostBudget = Annotated[int, typer.Option(help="Tokens of history sent per model call.")]


@app.command()
def chat(
    agent: Annotated[str, typer.Argument(help="The agent to be.")],
    url: HostUrl = None, token: HostToken = None, provider: HostProvider = None, model: HostModel = None,
    base_url: HostBase = None, api_key: HostKey = None, mode: HostMode = "auto", session: HostSession = None,
    allow: HostAllow = None, deny: HostDeny = None, ask: HostAsk = None, default: HostDefault = "allow",
    max_steps: HostSteps = None, history_budget: HostBudget = 5000,
) -> None:
    """Talk with AGENT through the facade (the reference host, interactive)."""
    from facade.host import commands as host

    opts = _host_options(url, token, provider, model, base_url, api_key, mode, session, allow, deny, ask, default, max_steps, history_budget)
    raise typer.Exit(host.chat(agent, **opts))


@app.command()
def run(
    agent: Annotated[str, typer.Argument(help="The agent to be.")],
    prompt: Annotated[str, typer.Argument(help="The request.")],
    url: HostUrl = None, token: HostToken = None, provider: HostProvider = None, model: HostModel = None,
    base_url: HostBase = None, api_key: HostKey = None, mode: HostMode = "auto", session: HostSession = None,
    allow: HostAllow = None, deny: HostDeny = None, ask: HostAsk = None, default: HostDefault = "allow",
    max_steps: HostSteps = None, history_budget: HostBudget = 5000,
    usage: Annotated[bool, typer.Option("--usage", help="Print token usage after the answer.")] = False,
) -> None:
    """Run one request as AGENT through the facade and print the answer (the reference host)."""
    from facade.host import commands as host

    opts = _host_options(url, token, provider, model, base_url, api_key, mode, session, allow, deny, ask, default, max_steps, history_budget)
    raise typer.Exit(host.run(agent, prompt, show_usage=usage, **opts))


@cards_app.command("list")
@friendly
def cards_list(
    everything: Annotated[bool, typer.Option("--all", help="Every card and the audit log of decisions.")] = False,
    status: Annotated[str, typer.Option(help="pending | approved | denied | expired | cancelled | all")] = "pending",
    url: Annotated[str | None, URL_OPTION] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """List approval cards (pending by default)."""
    from facade.cli.operator import OperatorClient, render_audit, render_cards

    client = OperatorClient(url)
    cards = client.cards("all" if everything else status)
    audit = client.audit() if everything else None
    if as_json:
        typer.echo(json.dumps({"cards": cards, "audit": audit}, indent=2))
        return
    typer.echo(render_cards(cards))
    if audit is not None:
        typer.echo("\naudit (newest first)\n" + render_audit(audit))


def _decide(decision: str, card_id: int, reason: str, by: str, url: str | None) -> None:
    from facade.cli.operator import OperatorClient, render_cards

    card = OperatorClient(url).decide(card_id, decision, reason, by)
    typer.echo(render_cards([card]))
    outcome = card.get("outcome")
    if outcome is not None:
        typer.echo(f"ran: {json.dumps(outcome.get('data'))}" if outcome.get("ok") else f"failed: {outcome.get('error')}")


@cards_app.command("approve")
@friendly
def cards_approve(
    card_id: Annotated[int, typer.Argument(help="The card's id.")],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log).")] = "",
    by: Annotated[str, typer.Option(help="Your name, for the audit log.")] = "",
    url: Annotated[str | None, URL_OPTION] = None,
) -> None:
    """Approve a pending card: its held call runs with the original identity."""
    _decide("approve", card_id, reason, by, url)


@cards_app.command("deny")
@friendly
def cards_deny(
    card_id: Annotated[int, typer.Argument(help="The card's id.")],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log).")] = "",
    by: Annotated[str, typer.Option(help="Your name, for the audit log.")] = "",
    url: Annotated[str | None, URL_OPTION] = None,
) -> None:
    """Deny a pending card: nothing runs."""
    _decide("deny", card_id, reason, by, url)


@db_app.command("upgrade")
@friendly
def db_upgrade() -> None:
    """Apply every domain's migrations (no agents needed, nothing seeded)."""
    from facade.serving.service import upgrade_database

    engine = upgrade_database(_settings())
    typer.echo(f"database at {engine.url.render_as_string(hide_password=True)} is up to date")
    engine.dispose()


def main() -> None:
    app(prog_name="facade")


if __name__ == "__main__":
    sys.exit(main())
