"""One token budget for a whole prompt: system prompt + passages + history + question + answer reserve ≤ n_ctx.

Pure functions. Layout, chosen so follow-ups can reuse the model's KV cache:

    system (constant) · the style's worked example, if any (constant) · earlier turns as plain
    question/answer pairs · [passages + question]

The retrieved passages ride in the newest user message only, so the prefix a follow-up shares with
the previous prompt (system + the older turns) stays byte-identical. When history outgrows the
window it is compacted in one step (at ~80 % of n_ctx, down to ~60 %), so the prefix then stays stable
again for several turns instead of shifting on every question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from desktop_app.core.chat.answer.context import CountTokens, Message, Passage, select_passages, truncate_to_tokens
from desktop_app.core.chat.answer.focus import NON_LATIN, focus
from desktop_app.core.chat.answer.prompt import (
    DEFAULT_STYLE,
    LEGACY_HEADER,
    NOT_COVERED,
    PLAIN_SYSTEM_PROMPT,
    PromptStyle,
    get_style,
    with_summary,
)
from desktop_app.core.chat.answer.script_cost import cost_scale
from desktop_app.core.errors import KnownError
from desktop_app.core.types import RetrievalResult, Turn

GROUNDED_SYSTEM_PROMPT = DEFAULT_STYLE.system
CONTEXT_HEADER = LEGACY_HEADER
__all__ = [
    "CONTEXT_HEADER",
    "GROUNDED_SYSTEM_PROMPT",
    "NOT_COVERED",
    "PLAIN_SYSTEM_PROMPT",
    "BudgetConfig",
    "PromptPlan",
    "plan_prompt",
    "retrieval_query",
    "user_message",
    "window_start",
]
MIN_QUESTION_TOKENS = 16
FIRST_WINDOW = 3.0  # the best passage's focus window in another script than Latin, in the style's windows
LATER_WINDOW = 0.5  # every other passage's (dev: 3 / 0.5 beside 2 / 1, 3 / 1, 4 / 1, 3 / 0.75; focus_window)
ANCHORED = "anchored"  # metadata key: the chunk the quote comes from, already focused on the quote (planning.py)


@dataclass(frozen=True)
class BudgetConfig:
    """The numbers the budget works with (from Settings; the overheads from the chat template)."""

    n_ctx: int = 4096
    answer_reserve: int = 512
    max_context_tokens: int = 2048
    min_score: float = 0.1
    compact_at: float = 0.8
    compact_to: float = 0.6
    history_share: float = 0.25  # room kept for the newest turns even when passages could fill the window
    message_overhead: int = 8  # template tokens around one message (ChatML uses 5)
    prompt_overhead: int = 8  # the generation prompt, e.g. "<|im_start|>assistant\n"


@dataclass(frozen=True)
class PromptPlan:
    """The messages to send and what went into them."""

    messages: tuple[Message, ...]
    passages: tuple[Passage, ...]
    history_start: int  # index of the first earlier turn kept; the ones before were compacted away
    history_turns: int
    estimated_tokens: int  # prompt only; the answer reserve comes on top
    question_truncated: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def user_message(question: str, passages: Sequence[Passage], style: PromptStyle = DEFAULT_STYLE) -> str:
    """The newest user message: the passages (if any) then the question, worded by `style`."""
    return style.user_message(question, passages)


def retrieval_query(question: str, turns: Sequence[Turn], previous: int = 1) -> str:
    """What to search for: the question with the last user turn(s), so "and the second one?" finds passages."""
    recent = [t.question for t in turns[-previous:]] if previous > 0 else []
    return " ".join([*recent, question]).strip()


def window_start(costs: Sequence[int], high: int, low: int) -> int:
    """Index of the first turn to keep so the kept turns cost at most `high`.

    Turns are added oldest first; whenever the running total passes `high`, the oldest are dropped
    until it is at most `low`. Appending a turn that does not cross `high` never moves the start,
    which is what keeps the cached prompt prefix valid between follow-ups.
    """
    low = min(low, high)
    start, total = 0, 0
    for i, cost in enumerate(costs):
        total += cost
        if total > high:
            while start <= i and total > low:
                total -= costs[start]
                start += 1
    return start


def newest_fitting(costs: Sequence[int], room: int) -> int:
    """What the newest turns that fit together in `room` cost (the history kept even beside long passages)."""
    total = 0
    for cost in reversed(costs):
        if total + cost > room:
            break
        total += cost
    return total


def passages_cost_scale(results: Sequence[RetrievalResult], count_tokens: CountTokens) -> float:
    """How many times English's tokens per word the retrieved passages cost (script_cost): max_context_tokens
    holds as many words of Thai or Arabic as of English, as far as the window allows."""
    text = "\n".join(r.content for r in results)
    return 1.0 if text.isascii() else cost_scale(text, count_tokens(text))


def focus_window(tokens: int, rank: int, text: str) -> int:
    """The focus window of the passage at `rank` (0: the search's best) of the style's `tokens`: for text in
    another script than Latin, FIRST_WINDOW times it for the best passage and LATER_WINDOW times it for the rest;
    Latin-script text keeps the window English was tuned with. Such a window holds as many words as an English one
    (script_cost), but the question's words locate the answer less well there (no stop list, no stems for Thai
    and Chinese), and the best passage holds it far more often than the others (XQuAD dev, 177 questions per
    language: 0.92-0.98 of the answers found were in the first passage): spent on fewer, wider windows, the
    same prompt holds it more often (sent th 0.82 -> 0.94, zh 0.84 -> 0.97, ar 0.80 -> 0.87; bench/qa_ceiling.py)."""
    if not NON_LATIN.search(text):
        return tokens
    return int(tokens * (FIRST_WINDOW if rank == 0 else LATER_WINDOW))


def _fit_question(question: str, room: int, count_tokens: CountTokens) -> tuple[str, bool]:
    if count_tokens(question) <= room:
        return question, False
    if room < MIN_QUESTION_TOKENS:
        raise KnownError(
            f"The chat context window is too small: only {max(room, 0)} tokens are left for the question "
            "after the system prompt and the answer reserve. Raise n_ctx or lower answer_reserve_tokens."
        )
    return truncate_to_tokens(question, room, count_tokens), True


def _prefix_messages(style: PromptStyle, system_prompt: str | None, summary: str) -> list[Message]:
    """The constant start of every prompt: the system message (with the summary) and the style's example."""
    prefix: list[Message] = [{"role": "system", "content": with_summary(system_prompt or style.system, summary)}]
    if system_prompt is None:
        prefix += style.example_messages()
    return prefix


