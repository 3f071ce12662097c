"""The step ChatService.ask takes before its usual path (from collection_answer.early_answer): when the question's
answer spans passages (span_question.py), find and quote as the usual path does (the same search, reranker, quote
selector and abstention gate), search once more per angle, quote from several documents (span.py) and answer with
those quotes; a larger model also writes prose over them, above them (span_prose.py). Otherwise None, and the
usual path answers: a question of no such shape costs nothing here; one that abstains, or where no further sentence
clears the floor, is not searched again: the step returns its search (`Searched`) and ChatService._find takes it
instead of searching the same question once more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import resolve_citations
from desktop_app.core.chat.answer.quote.selector import Quote, QuoteSelector, candidate_passages
from desktop_app.core.chat.answer.rerank_step import Reranked
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.answer.shown import is_small
from desktop_app.core.chat.answer.span.compose import SpanAnswer, angles, choose, pool, render
from desktop_app.core.chat.answer.span.prose import SETTINGS_MODEL, AskModel, Prose, write_prose
from desktop_app.core.chat.answer.span.question import Shape, SpanQuestion, read_span_question
from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.log import get_logger
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

SEVERAL = "quotes from several passages"  # why no prose is shown: the model is small, the quotes are the answer
SearchResults = Callable[[str], list[RetrievalResult]]  # query -> the scoped search's results (top k, whole units)


@dataclass(frozen=True)
class Searched:
    """The span step's search of a question that falls through to the usual path, handed over so the question is
    not searched again. A topic question's search was of its topic (`asked_for`): the usual path then quotes and
    gates the question over it."""

    question: str
    top_k: int
    scope: tuple[str, ...]
    found: Reranked

    def reusable(self, question: str, top_k: int, scope: Sequence[str]) -> Reranked | None:
        """The search, when the usual path would make the same one (same question, top k and scope), else None."""
        return self.found if (self.question, self.top_k, self.scope) == (question, top_k, tuple(scope)) else None


def span_answer(question: str, read: SpanQuestion, first: Quote | None, found: Sequence[Passage],
                search: SearchResults, selector: QuoteSelector | None, min_score: float) -> SpanAnswer | None:
    """The quotes from several passages that answer `question` (read as `read`), or None when one quote is the
    answer."""
    if first is None or selector is None:
        return None
    more = [candidate_passages(search(query), min_score) for _, query in angles(question, read, first)]
    passages = pool(found, more)
    picks = choose(question, read, first, passages, selector)
    if len(picks) < 2:
        return None
    return render(picks, first)


def asked_for(question: str, read: SpanQuestion) -> str:
    """What is searched, quoted and gated for: a topic question's topic ("search" for "What do my documents say
    about search?": the rest names the library, not what is asked about), else the question."""
    return read.topic if read.shape is Shape.ABOUT and read.topic else question


def span_chat_answer(chats: ChatSessions, chat_id: int, question: str, answer: SpanAnswer, history_turns: int,
                     model: str, prose: Prose | None = None) -> ChatAnswer:
    """The span answer as the chat's answer (the prose above the quotes when any sentence of it rests on a quote),
    stored with the exchange like any other."""
    shown = prose is not None and bool(prose.text)
    text = f"{prose.text}\n\n{answer.text}" if prose is not None and shown else answer.text
    chats.add_exchange(chat_id, question, text, answer.citations, answer.passages, text, answer.quote.to_dict())
    log.info("chat %d: answered with %d quotes from %d passages, %s", chat_id, len(answer.quotes),
             len(answer.passages), "without the model" if prose is None else
             f"the model's prose {'shown' if shown else 'hidden'} ({prose.dropped} sentences resting on no quote)")
    if prose is None:
        return ChatAnswer(text=text, chat_id=chat_id, citations=answer.citations, passages=answer.passages,
                          raw_text=text, history_turns=history_turns, model=model, quote=answer.quote,
                          generation_shown=False, hidden_because=SEVERAL, several=True)
    gen = prose.gen
    return ChatAnswer(text=text, chat_id=chat_id, citations=answer.citations, passages=answer.passages,
                      cancelled=gen.cancelled, raw_text=gen.text, prompt_tokens=gen.prompt_tokens,
                      completion_tokens=gen.tokens, history_turns=history_turns, ttft_s=gen.ttft_s,
                      total_s=gen.total_s, model=model, quote=answer.quote, generation=prose.generation,
                      generation_shown=shown, hidden_because="" if shown else "not supported by a passage",
                      generation_citations=tuple(resolve_citations(prose.text, answer.passages)), several=True)


def span_step(service: Any, chat_id: int, question: str, history_turns: int, scope: Sequence[str],
              model: AskModel = SETTINGS_MODEL) -> ChatAnswer | Searched | None:
    """ChatService's span answer to `question` in chat `chat_id` (stored); else the step's search for the usual path
    (no passage answers: the usual path refuses; or one quote is the answer); None when it is not such a question.
    Off when `service.span_answers` is False (an attribute a caller sets). `model` is the ask's: with a larger model
    than the bundled one, it writes prose over the quotes."""
    read = read_span_question(question) if getattr(service, "span_answers", True) else None
    if read is None:
        return None
    asked = asked_for(question, read)
    settings = service._get_settings()
    top_k, min_score = settings.context_top_k, settings.context_min_score
    found = service._find(asked, service.store.turns(chat_id), top_k, scope)
    passages = candidate_passages(found.results, min_score)
    first = service._quote(asked, passages) if passages else None
    answer = None
    if first is not None and not service._abstains(asked, first, found):
        answer = span_answer(asked, read, first, passages, lambda q: service._search(q, top_k, scope),
                             service.quote_selector(), min_score)
    if answer is None:
        return Searched(question, top_k, tuple(scope), found)  # the usual path answers from this search
    runtime = service.runtime(model.model_path)
    prose = None if is_small(runtime.info()) else write_prose(
        runtime, question, answer, max_tokens=model.max_tokens or settings.answer_reserve_tokens,
        temperature=settings.temperature, cancel=model.cancel)
    return span_chat_answer(service.store, chat_id, question, answer, history_turns, runtime.info().name, prose)
