"""Read what a GGUF file says about itself (architecture, context length, quantisation, parameter count) from its
header alone, with a small bounded reader: listing a model never loads it.

Layout (github.com/ggml-org/ggml, docs/gguf.md): magic "GGUF", uint32 version, tensor count and key/value count
(uint64 since version 2, uint32 in version 1), the key/value pairs, then one info record per tensor (name, dims,
type, offset). Everything is little-endian unless the file was written big-endian, which shows as a byte-swapped
version number. Every length read from the file is checked against limits before it is trusted, so a damaged or
hostile file gives a GGUFError, never a huge allocation or an endless loop.
"""

from __future__ import annotations

import io
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from desktop_app.core.errors import KnownError

MAGIC = b"GGUF"
MAX_KEYS = 100_000
MAX_TENSORS = 1_000_000
MAX_DIMS = 8
MAX_STRING = 16 << 20  # a chat template is a few KB; a tokenizer's merges are many short strings
MAX_ARRAY = 50_000_000
KEPT_STRING = 64 << 10  # strings longer than this are skipped, not kept (we never need them)

# llama.cpp's `enum llama_ftype` (include/llama.h): what `general.file_type` means.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 4: "Q4_1_SOME_F16", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
    19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S",
    27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
    38: "MXFP4_MOE",
}
# ggml's `enum ggml_type` (ggml/include/ggml.h): a tensor's storage type, used when general.file_type is absent.
TENSOR_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1", 10: "Q2_K", 11: "Q3_K",
    12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S",
    20: "IQ4_NL", 21: "IQ3_S", 22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
    29: "IQ1_M", 30: "BF16", 34: "TQ1_0", 35: "TQ2_0", 39: "MXFP4",
}
# value type -> struct format of a scalar (8 = string, 9 = array are handled apart)
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


class GGUFError(KnownError):
    """The file is not a GGUF model, or its header is damaged."""


@dataclass(frozen=True)
class GGUFInfo:
    """What a GGUF header says: enough to list, compare and size a model without loading it."""

    version: int
    architecture: str
    name: str
    quantization: str  # e.g. "Q4_K_M"; "" when the file does not say
    context_length: int  # tokens the model was trained for (0: not stated)
    parameters: int  # sum of every tensor's element count
    n_layers: int = 0
    n_kv_heads: int = 0
    head_dim: int = 0
    license: str = ""
    has_chat_template: bool = False
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def read_gguf_info(path: str | Path) -> GGUFInfo:
    """The header of the GGUF file at `path`. Raises GGUFError (one plain line) for anything else."""
    path = Path(path)
    try:
        with open(path, "rb") as raw:
            return parse_header(io.BufferedReader(raw, buffer_size=1 << 20), name_hint=path.stem)
    except OSError as exc:
        raise GGUFError(f"Cannot read {path.name}: {exc.strerror or exc}.") from exc


def parse_header(stream: BinaryIO, name_hint: str = "") -> GGUFInfo:
    """Parse a GGUF header from a binary stream positioned at the start of the file."""
    reader = _Reader(stream, name_hint or "the file")
    if stream.read(len(MAGIC)) != MAGIC:
        raise GGUFError(f"{name_hint or 'The file'} is not a GGUF model (it does not start with 'GGUF').")
    version = reader.detect_version()
    wide = version >= 2
    n_tensors = reader.count(MAX_TENSORS, "tensors", wide)
    n_keys = reader.count(MAX_KEYS, "metadata keys", wide)
    metadata = {}
    for _ in range(n_keys):
        key = reader.string(wide, limit=KEPT_STRING)
        metadata[key] = reader.value(reader.uint32(), wide, depth=0)
    parameters = 0
    tensor_types: dict[int, int] = {}
    for _ in range(n_tensors):
        elements, ggml_type = reader.tensor_info(wide)
        parameters += elements
        tensor_types[ggml_type] = tensor_types.get(ggml_type, 0) + elements
    return _info(version, metadata, parameters, tensor_types, name_hint)


