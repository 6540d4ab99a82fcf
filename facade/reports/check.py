"""`facade check`: the CI gate that keeps the catalogue from growing back.

It measures what each agent is served (tools, bytes, exact tokens) against a committed budget
file, holds floors that grow with the code, validates every declared example against its input
model (the kit checks only their shape at declaration), lints descriptions for shared prose, proves that
visibility, enforcement, the deny-list and TOOLS.md agree for every agent × domain × (elevated
or not), and holds every tier, approval and read-only hint to the committed catalogue lock
(facade/reports/lock.py).
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from facade.kit.capability import IDENTITY_FIELDS, Capability, example_problem
from facade.serving.service import Service
from facade.reports.denylist import MAX_NAME, deny_names, runtime_names
from facade.reports.lock import LOCK_FILE, live, lock_changes, read_lock
from facade.reports.spread import spread
from facade.access.elevation import MemoryElevations
from facade.errors import ConfigError
from facade.tokencount import DEFAULT_TOKENIZER, bundled_name, count_exact
from facade.reports.toolsmd import TOOLS_FILE, render_tools_md
from facade.catalogue.agents import Agent
from facade.catalogue.disclosure import ALWAYS_LOADED_LIMIT
from facade.catalogue.views import Views

BUDGET_FILE = Path("catalogue-budget.toml")
LINT_MIN_CHARS = 60
LINT_MAX_REPEATS = 3
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


class AgentBudget(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tools: int = Field(ge=0)
    bytes: int = Field(ge=0)
    tokens: int = Field(ge=0)
    # For an agent that discloses by search: the tokens of its always-loaded set.
    always_loaded: int | None = Field(default=None, ge=0)


class Floors(BaseModel):
    model_config = ConfigDict(extra="forbid")
    capabilities: int = Field(ge=0)
    domains: int = Field(ge=0)


class BudgetFile(BaseModel):
    """The schema of `catalogue-budget.toml`."""

    model_config = ConfigDict(extra="forbid")
    floors: Floors
    agents: dict[str, AgentBudget]


@dataclass
class AgentRow:
    agent: str
    tokenizer: str
    tools: int
    bytes: int
    tokens: int
    budget: AgentBudget | None
    # What the model carries from the start: the whole listing, unless the agent discloses by
    # search (then its always-loaded set, facade/catalogue/disclosure.py).
    always_loaded: int = 0
    disclosure: str = "all"


@dataclass
class CheckReport:
    rows: list[AgentRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def load_budget(path: Path) -> BudgetFile:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"budget file {path} not found; pass --budget or create it") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"budget file {path}: cannot read it as TOML ({exc})") from None
    try:
        return BudgetFile.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"budget file {path}: {problems}") from None


def run_check(service: Service, budget: BudgetFile, lock: Path = LOCK_FILE) -> CheckReport:
    report = CheckReport(warnings=list(service.registry.warnings))
    _floors(service, budget.floors, report)
    models = spread(list(service.registry), _model_findings)
    _identity(service, [bare for bare, _ in models], report)
    report.problems += [f"example: {problem}" for _, problem in models if problem is not None]
    report.problems += lint_descriptions(service)
    _agreement(service, report)
    _budgets(service, budget, report)
    _lock(service, lock, report)
    return report


def _lock(service: Service, path: Path, report: CheckReport) -> None:
    """A missing lock is a warning (an installed wheel ships none); any difference is a problem."""
    was = read_lock(path)
    if was is None:
        report.warnings.append(f"lock: no catalogue lock at {path}; tiers and approvals are not held (write one with `facade check --update-lock`)")
        return
    report.facts.update(lock=str(path), locked=len(was))
    report.problems += lock_changes(was, live(service.registry))


def _floors(service: Service, floors: Floors, report: CheckReport) -> None:
    domains = service.registry.domains
    report.facts.update(capabilities=len(service.registry), domains=len(domains))
    if len(service.registry) < floors.capabilities:
        report.problems.append(f"floor: {len(service.registry)} capabilities, below the floor of {floors.capabilities}")
    if len(domains) < floors.domains:
        report.problems.append(f"floor: {len(domains)} domains, below the floor of {floors.domains}")
    # The tier floor is this project's rule for its own domains; a third party's domain may
    # well be core only (a plugin of two reads), and the rest of the gate still holds it.
    for name, domain in domains.items():
        if name in service.registry.third_party:
            continue
        tiers = {c.tier for c in domain.capabilities}
        if tiers != {"core", "full"}:
            report.problems.append(f"floor: domain {name} has only {'/'.join(sorted(tiers))} capabilities; it needs both")


def _model_findings(capabilities: Sequence[Capability]) -> list[tuple[bool, str | None]]:
    """For each capability, what its models say (the costly part of the gate, spread over the
    CPUs): whether its parsed model declares both identity fields bare, and what is wrong with its
    declared example."""
    return [(_identity_bare(cap.parsed_model), example_problem(cap)) for cap in capabilities]


def _identity_bare(parsed_model: type[BaseModel]) -> bool:
    fields = parsed_model.model_fields
    return all(n in fields and fields[n].description is None and fields[n].is_required() for n in IDENTITY_FIELDS)


def _identity(service: Service, bare: list[bool], report: CheckReport) -> None:
    """`bare`: for each capability in order, whether its parsed model declares the identity
    fields bare (`_model_findings`)."""
    parsed = announced = 0
    for cap, declared in zip(service.registry, bare, strict=True):
        if declared:
            parsed += 1
        else:
            report.problems.append(f"identity: {cap.name}'s parsed model does not declare both identity fields bare")
        props = service.served.tool(cap.name)["inputSchema"].get("properties", {})
        if any(n in props for n in IDENTITY_FIELDS):
            announced += 1
            report.problems.append(f"identity: {cap.name}'s announced schema shows an identity field")
    total = len(service.registry) or 1
    report.facts.update(identity_parsed_pct=round(100 * parsed / total, 1), identity_announced_pct=round(100 * announced / total, 1))


def lint_descriptions(service: Service) -> list[str]:
    """A sentence of 60+ characters in more than 3 descriptions is a rule shared by tools: it
    belongs once in TOOLS.md.j2, not in every description that repeats it."""
    seen: Counter[str] = Counter()
    for cap in service.registry:
        texts = [cap.description, *_field_descriptions(service.served.tool(cap.name)["inputSchema"])]
        sentences = {s.strip() for text in texts for s in _SENTENCE.findall(text) if len(s.strip()) >= LINT_MIN_CHARS}
        seen.update(sentences)
    return [
        f"lint: this sentence appears in {n} descriptions (at most {LINT_MAX_REPEATS}); say it once in TOOLS.md.j2: {s!r}"
        for s, n in seen.most_common()
        if n > LINT_MAX_REPEATS
    ]


def _field_descriptions(schema: Any) -> list[str]:
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                found.append(value)
            elif isinstance(value, dict | list):
                found += _field_descriptions(value)
    elif isinstance(schema, list):
        for item in schema:
            found += _field_descriptions(item)
    return found


def _agreement(service: Service, report: CheckReport) -> None:
    """For every agent × domain × (elevated or not): listing, enforcement, deny-list and TOOLS.md
    agree, and the deny-list plus the view is the whole catalogue."""
    # The runtime sees what tools/list announces: a wire name where one is given.
    announced = [c.tool_name for c in service.registry]
    everything = runtime_names(service.registry)
    if len(set(everything)) != len(everything) or any(len(f"facade__{n}") > MAX_NAME for n in announced):
        report.problems.append("agreement: runtime tool names collide or are cut at 64 characters")
    cases = 0
    for agent in service.agents.values():
        elevations = MemoryElevations()
        views = Views(service.registry, service.agents, elevations)
        for domain in [None, *agent.apps]:
            conversation = f"check-{domain or 'default'}"
            if domain is not None:
                elevations.grant(agent.name, conversation, domain)
            problem = agreement_problem(service, views, agent.name, conversation, everything)
            if problem:
                report.problems.append(f"agreement: {agent.name}, {domain or 'no'} elevation: {problem}")
            cases += 1
    report.facts["agreement_cases"] = cases
    for agent in service.agents.values():
        path = agent.workspace / TOOLS_FILE
        if path.exists() and path.read_text(encoding="utf-8") != render_tools_md(service.views, agent, None, service.settings.tools_template):
            report.problems.append(
                f"agreement: {path} is stale (its apps or modes changed); run `facade tools-md {agent.name} --write`"
            )


def agreement_problem(
    service: Service, views: Views, agent_name: str, conversation: str, everything: list[str] | None = None
) -> str | None:
    """Why the surfaces disagree for (agent, conversation), or None when they agree.
    `everything`: the whole catalogue's runtime names, when the caller has them already."""
    agent = views.agents[agent_name]
    # tools/list and tools/call read one View (listing its tools, resolving names in them), so
    # they cannot disagree; what can is every surface computed beside it.
    view = views.view(agent, conversation)
    denied = deny_names(views, agent, conversation)
    allowed = runtime_names(view)
    if everything is None:
        everything = runtime_names(service.registry)
    if set(denied) & set(allowed) or sorted(denied + allowed) != sorted(everything):
        return "deny-list + visible list is not exactly the whole catalogue"
    text = render_tools_md(views, agent, conversation, service.settings.tools_template)
    for name, mode in view.modes.items():
        if f"**{name}** ({mode})" not in text:
            return f"TOOLS.md does not show {name} in {mode} mode"
    return None


