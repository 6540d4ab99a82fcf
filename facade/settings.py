"""Server settings: flags, `FACADE_*` environment variables and `facade.toml` (pydantic-settings)."""

from __future__ import annotations

import difflib
import ipaddress
import os
import socket
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from facade import cpu_claims
from facade.access.cards import DEFAULT_MAX_PENDING_CARDS
from facade.affinity import checked_setting
from facade.errors import ConfigError
from facade.kit import deadline
from facade.kit.domain_settings import DEFAULT_DATA_DIR, SHOWN_DEFAULT

DEFAULT_PORT = 8765
CONFIG_FILE = Path("facade.toml")
# Shipped inside the package, so that an installed wheel runs from any folder (issue 14).
PACKAGE = Path(__file__).resolve().parent
TOOLS_TEMPLATE = PACKAGE / "reports" / "TOOLS.md.j2"
DEMO_AGENTS = PACKAGE / "demo" / "agents"
DEMO_BUDGET = PACKAGE / "demo" / "catalogue-budget.toml"
# Sized with scripts/bench_load.py (50 and 200 sessions writing on PostgreSQL, 2 cores, 2026-12-01).
# The pool had been 10 + 20 overflow: the overflow connections were closed on return and opened
# again, 110 new PostgreSQL connections in 10 s at 200 sessions (6 with a fixed pool of 8), and
# up to 30 per process, so that three replicas and a CLI could exhaust PostgreSQL's default 100.
# A fixed 8 did as well or better in every interleaved run; 8, 16 and 40 threads could not be
# told apart (the process is bound by one core: latency is the queue of sessions over ~100-250
# writes/s). Threads beyond the pool wait for a connection without holding the interpreter, and
# leave room for handlers that block on files or the network: anyio's 40 is kept.
DATABASE_POOL_SIZE = 8
WORKER_THREADS = 40
# One agent's share of them (facade/threads.py). 48 clients of one agent sending worst cases
# (scripts/bench_hostile.py --short --clients 48, 2026-12-04): with every thread open to it,
# another agent's call waited up to 2.0 s (1.1-1.4 s with 30 of 40); with 8, 0.16-0.26 s; with
# 4, 0.09 s. Eight is the database pool's size: an agent's calls beyond it would wait for a
# connection anyway.
AGENT_WORKER_THREADS = 8
# The trace's size before it is rotated, and the rotated files kept (facade/catalogue/trace.py):
# ~22,000 listings of a 449-tool agent view, ~100 runtime listings at 10,449 tools (320 KB each,
# 2026-12-07); the trace and its kept files hold at most 96 MiB.
TRACE_MAX_BYTES = 32 * 1024 * 1024
TRACE_KEEP = 2


