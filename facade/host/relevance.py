"""How relevant each older message is to the current request: the score the context manager
ranks by.

Two signals, because a later request names some things exactly and paraphrases others: Okapi
BM25 over stemmed words catches the names, ids and hosts it repeats; a sentence embedding catches
"what can Clara not eat?" meeting "Clara is allergic to peanuts". Measured by
scripts/bench_recall.py (seed 2026, 100 facts asked in paraphrase, 5,000-token budget,
2026-11-30): BM25 alone found 79 (all 77 that name someone), BM25 + all-MiniLM-L6-v2 100 — the 21
were facts that name no one, which no word scorer reaches. The model costs 0.25 s to load and
~52 ms per message, once (embeddings are cached), and only when a history outgrows its budget.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

_STOPWORD_LIST = """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    let me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t d ll m re ve"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())

# Longest first, stripped until none applies and at least 3 letters remain. Crude next to Porter,
# but it only has to map a word and its inflections to one key (allergy/allergic/allergies,
# deliver/delivered/deliveries/delivery → allerg, deliv); over-stemming costs little in ranking.
SUFFIXES = ("ational", "ization", "fulness", "iveness", "ations", "ation", "ments", "ment", "ness",
            "ings", "ing", "edly", "ies", "ied", "ers", "er", "ed", "ly", "ic", "al", "es", "s", "y", "e")
WORD = re.compile(r"[a-z0-9]+")
CACHE_SIZE = 4_096  # indexed texts kept; each is a Counter of its distinct terms


def words(text: str) -> list[str]:
    """Lowercase alphanumeric runs: `ams-db-02` is three words, `Clara's` is `clara` and `s`."""
    return WORD.findall(text.lower())


def stem(word: str) -> str:
    w = word.lower()
    stripped = True
    while stripped:
        stripped = False
        for suffix in SUFFIXES:
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w, stripped = w[: -len(suffix)], True
                break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # running → runn → run
    return w


def terms(text: str) -> list[str]:
    """The index terms of a text: stemmed words, stopwords dropped."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


class Scorer(Protocol):
    """Scores documents against a query; higher is more relevant, 0 is unrelated."""

    name: str

    def scores(self, documents: Sequence[str], query: str) -> list[float]: ...


class Embedder(Protocol):
    """Turns texts into unit vectors whose dot product measures similarity of meaning."""

    def embed(self, texts: Sequence[str]) -> Any: ...


class BM25:
    """Okapi BM25 over `terms()`; the corpus is the documents scored together (one conversation).

    Attributes:
        k1: term-frequency saturation.
        b: length normalisation.
    """

    name = "BM25"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        # A history is re-scored every turn and changes by a few messages: index each text once.
        self._index: OrderedDict[bytes, Counter[str]] = OrderedDict()

    def counts(self, text: str) -> Counter[str]:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = Counter(terms(text))
            if len(self._index) > CACHE_SIZE:
                self._index.popitem(last=False)
        else:
            self._index.move_to_end(key)
        return found

    def scores(self, documents: Sequence[str], query: str) -> list[float]:
        docs = [self.counts(d) for d in documents]
        if not docs:
            return []
        lengths = [sum(d.values()) for d in docs]
        average = sum(lengths) / len(docs) or 1.0
        df = {t: sum(1 for d in docs if t in d) for t in set(terms(query))}
        # Lucene's IDF: the +1 keeps a word found in most messages slightly positive, not negative.
        idf = {t: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for t, n in df.items() if n}
        out = []
        for doc, length in zip(docs, lengths):
            norm = self.k1 * (1 - self.b + self.b * length / average)
            out.append(sum(w * doc[t] * (self.k1 + 1) / (doc[t] + norm) for t, w in idf.items() if t in doc))
        return out


class Hybrid:
    """BM25 for the words a request repeats (names, ids, hosts), embeddings for the ones it
    paraphrases: `bm25 / max(bm25) + weight · max(0, (cos − floor) / (1 − floor))`.

    Attributes:
        embedder: the sentence embedder (`facade.host.embedding.MiniLM`).
        lexical: the word scorer.
        weight: the meaning term's weight against the normalised BM25 term (both top out at 1).
        floor: cosine below which two texts are treated as unrelated; all-MiniLM-L6-v2 puts
            unrelated English at 0–0.2.
    """

    name = "BM25 + all-MiniLM-L6-v2"

    def __init__(self, embedder: Embedder, lexical: BM25 | None = None, weight: float = 1.0, floor: float = 0.2) -> None:
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


def default_scorer(semantic: bool | None = None) -> Scorer:
    """`Hybrid` with the packaged MiniLM when `semantic` is True (an error if it is missing) or None
    and it is installed; plain `BM25` otherwise. The model is loaded once per process."""
    if semantic is False:
        return BM25()
    from facade.host.embedding import EmbeddingUnavailable, shared_model

    try:
        return Hybrid(shared_model())
    except EmbeddingUnavailable:
        if semantic:
            raise
        return BM25()
