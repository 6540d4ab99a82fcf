"""The fenced parser: what small models get wrong is repaired when the repair is sure; what cannot
be read comes back as a message that tells the model what to fix; nothing is cut short, and a
JSON answer is an answer."""

from __future__ import annotations

from typing import Any

import pytest

from facade.host.messages import ToolSpec, user
from facade.host.providers import FencedProvider, ModelRequest, SystemParts
from facade.host.providers.base import ModelTurn
from facade.host.providers.blocks import FORM, loads_forgiving, read_reply
from facade.host.testing import ScriptedModel

FENCE = "```"
TOOLS = ("projects.task_list", "projects.task_create", "projects.project_list", "projects.project_get", "files.read", "files.write", "files.search", "skills.apps_list")


def one_call(reply: str) -> tuple[str, dict[str, Any]]:
    reading = read_reply(reply, TOOLS)
    assert reading.problem is None, reading.problem
    assert len(reading.calls) == 1, reading
    return reading.calls[0].name, reading.calls[0].arguments


async def fenced(reply: str) -> ModelTurn:
    """The reply as the fenced provider reads it, offered TOOLS (the path the loop takes)."""
    request = ModelRequest(SystemParts("s"), [user("go")], [ToolSpec(name) for name in TOOLS])
    return await FencedProvider(ScriptedModel([reply], native_tools=False)).complete(request)


class TestRepairs:
    """Each repair alone, then together."""

    @pytest.mark.parametrize(
        "reply",
        [
            f'{FENCE}tool\n{{"tool": "projects.task_list", "args": {{"project_id": 3}}}}\n{FENCE}',
            f'Sure, let me look.\n{FENCE}tool\n{{"tool": "projects.task_list", "args": {{"project_id": 3}}}}\n{FENCE}\nI will report back.',
            f'{FENCE}tool\n{{"tool": "projects.task_list", "args": {{"project_id": 3}}\n{FENCE}',  # missing closing brace
            f'{FENCE}tool\n{{"tool": "projects.task_list", "args": {{"project_id": 3',  # cut off mid-block
            f'{FENCE}tool\n{{"tool": "projects.task_list", "args": {{"project_id": 3,}},}}\n{FENCE}',  # trailing commas
            f"{FENCE}tool\n{{'tool': 'projects.task_list', 'args': {{'project_id': 3}}}}\n{FENCE}",  # single quotes
            f"{FENCE}tool\n{{tool: projects.task_list, args: {{project_id: 3}}}}\n{FENCE}",  # nothing quoted
            f'{FENCE}json\n{{"tool": "projects.task_list", "arguments": {{"project_id": 3}}}}\n{FENCE}',  # wrong fence, alias key
            'Calling {"name": "projects.task_list", "parameters": "{\\"project_id\\": 3}"} now',  # no fence, args as a string
            f'{FENCE}tool\n{{“tool”: “projects.task_list”, “args”: {{“project_id”: 3}}}}\n{FENCE}',  # smart quotes
            f'{FENCE}tool\n{{"tool": "projects-task_list", "args": {{"project_id": 3}}}}\n{FENCE}',  # the provider-style name
        ],
    )
    def test_repaired(self, reply: str) -> None:
        assert one_call(reply) == ("projects.task_list", {"project_id": 3})

    def test_everything_at_once_and_python_literals(self) -> None:
        reply = f"ok {FENCE}tool\n{{'tool': 'files.search', 'args': {{'recursive': True, 'limit': None, 'names': ['a', \"b's\",],"
        assert one_call(reply) == ("files.search", {"recursive": True, "limit": None, "names": ["a", "b's"]})

    def test_a_call_with_no_args_and_flat_fields(self) -> None:
        assert one_call(f'{FENCE}tool\n{{"tool": "skills.apps_list"}}\n{FENCE}') == ("skills.apps_list", {})
        assert one_call(f'{FENCE}tool\n{{"tool": "projects.project_get", "project_id": 3}}\n{FENCE}') == ("projects.project_get", {"project_id": 3})

    def test_only_the_first_of_several_blocks_runs_and_the_model_is_told(self) -> None:
        block = f'{FENCE}tool\n{{"tool": "projects.project_list"}}\n{FENCE}\n{FENCE}tool\n{{"tool": "projects.task_list"}}\n{FENCE}'
        reading = read_reply(block, TOOLS)
        assert [c.name for c in reading.calls] == ["projects.project_list"]
        assert reading.notes == ["You wrote 2 tool blocks in one reply; only the first (projects.project_list) ran. Send one block per reply and wait for its result before the next."]

    def test_plain_text_is_an_answer(self) -> None:
        reading = read_reply("Harbour is the only active project. Use `projects.task_list` to see more.", TOOLS)
        assert not reading.calls and reading.problem is None