class Settings(BaseSettings):
    """Every knob of `facade serve`; the defaults run the demo on loopback with SQLite.

    Read from, highest first: the command's flags, `FACADE_*` environment variables, the config
    file (`facade.toml`: the variables' names without `FACADE_`, lowercase), the defaults. Every
    field's description is its line in `facade settings` and in the README's table.
    """

    model_config = SettingsConfigDict(env_prefix="FACADE_", extra="ignore")

    config: Path = Field(
        default=CONFIG_FILE,
        description="The config file (also `facade --config PATH`); a missing facade.toml is no error, a missing named file is.",
    )
    host: str = Field(default="127.0.0.1", description="The interface `facade serve` listens on (also `--host`).")
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535, description="The port it listens on (also `--port`; 0 picks a free one).")
    data_dir: Path = Field(
        default=DEFAULT_DATA_DIR, description="Everything the server writes: SQLite, the trace and the domains' folders."
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL, e.g. `postgresql+psycopg://user@host/db`; SQLite in the data dir when unset.",
    )
    agents_dir: Path = Field(
        default=Path("agents"), description="One folder per agent; `--demo` uses the packaged demo agents when unset."
    )
    tools_template: Path = Field(
        default=TOOLS_TEMPLATE,
        description="The TOOLS.md template; the packaged one when unset.",
        json_schema_extra={SHOWN_DEFAULT: "facade/reports/TOOLS.md.j2"},  # not this checkout's absolute path
    )
    trace_path: Path | None = Field(default=None, description="JSONL trajectory; data_dir/trace.jsonl when unset.")
    trace_full: bool = Field(default=False, description="Record the whole served tools array, not only its hash.")
    trace_max_bytes: int = Field(
        default=TRACE_MAX_BYTES, ge=0, description="Past this size the trace moves to trace.jsonl.1 and a new one begins; 0 never rotates it."
    )
    trace_keep: int = Field(default=TRACE_KEEP, ge=1, description="Rotated trace files kept (.1 the newest); older ones are deleted.")
    domains: str = Field(default="", description="Comma-separated extra domain modules.")
    runtime_tokens: str = Field(
        default="", description="Comma-separated tokens of multi-agent runtimes; a development token on loopback when unset."
    )
    operator_token: str | None = Field(
        default=None, description="The operator's token (dashboard, API, `facade cards`); a development token on loopback when unset."
    )
    anonymous_agent: str | None = Field(
        default=None,
        description="Loopback only: a request without a bearer token is this agent, for clients that cannot send a header "
        "such as the conformance suite (also `--anonymous-agent`).",
    )
    max_body_bytes: int = Field(default=1_048_576, description="Request body limit (413 above it, with the limit named).")
    redis_url: str | None = Field(default=None, description="Elevations, cards and list_changed in Redis, so that replicas agree.")
    replica_url: str = Field(
        default="",
        description="With FACADE_REDIS_URL: where the other replicas reach this one, to forward it the requests "
        "of handshake-era sessions it holds; http://{host}:{port} when unset (the machine's name for 0.0.0.0).",
    )
    # A client that stays connected keeps its GET stream open and is never idle; one that went
    # away costs its session's memory until this passes (the SDK's default is 30 minutes).
    session_idle_seconds: float = Field(
        default=600, gt=0, description="A handshake-era session with no request in flight for this long is closed (its id then answers 404)."
    )
    # bench_load.py opens 100 sessions per agent token at its 200-session load.
    max_sessions_per_token: int = Field(
        default=256, gt=0, description="Open handshake-era sessions one token may hold on one replica (429 beyond)."
    )
    elevation_ttl_seconds: float = Field(default=8 * 3600, gt=0, description="How long an elevation lasts.")
    card_ttl_seconds: float = Field(default=24 * 3600, gt=0, description="How long an approval card waits for a decision.")
    max_pending_cards: int = Field(
        default=DEFAULT_MAX_PENDING_CARDS, ge=1, description="Pending approval cards one agent may have at once."
    )
    base_prompt_tokens: int = Field(
        default=1500, ge=0, description="The budget's `base` segment: the runtime's own prompt and native tools (an estimate)."
    )
    sweep_seconds: float = Field(default=5, gt=0, description="How often expiries are checked.")
    public_url: str = Field(default="", description="Where operators reach this server; https:// marks the dashboard cookie Secure.")
    database_pool_size: int = Field(
        default=DATABASE_POOL_SIZE,
        ge=1,
        description="Connections each process keeps to a server database (PostgreSQL); none beyond them are opened.",
    )
    worker_threads: int = Field(
        default=WORKER_THREADS,
        ge=1,
        description="Threads that run sync handlers, the health check and the sweeper at once; calls beyond them queue. With a SQLite file each keeps a connection of its own for its calls.",
    )
    agent_worker_threads: int = Field(
        default=AGENT_WORKER_THREADS,
        ge=1,
        description="Of those, how many one agent's calls may hold at once; its further calls wait, other agents' do not.",
    )
    cpu_affinity: str = Field(
        default="auto",
        description="A server's threads on one CPU while its jobs are short: auto (a lone server, where it starts unless "
        "another server claimed that CPU; --workers left free), off, or CPUs to hand out one per worker (0,2 or 0-3).",
    )
    cpu_claims_scope: str = Field(
        default=cpu_claims.DEFAULT_SCOPE,
        description="The name under which servers on one machine claim their CPUs (auto), so that each pins a CPU "
        "of its own; servers that should spread share it (nothing is written: facade/cpu_claims.py).",
    )
    # Long handlers stop themselves at their next step past it (facade/kit/deadline.py).
    call_deadline_seconds: float = Field(
        default=deadline.DEFAULT_SECONDS,
        gt=0, description="How long one tool call may run before it stops at its next safe point."
    )
    # Off by default: the demo rows have no place in a real deployment's database (issue 14).
    seed: bool = Field(default=False, description="Seed the demo data into empty tables (`facade serve --demo` turns it on).")
    # MCP authorization as a resource server (README "Authorization"): off while no issuer is set;
    # static tokens keep working beside it.
    oauth_issuers: str = Field(
        default="",
        description="Comma-separated issuer URLs of the authorization servers whose JWT access tokens are accepted.",
    )
    oauth_audience: str = Field(
        default="", description="The audience a token must name; this server's resource URL (public URL + /mcp) when unset."
    )
    oauth_jwks_url: str = Field(
        default="", description="Where the signing keys are; read from each issuer's metadata when unset."
    )
    oauth_agent_claim: str = Field(
        default="client_id",
        description="The token claim matched against agent.toml's oauth_clients (client_id falls back to azp).",
    )
    oauth_operator_scope: str = Field(
        default="", description="A token with this scope is the operator on /api (e.g. facade:operator); none when unset."
    )
    oauth_refetch_seconds: float = Field(
        default=60, ge=0, description="At most one signing-key fetch per issuer this often for an unknown key id."
    )
    log_json: bool | None = Field(default=None, description="JSON logs on stderr (never a token); by default when not on a terminal.")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags, then the environment, then the config file, then the defaults."""
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=config_path(init_settings)), file_secret_settings

    @field_validator("database_url")
    @classmethod
    def _a_url_sqlalchemy_can_load(cls, value: str | None) -> str | None:
        scheme = (value or "").partition("://")[0].lower()
        if scheme in ("postgres", "postgresql"):
            # SQLAlchemy has no `postgres` dialect, and plain `postgresql` means psycopg2, which is not installed.
            raise ValueError(f"{scheme}:// names no installed driver; write postgresql+psycopg://… (psycopg 3)")
        return value

    @field_validator("cpu_affinity")
    @classmethod
    def _cpu_setting(cls, value: str) -> str:
        return checked_setting(value)

    @field_validator("cpu_claims_scope")
    @classmethod
    def _scope(cls, value: str) -> str:
        return cpu_claims.checked_scope(value)

    @field_validator("max_body_bytes")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("must be a positive number of bytes")
        return value

    def for_demo(self) -> Settings:
        """The demo: its data seeded, and the packaged demo agents unless an agents folder was set."""
        agents = self.agents_dir if "agents_dir" in self.model_fields_set else DEMO_AGENTS
        return self.model_copy(update={"seed": True, "agents_dir": agents})

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'facade.db'}"

    @property
    def effective_trace_path(self) -> Path:
        return self.trace_path or self.data_dir / "trace.jsonl"

    @property
    def extra_domain_modules(self) -> list[str]:
        return _split(self.domains)

    @property
    def runtime_token_list(self) -> list[str]:
        return _split(self.runtime_tokens)

    @property
    def effective_replica_url(self) -> str:
        """Where other replicas reach this one (DESIGN "Scale"): a wildcard address names no host,
        so the machine's own name stands in for it."""
        if self.replica_url:
            return self.replica_url.rstrip("/")
        host = socket.gethostname() if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"

    @property
    def oauth_issuer_list(self) -> list[str]:
        return _split(self.oauth_issuers)  # compared exactly, a trailing "/" included (RFC 8414 §3.3)

    @property
    def resource_url(self) -> str | None:
        """This server's MCP endpoint as clients name it (RFC 9728's resource identifier):
        FACADE_PUBLIC_URL + /mcp, else the loopback address it listens on; None when neither
        says (a wildcard address names no URL a client can use)."""
        if self.public_url:
            return f"{self.public_url.rstrip('/')}/mcp"
        if self.on_loopback:
            host = f"[{self.host}]" if ":" in self.host else self.host
            return f"http://{host}:{self.port}/mcp"
        return None

    @property
    def on_loopback(self) -> bool:
        """Whether the server listens only on this machine: development tokens work only then."""
        return is_loopback(self.host)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def config_path(init_settings: PydanticBaseSettingsSource | None = None) -> Path:
    """The config file: `--config` (passed to the model as `config`), else FACADE_CONFIG, else
    facade.toml in the working folder."""
    given = getattr(init_settings, "init_kwargs", {}).get("config")
    return Path(given or os.environ.get("FACADE_CONFIG") or CONFIG_FILE)


