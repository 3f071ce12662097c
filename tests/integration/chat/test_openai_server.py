"""The OpenAI-compatible backend: against a scripted streaming server on loopback (what is sent, what comes
back, cancel), and against a real `python -m llama_cpp.server` (what any CPU must do: stream, stop, cancel)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from desktop_app.core.chat.runtime.openai_backend import OpenAICompatibleRuntime
from desktop_app.core.chat.service import ChatService
from desktop_app.core.errors import UnavailableError
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from tests.integration.chat.conftest import CHAT_SETTINGS, N_THREADS
from tests.support.scripted import ScriptedChatServer, last_user

STARTUP_SECONDS = 90


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(gguf, tmp_path_factory):
    port = free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--n_threads",
            str(N_THREADS),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        while True:
            assert proc.poll() is None, f"llama_cpp.server exited early; see {log.name}"
            try:
                with urllib.request.urlopen(base + "/models", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, f"llama_cpp.server did not come up; see {log.name}"
                time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def test_tokens_stream_over_sse(server):
    rt = OpenAICompatibleRuntime(server, "smollm2", n_ctx=2048)
    assert rt.list_models()
    pieces = []
    gen = rt.generate(
        [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "Name three colours."}],
        max_tokens=24,
        temperature=0.0,
        on_text=pieces.append,
    )
    assert len(pieces) >= 2 and "".join(pieces) == gen.text and not gen.cancelled
    assert gen.finish_reason in ("stop", "length")


def test_cancel_closes_the_stream(server):
    rt = OpenAICompatibleRuntime(server, "smollm2", n_ctx=2048)
    cancel, seen = threading.Event(), []

    def on_text(piece):
        seen.append(piece)
        if len(seen) == 2:
            cancel.set()

    gen = rt.generate(
        [{"role": "user", "content": "Write a long story about a dragon."}],
        max_tokens=48,
        temperature=0.0,
        on_text=on_text,
        cancel=cancel,
    )
    assert gen.cancelled and gen.tokens == 2
    again = rt.generate([{"role": "user", "content": "Say yes."}], max_tokens=4, temperature=0.0)
    assert again.tokens >= 1  # the server is still serving after the dropped connection


def test_a_grounded_chat_through_the_server(server, chat_library):
    chat_library.settings = chat_library.settings.with_changes(chat_backend="openai", openai_base_url=server)
    service = ChatService(chat_library.store, chat_library._retrieve_for_chat, lambda: chat_library.settings)
    tokens = []
    answer = service.ask("Who invented the Zorblax reactor?", on_token=tokens.append, max_tokens=12)
    assert 1 <= len(tokens) <= 12 and "".join(t.text for t in tokens) == answer.raw_text
    assert answer.passages[0].source.endswith("reactor.txt")
    assert service.runtime().backend == "openai" and service.model_info().backend == "openai"
    service.close()


def test_a_grounded_chat_through_a_scripted_server(chat_library):
    with ScriptedChatServer("Dr. Mira Quell invented it [1].", model="tiny") as scripted:
        chat_library.settings = chat_library.settings.with_changes(
            chat_backend="openai", openai_model="tiny", openai_base_url=scripted.base_url
        )
        service = ChatService(chat_library.store, chat_library._retrieve_for_chat, lambda: chat_library.settings)
        tokens = []
        answer = service.ask("Who invented the Zorblax reactor?", on_token=tokens.append, max_tokens=20)
        request = scripted.requests[-1]
        assert request["model"] == "tiny" and request["max_tokens"] == 20 and request["stream"] is True
        assert request["temperature"] == chat_library.settings.temperature
        assert "Dr. Mira Quell" in last_user(request["messages"]) and request["messages"][0]["role"] == "system"
        assert [t.text for t in tokens] == ["Dr.", " Mira", " Quell", " invented", " it", " [1]."]
        assert answer.generation == "Dr. Mira Quell invented it [1]."
        assert answer.citations[0].path.endswith("reactor.txt")
        assert answer.generation_shown and answer.text.endswith(answer.generation)  # after the quote
        assert service.runtime().list_models() == ["tiny"]
        service.close()


def test_cancel_drops_the_connection_to_a_scripted_server():
    with ScriptedChatServer("one two three four five six seven eight nine ten", token_delay=0.05) as scripted:
        rt = OpenAICompatibleRuntime(scripted.base_url, n_ctx=2048)
        cancel, seen = threading.Event(), []

        def on_text(piece):
            seen.append(piece)
            if len(seen) == 2:
                cancel.set()

        gen = rt.generate(
            [{"role": "user", "content": "count"}], max_tokens=48, temperature=0.0, on_text=on_text, cancel=cancel
        )
        assert gen.cancelled and gen.text == "one two" and gen.finish_reason == "cancelled"
        deadline = time.monotonic() + 5
        while scripted.disconnects == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert scripted.disconnects == 1  # the server saw the client go away and stopped streaming
        full = rt.generate([{"role": "user", "content": "count"}], max_tokens=3, temperature=0.0)
        assert full.text == "one two three" and full.finish_reason == "length"


def test_an_unreachable_server_is_a_plain_error():
    rt = OpenAICompatibleRuntime(f"http://127.0.0.1:{free_port()}/v1", n_ctx=2048, timeout=5)
    with pytest.raises(UnavailableError, match="unreachable"):
        rt.generate([{"role": "user", "content": "hi"}], max_tokens=4, temperature=0.0)
    service = ChatService(
        SQLiteStore(":memory:"),
        lambda q, k: [],
        lambda: Settings(**{**CHAT_SETTINGS, "chat_backend": "openai", "openai_base_url": rt.base_url}),
    )
    with pytest.raises(UnavailableError, match="unreachable"):
        service.ask("hi", use_context=False, max_tokens=4)
    service.close()
