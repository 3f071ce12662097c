"""The Embedder protocol and a hash-based embedder for fast, deterministic tests."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from desktop_app.core.errors import UnavailableError

# A chunk longer than the model's window gets one vector per window, up to this many; search keeps its best.
MAX_WINDOWS = 8


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed size."""

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dim) float32 array, one normalised row per text."""
        ...


class HashEmbedder:
    """Bag of hashed words, normalised. Deterministic and instant; texts sharing words are close.

    A stand-in for unit tests and benchmarks of the pipeline; the real model is MiniLMEmbedder.
    """

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.model_id = f"hash-bow-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 63) else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def embed_passages(embedder: Embedder, texts: Sequence[str], max_windows: int = MAX_WINDOWS) -> list[np.ndarray]:
    """One (windows, dim) array per text. Embedders that read a bounded window (MiniLM) embed long texts
    window by window; the others give one vector per text."""
    own = getattr(embedder, "embed_passages", None)
    if own is not None:
        return own(texts, max_windows=max_windows)
    return [row[None, :] for row in embedder.embed(texts)]


def embed_query(embedder: Embedder, text: str) -> np.ndarray:
    """The vector of a search query. Embedders trained with distinct query and passage inputs (e5) have
    their own `embed_query`; for the others a query is embedded like any text."""
    own = getattr(embedder, "embed_query", None)
    if own is not None:
        return own(text)
    return embedder.embed([text])[0]


# What the `embedder` setting may name. Only "minilm-torch" imports torch; "minilm" is the same model (same
# model id, interchangeable vectors) run by onnxruntime.
EMBEDDERS = ("use-multilingual", "e5-small", "minilm", "minilm-torch", "hash")


def make_embedder(name: str, batch_size: int = 64) -> Embedder:
    """The embedder a setting names (one of EMBEDDERS); an unknown name is the user's to fix (UnavailableError)."""
    if name == "hash":
        return HashEmbedder()
    if name == "minilm-torch":
        from desktop_app.core.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=batch_size)
    if name == "minilm":
        from desktop_app.core.embed.minilm_onnx import MiniLMOnnxEmbedder

        return MiniLMOnnxEmbedder()
    if name == "use-multilingual":
        from desktop_app.core.embed.use_multilingual import UseMultilingualEmbedder

        return UseMultilingualEmbedder()
    if name == "e5-small":
        from desktop_app.core.embed.e5_small import E5SmallEmbedder

        return E5SmallEmbedder()
    raise UnavailableError(f"The embedder setting {name!r} is not one Trove knows: use one of {', '.join(EMBEDDERS)}.")