def _pick_passages(question: str, results: Sequence[RetrievalResult], style: PromptStyle, min_score: float,
                   room: int, count_tokens: CountTokens, *, grounded: bool) -> list[Passage]:
    """The passages that fit in `room` tokens (focused on the question first when the style asks for it; a
    passage already focused on the quote, `ANCHORED`, is left as it is)."""
    if room <= 0:
        return []
    if style.focus_tokens and grounded:
        results = [r if r.metadata.get(ANCHORED) else
                   replace(r, content=focus(question, r.content, focus_window(style.focus_tokens, i, r.content),
                                            count_tokens)) for i, r in enumerate(results)]
    return select_passages(results, min_score=min_score, budget_tokens=room, count_tokens=count_tokens,
                           format_one=style.format_passage)


def plan_prompt(
    question: str,
    results: Sequence[RetrievalResult],
    turns: Sequence[Turn],
    cfg: BudgetConfig,
    count_tokens: CountTokens,
    *,
    system_prompt: str | None = None,
    style: PromptStyle | str | None = None,
    summary: str = "",
) -> PromptPlan:
    """Choose passages and history so the prompt plus the answer reserve fits n_ctx.

    Priority: system prompt, worked example and question; the newest turns that fit in `history_share` of the
    window; the passages (up to max_context_tokens); then older turns as far as the compaction window allows.
    A `system_prompt` given without a style means an ungrounded chat: no example, no passages' wording.
    `summary` (of turns compacted earlier) rides in the system message.
    """
    style = get_style(style)
    prefix = _prefix_messages(style, system_prompt, summary)
    mo = cfg.message_overhead
    base = sum(count_tokens(m["content"]) + mo for m in prefix) + cfg.prompt_overhead + cfg.answer_reserve
    header = count_tokens(style.user_message("", [Passage(0, "", "")])) + 2  # the wording around passages + question
    question, truncated = _fit_question(question, cfg.n_ctx - base - mo - header, count_tokens)
    q_cost = count_tokens(question) + mo
    costs = [count_tokens(t.question) + count_tokens(t.answer) + 2 * mo for t in turns]
    floor = newest_fitting(costs, int(cfg.history_share * cfg.n_ctx))
    passage_room = min(int(cfg.max_context_tokens * passages_cost_scale(results, count_tokens)),
                       cfg.n_ctx - base - q_cost - header - floor)
    passages = _pick_passages(question, results, style, cfg.min_score, passage_room, count_tokens,
                              grounded=system_prompt is None)
    last = style.user_message(question, passages)
    fixed = base + count_tokens(last) + mo
    hard = cfg.n_ctx - fixed
    high = min(hard, max(int(cfg.compact_at * cfg.n_ctx) - fixed, floor))
    start = window_start(costs, high, max(int(cfg.compact_to * cfg.n_ctx) - fixed, floor))
    messages = list(prefix)
    for t in turns[start:]:
        messages += [{"role": "user", "content": t.question}, {"role": "assistant", "content": t.answer}]
    messages.append({"role": "user", "content": last})
    notes = (f"compacted: {start} earlier turn(s) left out",) if start else ()
    return PromptPlan(
        messages=tuple(messages),
        passages=tuple(passages),
        history_start=start,
        history_turns=len(turns) - start,
        estimated_tokens=fixed - cfg.answer_reserve + sum(costs[start:]),
        question_truncated=truncated,
        notes=notes,
    )
