"""The in-process chat model: llama-cpp-python, loaded on first use, one Llama kept alive for KV-cache reuse.

llama_cpp is imported only inside `_load`, so importing Trove's core never loads it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_app.core.chat.answer.context import Message
from desktop_app.core.chat.models.files import ModelInfo, model_info
from desktop_app.core.chat.runtime.base import Generation, OnText, stream_pieces
from desktop_app.core.chat.runtime.template_tokens import control_markers, defuse_messages
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.types import ChatBackend

log = get_logger("chat")


def physical_cores(cpuinfo: str | None = None) -> int:
    """CPU cores (not hyper-threads) this process may use: llama.cpp runs best with one thread per core.

    llama-cpp-python's own default is half the logical CPUs, which is one thread on a 2-core machine without
    SMT. Reads /proc/cpuinfo's (physical id, core id) pairs on Linux; elsewhere, or when they are missing,
    the logical CPU count. Never more than the CPUs this process is allowed to run on.
    """
    logical = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    cores, package = set(), "0"
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "physical id":
            package = value.strip()
        elif key == "core id":
            cores.add((package, value.strip()))
    return max(1, min(len(cores) or logical, logical))


# llama.cpp's own default (llama-cpp-python passes 1.0): tiny models loop without it, and more than this
# penalises copying words from the passages, which grounded answers need.
REPEAT_PENALTY = 1.1


def vocabulary_controls(llm: Any) -> list[str]:
    """The texts of the model's control tokens (`<|im_start|>`, `<s>`, …), read from its vocabulary."""
    try:
        import llama_cpp

        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        control = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
        return [
            llama_cpp.llama_vocab_get_text(vocab, i).decode("utf-8", "replace")
            for i in range(llama_cpp.llama_vocab_n_tokens(vocab))
            if llama_cpp.llama_vocab_get_attr(vocab, i) & control
        ]
    except (AttributeError, ImportError, TypeError, ValueError) as exc:  # an older binding: the generic markers only
        log.info("control tokens not read from the vocabulary (%s)", exc)
        return []


def top_logprobs(llm: Any, top: int) -> dict[str, float]:
    """The log-probabilities of the `top` likeliest next tokens after what `llm` last evaluated, by their text (two
    tokens spelling the same text count as their likelier one)."""
    import numpy as np

    logits = np.array(llm._ctx.get_logits_ith(-1)[: llm.n_vocab()], dtype=np.float64)
    logits -= logits.max()
    logprobs = logits - np.log(np.exp(logits).sum())
    out: dict[str, float] = {}
    for i in np.argsort(-logprobs)[:top]:
        text = llm.detokenize([int(i)]).decode("utf-8", "replace")
        out[text] = max(out.get(text, -np.inf), float(logprobs[i]))
    return out