def file_values(path: Path) -> dict[str, Any]:
    """The config file's table as pydantic-settings reads it; {} when there is no file."""
    return dict(TomlConfigSettingsSource(Settings, toml_file=path).toml_data)


def load_settings(**flags: Any) -> Settings:
    """The settings with the command's flags on top (None means "not given"); a value that does
    not fit, a config file that is named but missing or not TOML, is a ConfigError of one line
    naming where the value came from."""
    given = {name: value for name, value in flags.items() if value is not None}
    path = config_path(InitSettingsSource(Settings, given))
    named = "config" in given or bool(os.environ.get("FACADE_CONFIG"))
    if named and not path.is_file():
        where = "--config" if "config" in given else "FACADE_CONFIG"
        raise ConfigError(f"the config file {path} ({where}) does not exist; create it or name another")
    try:
        table = file_values(path)
        return Settings(**given)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "?"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"{_origin(name, given, table, path)}: {message}") from None


def _origin(name: str, flags: dict[str, Any], table: dict[str, Any], path: Path) -> str:
    """Where a field's value came from, as the person who must change it would write it."""
    variable = f"FACADE_{name.upper()}"
    if name in flags:
        return f"--{name.replace('_', '-')} {flags[name]}"
    for key, value in os.environ.items():
        if key.upper() == variable:
            return f"{variable}={redact_url(value)}"
    if name in table:
        value = table[name]
        return f"{path}: {name} = " + (f'"{redact_url(value)}"' if isinstance(value, str) else str(value))
    return variable


