"""ChatService: retrieve, budget, generate, cite, persist. What Library.ask and the chat pane call.

Usable from a worker thread: `on_token` is called on the thread that runs `ask`, and a
threading.Event stops an answer mid-stream. Everything handed back is frozen.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_app.core.chat.attribution import attribute
from desktop_app.core.chat.budget import BudgetConfig, PromptPlan, Turn, plan_prompt, retrieval_query
from desktop_app.core.chat.citations import Citation, drop_dangling_markers, resolve_citations
from desktop_app.core.chat.compaction import compact
from desktop_app.core.chat.context import Passage
from desktop_app.core.chat.model_files import ModelInfo, model_info, resolve_model_path
from desktop_app.core.chat.prompt import NOT_COVERED, PLAIN_SYSTEM_PROMPT, PromptStyle, get_style, strip_echoed_label
from desktop_app.core.chat.runtime import ChatRuntime, Generation, LlamaCppRuntime
from desktop_app.core.chat.sessions import ChatMessage, ChatStore, ChatSummary, title_for
from desktop_app.core.chat.summarize import Summarizer, Summary, SummaryProgress
from desktop_app.core.errors import BugError, KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

Retrieve = Callable[..., list[RetrievalResult]]  # (query, k[, scope: tuple of folder paths])
RuntimeFactory = Callable[[Settings, "str | None"], ChatRuntime]
PLAN_ATTEMPTS = 3
SUMMARY_TOKENS = 160  # per model call of a summary (a part's summary, or the final one)
SUMMARY_MAX_TOKENS = 384  # the summary of compacted turns (at most an eighth of the window)


@dataclass(frozen=True)
class ChatToken:
    """One streamed piece of an answer (handed to on_token; safe to pass across threads)."""

    chat_id: int
    index: int
    text: str


@dataclass(frozen=True)
class ChatAnswer:
    """A finished (or cancelled) answer with its resolved citations and every passage that was sent."""

    text: str  # markers that name no passage removed
    chat_id: int
    citations: tuple[Citation, ...]
    passages: tuple[Passage, ...]
    cancelled: bool = False
    refused: bool = False  # nothing relevant was found, so the model was not asked
    raw_text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reused_prefix_tokens: int = 0
    history_turns: int = 0
    ttft_s: float | None = None
    total_s: float = 0.0
    model: str = ""


def default_runtime(settings: Settings, model_path: str | None) -> ChatRuntime:
    """The runtime the settings ask for: in-process llama.cpp, or an OpenAI-compatible server."""
    if settings.chat_backend == "openai" and not model_path:
        from desktop_app.core.chat.openai_backend import OpenAICompatibleRuntime

        return OpenAICompatibleRuntime(settings.openai_base_url, settings.openai_model, n_ctx=settings.n_ctx)
    if settings.chat_backend not in ("llama", "openai"):
        raise KnownError(f"Unknown chat backend {settings.chat_backend!r}; use 'llama' or 'openai'.")
    path = resolve_model_path(model_path, settings.model_path)
    return LlamaCppRuntime(path, n_ctx=settings.n_ctx, n_threads=settings.n_threads, n_gpu_layers=settings.n_gpu_layers)


def runtime_key(settings: Settings, model_path: str | None) -> tuple:
    """What identifies a runtime: when it changes, the loaded model is replaced."""
    if settings.chat_backend == "openai" and not model_path:
        return ("openai", settings.openai_base_url, settings.openai_model, settings.n_ctx)
    return ("llama", model_path or "", settings.model_path, settings.n_ctx, settings.n_threads, settings.n_gpu_layers)


def relevant(results: list[RetrievalResult], min_score: float) -> bool:
    """Whether any retrieved passage clears `min_score` (otherwise the documents do not cover the question)."""
    return any(r.score >= min_score and r.content.strip() for r in results)


class ChatService:
    """Grounded chat over one library. One model stays loaded so follow-ups reuse its KV cache."""

    def __init__(
        self,
        store: Store,
        retrieve: Retrieve,
        get_settings: Callable[[], Settings],
        *,
        runtime_factory: RuntimeFactory = default_runtime,
        style: PromptStyle | str | None = None,
    ) -> None:
        self.store = ChatStore(store)
        self.style = get_style(style)
        self._retrieve = retrieve
        self._get_settings = get_settings
        self._factory = runtime_factory
        self._runtime: ChatRuntime | None = None
        self._runtime_key: tuple | None = None
        self._lock = threading.RLock()  # one answer at a time: there is one model and one KV cache

    # ---- sessions ------------------------------------------------------------------------------

    def new_chat(self, title: str = "") -> int:
        """An empty chat; its title is set from the first question when left empty."""
        return self.store.create_chat(title)

    def list_chats(self) -> list[ChatSummary]:
        """Every chat, most recent first."""
        return self.store.list_chats()

    def messages(self, chat_id: int) -> list[ChatMessage]:
        """A chat's messages, oldest first, with citations and passages."""
        return self.store.messages(chat_id)

    def delete_chat(self, chat_id: int) -> bool:
        """Delete a chat; False if it did not exist."""
        return self.store.delete_chat(chat_id)

    # ---- model ---------------------------------------------------------------------------------

    def runtime(self, model_path: str | None = None) -> ChatRuntime:
        """The runtime for the current settings, replacing (and freeing) the old one when they changed."""
        settings = self._get_settings()
        key = runtime_key(settings, model_path)
        with self._lock:
            if self._runtime is None or self._runtime_key != key:
                if self._runtime is not None:
                    self._runtime.close()
                self._runtime, self._runtime_key = self._factory(settings, model_path), key
            return self._runtime

    def model_info(self) -> ModelInfo:
        """Name, path and size of the chat model the settings point at (nothing is loaded)."""
        settings = self._get_settings()
        if settings.chat_backend == "openai":
            return ModelInfo(name=settings.openai_model, path=settings.openai_base_url, size_bytes=0, backend="openai")
        return model_info(resolve_model_path(None, settings.model_path))

    # ---- asking --------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        chat_id: int | None = None,
        use_context: bool = True,
        top_k: int | None = None,
        model_path: str | None = None,
        on_token: Callable[[ChatToken], None] | None = None,
        cancel: threading.Event | None = None,
        max_tokens: int | None = None,
        scope: Sequence[str] = (),
    ) -> ChatAnswer:
        """Answer `question` in chat `chat_id` (a new chat when None) from the library's passages.

        `scope` (files or folders) limits the passages to documents there. With context on and nothing
        relevant found (and refuse_without_context set), says the documents do not cover it without
        calling the model. The exchange is stored either way.
        """
        question = question.strip()
        if not question:
            raise KnownError("Nothing to ask: the question is empty.")
        settings = self._get_settings()
        with self._lock:
            chat_id = self._chat_for(chat_id, question)
            turns = self.store.turns(chat_id)
            grounded = use_context and settings.context_enabled
            runtime = self.runtime(model_path)
            results = (
                self._search(retrieval_query(question, turns), top_k or settings.context_top_k, scope)
                if grounded
                else []
            )
            if grounded and settings.refuse_without_context and not relevant(results, settings.context_min_score):
                return self._refuse(chat_id, question, len(turns), runtime)
            reserve = max(settings.answer_reserve_tokens, max_tokens or 0)
            plan = self._plan_with_history(chat_id, question, results, turns, settings, runtime, grounded, reserve)
            gen = self._generate(
                runtime,
                plan,
                chat_id,
                max_tokens or settings.answer_reserve_tokens,
                settings.temperature,
                on_token,
                cancel,
            )
            return self._finish(chat_id, question, plan, gen, runtime)

    def _search(self, query: str, top_k: int, scope: Sequence[str]) -> list[RetrievalResult]:
        return self._retrieve(query, top_k, tuple(scope)) if scope else self._retrieve(query, top_k)

    def summarize(
        self,
        name: str,
        texts: Sequence[str],
        *,
        max_tokens: int = SUMMARY_TOKENS,
        model_path: str | None = None,
        on_progress: Callable[[SummaryProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Summary:
        """Summarise a document given as its chunks' texts, in order (map-reduce when it outgrows the window)."""
        if not any(t.strip() for t in texts):
            raise KnownError(f"Nothing to summarise: {name} has no text.")
        with self._lock:
            runtime = self.runtime(model_path)
            summary = Summarizer(
                runtime,
                name=os.path.basename(name) or name,
                max_tokens=max_tokens,
                temperature=self._get_settings().temperature,
                on_progress=on_progress,
                cancel=cancel,
            ).run(texts)
        log.info(
            "summarised %s: %d chunks, %d calls, %d rounds%s",
            name,
            summary.chunks,
            summary.calls,
            summary.rounds,
            " (cancelled)" if summary.cancelled else "",
        )
        return Summary(name, summary.text, summary.chunks, summary.calls, summary.rounds, summary.cancelled)

    def _chat_for(self, chat_id: int | None, question: str) -> int:
        if chat_id is None:
            return self.store.create_chat(title_for(question))
        self.store.require(chat_id)
        return chat_id

    def _plan_with_history(
        self,
        chat_id: int,
        question: str,
        results: list[RetrievalResult],
        turns: list[Turn],
        settings: Settings,
        runtime: ChatRuntime,
        grounded: bool,
        reserve: int,
    ) -> PromptPlan:
        """Plan with the turns since the last compaction; when they outgrow the window, summarise the oldest
        of them into the chat's summary (stored) instead of dropping them, and plan again."""
        covered, summary = self.store.summary(chat_id)
        covered = min(covered, len(turns))
        plan = self.plan(question, results, turns[covered:], settings, runtime, grounded, reserve, summary=summary)
        if plan.history_start == 0:
            return plan
        limit = max(32, min(SUMMARY_MAX_TOKENS, runtime.n_ctx // 8))
        summary = compact(turns[covered : covered + plan.history_start], summary, runtime, limit)
        covered += plan.history_start
        self.store.add_summary(chat_id, covered, summary)
        log.info("chat %d: compacted %d turns into a %d-token summary", chat_id, covered, runtime.count_tokens(summary))
        return self.plan(question, results, turns[covered:], settings, runtime, grounded, reserve, summary=summary)

    def plan(
        self,
        question: str,
        results: list[RetrievalResult],
        turns: list[Turn],
        settings: Settings,
        runtime: ChatRuntime,
        grounded: bool,
        reserve: int,
        *,
        summary: str = "",
    ) -> PromptPlan:
        """Budget the prompt, then check it with the runtime's exact count and tighten if the estimate was short."""
        per_message, generation = runtime.overheads()
        n_ctx = runtime.n_ctx
        system = None if grounded else PLAIN_SYSTEM_PROMPT
        for _ in range(PLAN_ATTEMPTS):
            cfg = BudgetConfig(
                n_ctx=n_ctx,
                answer_reserve=reserve,
                max_context_tokens=settings.max_context_tokens,
                min_score=settings.context_min_score,
                message_overhead=per_message,
                prompt_overhead=generation,
            )
            plan = plan_prompt(
                question,
                results,
                turns,
                cfg,
                runtime.count_tokens,
                system_prompt=system,
                style=self.style,
                summary=summary,
            )
            exact = runtime.prompt_tokens(plan.messages)
            over = exact + reserve - runtime.n_ctx
            if over <= 0:
                return plan
            log.info("prompt estimate was %d tokens short; tightening", over)
            n_ctx -= over + 8
        raise BugError(f"could not fit the prompt in n_ctx={runtime.n_ctx} (last try {exact} + {reserve} tokens)")

    def _generate(
        self,
        runtime: ChatRuntime,
        plan: PromptPlan,
        chat_id: int,
        max_tokens: int,
        temperature: float,
        on_token: Callable[[ChatToken], None] | None,
        cancel: threading.Event | None,
    ) -> Generation:
        count = 0

        def emit(piece: str) -> None:
            nonlocal count
            if on_token is not None:
                on_token(ChatToken(chat_id, count, piece))
            count += 1

        return runtime.generate(
            list(plan.messages),
            max_tokens=max_tokens,
            temperature=temperature,
            on_text=emit,
            cancel=cancel,
            stop=self.style.stop if plan.passages else (),
            max_sentences=self.style.max_sentences if plan.passages else 0,
        )

    def _finish(
        self, chat_id: int, question: str, plan: PromptPlan, gen: Generation, runtime: ChatRuntime
    ) -> ChatAnswer:
        raw = gen.text  # stored unstripped: replayed verbatim, it matches the tokens already in the KV cache
        text, citations = self.cite(raw, plan.passages)
        self.store.add_exchange(chat_id, question, raw, citations, plan.passages)
        log.info(
            "answered in chat %d: %d tokens, %d/%d prompt tokens reused, %d passages, %d cited%s",
            chat_id,
            gen.tokens,
            gen.reused_prefix_tokens,
            gen.prompt_tokens,
            len(plan.passages),
            len(citations),
            " (cancelled)" if gen.cancelled else "",
        )
        return ChatAnswer(
            text=text,
            chat_id=chat_id,
            citations=tuple(citations),
            passages=plan.passages,
            cancelled=gen.cancelled,
            raw_text=raw,
            prompt_tokens=gen.prompt_tokens,
            completion_tokens=gen.tokens,
            reused_prefix_tokens=gen.reused_prefix_tokens,
            history_turns=plan.history_turns,
            ttft_s=gen.ttft_s,
            total_s=gen.total_s,
            model=runtime.info().name,
        )

    def cite(self, raw: str, passages: tuple[Passage, ...]) -> tuple[str, list[Citation]]:
        """The answer as shown, and its citations: markers naming no passage dropped, an echoed passage label
        removed, and (when the style says so) an uncited answer attributed to the passages it copies."""
        text = drop_dangling_markers(strip_echoed_label(raw).strip(), {p.n for p in passages})
        citations = resolve_citations(text, passages)
        if not citations and passages and self.style.attribute:
            text = attribute(text, passages).text
            citations = resolve_citations(text, passages)
        return text, citations

    def _refuse(self, chat_id: int, question: str, history_turns: int, runtime: ChatRuntime) -> ChatAnswer:
        self.store.add_exchange(chat_id, question, NOT_COVERED, [], [])
        log.info("chat %d: no passage cleared min_score; answered without the model", chat_id)
        return ChatAnswer(
            text=NOT_COVERED,
            chat_id=chat_id,
            citations=(),
            passages=(),
            refused=True,
            raw_text=NOT_COVERED,
            history_turns=history_turns,
            model=runtime.info().name,
        )

    def close(self) -> None:
        """Free the model (the store belongs to the library)."""
        with self._lock:
            if self._runtime is not None:
                self._runtime.close()
                self._runtime = None
