"""The chat's rerank step: the search's candidates reordered by the reranker, the top few kept, the best score kept.

The reranker and its protocol are core/search/rerank.py's (`Reranker`, `load_reranker`, `rerank`): one protocol for
search and chat. The results kept are the retrieval's own objects (their fusion scores still decide
`context_min_score`); the reranker's best score rides along for the abstention gate (core/chat/answer/gate/abstain.py),
which trusts a strong reranker's (the cross-encoder's) floor on its own. The reranker reads document passages only:
memory recalled later is context, never what the gate rests on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.chat.answer.gate.abstain import quote_window, reranked_refusal
from desktop_app.core.chat.answer.quote.default import RERANK_FLOOR
from desktop_app.core.chat.answer.quote.selector import Quote, QuoteSelector
from desktop_app.core.chat.answer.shown import abstains as quote_gate_abstains
from desktop_app.core.log import get_logger
from desktop_app.core.search.rerank import Reranker, is_strong, load_reranker, rerank
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

# Hybrid-search results the reranker reads per question. The cross-encoder reads the passages the prompt would
# hold (the settings' context_top_k, 5 by default: ~0.1-0.4 s here, bench/rerank.py --cost); the embedder's
# reranker, weaker, reads a wider set so that it can bring up what search ranked low.
CANDIDATES = 24

__all__ = ["CANDIDATES", "Reranked", "Reranker", "abstain_reason", "candidates", "chat_reranker", "default_reranker",
           "neighbourhood", "order", "rerank_results"]


@dataclass(frozen=True)
class Reranked:
    """The kept results, best first, and the reranker's score of the best one (None: no reranker ran)."""

    results: list[RetrievalResult]
    best: float | None = None


def candidates(reranker: Reranker | None, top_k: int) -> int:
    """How many search results to hand the reranker for a prompt of `top_k` passages."""
    if reranker is None:
        return top_k
    return top_k if is_strong(reranker) else max(CANDIDATES, top_k)


def chat_reranker(search_rerank: bool) -> Reranker | None:
    """The reranker chat uses by default: a strong one (the cross-encoder: the prompt's few passages, a fraction of
    a second) always, so the gate can rest on it; the embedder's only when the person turned Rerank on (it reads
    every sentence of CANDIDATES passages: seconds per question)."""
    reranker = default_reranker()
    return reranker if reranker is not None and (search_rerank or is_strong(reranker)) else None


def abstain_reason(reranker: Reranker | None, found: Reranked, quote: Quote | None, selector: QuoteSelector,
                   question: str = "") -> str:
    """Why no passage answers ("": one does). With a strong reranker's score (the cross-encoder's),
    abstain.reranked_refusal decides, the reranker reading the quote itself too (one more pair) when it has a quote
    floor; otherwise the quote gate (shown.abstains), a weak reranker's floor able to overrule it. A reranker that
    `reads_window` also reads the quote's neighbourhood (one more pair), which its floor and `window_floor` judge."""
    if found.best is not None and reranker is not None and is_strong(reranker):
        quote_floor = getattr(reranker, "quote_floor", None)
        quote_best = (reranker.score(question, [quote.text])[0]
                      if quote is not None and question and quote_floor is not None else None)
        window = (neighbourhood(found.results, quote)
                  if quote is not None and question and getattr(reranker, "reads_window", False) else "")
        window_best = reranker.score(question, [window])[0] if window else None
        why = reranked_refusal(found.best, reranker.floor, quote, quote_best=quote_best, quote_floor=quote_floor,
                               window_best=window_best, window_floor=getattr(reranker, "window_floor", None))
        if why:
            log.info("abstained: %s", why)
        return why
    rerank_floor = getattr(reranker, "floor", RERANK_FLOOR)
    no = quote_gate_abstains(quote, selector.floor, found.best, rerank_floor, getattr(selector, "min_support", 0.0))
    return "the quote gate says no passage answers" if no else ""


def neighbourhood(results: Sequence[RetrievalResult], quote: Quote) -> str:
    """The quote with its passage around it (gate/abstain.py `quote_window`), from the result it was quoted from
    ("" when none holds it)."""
    for r in results:
        if r.source != quote.source and quote.source:
            continue
        start = quote.start if r.content[quote.start:quote.end] == quote.text else r.content.find(quote.text)
        if start >= 0:
            return quote_window(r.content, start, start + len(quote.text))
    return ""


def default_reranker() -> Reranker | None:
    """core/search/rerank.py's reranker when its model loads; None otherwise (chat then keeps the search order)."""
    try:
        return load_reranker()
    except Exception as exc:  # noqa: BLE001 - a reranker that cannot load leaves chat unreranked, not broken
        log.warning("reranker unavailable (%s): chat passages keep the search order", exc)
        return None


def _key(r: RetrievalResult) -> tuple:
    return (r.source, r.content, (r.metadata or {}).get("chunk_id"))


def order(reranker: Reranker, query: str, results: Sequence[RetrievalResult], top_n: int) -> Reranked:
    """The reranker's order of `results`, the first `top_n`, as the retrieval's own objects, with the best score."""
    by_key = {_key(r): r for r in results}
    ranked = rerank(reranker, query, list(results), top_n)
    kept = [r for r in (by_key.get(_key(x)) for x in ranked) if r is not None][:top_n]
    best = max((float(x.metadata["rerank_score"]) for x in ranked if "rerank_score" in x.metadata), default=None)
    return Reranked(kept, best)


def rerank_results(reranker: Reranker | None, query: str, results: Sequence[RetrievalResult], top_n: int) -> Reranked:
    """Rerank when a reranker is given (a failure keeps the search order); otherwise the first `top_n` as found."""
    if reranker is None or not results:
        return Reranked(list(results)[:top_n])
    try:
        return order(reranker, query, results, top_n)
    except Exception as exc:  # noqa: BLE001 - the answer goes on in search order
        log.warning("rerank failed (%s): passages keep the search order", exc)
        return Reranked(list(results)[:top_n])