def _budgets(service: Service, budget: BudgetFile, report: CheckReport) -> None:
    # An agent without an entry is measured and shown but held to nothing: a deployment adds
    # agents before it has numbers to commit, and the gate should say so, not stop it.
    for name in sorted(set(service.agents) - set(budget.agents)):
        report.warnings.append(
            f"budget: agent {name} has no entry in the budget file, so nothing holds its size; add [agents.{name}] "
            "with the tools, bytes and tokens shown above"
        )
    for name in sorted(set(budget.agents) - set(service.agents)):
        report.problems.append(f"budget: the budget file names agent {name}, which does not exist")
    for agent in service.agents.values():
        row = measure(service.views, agent, budget.agents.get(agent.name))
        report.rows.append(row)
        if row.disclosure == "search" and row.always_loaded > ALWAYS_LOADED_LIMIT:
            report.problems.append(
                f"budget: {agent.name} discloses by search but always loads {row.always_loaded} tokens, over the "
                f"{ALWAYS_LOADED_LIMIT} a small model can spare; pin fewer tools"
            )
        if row.budget is None:
            continue
        if row.disclosure == "search" and row.budget.always_loaded is not None and row.always_loaded > row.budget.always_loaded:
            report.problems.append(
                f"budget: {agent.name} always loads {row.always_loaded} tokens, over its budget of {row.budget.always_loaded} "
                f"(+{row.always_loaded - row.budget.always_loaded}); pin fewer tools or raise always_loaded in the same change"
            )
        for unit in ("tools", "bytes", "tokens"):
            now, limit = getattr(row, unit), getattr(row.budget, unit)
            if now > limit:
                report.problems.append(
                    f"budget: {agent.name} is served {now} {unit}, over its budget of {limit} (+{now - limit}); "
                    "cut the catalogue back or raise the budget in the same change that explains why"
                )


