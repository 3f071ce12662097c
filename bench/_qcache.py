"""Query vectors kept on disk for the benchmarks (never used by the app): a long-query run embeds each query text
once, not once per mode, tune run and report run. Under ~/.cache/trove-bench/qvec-<model>.npz, keyed by text."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

CACHE = Path.home() / ".cache" / "trove-bench"


def cache_path(model_id: str) -> Path:
    return CACHE / f"qvec-{hashlib.sha1(model_id.encode()).hexdigest()[:8]}.npz"


class CachedEmbedder:
    """An embedder whose `embed` looks each text up first; everything else is the wrapped embedder's."""

    def __init__(self, inner: Any, path: Path, *, passage_queries: bool = False) -> None:
        self.inner = inner
        self.path = path
        self.passage_queries = passage_queries  # queries through `embed` (the index's int8 model), as passages are
        self.vectors: dict[str, np.ndarray] = {}
        self.added = 0
        for part in sorted(path.parent.glob(path.stem + "*.npz")):  # this cache and any filled beside it
            with np.load(part) as saved:
                self.vectors.update(zip(saved["keys"].tolist(), saved["vectors"], strict=True))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self.vectors}
        if missing:
            for k, v in zip(missing, self.inner.embed(list(missing.values())), strict=True):
                self.vectors[k] = np.asarray(v, dtype=np.float32)
            self.added += len(missing)
        return np.stack([self.vectors[k] for k in keys])

    def embed_query(self, text: str) -> np.ndarray:
        """The wrapped embedder's query vector (its own embed_query when it has one: MiniLM's float weights)."""
        if self.passage_queries:
            return self.embed([text])[0]
        key = "q:" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        if key not in self.vectors:
            own = getattr(self.inner, "embed_query", None)
            self.vectors[key] = np.asarray(own(text) if own is not None else self.inner.embed([text])[0],
                                           dtype=np.float32)
            self.added += 1
        return self.vectors[key]

    def save(self) -> None:
        if not self.added:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vectors)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        tmp.replace(self.path)
        self.added = 0
