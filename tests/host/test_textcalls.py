"""What a native-protocol model sends that is not quite the API's form: arguments written as
broken JSON, read by the fenced path's rule, and tool calls written as text in the model
family's own syntax (Hermes/Qwen `<tool_call>`, a bare JSON object, a ```json block)."""

from __future__ import annotations

import pytest

from facade.host.providers.openai import parse_arguments
from facade.host.providers.textcalls import lift
from facade.host.usage import Usage
from tests.host.test_providers import Recorder, conversation, openai, wire


class TestForgivingArguments:
    """Native arguments repaired only when the repair is sure (issue 19 item 10)."""

    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ('{"path": "notes/todo.txt"}', {"path": "notes/todo.txt"}),
            ({"path": "notes/todo.txt"}, {"path": "notes/todo.txt"}),
            ('"{\\"path\\": \\"notes/todo.txt\\"}"', {"path": "notes/todo.txt"}),  # a JSON string inside a string
            ("{'path': 'notes/todo.txt'}", {"path": "notes/todo.txt"}),  # single quotes
            ('{"path": "notes/todo.txt", "limit": 3,}', {"path": "notes/todo.txt", "limit": 3}),  # a trailing comma
            ("{path: notes/todo.txt}", {"path": "notes/todo.txt"}),  # unquoted key and value
            ('{"path": "notes/todo.txt}}', {"path": "notes/todo.txt"}),  # a missing closing quote: json-repair is sure
            ("", {}),
            (None, {}),
        ],
    )
    def test_repaired_when_unambiguous(self, raw: object, expected: dict[str, object]) -> None:
        assert parse_arguments("files.read", raw) == (expected, None)

    @pytest.mark.parametrize(
        ("raw", "says"),
        [
            ("{'path': 'a.txt', 'text': 'it's done'}", "is not closed where it should be"),  # where does the string end?
            ('{"path": "a.txt", "text": "say "}" and go"}', "mending it would drop «and», «go»"),
            ("[1, 2]", "must be an object of named fields, not list"),
            ('"notes/todo.txt"', "must be an object of named fields, not str"),
        ],
    )
    def test_refused_with_a_clear_error_otherwise(self, raw: str, says: str) -> None:
        value, error = parse_arguments("files.read", raw)
        assert value == {} and error is not None
        assert error.startswith('The "arguments" of your files.read call') and says in error and "Call it again" in error


OFFERED = ["files.read", "projects.task_list", "projects.task_create"]


