"""What a native-protocol model sends that is not quite the API's form: arguments written as
broken JSON, read by the fenced path's rule, and tool calls written as text in the model
family's own syntax (Hermes/Qwen `<tool_call>`, a bare JSON object, a ```json block)."""

from __future__ import annotations

import pytest

from facade.host.providers.openai import parse_arguments


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
        assert error.startswith("The arguments you sent for files.read") and says in error and "Call it again" in error
