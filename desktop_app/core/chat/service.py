"""ChatService: retrieve, rerank, plan, quote, generate, cite, persist. What Library.ask and the chat pane call.

The pipeline (docs/architecture.md, "Answers"): hybrid search → the reranker's order (when one loads) → the
prompt's passages → the quote that answers the question, handed to `on_quote` before the model starts → the
model's answer, kept behind the quote when the model is small or its answer copies no passage → attribution. When
the quote selector and the reranker agree that no passage answers, the model is not asked (unless `ask_model`).

Usable from a worker thread: `on_quote` and `on_token` are called on the thread that runs `ask`, and a
threading.Event stops an answer mid-stream. Everything handed back is frozen.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from desktop_app.core.chat.answer.assemble import Outcome, shown_answer
from desktop_app.core.chat.answer.budget import PromptPlan, retrieval_query
from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.abstain import COMBINED
from desktop_app.core.chat.answer.gate.check import CHECK_CTX, Checker, ScoresNextToken, decide
from desktop_app.core.chat.answer.gate.runner_up import second_look
from desktop_app.core.chat.answer.language_hint import language_hint
from desktop_app.core.chat.answer.memory_step import ChatMemory, GetMemory
from desktop_app.core.chat.answer.planning import Planner, anchor_quote
from desktop_app.core.chat.answer.prompt import NOT_COVERED, PromptStyle, get_style
from desktop_app.core.chat.answer.quote.default import GetEmbedder, default_selector
from desktop_app.core.chat.answer.quote.selector import Quote, QuoteSelector, candidate_passages, place_quote
from desktop_app.core.chat.answer.rerank_step import (
    Reranked,
    Reranker,
    abstain_reason,
    candidates,
    chat_reranker,
    rerank_results,
)
from desktop_app.core.chat.answer.result import ChatAnswer, ChatToken
from desktop_app.core.chat.answer.shown import CLOSEST, not_covered
from desktop_app.core.chat.answer.span.prose import AskModel
from desktop_app.core.chat.answer.span.step import Searched
from desktop_app.core.chat.collection_answer import early_answer
from desktop_app.core.chat.models.files import ModelInfo, model_info, resolve_model_path
from desktop_app.core.chat.runtime.base import ChatRuntime, Generation
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.chat.sessions import ChatMessage, ChatSessions, ChatSummary, title_for
from desktop_app.core.chat.summarize import Summarizer, Summary, SummaryProgress
from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.types import ChatBackend, RetrievalResult, Turn

log = get_logger("chat")

__all__ = ["ChatAnswer", "ChatService", "ChatToken", "default_runtime", "relevant", "runtime_key"]

Retrieve = Callable[..., list[RetrievalResult]]  # (query, k[, scope: tuple of folder paths])
RuntimeFactory = Callable[[Settings, "str | None"], ChatRuntime]
CheckFactory = Callable[[Path], ScoresNextToken]
OnQuote = Callable[[Quote], None]
SUMMARY_TOKENS = 160  # per model call of a summary (a part's summary, or the final one)
AUTO = "auto"


def default_runtime(settings: Settings, model_path: str | None) -> ChatRuntime:
    """The runtime the settings ask for: in-process llama.cpp, or an OpenAI-compatible server."""
    if settings.chat_backend == ChatBackend.OPENAI and not model_path:
        from desktop_app.core.chat.runtime.openai_backend import OpenAICompatibleRuntime

        return OpenAICompatibleRuntime(settings.openai_base_url, settings.openai_model, n_ctx=settings.n_ctx)
    if settings.chat_backend not in ("llama", "openai"):
        raise KnownError(f"Unknown chat backend {settings.chat_backend!r}; use 'llama' or 'openai'.")
    path = resolve_model_path(model_path, settings.model_path)
    return LlamaCppRuntime(path, n_ctx=settings.n_ctx, n_threads=settings.n_threads, n_gpu_layers=settings.n_gpu_layers)


def check_runtime(path: Path) -> ScoresNextToken:
    """The check model (Settings.check_model): llama.cpp with a short context, loaded on its first check."""
    return LlamaCppRuntime(path, n_ctx=CHECK_CTX)


def runtime_key(settings: Settings, model_path: str | None) -> tuple:
    """What identifies a runtime: when it changes, the loaded model is replaced."""
    if settings.chat_backend == ChatBackend.OPENAI and not model_path:
        return ("openai", settings.openai_base_url, settings.openai_model, settings.n_ctx)
    return ("llama", model_path or "", settings.model_path, settings.n_ctx, settings.n_threads, settings.n_gpu_layers)


def relevant(results: list[RetrievalResult], min_score: float) -> bool:
    """Whether any retrieved passage clears `min_score` (otherwise the documents do not cover the question)."""
    return any(r.score >= min_score and r.content.strip() for r in results)


def generate(runtime: ChatRuntime, plan: PromptPlan, style: PromptStyle, chat_id: int, max_tokens: int,
             temperature: float, on_token: Callable[[ChatToken], None] | None,
             cancel: threading.Event | None) -> Generation:
    """The model's answer to `plan`, each piece handed to `on_token` as a numbered ChatToken of chat `chat_id`."""
    count = 0

    def emit(piece: str) -> None:
        nonlocal count
        if on_token is not None:
            on_token(ChatToken(chat_id, count, piece))
        count += 1

    return runtime.generate(list(plan.messages), max_tokens=max_tokens, temperature=temperature, on_text=emit,
                            cancel=cancel, stop=style.stop if plan.passages else (),
                            max_sentences=style.max_sentences if plan.passages else 0)