def redact_url(url: str) -> str:
    """A URL without its credentials, for messages, logs and `facade settings`."""
    if "://" not in url or "@" not in url:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://…@{rest.rsplit('@', 1)[1]}"


def closest(name: str, known: Iterable[str]) -> str:
    """"; did you mean X?" for the nearest known name, or a pointer to the list."""
    match = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {match[0]}?" if match else "; `facade settings` lists every setting"


# Read beside the server, not by it (client commands, the tests, the scripts): a shell that sets
# them for those must still be able to start the server. The host's own are facade.host.variables.
READ_ELSEWHERE = {
    "FACADE_URL": "the server that `facade bridge`, `facade cards`, `chat` and `run` talk to",
    "FACADE_TOKEN": "the agent token `facade bridge` sends",
    "FACADE_CONVERSATION_ID": "the conversation `facade bridge` names",
    "FACADE_REQUIRE_SERVICES": "tests: a missing PostgreSQL or Redis fails instead of skipping",
    "FACADE_TEST_POSTGRES": "tests: the PostgreSQL server they create databases on",
    "FACADE_TEST_REDIS": "tests: the Redis they use",
    "FACADE_PYTHON": "scripts/conformance.sh: the interpreter",
}
# An agent's token: FACADE_TOKEN_<NAME> by convention, any name agent.toml's token_env gives.
AGENT_TOKEN_PREFIX = "FACADE_TOKEN_"