class TestTextCalls:
    """Calls written in the family's own syntax are calls; JSON naming no offered tool is an answer."""

    def test_one_hermes_call(self) -> None:
        lifted = lift('<tool_call>\n{"name": "files-read", "arguments": {"path": "notes/todo.txt"}}\n</tool_call>', OFFERED)
        assert [(c.name, c.arguments, c.error) for c in lifted.calls] == [("files.read", {"path": "notes/todo.txt"}, None)]
        assert lifted.text == "" and lifted.problem is None

    def test_several_hermes_calls_with_prose_and_forgiving_arguments(self) -> None:
        reply = (
            "Let me read both.\n<tool_call>\n{'name': 'files.read', 'arguments': {'path': 'a.txt',},}\n</tool_call>\n"
            '<tool_call>{"name": "projects-task_list", "arguments": "{\\"project_id\\": 3}"}</tool_call>'
        )
        lifted = lift(reply, OFFERED)
        assert [(c.name, c.arguments) for c in lifted.calls] == [("files.read", {"path": "a.txt"}), ("projects.task_list", {"project_id": 3})]
        assert lifted.text == "Let me read both." and len({c.id for c in lifted.calls}) == 2

    def test_a_tagged_call_naming_an_unknown_tool_is_still_a_call(self) -> None:
        # The tag is the family's protocol: the loop answers with the names that exist.
        lifted = lift('<tool_call>{"name": "files-delete", "arguments": {}}</tool_call>', OFFERED)
        assert [c.name for c in lifted.calls] == ["files.delete"]

    def test_a_tag_cut_off_or_unreadable_is_a_problem_for_the_model(self) -> None:
        cut = lift('<tool_call>\n{"name": "files-read", "arguments": {"path": "no', OFFERED)
        assert not cut.calls and cut.problem is not None and "cut off" in cut.problem and "<tool_call>" in cut.problem
        broken = lift('<tool_call>{"name": "files.read", "arguments": [1]}</tool_call>', OFFERED)
        assert not broken.calls and broken.problem is not None and "must be an object of named fields" in broken.problem

    @pytest.mark.parametrize(
        "reply",
        [
            '{"name": "files-read", "arguments": {"path": "notes/todo.txt"}}',
            '  ```json\n{"name": "files.read", "arguments": {"path": "notes/todo.txt"}}\n```\n',
            '```\n{"tool": "files.read", "args": {"path": "notes/todo.txt"}}\n```',
        ],
    )
    def test_a_whole_reply_object_naming_an_offered_tool(self, reply: str) -> None:
        lifted = lift(reply, OFFERED)
        assert [(c.name, c.arguments) for c in lifted.calls] == [("files.read", {"path": "notes/todo.txt"})]
        assert lifted.text == "" and lifted.problem is None

    @pytest.mark.parametrize(
        "reply",
        [
            '{"name": "Kestrel", "arguments": {"wings": 2}}',  # names no offered tool: an answer in JSON
            'You would call it like {"name": "files-read", "arguments": {"path": "a"}} from a script.',  # prose
            'Here it is:\n```json\n{"name": "files.read", "arguments": {"path": "a"}}\n```',  # not the whole reply
            "The file says hello.",
        ],
    )
    def test_json_that_is_not_a_call_stays_the_answer(self, reply: str) -> None:
        lifted = lift(reply, OFFERED)
        assert lifted.calls == [] and lifted.problem is None and lifted.text == reply

    @pytest.mark.parametrize(
        ("reply", "meant"),
        [
            # Seen from Qwen2.5-Coder-0.5B in scripts/e2e_local.py: the right action under a domain it made up.
            ('{"name": "orders-task_create", "arguments": {"title": "Call the printer"}}', "projects.task_create"),
            ('```json\n{"name": "files.raed", "arguments": {"path": "a.txt"}}\n```', "files.read"),
        ],
    )
    def test_a_call_shaped_object_naming_a_tool_near_an_offered_one_is_told_which(self, reply: str, meant: str) -> None:
        lifted = lift(reply, OFFERED)
        assert not lifted.calls and lifted.problem is not None and f'the nearest offered tool is "{meant}"' in lifted.problem

    def test_a_broken_whole_reply_call_naming_an_offered_tool_is_a_problem(self) -> None:
        lifted = lift('{"name": "files.read", "arguments": {"path": "a.txt", "text": "say "}" and go"}}', OFFERED)
        assert not lifted.calls and lifted.problem is not None and "mending it would drop" in lifted.problem


@pytest.mark.anyio
class TestReplays:
    """Recorded bodies of local servers that return calls as text."""

    async def test_llama_cpp_python_qwen_tool_call_text(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_llamacpp_python_qwen_tool_call.json"))).complete(conversation())
        assert [(c.name, c.arguments, c.error) for c in turn.tool_calls] == [("projects.task_list", {"project_id": 3}, None)]
        assert turn.text == "" and turn.problem is None and turn.usage == Usage(input_tokens=1288, output_tokens=27)

    async def test_llama_server_without_jinja_two_calls_as_text_and_its_cache(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_llamaserver_qwen_tool_calls_text.json"))).complete(conversation())
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("projects.project_get", {"project_id": 3}), ("projects.task_list", {"project_id": 3})]
        assert turn.text == "I will look at the project and its tasks."
        assert turn.usage == Usage(input_tokens=62, output_tokens=61, cache_read_tokens=1340)  # 1402 = 62 fresh + 1340 from timings.cache_n

    async def test_ollama_json_block_that_is_the_whole_reply(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_ollama_json_block.json"))).complete(conversation())
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("projects.project_list", {"status": "active"})] and turn.text == ""

    async def test_vllm_json_answer_stays_an_answer(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_vllm_json_answer.json"))).complete(conversation())
        assert not turn.tool_calls and turn.problem is None and turn.text.startswith('{"name": "Harbour"')
        assert turn.usage == Usage(input_tokens=51, output_tokens=19, cache_read_tokens=1792)

    async def test_a_call_cut_off_at_the_cap_is_neither_run_nor_answered(self) -> None:
        turn = await openai(Recorder(200, wire("openai_response_llamacpp_python_length.json"))).complete(conversation())
        assert turn.cut_off and turn.stop_reason == "length" and turn.usage.output_tokens == 512
        assert not turn.tool_calls and turn.problem is not None and "cut off" in turn.problem
