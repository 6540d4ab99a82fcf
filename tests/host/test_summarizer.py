"""The summary's sources: the request that asks the model (a transcript that fits the window) and
the host's own list when that call fails."""

from __future__ import annotations

from typing import Any

from facade.host.compaction import SUMMARY_INSTRUCTIONS, continuation
from facade.host.summarizer import (
    HOST_SUMMARY_CHARS,
    SUMMARIZER_SYSTEM,
    TRANSCRIPT_MESSAGE_CHARS,
    host_summary,
    render,
    summary_request,
    transcript,
)
from facade.host.tokenizer import TokenCounter

Message = dict[str, Any]
COUNTER = TokenCounter("o200k_base")


def exchange(n: int, result: str = "") -> list[Message]:
    call = {"id": f"c{n}", "name": "files.read", "arguments": {"path": f"notes/{n}.txt"}}
    return [
        {"role": "user", "content": f"Read note {n}."},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{n}", "name": "files.read", "content": result or f"note {n} says: fact-{n}", "is_error": False},
        {"role": "assistant", "content": f"Note {n} holds fact-{n}."},
    ]


class TestTranscript:
    """The older messages as text for the summariser, fitted to its window."""

    def test_every_kind_of_message_is_rendered(self) -> None:
        earlier = continuation("Clara asked for the Q3 figures.")
        failed = {"role": "tool", "tool_call_id": "x", "name": "finance.report", "content": "year 0 is not a year", "is_error": True}
        text = transcript([earlier, *exchange(1), failed], COUNTER, 10_000)
        assert text.startswith("[summary of the conversation before this]\nClara asked for the Q3 figures.")
        assert '[assistant called files.read] {"path":"notes/1.txt"}' in text
        assert "[files.read returned]\nnote 1 says: fact-1" in text and "[finance.report failed]\nyear 0 is not a year" in text
        assert "[user]\nRead note 1." in text and "[assistant]\nNote 1 holds fact-1." in text

    def test_long_messages_are_cut_in_the_middle(self) -> None:
        entry = render({"role": "tool", "name": "files.read", "content": "HEAD" + "x" * 50_000 + "TAIL"})
        assert len(entry) < TRANSCRIPT_MESSAGE_CHARS + 100 and "HEAD" in entry and entry.endswith("TAIL")

    def test_what_does_not_fit_goes_oldest_first_and_an_earlier_summary_stays(self) -> None:
        earlier = continuation("SUMMARY-KEPT")
        history = [earlier] + [m for n in range(40) for m in exchange(n, f"note {n}: " + "word " * 300)]
        text = transcript(history, COUNTER, 3_000)
        assert COUNTER.count(text) <= 3_000
        assert text.startswith("[summary of the conversation before this]\nSUMMARY-KEPT")
        left_out = int(text.split("[… ")[1].split(" ")[0])
        assert 0 < left_out < len(history) - 1
        assert "Note 39 holds fact-39." in text and "Read note 0." not in text
        kept = text.split("left out: they did not fit the summariser's window …]\n\n")[1]
        assert kept == transcript(history[1 + left_out :], COUNTER, 10**6)  # the newest stretch, whole

    def test_the_request_holds_no_tools_and_asks_once(self) -> None:
        request = summary_request(exchange(1), COUNTER, 2_000)
        assert request.tools == [] and request.system.static == SUMMARIZER_SYSTEM and request.system.dynamic == ""
        [message] = request.messages
        assert message["role"] == "user" and message["content"].startswith("<conversation>\n[user]\nRead note 1.")
        assert message["content"].endswith(f"</conversation>\n\n{SUMMARY_INSTRUCTIONS}")
        big = summary_request([m for n in range(60) for m in exchange(n, "word " * 400)], COUNTER, 2_000)
        whole = COUNTER.count(SUMMARIZER_SYSTEM) + COUNTER.count(big.messages[0]["content"])
        assert whole <= 2_000


class TestHostSummary:
    """Without a model: one line per thing that happened, the newest kept, labelled."""

    def test_lines_in_order(self) -> None:
        text = host_summary([continuation("Clara asked for the Q3 figures."), *exchange(1)])
        assert text.splitlines() == [
            "The host listed the earlier messages itself (no model summary was available): what was asked, called, returned and answered, oldest first.",
            "Summary of the conversation before this:",
            "Clara asked for the Q3 figures.",
            "- The user wrote: Read note 1.",
            '- The assistant called files.read {"path":"notes/1.txt"}',
            "- files.read returned: note 1 says: fact-1",
            "- The assistant wrote: Note 1 holds fact-1.",
        ]

    def test_capped_keeping_the_newest(self) -> None:
        text = host_summary([m for n in range(200) for m in exchange(n, "word " * 200)])
        assert len(text) <= HOST_SUMMARY_CHARS
        assert "Note 199 holds fact-199." in text and "Read note 0." not in text
        assert "earlier entries left out)" in text.splitlines()[1]
