"""The errors Facade raises, each written for the reader who must act on it.

Domain errors reach a model as an `is_error` tool result; configuration errors reach a person
at start-up. Neither ever carries a stack trace across the boundary.
"""


class FacadeError(Exception):
    """Base of every error Facade raises on purpose."""


class ConfigError(FacadeError):
    """A setting, an agent file or a domain declaration is wrong; start-up stops."""


class RegistryError(ConfigError):
    """A capability declaration is malformed, duplicated or has a handler that does not fit."""


class AgentError(ConfigError):
    """An `agents/<name>/agent.toml` cannot be used as written."""


class StartupError(FacadeError):
    """Something the server needs at start (its database, Redis, its port) is not there; the
    configuration may be right, so the command exits 1, not 2."""


class UsageError(FacadeError):
    """A command or API request names something that does not exist or asks for something
    malformed; the message says what to change."""


class IdentityError(FacadeError):
    """The caller could not be identified; nothing was executed."""


class DomainError(FacadeError):
    """A domain refused a call: the message names the problem and what to change."""

    kind = "error"

    def __str__(self) -> str:
        return f"{self.kind}: {super().__str__()}" if self.kind != "error" else super().__str__()


class NotFound(DomainError):
    """The record or file the call names does not exist."""

    kind = "not found"


class Conflict(DomainError):
    """The call would break a uniqueness or state rule."""

    kind = "conflict"


class InvalidRequest(DomainError):
    """The arguments are well-typed but make no sense together or for this record."""

    kind = "invalid request"


class Forbidden(DomainError):
    """The call reaches outside what this domain may touch (a sandbox, a protected record)."""

    kind = "forbidden"


class Unavailable(DomainError):
    """Something the call needs (a host, an engine, a database) cannot be reached right now."""

    kind = "unavailable"


class TimedOut(DomainError):
    """The call reached the server's time limit for one call (FACADE_CALL_DEADLINE_SECONDS) and
    stopped at a safe point; what it had not done, it did not do."""

    kind = "timed out"


class InvalidToken(Exception):
    """A token this server will not accept; the message says why, without the token. Here, not
    in facade/access/oauth.py, so that a server without OAuth never imports joserfc and httpx2
    (~0.1 s of every start-up, measured 2026-12-02)."""
