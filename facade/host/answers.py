"""The host's answers to the server's questions (MCP elicitation).

Two kinds of question arrive. A confirmation (a message and no fields) is the server asking
before an approval-1 call runs (facade/access/consent.py on the server side). The host never
sends a call its permission policy did not authorize (facade/host/permissions.py), and that
policy asks its user, through the Prompter, before every approval-1 call unless the user allowed
that exact tool: so the user has already answered, and the confirmation of the call in flight
is accepted rather than asked twice. A form (fields to fill) is a capability asking its user:
the host has no form to show, so it offers the form's defaults to the Prompter as a yes/no
question, and declines when a field has no default or nobody is there to ask.
"""

from __future__ import annotations

import inspect
from typing import Any

import mcp_types as types

from facade.host.permissions import PermissionRequest, Prompter


class HostAnswers:
    """The elicitation callback of one host connection."""

    def __init__(self, prompter: Prompter | None = None) -> None:
        self.prompter = prompter
        self.in_flight: tuple[str, dict[str, Any]] | None = None
        """The call being made (name, arguments); set by FacadeTools around each call."""

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        schema = getattr(params, "requested_schema", None) or {}
        fields: dict[str, Any] = schema.get("properties") or {}
        if not fields:
            return types.ElicitResult(action="accept" if self.in_flight is not None else "decline", content={})
        defaults = {name: spec["default"] for name, spec in fields.items() if isinstance(spec, dict) and "default" in spec}
        if self.prompter is None or len(defaults) < len(fields):
            return types.ElicitResult(action="decline")
        tool, arguments = self.in_flight or ("(no call)", {})
        answer = self.prompter(PermissionRequest(tool, {**arguments, "answer": defaults}, 0, params.message))
        if inspect.isawaitable(answer):
            answer = await answer
        return types.ElicitResult(action="accept", content=defaults) if answer else types.ElicitResult(action="decline")