def measure(views: Views, agent: Agent, budget: AgentBudget | None = None) -> AgentRow:
    """What `agent` is served by default (no elevation): tools, bytes and exact tokens."""
    view = views.view(agent, None)
    served = view.served
    tokenizer = bundled_name(agent.tokenizer) or DEFAULT_TOKENIZER
    listed = count_exact(served.json, tokenizer)
    loaded = count_exact(view.always_loaded.json, tokenizer) if agent.disclosure == "search" else listed
    return AgentRow(agent.name, tokenizer, len(served.names), served.bytes, listed, budget, loaded, agent.disclosure)


def render_budget_file(capabilities: int, domains: int, rows: list[AgentRow]) -> str:
    """A budget file holding today's figures: `facade check` then fails on any growth."""
    lines = [
        "# The catalogue gate (`facade check`): what each agent is served by default, no elevation,",
        "# must stay within these. Raise a number only in the change that explains why.",
        "",
        "[floors]",
        "# Fewer capabilities or domains than these means a domain stopped loading.",
        f"capabilities = {capabilities}",
        f"domains = {domains}",
    ]
    for row in rows:
        lines += ["", f"[agents.{row.agent}]", f"tools = {row.tools}", f"bytes = {row.bytes}", f"tokens = {row.tokens}  # {row.tokenizer}"]
        if row.disclosure == "search":
            lines.append(f"always_loaded = {row.always_loaded}")
    return "\n".join(lines) + "\n"


def render_check(report: CheckReport) -> str:
    lines = [f"{'agent':<12}{'tokenizer':<13}{'tools':>13}{'bytes':>19}{'tokens':>17}{'always loaded':>17}"]
    for row in report.rows:
        b = row.budget

        def cell(now: int, limit: int | None, width: int) -> str:
            return f"{now}/{limit if limit is not None else '-'}".rjust(width)

        lines.append(
            f"{row.agent:<12}{row.tokenizer:<13}{cell(row.tools, b and b.tools, 13)}"
            f"{cell(row.bytes, b and b.bytes, 19)}{cell(row.tokens, b and b.tokens, 17)}"
            + (cell(row.always_loaded, (b and b.always_loaded) or ALWAYS_LOADED_LIMIT, 17) if row.disclosure == "search" else "all".rjust(17))
        )
    facts = report.facts
    lines.append(
        f"\n{facts.get('capabilities')} capabilities in {facts.get('domains')} domains; identity declared in "
        f"{facts.get('identity_parsed_pct')}% of parsed schemas and {facts.get('identity_announced_pct')}% of "
        f"announced ones; {facts.get('agreement_cases')} agent × elevation cases checked for agreement"
    )
    if "lock" in facts:
        lines.append(f"{facts['lock']}: {facts['locked']} capabilities locked (tier, approval, read-only)")
    lines += [f"warning: {w}" for w in report.warnings]
    if report.problems:
        lines += ["", f"FAILED: {len(report.problems)} problem(s)"] + [f"- {p}" for p in report.problems]
    else:
        lines += ["", "ok: within budget, floors held, descriptions clean, all surfaces agree"]
    return "\n".join(lines)
