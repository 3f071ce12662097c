"""The bounded GGUF header reader: real files, synthetic files, damaged and hostile bytes."""

from __future__ import annotations

import io
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.models.files import bundled_model_path
from desktop_app.core.chat.models.gguf_header import GGUFError, parse_header, read_gguf_info
from tests.support.gguf_files import TINY_METADATA, gguf_header, write_gguf


def test_the_bundled_smollm2_header():
    info = read_gguf_info(bundled_model_path())
    assert info.architecture == "llama" and info.version == 3
    assert info.quantization == "Q4_1" and info.context_length == 8192
    assert 130_000_000 < info.parameters < 140_000_000  # SmolLM2-135M
    assert (info.n_layers, info.n_kv_heads, info.head_dim) == (30, 3, 64)
    assert info.has_chat_template and info.license == "apache-2.0"


def test_the_header_agrees_with_llama_cpp_on_the_real_file():
    """Our reader against llama.cpp's own GGUF parser (vocab only: no weights are loaded)."""
    from llama_cpp import Llama

    path = bundled_model_path()
    llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        theirs = llm.metadata
    finally:
        llm.close()
    ours = read_gguf_info(path).metadata
    for key in ("general.architecture", "general.name", "general.file_type", "llama.context_length",
                "llama.block_count", "llama.attention.head_count_kv", "tokenizer.chat_template"):
        assert str(ours[key]) == theirs[key], key


def test_a_synthetic_file(tmp_path):
    info = read_gguf_info(write_gguf(tmp_path / "tiny.gguf"))
    assert (info.name, info.quantization, info.context_length) == ("Tiny Test", "Q4_K_M", 2048)
    assert info.parameters == 64 * 100 + 64 + 64 * 100
    assert (info.n_layers, info.n_kv_heads, info.head_dim) == (2, 2, 16)
    assert info.metadata["tokenizer.ggml.tokens"] == 100  # a long array is skipped, its length kept


def test_without_a_file_type_the_main_tensor_type_names_the_quantisation():
    metadata = {k: v for k, v in TINY_METADATA.items() if k != "general.file_type"}
    header = gguf_header(metadata, [("a", [1000], 12), ("b", [10], 0), ("c", [100], 14)])
    assert parse_header(io.BytesIO(header)).quantization == "Q4_K"


def test_not_a_gguf_says_so_in_one_line(tmp_path):
    path = tmp_path / "page.gguf"
    path.write_bytes(b"<html>not found</html>")
    with pytest.raises(GGUFError, match="is not a GGUF model") as info:
        read_gguf_info(path)
    assert "\n" not in str(info.value)
    tiny = tmp_path / "tiny.gguf"
    tiny.write_bytes(b"GG")
    with pytest.raises(GGUFError, match="not a GGUF"):
        read_gguf_info(tiny)


@pytest.mark.parametrize("cut", [6, 30, 200, -40])
def test_a_truncated_header_is_damaged(cut):
    header = gguf_header(TINY_METADATA, [("a", [4, 4], 0)])
    with pytest.raises(GGUFError, match="damaged GGUF header"):
        parse_header(io.BytesIO(header[:cut]))


def test_hostile_counts_are_refused_before_any_allocation():
    huge_keys = b"GGUF" + struct.pack("<IQQ", 3, 0, 10**12)
    with pytest.raises(GGUFError, match="metadata keys"):
        parse_header(io.BytesIO(huge_keys))
    huge_string = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 2**60)
    with pytest.raises(GGUFError, match="string of"):
        parse_header(io.BytesIO(huge_string))
    big_array = gguf_header({"a": [1, 2]}, [])[:-4 - 8 - 8] + struct.pack("<IQ", 4, 2**40)
    with pytest.raises(GGUFError, match="array items"):
        parse_header(io.BytesIO(big_array))


def test_an_unknown_version_is_refused():
    with pytest.raises(GGUFError, match="version 9"):
        parse_header(io.BytesIO(b"GGUF" + struct.pack("<IQQ", 9, 0, 0)))


def test_a_big_endian_file_is_read():
    header = b"GGUF" + struct.pack(">IQQ", 3, 0, 1) + struct.pack(">Q", 20) + b"general.architecture"
    header += struct.pack(">I", 8) + struct.pack(">Q", 5) + b"llama"
    assert parse_header(io.BytesIO(header)).architecture == "llama"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_after_the_magic_give_a_header_or_a_gguf_error(tail):
    try:
        parse_header(io.BytesIO(b"GGUF" + tail))
    except GGUFError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=400))
def test_every_prefix_of_a_real_header_is_a_clean_error(cut):
    header = gguf_header(TINY_METADATA, [("a", [4, 4], 0)])
    if cut < len(header):
        with pytest.raises(GGUFError):
            parse_header(io.BytesIO(header[:cut]))
