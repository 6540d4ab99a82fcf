"""How relevant each older message is to the current request: the score the context manager
ranks by.

Two signals, because a later request names some things exactly and paraphrases others: Okapi
BM25 over stemmed words catches the names, ids and hosts it repeats; a sentence embedding catches
"what can Clara not eat?" meeting "Clara is allergic to peanuts". Measured by
scripts/bench_recall.py (seed 2026, 100 facts asked in paraphrase, 5,000-token budget,
2026-11-30): BM25 alone found 79 (all 77 that name someone), BM25 + all-MiniLM-L6-v2 100 — the 21
were facts that name no one, which no word scorer reaches. On the hard corpus
(scripts/recall_corpus.py, 2026-12-02), where every subject is named in dozens of messages:
BM25 + MiniLM 99 of 100 on dev and on held (textbook BM25 60 and 72). The model costs 0.25 s to load and
~52 ms per message, once (embeddings are cached), and only when a history outgrows its budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from facade.retrieval.lexical import BM25, STOPWORDS, stem, terms, words

__all__ = ["BM25", "Embedder", "Hybrid", "STOPWORDS", "Scorer", "default_scorer", "stem", "terms", "words"]


class Scorer(Protocol):
    """Scores documents against a query; higher is more relevant, 0 is unrelated."""

    name: str

    def scores(self, documents: Sequence[str], query: str) -> list[float]: ...


class Embedder(Protocol):
    """Turns texts into unit vectors whose dot product measures similarity of meaning."""

    def embed(self, texts: Sequence[str]) -> Any: ...


class Hybrid:
    """BM25 for the words a request repeats (names, ids, hosts), embeddings for the ones it
    paraphrases: `bm25 / max(bm25) + weight · max(0, (cos − floor) / (1 − floor))`.

    Attributes:
        embedder: the sentence embedder (`facade.retrieval.embedding.MiniLM`).
        lexical: the word scorer.
        weight: the meaning term's weight against the normalised BM25 term (both top out at 1).
        floor: cosine below which two texts are treated as unrelated; all-MiniLM-L6-v2 puts
            unrelated English at 0–0.2. 0.1, not 0.2: a fact stated indirectly, with an aside,
            meets its paraphrased question at 0.1–0.3 (hard corpus, dev split, 2026-12-02, with
            repeats ranked once: floor 0.2 recalled 96 of 100, 0.15 98, 0.1 99, 0 99; 0.3 87).
    """

    name = "BM25 + all-MiniLM-L6-v2"

    def __init__(self, embedder: Embedder, lexical: BM25 | None = None, weight: float = 1.0, floor: float = 0.1) -> None:
        self.embedder = embedder
        self.lexical = lexical or BM25()
        self.weight = weight
        self.floor = floor

    def scores(self, documents: Sequence[str], query: str) -> list[float]:
        if not documents:
            return []
        lexical = self.lexical.scores(documents, query)
        top = max(lexical) or 1.0
        vectors = self.embedder.embed([*documents, query])
        cosines = (vectors[:-1] @ vectors[-1]).tolist()
        return [
            lex / top + self.weight * max(0.0, (cos - self.floor) / (1.0 - self.floor))
            for lex, cos in zip(lexical, cosines)
        ]


def default_scorer(semantic: bool | None = None, embeddings: str | Path | None = None) -> Scorer:
    """`Hybrid` with the packaged MiniLM when `semantic` is True (an error if it is missing) or None
    and it is installed; plain `BM25` otherwise. The model is loaded once per process. With
    `embeddings` (a file, e.g. beside a session), vectors are kept there and a text embedded once
    is never embedded again, in this process or the next (facade.retrieval.vectors)."""
    if semantic is False:
        return BM25()
    from facade.retrieval.embedding import MODEL_NAME, EmbeddingUnavailable, shared_model
    from facade.retrieval.vectors import StoredEmbedder, VectorStore

    try:
        model = shared_model()
    except EmbeddingUnavailable:
        if semantic:
            raise
        return BM25()
    return Hybrid(StoredEmbedder(model, VectorStore(Path(embeddings), MODEL_NAME)) if embeddings else model)
