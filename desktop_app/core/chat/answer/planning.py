"""Planning one prompt against the real runtime: budget, check with the exact token count, compact old turns.

Split from ChatService so the service stays the pipeline's outline. `Planner` holds the prompt style.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from desktop_app.core.chat.answer.budget import ANCHORED, BudgetConfig, PromptPlan, plan_prompt
from desktop_app.core.chat.answer.context import CountTokens
from desktop_app.core.chat.answer.focus import focus
from desktop_app.core.chat.answer.prompt import PLAIN_SYSTEM_PROMPT, PromptStyle
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.compaction import compact
from desktop_app.core.chat.runtime.base import ChatRuntime
from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.errors import BugError
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings
from desktop_app.core.types import RetrievalResult, Turn

log = get_logger("chat")

PLAN_ATTEMPTS = 3
SUMMARY_MAX_TOKENS = 384  # the summary of compacted turns (at most an eighth of the window)
QUOTE_CONTEXT_TOKENS = 512  # the quoted passage's stretch (dev: 96 tokens 0.886 cited right, 256 0.929, 512 0.957)


def anchor_quote(results: Sequence[RetrievalResult], quote: Quote | None, style: PromptStyle,
                 count_tokens: CountTokens) -> list[RetrievalResult]:
    """`results` with the quoted chunk focused on the quote itself, so the stretch sent still holds it (the
    question's own focus would otherwise be free to cut it out), and with room for its context: up to
    QUOTE_CONTEXT_TOKENS (most chunks whole) instead of the style's focus window. The quoted passage is the one
    the answer cites; sent as a 96-token window, it lacked the gold answer whenever the quote was one sentence
    off (dev, bench/qa.py: citation precision 0.886, the quoted chunks whole 0.964). Marked `anchored` so the
    question's focus (budget.py) leaves it as it is."""
    out = list(results)
    if quote is None or not style.focus_tokens:
        return out
    for i, r in enumerate(out):
        if r.source == quote.source and quote.text in r.content:
            room = max(style.focus_tokens, QUOTE_CONTEXT_TOKENS)
            out[i] = replace(r, content=focus(quote.text, r.content, room, count_tokens),
                             metadata={**r.metadata, ANCHORED: True})
            break
    return out


class HistoryMemory(Protocol):
    """Conversation memory as compaction uses it (core/chat/memory_step.ChatMemory): the fact list and recalled
    context for the system prompt, turns saved before they are summarised, and what is recalled once they are."""

    @property
    def system_text(self) -> str: ...

    def save(self, turns: Sequence[Turn], first_turn: int) -> None: ...

    def recall_after(self, results: Sequence[RetrievalResult], visible_from: int) -> list[RetrievalResult]: ...


class Planner:
    """Fits system prompt, example, history, passages and question into the runtime's window."""

    def __init__(self, style: PromptStyle) -> None:
        self.style = style

    def plan(
        self,
        question: str,
        results: Sequence[RetrievalResult],
        turns: Sequence[Turn],
        settings: Settings,
        runtime: ChatRuntime,
        grounded: bool,
        reserve: int,
        *,
        summary: str = "",
        facts: str = "",
    ) -> PromptPlan:
        """Budget the prompt, then check it with the runtime's exact count and tighten if the estimate was short.
        `facts` (memory's fact list and recalled context) ride in the system prompt."""
        per_message, generation = runtime.overheads()
        n_ctx = runtime.n_ctx
        system = None if grounded else PLAIN_SYSTEM_PROMPT
        style = self.style
        if facts:
            style = replace(style, system=f"{style.system}\n\n{facts}")
            system = f"{system}\n\n{facts}" if system else None
        exact = 0
        for _ in range(PLAN_ATTEMPTS):
            cfg = BudgetConfig(n_ctx=n_ctx, answer_reserve=reserve, max_context_tokens=settings.max_context_tokens,
                               min_score=settings.context_min_score, message_overhead=per_message,
                               prompt_overhead=generation)
            plan = plan_prompt(question, results, turns, cfg, runtime.count_tokens, system_prompt=system,
                               style=style, summary=summary)
            exact = runtime.prompt_tokens(plan.messages)
            over = exact + reserve - runtime.n_ctx
            if over <= 0:
                return plan
            log.info("prompt estimate was %d tokens short; tightening", over)
            n_ctx -= over + 8
        raise BugError(f"could not fit the prompt in n_ctx={runtime.n_ctx} (last try {exact} + {reserve} tokens)")

    def with_history(
        self,
        store: ChatSessions,
        chat_id: int,
        question: str,
        results: Sequence[RetrievalResult],
        turns: list[Turn],
        settings: Settings,
        runtime: ChatRuntime,
        grounded: bool,
        reserve: int,
        memory: HistoryMemory | None = None,
    ) -> PromptPlan:
        """Plan with the turns since the last compaction; when they outgrow the window, save the oldest of them to
        `memory` (verbatim), summarise them into the chat's summary (stored) instead of dropping them, recall, and
        plan again."""
        covered, summary = store.summary(chat_id)
        covered = min(covered, len(turns))
        facts = memory.system_text if memory is not None else ""
        plan = self.plan(question, results, turns[covered:], settings, runtime, grounded, reserve, summary=summary,
                         facts=facts)
        if plan.history_start == 0:
            return plan
        if memory is not None:
            memory.save(turns[covered : covered + plan.history_start], covered + 1)
        limit = max(32, min(SUMMARY_MAX_TOKENS, runtime.n_ctx // 8))
        summary = compact(turns[covered : covered + plan.history_start], summary, runtime, limit)
        covered += plan.history_start
        store.add_summary(chat_id, covered, summary)
        log.info("chat %d: compacted %d turns into a %d-token summary", chat_id, covered, runtime.count_tokens(summary))
        if memory is not None:
            results = memory.recall_after(results, covered + 1)
            facts = memory.system_text  # with the excerpts of the turns just saved, when they are recalled
        return self.plan(question, results, turns[covered:], settings, runtime, grounded, reserve, summary=summary,
                         facts=facts)