# Broken replies as small models write them (issue 16), invented here: each is mended to exactly
# this call, or refused with these words — never run with a guessed value.
BROKEN: list[tuple[str, str, dict[str, Any] | str]] = [
    ("unescaped inner quotes", '{"tool": "files.write", "args": {"path": "notes/quote.txt", "text": "She said "no" twice"}}',
     {"path": "notes/quote.txt", "text": 'She said "no" twice'}),
    ("an unquoted multi-word value", '{"tool": "projects.task_create", "args": {"project_id": 3, "title": Order more printer paper}}',
     {"project_id": 3, "title": "Order more printer paper"}),
    ("a // comment", '{"tool": "projects.task_list", // the open ones\n "args": {"project_id": 3}}', {"project_id": 3}),
    ("a /* */ comment", '{"tool": "projects.task_list", "args": {/* which */ "project_id": 3}}', {"project_id": 3}),
    ("a missing comma", '{"tool": "projects.task_list" "args": {"project_id": 3}}', {"project_id": 3}),
    ("a missing colon", '{"tool" "projects.task_create", "args": {"project_id": 3, "title": "Call the bank"}}',
     {"project_id": 3, "title": "Call the bank"}),
    ("a missing closing quote", '{"tool":"files.read","args":{"path":"notes/todo.txt}}', {"path": "notes/todo.txt"}),
    ("an unquoted date", '{"tool": "projects.task_create", "args": {"project_id": 3, "title": "Call Bob", "due": 2026-12-01}}',
     {"project_id": 3, "title": "Call Bob", "due": "2026-12-01"}),
    ("escapes beside unescaped quotes", '{"tool": "files.write", "args": {"path": "a.txt", "text": "caf\\u00e9 said "ok"\\nbye"}}',
     {"path": "a.txt", "text": 'café said "ok"\nbye'}),
    ("an extra closing brace", '{"tool": "files.read", "args": {"path": "notes/todo.txt"}}}', {"path": "notes/todo.txt"}),
    ("a bare path", '{"tool": "files.read", "args": {"path": notes/todo.txt}}', {"path": "notes/todo.txt"}),
    ("a quote that closes a string early, with text after it", '{"tool": "files.write", "args": {"path": "a.txt", "text": "say "}" and go"}}',
     "mending it would drop «and», «go»"),
    ("a number with leading zeros", '{"tool": "projects.task_list", "args": {"project_id": 007}}', "mending it would drop «007»"),
    ("an apostrophe in a single-quoted string", "{'tool': 'files.write', 'args': {'path': 'a.txt', 'text': 'it's done'}}",
     "is not closed where it should be"),
    ("keys with no values", '{"tool" "files.read" "args" {"path"}}', "broken at character 8 (Expecting ':' delimiter)"),
]


class TestBrokenReplies:
    """The table above, through the fenced provider."""

    @pytest.mark.anyio
    @pytest.mark.parametrize(("fault", "reply", "expected"), BROKEN, ids=[row[0] for row in BROKEN])
    async def test_mended_exactly_or_refused(self, fault: str, reply: str, expected: dict[str, Any] | str) -> None:
        turn = await fenced(f"{FENCE}tool\n{reply}\n{FENCE}")
        if isinstance(expected, dict):
            assert turn.problem is None, turn.problem
            assert [c.arguments for c in turn.tool_calls] == [expected]
        else:
            assert not turn.tool_calls, turn.tool_calls
            assert turn.problem is not None and expected in turn.problem and turn.problem.endswith(FORM), turn.problem


