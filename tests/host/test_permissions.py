"""The permission policy: rules, globs, the default, approval-1 and destructive tools, and Prompt
without a prompter."""

from __future__ import annotations

from typing import Any

import pytest

from facade.host.messages import ToolSpec
from facade.host.permissions import Decision, PermissionPolicy, PermissionRequest, Rule
from facade.host.testing import ScriptedModel, call, say
from tests.host.conftest import Host

pytestmark = pytest.mark.anyio
PLAIN = ToolSpec("files.file_delete")
ASKS = ToolSpec("mail.message_send", approval=1)


class TestDecide:
    """Which rule wins, whatever the order the rules were given in."""

    @pytest.mark.parametrize("order", [1, -1])
    def test_the_most_specific_rule_wins(self, order: int) -> None:
        rules = [Rule("files.*", Decision.ALLOW), Rule("files.file_delete", Decision.DENY)][::order]
        policy = PermissionPolicy(rules, Decision.PROMPT)
        assert policy.decide(PLAIN)[0] is Decision.DENY
        assert policy.decide(ToolSpec("files.file_read"))[0] is Decision.ALLOW
        assert policy.decide(ToolSpec("mail.message_list"))[0] is Decision.PROMPT  # the default

    def test_on_a_tie_the_cautious_rule_wins(self) -> None:
        policy = PermissionPolicy([Rule("files.*", Decision.ALLOW), Rule("files.*", Decision.PROMPT)])
        assert policy.decide(PLAIN)[0] is Decision.PROMPT

    def test_approval_1_defaults_to_prompt_and_only_an_exact_allow_lifts_it(self) -> None:
        assert PermissionPolicy().decide(ASKS)[0] is Decision.PROMPT
        assert PermissionPolicy([Rule("mail.*", Decision.ALLOW)]).decide(ASKS)[0] is Decision.PROMPT
        assert PermissionPolicy([Rule("mail.message_send", Decision.ALLOW)]).decide(ASKS)[0] is Decision.ALLOW
        assert PermissionPolicy([], Decision.DENY).decide(ASKS)[0] is Decision.DENY
        assert PermissionPolicy().decide(PLAIN)[0] is Decision.ALLOW

    def test_rules_from_the_command_line(self) -> None:
        policy = PermissionPolicy.of(allow=["projects.*"], deny=["*.delete*", "files.*"], prompt=["finance.payment_*"], default="deny")
        assert policy.default is Decision.DENY and len(policy.rules) == 4
        assert Rule.parse("files.*=Prompt") == Rule("files.*", Decision.PROMPT)
        for bad in ("files.*", "=allow", "files.*=maybe"):
            with pytest.raises(ValueError, match="PATTERN=allow"):
                Rule.parse(bad)
        with pytest.raises(ValueError, match="choose allow, deny or prompt"):
            PermissionPolicy.of(default="ask")


class TestAuthorize:
    """What each decision does to a call; a denial is a value whose reason the model can act on."""

    async def test_allow_and_deny(self) -> None:
        assert (await PermissionPolicy().authorize(PLAIN, {}, None)).allowed
        denied = await PermissionPolicy([Rule("files.*", Decision.DENY)]).authorize(PLAIN, {}, None)
        assert not denied.allowed and "not allowed in this session (the rule files.*=deny)" in denied.reason

    async def test_prompt_without_a_prompter_is_deny_with_a_reason(self) -> None:
        verdict = await PermissionPolicy().authorize(ASKS, {"to": "a@b.c"}, None)
        assert not verdict.allowed and verdict.decision is Decision.PROMPT
        assert "needs the user's approval (the capability asks for the user's confirmation)" in verdict.reason
        assert "--allow mail.message_send" in verdict.reason

    @pytest.mark.parametrize("answer", [True, False])
    async def test_the_prompter_decides_sync_or_async(self, answer: bool) -> None:
        asked: list[PermissionRequest] = []

        def sync(request: PermissionRequest) -> bool:
            asked.append(request)
            return answer

        async def later(request: PermissionRequest) -> bool:
            return sync(request)

        policy = PermissionPolicy([Rule("files.file_delete", Decision.PROMPT)])
        args: dict[str, Any] = {"path": "a.txt"}
        for prompter in (sync, later):
            verdict = await policy.authorize(PLAIN, args, prompter)
            assert verdict.allowed is answer
            assert verdict.reason == "approved by the user" if answer else "declined" in verdict.reason
        assert [(r.tool, r.arguments, r.approval) for r in asked] == [("files.file_delete", args, 0)] * 2
        assert asked[0].reason == "the rule files.file_delete=prompt asks the user first"


class TestDestructive:
    """Issue 19, item 8: a tool that says it may delete or overwrite is asked about unless a rule
    names it; the capabilities nothing can undo carry approval 1."""

    async def test_the_destructive_hint_is_read_and_asked_about(self) -> None:
        from mcp_types import Tool, ToolAnnotations

        from facade.host.tools import spec_of

        spec = spec_of(Tool(name="vault.secret_delete", input_schema={"type": "object"}, annotations=ToolAnnotations(destructive_hint=True)))
        verdict = await PermissionPolicy().authorize(spec, {"name": "db"}, None)
        assert not verdict.allowed and verdict.decision is Decision.PROMPT
        assert "needs the user's approval (the tool says it may delete or overwrite data)" in verdict.reason
        asked: list[PermissionRequest] = []
        approved = await PermissionPolicy().authorize(spec, {"name": "db"}, lambda r: asked.append(r) is None)
        assert approved.allowed and [r.reason for r in asked] == ["the tool says it may delete or overwrite data"]
        both = Tool(name="vault.secret_get", input_schema={"type": "object"}, annotations=ToolAnnotations(read_only_hint=True, destructive_hint=True))
        assert not spec_of(both).destructive  # the hint means nothing on a read-only tool (MCP)

    def test_a_rule_that_names_it_is_the_users_word(self) -> None:
        spec = ToolSpec("files.move", destructive=True)
        assert PermissionPolicy().decide(spec)[0] is Decision.PROMPT
        assert PermissionPolicy([Rule("files.*", Decision.ALLOW)]).decide(spec)[0] is Decision.ALLOW
        assert PermissionPolicy([Rule("*", Decision.ALLOW)]).decide(spec)[0] is Decision.ALLOW
        assert PermissionPolicy([], Decision.DENY).decide(spec)[0] is Decision.DENY
        assert PermissionPolicy().decide(ToolSpec("files.mkdir"))[0] is Decision.ALLOW

    async def test_files_delete_is_not_run_unasked(self, host: Host) -> None:
        model = ScriptedModel([call("files.delete", {"path": "scratch/delete-me.txt"}), call("files.read", {"path": "scratch/delete-me.txt"}), say("kept")])
        async with host(model) as loop:
            result = await loop.run("Delete scratch/delete-me.txt")
        denied, read = result.executed
        assert denied.denied and "needs the user's approval (the capability asks for the user's confirmation)" in denied.text
        assert not read.is_error and "A file to practise deleting." in read.text  # still there