class ChatService:
    """Grounded chat over one library. One model stays loaded so follow-ups reuse its KV cache.

    `quote_selector` and `reranker` default to the best that loads ("auto"); None turns either off. `embedder`
    gives the library's embedder to the fallback quote selector (without it, the one the settings name).
    `memory` gives the library's conversation memory (wired in by core/chat/answer/memory_step.py).
    `check_factory` loads the model that checks a quote before it is shown (Settings.check_model; gate/check.py).
    """

    def __init__(
        self,
        store: Store,
        retrieve: Retrieve,
        get_settings: Callable[[], Settings],
        *,
        runtime_factory: RuntimeFactory = default_runtime,
        style: PromptStyle | str | None = None,
        quote_selector: QuoteSelector | str | None = AUTO,
        reranker: Reranker | str | None = AUTO,
        embedder: GetEmbedder | None = None,
        memory: GetMemory | None = None,
        check_factory: CheckFactory = check_runtime,
    ) -> None:
        self.store = ChatSessions(store)
        self.style = get_style(style)
        self.planner = Planner(self.style)
        self._retrieve = retrieve
        self._get_settings = get_settings
        self._factory = runtime_factory
        self._runtime: ChatRuntime | None = None
        self._runtime_key: tuple | None = None
        self._selector, self._reranker, self._embedder = quote_selector, reranker, embedder
        self._memory = memory
        self._checker = Checker(check_factory)
        self._lock = threading.RLock()  # one answer at a time: there is one model and one KV cache
        self.whole_library = True  # count / list / total questions answered over every document (collection.py)

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
        """Delete a chat and what it left in memory; False if it did not exist."""
        if self._memory is not None and (memory := self._memory()) is not None:
            memory.forget_chat(chat_id)  # a server library keeps memory in a file of its own
        return self.store.delete_chat(chat_id)

    # ---- models --------------------------------------------------------------------------------

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
        if settings.chat_backend == ChatBackend.OPENAI:
            return ModelInfo(name=settings.openai_model, path=settings.openai_base_url, size_bytes=0,
                             backend=ChatBackend.OPENAI)
        return model_info(resolve_model_path(None, settings.model_path))

    def quote_selector(self) -> QuoteSelector | None:
        """The quote selector (built on first use: the best that loads, else the embedder's)."""
        if self._selector == AUTO:
            self._selector = default_selector(self._get_settings(), self._embedder)
        return self._selector  # type: ignore[return-value]

    def reranker(self) -> Reranker | None:
        """The reranker given, or ("auto") rerank_step.chat_reranker: the cross-encoder whenever it loads (it reads
        only the prompt's passages), the embedder's reranker only when the Rerank setting is on."""
        if self._reranker == AUTO:
            return chat_reranker(self._get_settings().search_rerank)
        return self._reranker  # type: ignore[return-value]

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
        on_quote: OnQuote | None = None,
        cancel: threading.Event | None = None,
        max_tokens: int | None = None,
        scope: Sequence[str] = (),
        ask_model: bool = False,
        show_generation: bool | None = None,
    ) -> ChatAnswer:
        """Answer `question` in chat `chat_id` (a new chat when None) from the library's passages.

        `scope` (files or folders) limits the passages to documents there. With context on and nothing relevant
        found (refuse_without_context), or no passage answering it, says the documents do not cover it without
        calling the model — unless `ask_model`. `show_generation` overrides whether the model's answer is shown
        beside the quote (None: shown unless the model is small or its answer copies no passage). Stored either way.
        """
        question = question.strip()
        if not question:
            raise KnownError("Nothing to ask: the question is empty.")
        settings, started = self._get_settings(), time.perf_counter()
        with self._lock:
            chat_id = self._chat_for(chat_id, question)
            turns = self.store.turns(chat_id)
            early = early_answer(self, chat_id, question, len(turns), scope if use_context else None,
                                 AskModel(model_path, max_tokens, cancel))
            if isinstance(early, ChatAnswer):
                # "Remember that …" acknowledged, a whole-library table, or quotes from several documents
                return self._hinted(question, early)
            grounded = use_context and settings.context_enabled
            runtime = self.runtime(model_path)
            memory = ChatMemory.start(self._memory, self.store, chat_id, question, turns, runtime, settings, scope)
            from_chat = memory is not None and memory.answers_from_chat  # evidence alone is quoted, cited, gated
            found = (self._find(question, turns, top_k or settings.context_top_k, scope, early) if grounded
                     else Reranked([]))
            found = Reranked(memory.results(found.results), found.best) if memory and grounded else found
            if (grounded and settings.refuse_without_context and not from_chat
                    and not relevant(found.results, settings.context_min_score)):
                refused = self._refuse(chat_id, question, len(turns), runtime, (), None, memory)
                return self._hinted(question, refused)
            found_passages = candidate_passages(found.results, settings.context_min_score) if grounded else []
            first = self._quote(question, found_passages) if found_passages else None
            why, checked = (self._verdict(question, first, found, settings.check_model if not from_chat else "")
                            if found_passages and not ask_model else ("", None))
            if why:
                if not from_chat:
                    refused = self._refuse(chat_id, question, len(turns), runtime, found_passages, first, memory,
                                           checked)
                    return self._hinted(question, refused)
                first = None  # no evidence answers: the model answers from the conversation, quoting nothing
            reserve = max(settings.answer_reserve_tokens, max_tokens or 0)
            results = anchor_quote(found.results, first, self.style, runtime.count_tokens)
            plan = self.planner.with_history(self.store, chat_id, question, results, turns, settings, runtime,
                                             grounded, reserve, memory)
            quote = place_quote(first, plan.passages) or (None if from_chat else self._quote(question, plan.passages))
            quote_s = time.perf_counter() - started if quote is not None else None
            if quote is not None and on_quote is not None:
                on_quote(quote)
            gen = generate(runtime, plan, self.style, chat_id, max_tokens or settings.answer_reserve_tokens,
                           settings.temperature, on_token, cancel)
            outcome = Outcome(plan, gen, runtime.info(), quote, quote_s, show_generation)
            answer = self._finish(chat_id, question, outcome, memory)
            return self._hinted(question, replace(answer, check_score=checked) if checked is not None else answer)

    def _hinted(self, question: str, answer: ChatAnswer) -> ChatAnswer:
        """`answer` with the line for a question in a language the library's search model cannot read (if any)."""
        hint = language_hint(question, self._embedder() if self._embedder else None)
        return replace(answer, hint=hint) if hint else answer

    def _find(self, question: str, turns: list[Turn], top_k: int, scope: Sequence[str],
              searched: Searched | None = None) -> Reranked:
        """The passages to plan with: the search's best `top_k`, or the reranker's best of a wider set; the span
        step's search when it made the same one (`searched`)."""
        if searched is not None and (kept := searched.reusable(question, top_k, scope)) is not None:
            return kept
        query, reranker = retrieval_query(question, turns), self.reranker()
        if reranker is None:
            return Reranked(self._search(query, top_k, scope))
        return rerank_results(reranker, question, self._search(query, candidates(reranker, top_k), scope), top_k)

    def _search(self, query: str, top_k: int, scope: Sequence[str]) -> list[RetrievalResult]:
        return self._retrieve(query, top_k, tuple(scope)) if scope else self._retrieve(query, top_k)

    def _quote(self, question: str, passages: Sequence[Passage]) -> Quote | None:
        selector = self.quote_selector()
        return second_look(selector, question, passages) if selector is not None else None  # gate/runner_up.py

    def _verdict(self, question: str, quote: Quote | None, found: Reranked,
                 check_model: str) -> tuple[str, float | None]:
        """Why no passage answers ("": one does) and the check model's score when `check_model` read the quote: the
        gate first, then the check, which may overrule the gate's combined step either way (gate/check.py)."""
        why = self._abstain_reason(question, quote, found)
        if quote is None or not check_model or why not in ("", COMBINED):
            return why, None
        checked = self._checker.score(check_model, quote.text, question)
        return (why, None) if checked is None else (decide(why, checked), checked)

    def _abstains(self, question: str, quote: Quote | None, found: Reranked) -> bool:
        return bool(self._abstain_reason(question, quote, found))

    def _abstain_reason(self, question: str, quote: Quote | None, found: Reranked) -> str:
        """Why no passage answers ("": one does): the cross-encoder's gate when it scored them (rerank_step.py)."""
        selector = self.quote_selector()
        if selector is None or (quote is None and found.best is None):
            return ""
        return abstain_reason(self.reranker(), found, quote, selector, question)

    def plan(self, question: str, results: list[RetrievalResult], turns: list[Turn], settings: Settings,
             runtime: ChatRuntime, grounded: bool, reserve: int, *, summary: str = "") -> PromptPlan:
        """Budget the prompt against the runtime's exact count (see Planner.plan)."""
        return self.planner.plan(question, results, turns, settings, runtime, grounded, reserve, summary=summary)

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
            summary = Summarizer(self.runtime(model_path), name=os.path.basename(name) or name, max_tokens=max_tokens,
                                 temperature=self._get_settings().temperature, on_progress=on_progress,
                                 cancel=cancel).run(texts)
        log.info("summarised %s: %d chunks, %d calls, %d rounds%s", name, summary.chunks, summary.calls,
                 summary.rounds, " (cancelled)" if summary.cancelled else "")
        return Summary(name, summary.text, summary.chunks, summary.calls, summary.rounds, summary.cancelled)

    def _chat_for(self, chat_id: int | None, question: str) -> int:
        if chat_id is None:
            return self.store.create_chat(title_for(question))
        self.store.require(chat_id)
        return chat_id

    def _finish(self, chat_id: int, question: str, outcome: Outcome, memory: ChatMemory | None) -> ChatAnswer:
        answer = shown_answer(chat_id, outcome, self.style)
        if memory is not None:
            answer = replace(answer, memory=memory.injected(outcome.plan.passages))
        # stored unstripped: replayed verbatim, it matches the tokens already in the KV cache
        self.store.add_exchange(chat_id, question, answer.raw_text, answer.citations, answer.passages, answer.text,
                                answer.quote.to_dict() if answer.quote else None)
        gen = outcome.gen
        log.info("answered in chat %d: %d tokens, %d/%d prompt tokens reused, %d passages, %d cited, quote %s%s%s",
                 chat_id, gen.tokens, gen.reused_prefix_tokens, gen.prompt_tokens, len(answer.passages),
                 len(answer.citations), f"[{answer.quote.n}]" if answer.quote else "none",
                 f", generation hidden ({answer.hidden_because})" if answer.hidden_because else "",
                 " (cancelled)" if gen.cancelled else "")
        return answer

    def _refuse(self, chat_id: int, question: str, history_turns: int, runtime: ChatRuntime,
                found: Sequence[Passage], quote: Quote | None = None, memory: ChatMemory | None = None,
                checked: float | None = None) -> ChatAnswer:
        closest = list(found[:CLOSEST])  # the passages named when no passage answers
        text = not_covered(closest) if closest else NOT_COVERED
        self.store.add_exchange(chat_id, question, text, [], list(closest))
        why = "no passage cleared min_score" if not closest else "no passage answers"
        log.info("chat %d: %s%s; answered without the model", chat_id, why,
                 "" if checked is None else f" (the check model's score: {checked:.2f})")
        return ChatAnswer(text=text, chat_id=chat_id, citations=(), passages=tuple(closest), refused=True,
                          raw_text=text, history_turns=history_turns, model=runtime.info().name, quote=quote,
                          generation_shown=False, abstained=bool(closest), check_score=checked,
                          memory=memory.injected(closest) if memory is not None else ())

    def close(self) -> None:
        """Free the model (the store belongs to the library)."""
        with self._lock:
            if self._runtime is not None:
                self._runtime.close()
                self._runtime = None
            self._checker.close()