class TestNothingCutShort:
    """Issue 19, item 1: a ``` inside a string argument is text, not the end of the block."""

    MARKDOWN = "# Setup\n\nRun this:\n\n```bash\npip install facade\n```\n\nThen `facade serve`.\n"

    @pytest.mark.anyio
    async def test_a_markdown_file_with_a_code_block_is_written_whole(self) -> None:
        import json

        block = json.dumps({"tool": "files.write", "args": {"path": "docs/setup.md", "text": self.MARKDOWN}})
        turn = await fenced(f"Writing it now.\n{FENCE}tool\n{block}\n{FENCE}")
        assert turn.problem is None and [c.arguments for c in turn.tool_calls] == [{"path": "docs/setup.md", "text": self.MARKDOWN}]

    @pytest.mark.anyio
    async def test_raw_newlines_in_the_string_are_read_whole_too(self) -> None:
        block = '{"tool": "files.write", "args": {"path": "docs/setup.md", "text": "' + self.MARKDOWN.replace("`facade serve`", "facade serve") + '"}}'
        turn = await fenced(f"{FENCE}tool\n{block}\n{FENCE}")
        assert turn.problem is None and turn.tool_calls[0].arguments["text"] == self.MARKDOWN.replace("`facade serve`", "facade serve")

    @pytest.mark.anyio
    async def test_an_open_string_holding_a_fence_is_refused_not_cut(self) -> None:
        # The closing quote is missing: where the text ends cannot be known.
        block = '{"tool": "files.write", "args": {"path": "docs/setup.md", "text": "Run this:\n```bash\npip install facade\n```\nThen serve.}}'
        turn = await fenced(f"{FENCE}tool\n{block}\n{FENCE}")
        assert not turn.tool_calls
        assert turn.problem is not None and "cannot tell where" in turn.problem and turn.problem.endswith(FORM)

    @pytest.mark.anyio
    async def test_a_reply_cut_off_inside_a_string_is_refused_not_closed(self) -> None:
        turn = await fenced(f'{FENCE}tool\n{{"tool": "files.write", "args": {{"path": "docs/long.md", "text": "Chapter one.\\nIt was a dark and')
        assert not turn.tool_calls and turn.problem is not None and "it was cut off" in turn.problem

    def test_a_brace_missing_before_a_later_fence_is_refused(self) -> None:
        reading = read_reply(f'{FENCE}tool\n{{"tool": "files.write", "args": {{"path": "a.md", "text": "x"}}\n{FENCE}\nand\n{FENCE}bash\nls\n{FENCE}', TOOLS)
        assert not reading.calls and reading.problem is not None and "cannot tell where the block ends" in reading.problem


