"""The step ChatService.ask takes before its usual path (from collection_answer.early_answer): when the question's
answer spans passages (span_question.py), find and quote as the usual path does (the same search, reranker, quote
selector and abstention gate), search once more per angle, quote from several documents (span.py) and answer with
those quotes, without the model. Otherwise None, and the usual path answers: a question of no such shape costs
nothing here; one that abstains, or where no further sentence clears the floor, is searched again by the usual path
(ChatService.ask is at its size gate, so the step sits before it rather than inside it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.quote import Quote, QuoteSelector, candidate_passages
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.answer.span import SpanAnswer, angles, choose, pool, render
from desktop_app.core.chat.answer.span_question import Shape, SpanQuestion, read_span_question
from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.log import get_logger
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

SearchResults = Callable[[str], list[RetrievalResult]]  # query -> the scoped search's results (top k, whole units)


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
                     model: str) -> ChatAnswer:
    """The span answer as the chat's answer, stored with the exchange like any other."""
    chats.add_exchange(chat_id, question, answer.text, answer.citations, answer.passages, answer.text,
                       answer.quote.to_dict())
    log.info("chat %d: answered with %d quotes from %d passages, without the model", chat_id, len(answer.quotes),
             len(answer.passages))
    return ChatAnswer(text=answer.text, chat_id=chat_id, citations=answer.citations, passages=answer.passages,
                      raw_text=answer.text, history_turns=history_turns, model=model, quote=answer.quote,
                      generation_shown=False, hidden_because="quotes from several passages")


def span_step(service: Any, chat_id: int, question: str, history_turns: int, scope: Sequence[str]
              ) -> ChatAnswer | None:
    """ChatService's span answer to `question` in chat `chat_id` (stored), or None: not such a question, no passage
    answers (the usual path refuses), or one quote is the answer. Off when `service.span_answers` is False (an
    attribute a caller sets: ChatService itself is at its size gate)."""
    read = read_span_question(question) if getattr(service, "span_answers", True) else None
    if read is None:
        return None
    asked = asked_for(question, read)
    settings = service._get_settings()
    top_k, min_score = settings.context_top_k, settings.context_min_score
    found = service._find(asked, service.store.turns(chat_id), top_k, scope)
    passages = candidate_passages(found.results, min_score)
    first = service._quote(asked, passages) if passages else None
    if first is None or service._abstains(asked, first, found):
        return None
    answer = span_answer(asked, read, first, passages, lambda q: service._search(q, top_k, scope),
                         service.quote_selector(), min_score)
    if answer is None:
        return None
    return span_chat_answer(service.store, chat_id, question, answer, history_turns, service.model_info().name)
