"""Embeddings kept on disk, keyed by a hash of the text they embed: a resumed session (or a rerun
benchmark) embeds only what it has not seen before.

Embedding is the expensive half of relevance: all-MiniLM-L6-v2 in numpy costs ~50–65 ms a message
on this machine's 2 cores, so a 360-message session took 14–19 s on its first ranking (issue 19,
item 7), and paid it again on every resume. The vectors do not change while the text does not,
so they are written beside the session and read back on resume.

The file is append-only: a header (`FACADEV1`, the vector width, the model's name), then records
of a 16-byte BLAKE2b digest of the text and the vector as little-endian float32. A crash can only
leave a partial last record, which is ignored; a file written by another model (or width) is
ignored whole and started again, so vectors of two models are never compared.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from facade.retrieval.lexical import digest

MAGIC = b"FACADEV1"
KEY_BYTES = 16


class VectorStore:
    """Text digest → unit vector, persisted in one append-only file.

    Attributes:
        path: the file.
        model: the name of the model whose vectors it holds.
        width: the vectors' width.
    """

    def __init__(self, path: Path, model: str, width: int = 384) -> None:
        self.path = Path(path)
        self.model = model
        self.width = width
        self._vectors: dict[bytes, np.ndarray] | None = None

    def _header(self) -> bytes:
        name = self.model.encode("utf-8")
        return MAGIC + struct.pack("<II", self.width, len(name)) + name

    def _load(self) -> dict[bytes, np.ndarray]:
        """The file's vectors, read at first use (a session that never ranks never reads it)."""
        if self._vectors is not None:
            return self._vectors
        self._vectors = {}
        header = self._header()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return self._vectors
        if not data.startswith(header):
            return self._vectors  # another model's, or not ours: rewritten on the next put
        record = np.dtype([("key", f"S{KEY_BYTES}"), ("vector", "<f4", (self.width,))])
        body = data[len(header):]
        whole = len(body) // record.itemsize * record.itemsize  # a torn last record is dropped
        rows = np.frombuffer(body[:whole], dtype=record)
        # `S` strips trailing NUL bytes from a digest: keep the raw 16 bytes instead.
        raw = np.frombuffer(body[:whole], dtype=np.uint8).reshape(len(rows), record.itemsize)[:, :KEY_BYTES]
        for key, vector in zip(raw, rows["vector"]):
            self._vectors[key.tobytes()] = vector
        return self._vectors

    def __len__(self) -> int:
        return len(self._load())

    def get(self, key: bytes) -> np.ndarray | None:
        return self._load().get(key)

    def put(self, items: dict[bytes, np.ndarray]) -> None:
        """Remember `items` and append the new ones to the file."""
        vectors = self._load()
        new = {k: np.asarray(v, dtype="<f4").reshape(self.width) for k, v in items.items() if k not in vectors}
        if not new:
            return
        fresh = not self.path.exists() or self.path.stat().st_size < len(self._header()) or not self._owns_file()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("wb" if fresh else "ab") as handle:
            if fresh:
                handle.write(self._header())
                new = {**vectors, **new}  # a replaced file gets everything known
            for key, vector in new.items():
                handle.write(key + vector.tobytes())
        vectors.update(new)

    def _owns_file(self) -> bool:
        header = self._header()
        with self.path.open("rb") as handle:
            return handle.read(len(header)) == header


class StoredEmbedder:
    """An embedder that asks `store` first and `embedder` only for texts it has never seen.

    Attributes:
        embedder: the model (anything with `embed(texts) -> array`).
        store: where its vectors are kept.
        embedded: how many texts were sent to the model through this wrapper.
    """

    def __init__(self, embedder: Any, store: VectorStore) -> None:
        self.embedder = embedder
        self.store = store
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [digest(t) for t in texts]
        missing = {k: t for k, t in zip(keys, texts) if self.store.get(k) is None}
        if missing:
            vectors = self.embedder.embed(list(missing.values()))
            self.embedded += len(missing)
            self.store.put(dict(zip(missing, vectors)))
        if not keys:
            return np.zeros((0, self.store.width), np.float32)
        return np.stack([self.store.get(k) for k in keys])  # type: ignore[misc]
