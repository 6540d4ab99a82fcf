"""Embeddings kept with the session: a resumed session ranks its history without embedding the
stored messages again (counted in embedder calls, not timed), and the file survives a torn write
and refuses another model's vectors."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from facade.host.context import ContextManager
from facade.host.session import Session
from facade.host.testing import ScriptedModel, say
from facade.retrieval import embedding
from facade.retrieval.lexical import digest
from facade.retrieval.vectors import VectorStore
from tests.host.conftest import Host


class CountingEmbedder:
    """A stand-in for MiniLM: a bag of hashed words as a unit vector, and every text it was asked
    to embed, in order."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.seen += list(texts)
        out = np.zeros((len(texts), 384), np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % 384] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> CountingEmbedder:
    fake = CountingEmbedder()
    monkeypatch.setattr(embedding, "shared_model", lambda: fake)
    return fake


def chat(n: int) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} about the harbour crane schedule, in detail. " * 6} for i in range(n)]


class TestResume:
    """What a session embedded once is never embedded again, in this process or the next."""

    def test_a_resumed_session_embeds_only_what_is_new(self, tmp_path: Path, embedder: CountingEmbedder) -> None:
        session = Session.open(tmp_path, "francis", "resume-1")
        for message in chat(60):
            session.add(message)
        manager = ContextManager(budget_tokens=500, embeddings=session.embeddings_path)
        manager.compile(session.messages, "crane 3")
        first = set(embedder.seen)
        assert len(first) > 40  # the older messages were ranked, so embedded
        assert session.embeddings_path.exists()

        embedder.seen.clear()
        resumed = Session.load(session.path)
        resumed.start_turn("what about crane 7?")
        again = ContextManager(budget_tokens=500, embeddings=resumed.embeddings_path)  # a new process's
        again.compile(resumed.messages, "what about crane 7?")
        # Only the new query, and the one message that was recent then (kept whole, never ranked)
        # and is old enough to rank now: nothing embedded before is embedded again.
        assert not first & set(embedder.seen)
        assert set(embedder.seen) == {"what about crane 7?", resumed.messages[-7]["content"]}

    def test_without_a_file_a_new_manager_embeds_everything_again(self, embedder: CountingEmbedder) -> None:
        history = chat(60)
        ContextManager(budget_tokens=500).compile(history, "crane 3")
        first = len(embedder.seen)
        embedder.seen.clear()
        ContextManager(budget_tokens=500).compile(history, "crane 3")
        # The stand-in keeps no cache of its own: what the file saves is exactly this.
        assert len(embedder.seen) == first

    @pytest.mark.anyio
    async def test_the_loop_keeps_vectors_beside_its_session(self, host: Host) -> None:
        async with host(ScriptedModel([say("Hello.")]), session_id="vectors-beside") as loop:
            assert loop.requester.context.embeddings == loop.session.embeddings_path
            assert loop.session.embeddings_path.parent == loop.session.path.parent


class TestFile:
    """The append-only file."""

    def vector(self, seed: int) -> np.ndarray:
        v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return v / np.linalg.norm(v)

    def test_round_trip_and_append(self, tmp_path: Path) -> None:
        path = tmp_path / "s.embeddings.bin"
        VectorStore(path, "m").put({digest("a"): self.vector(1)})
        VectorStore(path, "m").put({digest("b"): self.vector(2)})
        store = VectorStore(path, "m")
        assert len(store) == 2 and np.array_equal(store.get(digest("b")), self.vector(2))

    def test_a_torn_last_record_is_ignored(self, tmp_path: Path) -> None:
        path = tmp_path / "s.embeddings.bin"
        VectorStore(path, "m").put({digest("a"): self.vector(1), digest("b"): self.vector(2)})
        path.write_bytes(path.read_bytes()[:-100])  # a crash in the middle of the last write
        store = VectorStore(path, "m")
        assert len(store) == 1 and store.get(digest("b")) is None
        assert np.array_equal(store.get(digest("a")), self.vector(1))

    def test_another_models_vectors_are_not_used(self, tmp_path: Path) -> None:
        path = tmp_path / "s.embeddings.bin"
        VectorStore(path, "old-model").put({digest("a"): self.vector(1)})
        store = VectorStore(path, "all-MiniLM-L6-v2")
        assert store.get(digest("a")) is None
        store.put({digest("b"): self.vector(2)})
        assert len(VectorStore(path, "all-MiniLM-L6-v2")) == 1 and len(VectorStore(path, "old-model")) == 0
