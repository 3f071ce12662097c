"""LlamaCppRuntime with the real bundled GGUF: template, streaming, cancel, exact prompt counts, KV prefix reuse."""

from __future__ import annotations

import threading

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
LONG_ASK = {"role": "user", "content": "Write a long story about a dragon who learns to bake bread."}


def test_the_prompt_uses_the_ggufs_own_template_and_counts_exactly_what_is_fed(runtime):
    messages = [SYSTEM, {"role": "user", "content": "Say hello."}]
    ids = runtime.prompt_ids(messages)
    llm = runtime._load()
    text = llm.detokenize(ids, special=True).decode()
    assert text.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>")  # SmolLM2's ChatML template
    assert text.endswith("<|im_start|>assistant\n")
    gen = runtime.generate(messages, max_tokens=8, temperature=0.0)
    assert gen.prompt_tokens == len(ids)
    assert llm.input_ids[: len(ids)].tolist() == ids  # what llama.cpp evaluated is what we counted


def test_tokens_stream_one_by_one(runtime):
    pieces = []
    gen = runtime.generate([SYSTEM, {"role": "user", "content": "Name three colours."}], max_tokens=24,
                           temperature=0.0, on_text=pieces.append)
    assert len(pieces) >= 2 and "".join(pieces) == gen.text and gen.tokens == len(pieces)
    assert gen.ttft_s is not None and gen.ttft_s <= gen.total_s


def test_cancel_from_the_callback_stops_at_once(runtime):
    full = runtime.generate([SYSTEM, LONG_ASK], max_tokens=40, temperature=0.0)
    assert full.tokens > 10 and not full.cancelled  # uncancelled, the same prompt runs on
    cancel, seen = threading.Event(), []

    def on_text(piece):
        seen.append(piece)
        if len(seen) == 3:
            cancel.set()

    gen = runtime.generate([SYSTEM, LONG_ASK], max_tokens=40, temperature=0.0, on_text=on_text, cancel=cancel)
    assert gen.cancelled and gen.tokens == 3 and gen.finish_reason == "cancelled"


def test_cancel_from_another_thread_stops_within_a_token_or_two(runtime):
    cancel, first, seen, after = threading.Event(), threading.Event(), [], []

    def on_text(piece):
        (after if cancel.is_set() else seen).append(piece)
        first.set()
        cancel.wait(5)  # hold the worker until the other thread has cancelled: a deterministic race

    box = {}
    worker = threading.Thread(target=lambda: box.setdefault("gen", runtime.generate(
        [SYSTEM, LONG_ASK], max_tokens=40, temperature=0.0, on_text=on_text, cancel=cancel)))
    worker.start()
    assert first.wait(30)
    cancel.set()
    worker.join(30)
    assert not worker.is_alive()
    assert box["gen"].cancelled and len(after) <= 1 and box["gen"].tokens <= 2


def test_a_follow_up_reuses_the_cached_prefix_and_reset_forgets_it(runtime):
    first = [SYSTEM, {"role": "user", "content": "Name three fruits."}]
    a = runtime.generate(first, max_tokens=16, temperature=0.0)
    follow = first + [{"role": "assistant", "content": a.text}, {"role": "user", "content": "And three vegetables?"}]
    b = runtime.generate(follow, max_tokens=16, temperature=0.0)
    assert b.reused_prefix_tokens >= a.prompt_tokens  # the whole first prompt (and most of its answer) was kept
    assert b.reused_prefix_tokens < b.prompt_tokens
    runtime.reset_cache()
    c = runtime.generate(follow, max_tokens=16, temperature=0.0)
    assert c.reused_prefix_tokens == 0


def test_the_model_loads_lazily_and_reports_its_file(gguf):
    from desktop_app.core.chat.runtime.llama import LlamaCppRuntime

    rt = LlamaCppRuntime(gguf, n_ctx=512)
    info = rt.info()
    assert not rt.loaded and info.size_bytes == gguf.stat().st_size and info.name == gguf.stem
    assert rt.count_tokens("hello world") >= 2 and rt.loaded
    rt.close()
    assert not rt.loaded


def test_a_missing_model_file_is_a_plain_error(tmp_path):
    import pytest

    from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
    from desktop_app.core.errors import UnavailableError

    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(UnavailableError, match="broken.gguf"):
        LlamaCppRuntime(bad, n_ctx=512).count_tokens("x")
    with pytest.raises(UnavailableError, match="not found"):
        LlamaCppRuntime(tmp_path / "missing.gguf", n_ctx=512).count_tokens("x")


def test_importing_core_and_the_chat_service_does_not_load_llama_cpp():
    import subprocess
    import sys

    code = ("import sys, desktop_app.core, desktop_app.core.chat.service, desktop_app.cli.chat; "
            "bad = [m for m in ('llama_cpp', 'torch', 'PySide6') if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
