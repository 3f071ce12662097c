"""Real parts for chat tests: the bundled SmolLM2 GGUF, llama-cpp-python, a small library on real SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.core.chat.models.files import resolve_model_path
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.settings import Settings
from tests.support.helpers import write_pdf

N_CTX = 2048
N_THREADS = 1  # other work shares these 2 cores; one thread avoids llama.cpp spin-waits when they are oversubscribed

# Hybrid search scores are reciprocal-rank-fusion sums (at most 2/61 ≈ 0.033 with both sides at rank 1),
# so the default min_score of 0.1 would refuse every question. 0.02 keeps passages ranked near the top on
# both sides. See the report to the lead: the scale belongs to search, not chat.
# Prompts stay small: prompt evaluation runs at well under 100 tokens/s on this shared 2-core machine.
CHAT_SETTINGS = {"embedder": "hash", "n_ctx": N_CTX, "n_threads": N_THREADS, "context_min_score": 0.02,
                 "context_top_k": 3, "max_context_tokens": 400, "temperature": 0.0, "answer_reserve_tokens": 64}

DOCS = {
    "reactor.txt": "The Zorblax reactor was invented by Dr. Mira Quell in 1987 at the Vantor Institute.\n\n"
                   "It runs on compressed helium and produces forty megawatts.",
    "bread.md": "# Sourdough\n\nSourdough bread needs a starter made of flour and water, fed daily for a week.\n\n"
                "Bake the loaf at 240 degrees for forty minutes.",
    "trains.txt": "Trains to Harrowgate leave platform nine every hour, on the hour, from six in the morning.",
}
PDF_PAGES = ["Annual report of the Korrin Island Trust. Finances were stable this year.",
             "The lighthouse on Korrin Island is painted crimson and was restored by Elsa Varga in 2011."]


class RecordingRuntime(LlamaCppRuntime):
    """The real llama.cpp runtime, keeping a copy of every message list it is sent."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sent: list[list[dict]] = []

    def generate(self, messages, **kwargs):
        self.sent.append([dict(m) for m in messages])
        return super().generate(messages, **kwargs)


@pytest.fixture(scope="session")
def gguf() -> Path:
    return resolve_model_path()


@pytest.fixture(scope="session")
def runtime(gguf):
    rt = LlamaCppRuntime(gguf, n_ctx=N_CTX, n_threads=N_THREADS)
    yield rt
    rt.close()


@pytest.fixture(scope="session")
def docs_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    write_pdf(root / "korrin.pdf", PDF_PAGES)
    return root


@pytest.fixture
def chat_library(make_library, docs_dir):
    """A synced library over docs_dir whose chat uses a RecordingRuntime (the real model)."""
    lib = make_library(**CHAT_SETTINGS)
    lib.add_folder(docs_dir)
    lib.sync()
    lib.wait_for_embeddings(timeout=60)
    recorder = {}

    def factory(settings: Settings, model_path):
        rt = RecordingRuntime(resolve_model_path(model_path, settings.model_path), n_ctx=settings.n_ctx,
                              n_threads=settings.n_threads)
        recorder["runtime"] = rt
        return rt

    from desktop_app.core.chat.service import ChatService

    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings, runtime_factory=factory)
    lib.recorder = recorder
    return lib


@pytest.fixture
def home(tmp_path, docs_dir, capsys, server):
    """A CLI home whose chat goes to the test module's `server` (a ScriptedChatServer), with docs_dir indexed."""
    from desktop_app.cli import main

    home = tmp_path / "home"
    home.mkdir()
    settings = {**CHAT_SETTINGS, "chat_backend": "openai", "openai_base_url": server.base_url}
    (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    assert main(["--home", str(home), "index", str(docs_dir)]) == 0
    capsys.readouterr()
    return home
