"""Write small GGUF files for tests: a real header (metadata and tensor infos) followed by filler bytes."""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path
from typing import Any

# value types (GGUF spec)
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)


def _string(s: str | bytes) -> bytes:
    data = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(data)) + data


def _value(value: Any) -> tuple[int, bytes]:
    if isinstance(value, bool):
        return BOOL, struct.pack("<?", value)
    if isinstance(value, int):
        return (U32, struct.pack("<I", value)) if 0 <= value < 2**32 else (I64, struct.pack("<q", value))
    if isinstance(value, float):
        return F32, struct.pack("<f", value)
    if isinstance(value, str):
        return STRING, _string(value)
    if isinstance(value, list):
        kind = _value(value[0])[0] if value else U32
        body = b"".join(_value(v)[1] for v in value)
        return ARRAY, struct.pack("<IQ", kind, len(value)) + body
    raise TypeError(value)


def gguf_header(metadata: dict[str, Any], tensors: list[tuple[str, list[int], int]], version: int = 3) -> bytes:
    """Header bytes: magic, version, counts, key/values, then (name, dims, ggml type) tensor infos."""
    out = [b"GGUF", struct.pack("<IQQ", version, len(tensors), len(metadata))]
    for key, value in metadata.items():
        kind, body = _value(value)
        out += [_string(key), struct.pack("<I", kind), body]
    offset = 0
    for name, dims, ggml_type in tensors:
        out += [_string(name), struct.pack("<I", len(dims)), struct.pack(f"<{len(dims)}Q", *dims),
                struct.pack("<IQ", ggml_type, offset)]
        offset += 32
    return b"".join(out)


TINY_METADATA = {
    "general.architecture": "llama", "general.name": "Tiny Test", "general.file_type": 15,
    "general.license": "apache-2.0", "llama.context_length": 2048, "llama.block_count": 2,
    "llama.embedding_length": 64, "llama.attention.head_count": 4, "llama.attention.head_count_kv": 2,
    "tokenizer.ggml.tokens": [f"t{i}" for i in range(100)], "tokenizer.chat_template": "{{ messages }}",
}
TINY_TENSORS = [("token_embd.weight", [64, 100], 12), ("blk.0.attn_norm.weight", [64], 0),
                ("output.weight", [64, 100], 14)]


def write_gguf(path: Path, *, size: int = 1 << 20, metadata: dict | None = None, tensors: list | None = None,
               seed: int = 0) -> Path:
    """A GGUF file of exactly `size` bytes (header + deterministic filler), not loadable by llama.cpp."""
    header = gguf_header(TINY_METADATA if metadata is None else metadata, TINY_TENSORS if tensors is None else tensors)
    filler = size - len(header)
    assert filler >= 0, "size is smaller than the header"
    block = random.Random(seed).randbytes(min(filler, 1 << 20))
    with open(path, "wb") as f:
        f.write(header)
        while filler:
            f.write(block[:filler])
            filler -= min(filler, len(block))
    return path


def write_not_gguf(path: Path, size: int = 200_000) -> Path:
    """A file that is plainly not a model (an HTML error page, as a misconfigured mirror sends)."""
    page = b"<!doctype html><title>Not found</title>" + os.urandom(8).hex().encode()
    path.write_bytes((page * (size // len(page) + 1))[:size])
    return path