class TestJsonAnswers:
    """Issue 19, item 2: only the protocol's block is a call whatever it names; JSON elsewhere is a
    call only when it names a tool on offer."""

    @pytest.mark.anyio
    @pytest.mark.parametrize(
        "reply",
        [
            f'{FENCE}json\n{{"name": "Kestrel", "wingspan_cm": 70, "diet": ["voles", "insects"]}}\n{FENCE}',
            'Here it is: {"name": "Kestrel", "wingspan_cm": 70}',
            f'{FENCE}\n{{"name": "Kestrel", "habitat": "open country"}}\n{FENCE}',
            f'{FENCE}json\n{{"name": "Kestrel", "wingspan_cm": 70,\n{FENCE}',  # broken, and no tool in it
        ],
    )
    async def test_a_json_answer_is_an_answer(self, reply: str) -> None:
        turn = await fenced(reply)
        assert turn.tool_calls == [] and turn.problem is None and turn.text == reply

    def test_json_naming_an_offered_tool_is_a_call_and_broken_json_naming_one_is_a_problem(self) -> None:
        assert one_call(f'{FENCE}json\n{{"name": "files.read", "arguments": {{"path": "a.txt"}}}}\n{FENCE}') == ("files.read", {"path": "a.txt"})
        reading = read_reply(f'{FENCE}json\n{{"tool": "files.read", "args": {{"path": "a.txt", "limit": 007}}}}\n{FENCE}', TOOLS)
        assert not reading.calls and reading.problem is not None

    @pytest.mark.anyio
    async def test_the_model_familys_own_form_is_a_call_when_it_names_a_tool(self) -> None:
        turn = await fenced('<tool_call>\n{"name": "files.read", "arguments": {"path": "notes/todo.txt"}}\n</tool_call>')
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("files.read", {"path": "notes/todo.txt"})]

    @pytest.mark.anyio
    async def test_a_provider_style_name_is_mapped_back(self) -> None:
        # Issue 19, item 10: a model that has seen native tool names writes `files-read`.
        turn = await fenced(f'{FENCE}tool\n{{"tool": "files-read", "args": {{"path": "notes/todo.txt"}}}}\n{FENCE}')
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("files.read", {"path": "notes/todo.txt"})]

    def test_a_tool_block_is_a_call_even_for_an_unknown_name(self) -> None:
        # The loop answers it with the real names ("There is no tool named …").
        reading = read_reply(f'{FENCE}tool\n{{"tool": "projects.project_destroy", "args": {{}}}}\n{FENCE}', TOOLS)
        assert [c.name for c in reading.calls] == ["projects.project_destroy"]


class TestProblems:
    """What cannot be read says what to fix, and always shows the form to send."""

    @pytest.mark.parametrize(
        ("reply", "says"),
        [
            (f"{FENCE}tool\nprojects.task_list project_id=3\n{FENCE}", "no JSON object (no { found)"),
            (f'{FENCE}tool\n{{"args": {{"project_id": 3}}}}\n{FENCE}', 'the object has no "tool" naming the tool to call (its keys: args)'),
            (f'{FENCE}tool\n[{{"tool": "a.b"}}, {{"tool": "c.d"}}]\n{FENCE}', "the block holds a list"),
            (f'{FENCE}tool\n{{"tool": "a.b", "args": [1, 2]}}\n{FENCE}', '"args" must be an object of named fields, not list'),
            (f'{FENCE}tool\n{{"tool": "a.b", "args": "project 3"}}\n{FENCE}', '"args" is a string that is not a JSON object'),
        ],
    )
    def test_the_message_names_the_fault(self, reply: str, says: str) -> None:
        reading = read_reply(reply, TOOLS)
        assert not reading.calls
        assert reading.problem is not None and says in reading.problem and reading.problem.endswith(FORM)

    def test_the_position_points_at_the_fault(self) -> None:
        _, error = loads_forgiving('{"tool": "a.b", "args": {"x": 007, "y": 2}}')
        assert error is not None and error.startswith("the JSON is broken at character 31 (Expecting ',' delimiter)") and "near «" in error and "007" in error


class TestHtml:
    """A complete HTML document is an app artifact; an incomplete one is a problem."""

    def test_a_complete_document_is_taken_and_replaced_by_a_placeholder(self) -> None:
        page = "<!DOCTYPE html>\n<html><head><title>Budget 2027</title></head><body><h1>Budget</h1></body></html>"
        reading = read_reply(f"Here is your app:\n{FENCE}html\n{page}\n{FENCE}\nOpen it in a browser.")
        assert [(a.kind, a.title, a.content) for a in reading.artifacts] == [("html", "Budget 2027", page)]
        assert reading.text == "Here is your app:\n[HTML app: Budget 2027]\nOpen it in a browser."
        assert not reading.calls and reading.problem is None

    def test_a_cut_off_document_is_refused_with_its_tail(self) -> None:
        reading = read_reply(f"{FENCE}html\n<!DOCTYPE html><html><body><table><tr><td>1</td>")
        assert not reading.artifacts
        assert reading.problem is not None and "not a complete HTML document" in reading.problem and "<td>1</td>" in reading.problem
