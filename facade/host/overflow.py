"""What the host does when the model server refuses a prompt as longer than its window.

Local servers often run a model with less context than its card says (llama.cpp `-c`, vLLM
`--max-model-len`), so the configured window — when there is one at all — can be wrong, and the
first sign of it is a refusal (`ProviderError.kind == "context_length"`). The loop then:
1. learns: the request it had counted at E tokens did not fit, so for the rest of this session it
   works against a window of at most E and compacts at `compact_at` of it before sending anything
   that large again — one refusal, not one per turn;
2. compacts — the same compaction as at the threshold, forced, the 4 recent messages verbatim —
   and sends the call again, once;
3. gives up, with the error the person had before plus what was tried, when there is nothing
   older to compact or the retry is refused too.

Where the server states its window L and its own count R of the refused prompt (llama.cpp,
OpenAI and Anthropic all do), the window learned is L in the host's units, L × E / R: the host's
counter and the server's tokenizer differ (another vocabulary, chat-template tokens the host only
allows for), and the refused request itself measures the ratio between the two. Where it states
L alone, min(L, E); where it states nothing, E. A later refusal only narrows it.

The lesson lives as long as the loop and is not written into the session: a resumed session may
be sent to another server or model (`--base-url`, `--model`), which this refusal says nothing
about. The trajectory keeps it (`context.overflowed`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from facade.host.compaction import CompactionConfig
from facade.host.providers.base import ProviderError

COMPACT_AND_RETRY = "compacted and retried"
NOTHING_TO_COMPACT = "gave up: nothing older to compact"
RETRY_REFUSED = "gave up: the retry was refused too"

_TRIED = {
    NOTHING_TO_COMPACT: (
        "The host had nothing older to compact: the latest messages, which it keeps verbatim, are "
        "already longer than the server's window — run the server with a larger context (llama.cpp "
        "-c, vLLM --max-model-len) or ask for less at once."
    ),
    RETRY_REFUSED: (
        "The host compacted the conversation and sent it again, and the server refused that too: "
        "run the server with a larger context (llama.cpp -c, vLLM --max-model-len) or ask for less "
        "at once."
    ),
}


def refused_window(sent_tokens: int, server_window: int | None, server_tokens: int | None) -> int:
    """The window, in the host's tokens, that a refusal of a request counted at `sent_tokens`
    shows: the server's stated window converted by the ratio this request measured, never more
    than the request itself."""
    learned = sent_tokens
    if server_window:
        stated = server_window * sent_tokens // server_tokens if server_tokens else server_window
        learned = min(learned, stated)
    return max(learned, 1)


@dataclass
class LearnedWindow:
    """The model's window as this session knows it.

    Attributes:
        configured: the compaction settings as given (agent.toml, the command line).
        learned: the narrowest window a refusal has shown, in the host's tokens; None until a
            server refuses a prompt.
    """

    configured: CompactionConfig
    learned: int | None = None

    @property
    def window(self) -> int | None:
        """The narrowest window known: configured or learned (None while neither is)."""
        known = [w for w in (self.configured.context_window, self.learned) if w is not None]
        return min(known) if known else None

    @property
    def source(self) -> str:
        """Where `window` came from: `configured`, `refusal` (a server refused a prompt, and
        showed a narrower one) or `unknown`."""
        if self.window is None:
            return "unknown"
        return "configured" if self.window == self.configured.context_window else "refusal"

    @property
    def compaction(self) -> CompactionConfig:
        """The settings the loop compacts by: the configured ones, with the narrowest window."""
        return self.configured if self.source != "refusal" else replace(self.configured, context_window=self.window)

    def learn(self, error: ProviderError, sent_tokens: int) -> int:
        """Narrow the window by a refusal of a request counted at `sent_tokens`; the window the
        loop compacts by from now on."""
        shown = refused_window(sent_tokens, error.window, error.prompt_tokens)
        self.learned = shown if self.learned is None else min(self.learned, shown)
        return min(shown, self.window or shown)


def gave_up(error: ProviderError, action: str) -> ProviderError:
    """The refusal as the person sees it when recovery could not help: the same words, kind and
    numbers, and what the host tried."""
    return ProviderError(f"{error} {_TRIED[action]}", kind=error.kind, window=error.window, prompt_tokens=error.prompt_tokens)
