"""The fenced parser: what small models get wrong is repaired; what cannot be repaired comes
back as a message that tells the model what to fix."""

from __future__ import annotations

import pytest

from facade.host.providers.blocks import FORM, loads_forgiving, read_reply

FENCE = "```"


def one_call(reply: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    reading = read_reply(reply)
    assert reading.problem is None, reading.problem
    assert len(reading.calls) == 1
    return reading.calls[0].name, reading.calls[0].arguments


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
        reading = read_reply(block)
        assert [c.name for c in reading.calls] == ["projects.project_list"]
        assert reading.notes == ["You wrote 2 tool blocks in one reply; only the first (projects.project_list) ran. Send one block per reply and wait for its result before the next."]

    def test_plain_text_is_an_answer(self) -> None:
        reading = read_reply("Harbour is the only active project. Use `projects.task_list` to see more.")
        assert not reading.calls and reading.problem is None


class TestProblems:
    """What cannot be read says what to fix, and always shows the form to send."""

    @pytest.mark.parametrize(
        ("reply", "says"),
        [
            (f'{FENCE}tool\n{{"tool" "projects.task_list"}}\n{FENCE}', "the JSON is broken at character 8 (Expecting ':' delimiter)"),
            (f"{FENCE}tool\nprojects.task_list project_id=3\n{FENCE}", "no JSON object (no { found)"),
            (f'{FENCE}tool\n{{"args": {{"project_id": 3}}}}\n{FENCE}', 'the object has no "tool" naming the tool to call (its keys: args)'),
            (f'{FENCE}tool\n[{{"tool": "a.b"}}, {{"tool": "c.d"}}]\n{FENCE}', "the block holds a list"),
            (f'{FENCE}tool\n{{"tool": "a.b", "args": [1, 2]}}\n{FENCE}', '"args" must be an object of named fields, not list'),
            (f'{FENCE}tool\n{{"tool": "a.b", "args": "project 3"}}\n{FENCE}', '"args" is a string that is not a JSON object'),
        ],
    )
    def test_the_message_names_the_fault(self, reply: str, says: str) -> None:
        reading = read_reply(reply)
        assert not reading.calls
        assert reading.problem is not None and says in reading.problem and reading.problem.endswith(FORM)

    def test_the_position_points_at_the_fault(self) -> None:
        _, error = loads_forgiving('{"tool": "a.b", "args": {"x": 1 "y": 2}}')
        assert error is not None and "near «" in error and '1 "y": 2' in error


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
