"""Words into index terms, and Okapi BM25 over them: the lexical half of every relevance score
in Facade (the host's context manager, the catalogue's tool search).

Stemming is the Snowball English stemmer where `snowballstemmer` is installed (a dependency),
so "deliveries", "delivered" and "delivery" meet at one term.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections import Counter, OrderedDict
from collections.abc import Sequence

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


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    # Cached: a resumed 360-message history stems ~18,000 words, most of them repeats; uncached
    # that was 0.22 of a 0.31 s first compile (2026-12-02).
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


def digest(text: str) -> bytes:
    """A cache key for a text that does not keep a 12,000-character text alive."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def idf(containing: int, total: int) -> float:
    """Lucene's IDF: the +1 keeps a word found in most documents slightly positive, not negative."""
    return math.log(1 + (total - containing + 0.5) / (containing + 0.5))


def saturated(count: int, length: int, average: float, k1: float = 1.2, b: float = 0.75) -> float:
    """BM25's weight of a term found `count` times in a document of `length` terms."""
    return count * (k1 + 1) / (count + k1 * (1 - b + b * length / average))


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
        key = digest(text)
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
        weights = {t: idf(n, len(docs)) for t, n in df.items() if n}
        return [
            sum(w * saturated(doc[t], length, average, self.k1, self.b) for t, w in weights.items() if t in doc)
            for doc, length in zip(docs, lengths)
        ]
