"""A chat backend for any OpenAI-compatible server (llama.cpp server, Ollama, LM Studio …), over stdlib urllib + SSE.

Redirects are never followed: urllib would carry the Authorization header to wherever a 30x points (another
host, plain http). A redirect is an UnavailableError naming where it pointed, so the person can set that URL.
A plain-http URL to a host that is not this machine is logged as a warning (`plain_http_warning`): the API key
and every question and answer would cross the network readable by anyone on the path.
"""

from __future__ import annotations

import ipaddress
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from desktop_app.core.chat.answer.context import Message
from desktop_app.core.chat.models.files import ModelInfo
from desktop_app.core.chat.runtime.base import Generation, OnText, stream_pieces
from desktop_app.core.chat.runtime.template_tokens import defuse_messages
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.types import ChatBackend

log = get_logger("chat")

API_KEY_ENV = "TROVE_OPENAI_API_KEY"
CHARS_PER_TOKEN = 3  # no tokenizer on this side: count conservatively (real text averages ~4 chars a token)


def iter_sse_data(lines: Iterable[bytes | str]) -> Iterator[str]:
    """The data payloads of a server-sent-event stream, one per event (multi-line data joined by newlines)."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        line = line.rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue  # a comment / keep-alive
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value.removeprefix(" "))
    if data:
        yield "\n".join(data)


def iter_stream_chunks(lines: Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """Decoded chat.completion.chunk objects until `[DONE]`; an `error` event becomes UnavailableError."""
    for payload in iter_sse_data(lines):
        if payload.strip() == "[DONE]":
            return
        try:
            chunk = json.loads(payload)
        except ValueError:
            log.warning("ignoring a malformed event from the chat server: %.80r", payload)
            continue
        if isinstance(chunk, dict) and "error" in chunk:
            raise UnavailableError(f"The chat server reported an error: {chunk['error']}")
        yield chunk


class _Redirected(urllib.error.HTTPError):
    def __init__(self, req, fp, code, headers, newurl):  # noqa: ANN001 - urllib's types
        super().__init__(req.full_url, code, "redirect", headers, fp)
        self.newurl = newurl


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 - urllib's signature
        raise _Redirected(req, fp, code, headers, newurl)


_OPENER = urllib.request.build_opener(_NoRedirects)


def is_loopback_host(host: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plain_http_warning(base_url: str) -> str | None:
    """A warning when `base_url` sends the key and the conversation unencrypted to another machine."""
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme.lower() != "http" or is_loopback_host(parts.hostname or ""):
        return None
    return (f"The chat server {parts.hostname} is reached over plain http: the API key and every question and "
            "answer cross the network unencrypted. Use an https:// URL for a server on another machine.")


class OpenAICompatibleRuntime:
    """Streams chat completions from `base_url` (e.g. http://127.0.0.1:8080/v1)."""

    backend: str = ChatBackend.OPENAI

    def __init__(
        self,
        base_url: str,
        model: str = "local",
        *,
        n_ctx: int = 4096,
        timeout: float = 120.0,
        api_key: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._n_ctx = n_ctx
        self.timeout = timeout
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "")
        self._lock = threading.Lock()
        self.warning = plain_http_warning(self.base_url)
        if self.warning:
            log.warning("%s", self.warning)

    @property
    def n_ctx(self) -> int:
        """The context window we budget for (the server's own limit should be at least this)."""
        return self._n_ctx

    def count_tokens(self, text: str) -> int:
        """A conservative estimate: the server's tokenizer is not available here."""
        return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN

    def overheads(self) -> tuple[int, int]:
        """Template tokens per message and for the generation prompt (generous guesses; the template is remote)."""
        return (10, 10)

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Estimated prompt size."""
        per_message, generation = self.overheads()
        return sum(self.count_tokens(m["content"]) + per_message for m in messages) + generation

    def _request(self, path: str, body: dict[str, Any] | None = None) -> urllib.request.Request:
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream" if body else "application/json"}
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(
            self.base_url + path, data=data, headers=headers, method="POST" if body else "GET"
        )
        if self.api_key:  # an unredirected header: never copied onto a redirect, should one ever be followed
            request.add_unredirected_header("Authorization", f"Bearer {self.api_key}")
        return request

    def _open(self, request: urllib.request.Request):
        try:
            return _OPENER.open(request, timeout=self.timeout)
        except _Redirected as exc:
            raise UnavailableError(
                f"The chat server at {self.base_url} redirected to {exc.newurl}; Trove does not follow redirects "
                "(the API key would go along). Set the chat server's URL to the address it points to."
            ) from exc
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            raise UnavailableError(
                f"The chat server at {self.base_url} answered {exc.code}: {detail or exc.reason}"
            ) from exc
        except (TimeoutError, urllib.error.URLError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise UnavailableError(f"The chat server at {self.base_url} is unreachable ({reason}).") from exc

    def list_models(self) -> list[str]:
        """Model ids the server offers (also a cheap "is it up?" check)."""
        with self._open(self._request("/models")) as resp:
            return [m.get("id", "") for m in json.load(resp).get("data", [])]

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
        """Stream an answer over SSE; closing the connection on cancel (or at `max_sentences`) makes the server stop."""
        body: dict[str, Any] = {
            "model": self.model,
            # The server renders its own template and tokenizes it with special tokens parsed, as llama.cpp does:
            # a passage holding `<|im_start|>system` would open a turn of the model's own (template_tokens.py).
            "messages": defuse_messages(messages),
            "stream": True,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if stop:
            body["stop"] = list(stop)[:4]  # OpenAI's API takes at most four
        with self._lock:
            started = time.perf_counter()
            resp = self._open(self._request("/chat/completions", body))
            try:
                pieces, first, cancelled, finish = stream_pieces(
                    iter_stream_chunks(resp), on_text, cancel, max_sentences=max_sentences
                )
            except (TimeoutError, OSError) as exc:
                raise UnavailableError(f"The chat server at {self.base_url} dropped the connection ({exc}).") from exc
            finally:
                resp.close()
            total = time.perf_counter() - started
        return Generation(
            text="".join(pieces),
            tokens=len(pieces),
            prompt_tokens=self.prompt_tokens(messages),
            reused_prefix_tokens=0,
            ttft_s=(first - started) if first is not None else None,
            total_s=total,
            cancelled=cancelled,
            finish_reason=finish,
        )

    def info(self) -> ModelInfo:
        """The server's model, named by the setting; no local file, so size 0."""
        return ModelInfo(name=self.model, path=self.base_url, size_bytes=0, backend=self.backend)

    def close(self) -> None:
        """Nothing held between requests."""
