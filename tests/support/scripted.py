"""Deterministic stand-ins for a language model, for tests of everything around it.

`ScriptedRuntime` implements the ChatRuntime protocol in-process; `ScriptedChatServer` is a real
OpenAI-compatible streaming HTTP server on 127.0.0.1 (what `trove ask` talks to when chat_backend is
"openai"). Both answer with a scripted reply: a fixed string, or a function of the messages they were
sent. Both count tokens as words (a word and the space before it is one token), honour max_tokens and
stop strings, and stream one token at a time, so budgeting, streaming, cancel, citations and persistence
are tested without depending on what a real model happens to say on this CPU. The real GGUF is tested
beside them (tests/integration/chat/test_runtime.py) for what any CPU must do.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from desktop_app.core.chat.models.files import ModelInfo
from desktop_app.core.chat.runtime.base import Generation, OnText, stream_pieces

Message = dict[str, Any]
Reply = str | Callable[[list[Message]], str]
_TOKEN = re.compile(r"\s*\S+|\s+$")


def word_tokens(text: str) -> list[str]:
    """The scripted tokenizer: each word with the whitespace before it (trailing whitespace is one more)."""
    return _TOKEN.findall(text)


def count_words(text: str) -> int:
    """Tokens in `text` by the scripted tokenizer."""
    return len(word_tokens(text))


def last_user(messages: Sequence[Message]) -> str:
    """The newest user message's text (where the passages and the question are)."""
    return next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")


def scripted_tokens(
    reply: Reply, messages: list[Message], max_tokens: int, stop: Sequence[str]
) -> tuple[list[str], str]:
    """The tokens the scripted model emits and why it stopped ("stop" or "length")."""
    text = reply(messages) if callable(reply) else reply
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
    if cut >= 0:
        text = text[:cut]
    tokens = word_tokens(text)
    if len(tokens) > max_tokens:
        return tokens[:max_tokens], "length"
    return tokens, "stop"


class ScriptedRuntime:
    """A ChatRuntime whose answers are scripted; records every message list it is sent (`sent`)."""

    backend = "scripted"

    def __init__(
        self,
        reply: Reply = "",
        *,
        n_ctx: int = 2048,
        per_message: int = 4,
        generation: int = 3,
        token_delay: float = 0.0,
        name: str = "scripted-model",
    ) -> None:
        self.reply = reply
        self._n_ctx = n_ctx
        self._overheads = (per_message, generation)
        self.token_delay = token_delay
        self.name = name
        self.sent: list[list[Message]] = []
        self.calls: list[dict[str, Any]] = []
        self.closed = False

    @property
    def n_ctx(self) -> int:
        """The context window the budget works to."""
        return self._n_ctx

    def count_tokens(self, text: str) -> int:
        """Words, as the scripted tokenizer counts them."""
        return count_words(text)

    def overheads(self) -> tuple[int, int]:
        """Template tokens per message and for the generation prompt."""
        return self._overheads

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Exact, by construction: every message's words plus the fixed template overheads."""
        per_message, generation = self._overheads
        return sum(count_words(m["content"]) + per_message for m in messages) + generation

    def generate(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        on_text: OnText | None = None,
        cancel: threading.Event | None = None,
        stop: Sequence[str] = (),
        max_sentences: int = 0,
    ) -> Generation:
        """Stream the scripted reply through the same loop the real backends use (cancel, loop guard)."""
        sent = [dict(m) for m in messages]
        prompt = self.prompt_tokens(sent)
        if prompt + max_tokens > self._n_ctx:
            raise AssertionError(f"prompt of {prompt} tokens + {max_tokens} exceeds n_ctx={self._n_ctx}")
        self.sent.append(sent)
        self.calls.append(
            {"max_tokens": max_tokens, "temperature": temperature, "stop": tuple(stop), "max_sentences": max_sentences}
        )
        tokens, finish = scripted_tokens(self.reply, sent, max_tokens, stop)
        started = time.perf_counter()
        pieces, first, cancelled, finish = stream_pieces(
            self._chunks(tokens, finish), on_text, cancel, max_sentences=max_sentences
        )
        return Generation(
            text="".join(pieces),
            tokens=len(pieces),
            prompt_tokens=prompt,
            reused_prefix_tokens=0,
            ttft_s=(first - started) if first else None,
            total_s=time.perf_counter() - started,
            cancelled=cancelled,
            finish_reason=finish,
        )

    def _chunks(self, tokens: list[str], finish: str) -> Iterator[dict[str, Any]]:
        for i, token in enumerate(tokens):
            if self.token_delay:
                time.sleep(self.token_delay)
            done = finish if i == len(tokens) - 1 else None
            yield {"choices": [{"delta": {"content": token}, "finish_reason": done}]}

    def info(self) -> ModelInfo:
        """A model with no file."""
        return ModelInfo(name=self.name, path="", size_bytes=0, backend=self.backend)

    def close(self) -> None:
        """Nothing to free."""
        self.closed = True


class ScriptedChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 that streams a scripted reply over SSE.

    Use as a context manager; `base_url` ends in /v1. `requests` holds every decoded request body.
    `token_delay` spaces the tokens so a client can cancel mid-stream; `disconnects` counts streams the
    client closed early.
    """

    def __init__(self, reply: Reply = "", *, model: str = "scripted-model", token_delay: float = 0.0) -> None:
        self.reply = reply
        self.model = model
        self.token_delay = token_delay
        self.requests: list[dict[str, Any]] = []
        self.disconnects = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-chat-server", daemon=True)

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT/v1"""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": server.model, "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append(request)
                stop = request.get("stop") or []
                tokens, finish = scripted_tokens(
                    server.reply,
                    request.get("messages", []),
                    int(request.get("max_tokens") or 1 << 30),
                    [stop] if isinstance(stop, str) else stop,
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for i, token in enumerate(tokens):
                        time.sleep(server.token_delay)
                        self._event(
                            {
                                "choices": [
                                    {
                                        "index": 0,
                                        "delta": {"content": token},
                                        "finish_reason": finish if i == len(tokens) - 1 else None,
                                    }
                                ]
                            }
                        )
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    server.disconnects += 1
                self.close_connection = True

            def _event(self, payload: dict[str, Any]) -> None:
                self.wfile.write(
                    b"data: "
                    + json.dumps({"object": "chat.completion.chunk", "model": server.model, **payload}).encode()
                    + b"\n\n"
                )
                self.wfile.flush()

        return Handler


class MustNotGenerate(ScriptedRuntime):
    """A runtime that fails the test if asked to generate: a refusal must be decided before the model is called."""

    def generate(self, messages, **kwargs):
        raise AssertionError("the model was called")