class LlamaCppRuntime:
    """llama-cpp-python with the GGUF's own chat template. Thread-safe: one generation at a time."""

    backend: str = ChatBackend.LLAMA

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int = 0,
        n_gpu_layers: int = 0,
        seed: int = 0,
        n_threads_batch: int | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self._n_ctx = n_ctx
        self.n_threads = n_threads or physical_cores()  # 0: one thread per physical core
        self.n_threads_batch = n_threads_batch or self.n_threads  # prompt evaluation; the same unless told
        self.n_gpu_layers = n_gpu_layers
        self.seed = seed
        self._llm = None
        self._formatter: Any = None  # llama_chat_format.Jinja2ChatFormatter once loaded
        self._overheads: tuple[int, int] | None = None
        self._markers: tuple[str, ...] = ()  # the vocabulary's control-token texts (defused in message text)
        self._lock = threading.RLock()

    @property
    def n_ctx(self) -> int:
        """The context window, in tokens."""
        return self._n_ctx

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory yet."""
        return self._llm is not None

    def _load(self):
        with self._lock:
            if self._llm is None:
                self._llm = self._open()
            return self._llm

    def _open(self):
        try:
            from llama_cpp import Llama, llama_chat_format
        except ImportError as exc:
            raise UnavailableError(f"Local chat needs llama-cpp-python, which is not installed ({exc}).") from exc
        if not self.model_path.is_file():
            raise UnavailableError(f"Chat model file not found: {self.model_path}.")
        started = time.perf_counter()
        try:
            llm = Llama(
                model_path=str(self.model_path),
                n_ctx=self._n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads_batch,
                n_gpu_layers=self.n_gpu_layers,
                seed=self.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise UnavailableError(f"Could not load chat model {self.model_path.name}: {exc}") from exc
        template = llm.metadata.get("tokenizer.chat_template")
        if template:
            # Always the GGUF's own template, never a built-in format llama-cpp-python guesses is equivalent;
            # the same template renders the prompt we count, so counts match what is sent.
            llm.chat_format = "chat_template.default"
            eos, bos = llm.token_eos(), llm.token_bos()
            self._formatter = llama_chat_format.Jinja2ChatFormatter(
                template=template,
                eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
                bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            )
        self._markers = control_markers(vocabulary_controls(llm))
        log.info(
            "loaded chat model %s (n_ctx=%d, %d threads) in %.2fs; template: %s",
            self.model_path.name,
            self._n_ctx,
            self.n_threads,
            time.perf_counter() - started,
            "gguf" if template else llm.chat_format,
        )
        return llm

    def count_tokens(self, text: str) -> int:
        """Tokens in plain text, by the model's own tokenizer."""
        if not text:
            return 0
        return len(self._load().tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def safe_messages(self, messages: Sequence[Message]) -> list[Message]:
        """`messages` with template markers in their text broken (template_tokens.py): the template's own
        special tokens are then the only ones in the prompt, whatever a passage or a question contains."""
        self._load()
        return defuse_messages(messages, self._markers)

    def prompt_ids(self, messages: Sequence[Message]) -> list[int]:
        """The exact token ids create_chat_completion will feed the model for `messages` (defused first)."""
        llm = self._load()
        messages = self.safe_messages(messages)
        if self._formatter is None:  # no template in the GGUF: llama-cpp-python's fallback format, estimated
            text = "".join(f"{m['role']}\n{m['content']}\n" for m in messages)
            return llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)
        prompt = self._formatter(messages=list(messages)).prompt
        # Mirrors llama-cpp-python's Jinja handler: the template adds special tokens itself, so no extra BOS.
        return llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """How many tokens the rendered prompt takes."""
        return len(self.prompt_ids(messages))

    def overheads(self) -> tuple[int, int]:
        """(tokens the template adds per message, tokens of the generation prompt), measured on this template."""
        if self._overheads is None:
            one = self.prompt_tokens([{"role": "system", "content": ""}])
            two = self.prompt_tokens([{"role": "system", "content": ""}, {"role": "user", "content": ""}])
            per_message = max(two - one, 0) + 1  # +1: a token may merge across a content boundary
            self._overheads = (per_message, max(one - per_message, 0) + 1)
        return self._overheads

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
        """Stream an answer to `messages`; `on_text` gets each piece on this thread; `cancel` stops it.

        Generation ends before any of the `stop` strings (llama.cpp holds back a piece that might start one),
        and after `max_sentences` sentences when that is set.
        """
        with self._lock:
            llm = self._load()
            ids = self.prompt_ids(messages)
            reused = self._reusable_prefix(llm, ids)
            started = time.perf_counter()
            stream = llm.create_chat_completion(
                messages=self.safe_messages(messages),
                stream=True,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=self.seed,
                repeat_penalty=REPEAT_PENALTY,
                stop=list(stop) or None,
            )
            try:
                pieces, first, cancelled, finish = stream_pieces(stream, on_text, cancel, max_sentences=max_sentences)
            finally:
                stream.close()  # stops llama.cpp at once; the KV cache keeps what was evaluated
            total = time.perf_counter() - started
        return Generation(
            text="".join(pieces),
            tokens=len(pieces),
            prompt_tokens=len(ids),
            reused_prefix_tokens=reused,
            ttft_s=(first - started) if first is not None else None,
            total_s=total,
            cancelled=cancelled,
            finish_reason=finish,
        )

    def next_token_logprobs(self, messages: Sequence[Message], top: int) -> dict[str, float]:
        """The log-probabilities of the `top` likeliest first tokens of the reply to `messages`, by their text
        (one forward pass, nothing sampled; used to check a quote: gate/check.py). The prompt is evaluated from the
        start, so the next answer's prompt is too."""
        with self._lock:
            llm = self._load()
            ids = self.prompt_ids(messages)
            llm.reset()
            llm.eval(ids)
            return top_logprobs(llm, top)

    @staticmethod
    def _reusable_prefix(llm: Any, ids: list[int]) -> int:
        # The rule Llama.generate applies: the longest common prefix with the tokens already in the context,
        # minus one when the whole prompt matches (the last token is re-fed to refresh the logits).
        if llm.n_tokens == 0:
            return 0
        cached = llm.input_ids[: llm.n_tokens].tolist()
        common = 0
        for a, b in zip(cached, ids):
            if a != b:
                break
            common += 1
        return common - 1 if common == len(ids) else common

    def reset_cache(self) -> None:
        """Forget the KV cache, so the next prompt is evaluated from scratch (for measuring reuse)."""
        with self._lock:
            if self._llm is not None:
                self._llm.reset()

    def info(self) -> ModelInfo:
        """Name, path and size of the model file (does not load it)."""
        return model_info(self.model_path, self.backend)

    def close(self) -> None:
        """Free the model; a later call loads it again."""
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None
