"""Turning a generation, a quote and the passages sent into the ChatAnswer the person is shown. Pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.chat.answer.budget import PromptPlan
from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.attribution import attribute
from desktop_app.core.chat.answer.gate.citations import Citation, drop_dangling_markers, resolve_citations
from desktop_app.core.chat.answer.gate.verify import verify_markers
from desktop_app.core.chat.answer.prompt import PromptStyle, strip_echoed_label
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.answer.shown import hide_reason, quote_answer
from desktop_app.core.chat.models.files import ModelInfo
from desktop_app.core.chat.runtime.base import Generation


def cite(raw: str, passages: Sequence[Passage], style: PromptStyle) -> tuple[str, list[Citation]]:
    """The model's answer as shown, and its citations: markers naming no passage dropped, an echoed passage label
    removed, markers the sentence's words do not support moved or dropped (verify.py), and (when the style says
    so) an uncited answer attributed to the passages it copies."""
    text = drop_dangling_markers(strip_echoed_label(raw).strip(), {p.n for p in passages})
    text = verify_markers(text, passages)
    citations = resolve_citations(text, passages)
    if not citations and passages and style.attribute:
        text = attribute(text, passages).text
        citations = resolve_citations(text, passages)
    return text, citations


def merged(first: Sequence[Citation], then: Sequence[Citation]) -> tuple[Citation, ...]:
    """Citations of both, in order, each passage once."""
    seen: dict[int, Citation] = {}
    for c in (*first, *then):
        seen.setdefault(c.n, c)
    return tuple(seen.values())


@dataclass(frozen=True)
class Outcome:
    """What the service knows once the model has answered (or was stopped)."""

    plan: PromptPlan
    gen: Generation
    info: ModelInfo
    quote: Quote | None
    quote_s: float | None
    show_generation: bool | None  # None: decide (small model, unsupported answer); True/False: the caller's choice


def shown_answer(chat_id: int, outcome: Outcome, style: PromptStyle) -> ChatAnswer:
    """The answer as the person sees it: the quote first; the model's answer after it unless hidden."""
    plan, gen, quote = outcome.plan, outcome.gen, outcome.quote
    generation, gen_citations = cite(gen.text, plan.passages, style)
    reason = ""
    if quote is not None:
        reason = hide_reason(outcome.info, generation, plan.passages, quote.n, {c.n for c in gen_citations})
        if outcome.show_generation is not None:
            reason = "" if outcome.show_generation else "asked to"
    if quote is None:
        text, citations = generation, tuple(gen_citations)
    else:
        quoted = quote_answer(quote)
        q_cites = resolve_citations(quoted, plan.passages)
        text = quoted if reason or not generation else f"{quoted}\n\n{generation}"
        citations = merged(q_cites, () if reason else gen_citations)
    return ChatAnswer(
        text=text, chat_id=chat_id, citations=citations, passages=plan.passages, cancelled=gen.cancelled,
        raw_text=gen.text, prompt_tokens=gen.prompt_tokens, completion_tokens=gen.tokens,
        reused_prefix_tokens=gen.reused_prefix_tokens, history_turns=plan.history_turns, ttft_s=gen.ttft_s,
        total_s=gen.total_s, model=outcome.info.name, quote=quote, generation=generation,
        generation_shown=not reason, hidden_because=reason, generation_citations=tuple(gen_citations),
        quote_s=outcome.quote_s,
    )
