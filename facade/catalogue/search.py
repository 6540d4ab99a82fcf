"""Finding a tool by what the caller wants done: `skills.tool_search`'s ranking.

Two signals fused, because a request names some things exactly ("PostgreSQL", "port 5432",
"invoice") and paraphrases others ("bill ACME", "is db3 taking connections"):
- BM25 over stemmed words, no stop-words, of each tool's name, description, parameter names and
  descriptions (the name twice: it is the densest text);
- cosine similarity of all-MiniLM-L6-v2 sentence embeddings of the tool's name and description
  against the request's, when the packaged model is installed.
Score: `z(cos) + weight · z(bm25)`, z-scores over the tools ranked (the caller's). Measured by
scripts/bench_search.py.

The index is built once per catalogue, on first use: terms and embeddings of every tool, held in
memory. Embedding 449 tools takes tens of seconds of CPU here, so the built-in tools' embeddings
ship in the package (tool-embeddings.npz, keyed by the digest of the text embedded; rebuilt by
`python scripts/embed_catalogue.py`, and tests/test_search.py fails when it is stale); only
tools it does not cover are embedded at run time. A search scores only the caller's tools and never changes what
anyone may call: it is a ranking, not a grant.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from facade.kit.capability import IDENTITY_FIELDS, Capability
from facade.retrieval.lexical import digest, idf, saturated, terms

log = logging.getLogger("facade.catalogue.search")

# The lexical score's weight beside the semantic one, both as z-scores over the tools ranked.
# Chosen on the even lines of scripts/search_requests.jsonl, checked on the odd (2026-12-02):
# top-3 63% (cosine alone) → 65-67% at 0.2-0.3; 0.25 sits between. The host's fusion (BM25
# normalised by its maximum plus a floored cosine) gave 53-56% here: most requests share no
# word with their tool, and a maximum-normalised BM25 lets one chance word outrank meaning.
LEXICAL_WEIGHT = 0.25


def lexical_text(capability: Capability) -> str:
    """What BM25 reads of a tool: the words a request may share with it. The domain's own
    description is left out: shared by all its tools, it cost 3 points of top-3 (2026-12-02)."""
    action = capability.action.replace("_", " ")
    fields = []
    for name, field in capability.input_model.model_fields.items():
        if name not in IDENTITY_FIELDS:
            fields.append(f"{name.replace('_', ' ')} {field.description or ''}")
    return f"{capability.domain} {action} {action} {capability.description} {' '.join(fields)}"


def semantic_text(capability: Capability) -> str:
    """What the embedding reads: the tool as one short sentence, as a person would say it."""
    return f"{capability.domain} {capability.action.replace('_', ' ')}: {capability.description}"


class ToolIndex:
    """The ranking of a fixed set of tools, built once.

    Attributes:
        embedder: turns texts into unit vectors (`facade.retrieval.embedding.MiniLM`), or None
            for words alone.
    """

    def __init__(
        self,
        capabilities: Iterable[Capability],
        *,
        embedder: Any = None,
    ) -> None:
        self.tools: list[Capability] = list(capabilities)
        counted = [Counter(terms(lexical_text(c))) for c in self.tools]
        self.lengths = [sum(c.values()) for c in counted]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        # An inverted index: a query's few terms touch only the tools that contain them.
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, counts in enumerate(counted):
            for term, n in counts.items():
                self.postings[term].append((i, n))
        total = len(self.tools)
        self.idf = {t: idf(len(p), total) for t, p in self.postings.items()}
        self.embedder = embedder
        self._vectors: Any = None
        self._lock = threading.Lock()

    @property
    def semantic(self) -> bool:
        return self.embedder is not None

    def vectors(self) -> Any:
        """The tools' embeddings: the packaged ones for the texts they were made from, the rest
        computed once (a third-party domain's, or a tool whose description changed). Safe to
        call from several threads."""
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    self._vectors = self._embed()
        return self._vectors

    def _embed(self) -> Any:
        import numpy as np

        texts = [semantic_text(c) for c in self.tools]
        known = packaged_vectors()
        vectors = np.zeros((len(texts), DIMENSIONS), np.float32)
        missing = [i for i, t in enumerate(texts) if digest(t) not in known]
        for i, t in enumerate(texts):
            if i not in missing:
                vectors[i] = known[digest(t)]
        if missing:
            log.info("search.embedding %d tools not in the packaged table", len(missing))
            vectors[missing] = self.embedder.encode([texts[i] for i in missing])
        return vectors

    def lexical(self, query: str) -> dict[int, float]:
        scores: dict[int, float] = defaultdict(float)
        for term in set(terms(query)):
            weight = self.idf.get(term)
            if weight is None:
                continue
            for i, n in self.postings[term]:
                scores[i] += weight * saturated(n, self.lengths[i], self.average)
        return scores

    def rank(self, query: str, among: Collection[str] | None = None, limit: int = 20) -> list[tuple[Capability, float]]:
        """The best `limit` tools for `query`, of those named in `among` (all when None), best
        first, each with its score; tools with no signal at all are left out."""
        import numpy as np

        if among is None:
            allowed = np.arange(len(self.tools))
        else:
            allowed = np.array([i for i, c in enumerate(self.tools) if c.name in among], dtype=np.int64)
        if allowed.size == 0:
            return []
        scores = np.zeros(len(self.tools))
        for i, value in self.lexical(query).items():
            scores[i] = value
        lexical = scores[allowed]
        if self.semantic:
            cosines = self.vectors()[allowed] @ self.embedder.embed([query])[0]
            fused = standard(cosines) + LEXICAL_WEIGHT * standard(lexical)
            # Without a single shared word, a tool still needs meaning above the crowd's.
            kept = np.flatnonzero((lexical > 0) | (fused > 0))
        else:
            fused, kept = lexical, np.flatnonzero(lexical > 0)
        order = kept[np.argsort(-fused[kept], kind="stable")][:limit]
        return [(self.tools[int(allowed[j])], round(float(fused[j]), 4)) for j in order]


DIMENSIONS = 384
PACKAGED = Path(__file__).with_name("tool-embeddings.npz")
_packaged: dict[bytes, Any] | None = None


def packaged_vectors() -> dict[bytes, Any]:
    """The shipped embeddings by text digest; empty when the file is missing."""
    global _packaged
    if _packaged is None:
        import numpy as np

        try:
            with np.load(PACKAGED) as table:
                _packaged = {bytes(k): v.astype(np.float32) for k, v in zip(table["keys"], table["vectors"])}
        except OSError:
            _packaged = {}
    return _packaged


def write_packaged(capabilities: Iterable[Capability], embedder: Any, path: Path = PACKAGED) -> int:
    """Write the table of every tool's text embedded, reusing the packaged vectors of texts that
    did not change (float16: cosines move by < 1e-3); returns how many were embedded anew."""
    import numpy as np

    texts = sorted({semantic_text(c) for c in capabilities})
    known = packaged_vectors() if path == PACKAGED else {}
    fresh = [t for t in texts if digest(t) not in known]  # only what changed is embedded again
    computed = dict(zip(fresh, embedder.encode(fresh))) if fresh else {}
    vectors = np.stack([known[digest(t)] if t not in computed else computed[t] for t in texts]).astype(np.float16)
    keys = np.array([np.frombuffer(digest(t), dtype=np.uint8) for t in texts])
    with path.open("wb") as handle:
        np.savez_compressed(handle, keys=keys, vectors=vectors)
    return len(fresh)


def standard(values: Any) -> Any:
    """Scores as z-scores over the tools ranked: cosine and BM25 live on different scales."""
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else values * 0.0


def default_embedder() -> Any:
    """The packaged MiniLM shared with the host, or None when it is not installed."""
    from facade.retrieval.embedding import EmbeddingUnavailable, shared_model

    try:
        return shared_model()
    except EmbeddingUnavailable as exc:
        # Said once, where the index is built: a pip install without the model still searches.
        log.warning("search.words_only: skills.tool_search ranks by words alone; %s", exc)
        return None