def _info(version: int, md: dict[str, Any], parameters: int, tensor_types: dict[int, int], hint: str) -> GGUFInfo:
    arch = _text(md.get("general.architecture"))
    def num(key: str) -> int:
        value = md.get(f"{arch}.{key}")
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
    heads, width = num("attention.head_count"), num("embedding_length")
    head_dim = num("attention.key_length") or (width // heads if heads else 0)
    return GGUFInfo(version=version, architecture=arch, name=_text(md.get("general.name")) or hint,
                    quantization=_quantization(md.get("general.file_type"), tensor_types),
                    context_length=num("context_length"), parameters=parameters, n_layers=num("block_count"),
                    n_kv_heads=num("attention.head_count_kv") or heads, head_dim=head_dim,
                    license=_text(md.get("general.license")),
                    has_chat_template=bool(md.get("tokenizer.chat_template")), metadata=md)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _quantization(file_type: Any, tensor_types: dict[int, int]) -> str:
    if isinstance(file_type, int) and not isinstance(file_type, bool) and file_type in FILE_TYPES:
        return FILE_TYPES[file_type]
    # No (known) file type: name the type holding most of the weights, ignoring the F32 norms and biases.
    weighted = {t: n for t, n in tensor_types.items() if t != 0} or tensor_types
    if not weighted:
        return ""
    return TENSOR_TYPES.get(max(weighted, key=weighted.__getitem__), "")


class _Reader:
    """Bounded primitive reads over a stream; every failure is a GGUFError naming the file."""

    def __init__(self, stream: BinaryIO, label: str) -> None:
        self.stream, self.label, self.order = stream, label, "<"

    def fail(self, what: str) -> GGUFError:
        return GGUFError(f"{self.label} has a damaged GGUF header ({what}).")

    def take(self, n: int) -> bytes:
        data = self.stream.read(n)
        if len(data) != n:
            raise self.fail("it ends inside the header")
        return data

    def skip(self, n: int) -> None:
        # seek() past the end of a file succeeds silently, so check by reading the last byte skipped
        if n > 0:
            self.stream.seek(n - 1, io.SEEK_CUR)
            self.take(1)

    def unpack(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        return struct.unpack(self.order + fmt, self.take(size))[0]

    def uint32(self) -> int:
        return self.unpack("I")

    def detect_version(self) -> int:
        raw = self.take(4)
        version = struct.unpack("<I", raw)[0]
        if version > 0xFFFF:  # written big-endian: the same number, byte-swapped
            self.order, version = ">", struct.unpack(">I", raw)[0]
        if version not in (1, 2, 3):
            raise GGUFError(f"{self.label} is GGUF version {version}, which Trove cannot read.")
        return version

    def count(self, limit: int, what: str, wide: bool) -> int:
        n = self.unpack("Q" if wide else "I")
        if n > limit:
            raise self.fail(f"{n} {what}")
        return n

    def string(self, wide: bool, limit: int = KEPT_STRING) -> str:
        n = self.unpack("Q" if wide else "I")
        if n > MAX_STRING:
            raise self.fail(f"a string of {n} bytes")
        if n > limit:
            self.take(n) if n <= 4096 else self.skip(n)  # a short read is cheaper than a seek
            return ""
        return self.take(n).decode("utf-8", errors="replace")

    def value(self, kind: int, wide: bool, depth: int) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            return self.string(wide)
        if kind == _ARRAY and depth == 0:
            return self.array(wide)
        raise self.fail(f"unknown value type {kind}")

    def array(self, wide: bool) -> list[Any] | int:
        """Short arrays are returned; long ones (a tokenizer's vocabulary) are skipped and their length returned."""
        kind = self.uint32()
        n = self.count(MAX_ARRAY, "array items", wide)
        if kind in _SCALARS and n > 64:
            self.skip(n * struct.calcsize(_SCALARS[kind]))
            return n
        if kind == _STRING and n > 64:
            for _ in range(n):
                self.string(wide, limit=0)
            return n
        return [self.value(kind, wide, depth=1) for _ in range(n)]

    def tensor_info(self, wide: bool) -> tuple[int, int]:
        self.string(wide, limit=0)
        n_dims = self.uint32()
        if n_dims > MAX_DIMS:
            raise self.fail(f"a tensor with {n_dims} dimensions")
        dims = [self.unpack("Q" if wide else "I") for _ in range(n_dims)]
        ggml_type = self.uint32()
        self.unpack("Q")  # offset of its data
        return math.prod(dims), ggml_type
