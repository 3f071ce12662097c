"""The gate's second look: when the quote chosen fails the gate, the sentence the selector ranks next is judged.

On the dev split the false refusals left with the cross-encoder (#42, docs/benchmarks.md) were gate errors on a
quote that was not the answering sentence: the answering one was in the passages sent, ranked lower, and never
judged. So when the selector's first choice fails (`fails`), the gate judges its runner-up — the best-scored unit
that is not part of the first quote, scored as if the first were not a candidate (its margin over the rest) — and
the library quotes it when it passes; otherwise the first stays, and the refusal with it. Only a selector whose
ranking can be read (EmbedderQuoteSelector: `scores`, `with_kind`, `widened`) gets a second look; the gate's
confidence is computed for the runner-up exactly as for the first (quote/default.py LibraryQuoteSelector.select).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate import abstain
from desktop_app.core.chat.answer.quote.selector import Candidate, Quote, QuoteSelector, candidates, to_quote

# Which failures get a second look: "rule" (a refusal rule holds for the first quote: negated, antonym,
# number_missing) or "gate" (any confidence under the threshold, the logistic gate's too). Chosen on the dev split
# (bench/abstain_ce.py --split dev --rows, which reports every mode; 60 answerable / 60 adversarial / 60 absent):
# refused off 4 / 22 / 55, rule 3 / 21 / 55, gate 2 / 21 / 55. "rule"'s one answerable regained is quoted with its
# gold answer (the runner-up "Beginning 2007, families with incomes below $60,000 pay nothing ..."); "gate"'s second
# was quoted with a sentence that does not hold it ("How many MSPs are there?" answered with how the Presiding
# Officer is elected), so the graded gate's failures keep their refusal.
MODE = "rule"
MODES = ("off", "rule", "gate")
_OFF_SHORTLIST = -1.0  # EmbedderQuoteSelector.scores gives this to a unit its embedder did not read


def fails(quote: Quote | None, mode: str = MODE) -> bool:
    """Whether the gate refuses this quote on its own (never when no gate ran: confidence None)."""
    if quote is None or quote.confidence is None or mode == "off":
        return False
    if mode == "rule":
        return quote.confidence <= 0.0  # answer_probability is exactly 0 only when a refusal rule holds
    return quote.confidence < abstain.RERANKED_THRESHOLD


def runner_up(selector: QuoteSelector, question: str, passages: Sequence[Passage], first: Quote) -> Quote | None:
    """The unit the selector ranks next after `first` (not overlapping it), as a Quote with the gate's confidence;
    None when the selector's ranking cannot be read or nothing else was scored."""
    scores, with_kind, widened = (getattr(selector, a, None) for a in ("scores", "with_kind", "widened"))
    if scores is None or with_kind is None or widened is None:
        return None
    found = candidates(passages)
    scored = scores(question, found)
    chosen = with_kind(question, found, scored)
    order = sorted(range(len(found)), key=lambda i: (-chosen[i], i))
    for j in order:
        if scored[j] <= _OFF_SHORTLIST:
            return None  # the rest were not read by the embedder: no fair second
        if _inside(found[j], first):
            continue  # the first quote itself, or a unit it was widened over
        rest = [scored[k] for k in range(len(found)) if k != j and not _inside(found[k], first)]
        unit = widened(question, found, j)
        unit = found[j] if _inside(unit, first) else unit  # widened over the first quote: the unit alone
        quote = to_quote(unit, scored[j], getattr(selector, "name", ""))
        quote = replace(quote, support=getattr(selector, "support", 1.0),
                        margin=scored[j] - max(rest, default=scored[j]))
        return replace(quote, confidence=abstain.answer_probability(abstain.signals(question, quote, passages)))
    return None


def _inside(c: Candidate, quote: Quote) -> bool:
    """Whether unit `c` overlaps the quote's span of its passage."""
    return c.passage.n == quote.n and c.start < quote.end and quote.start < c.end


def second_look(selector: QuoteSelector, question: str, passages: Sequence[Passage], mode: str = MODE) -> Quote | None:
    """The selector's quote; its runner-up instead when the first fails the gate (`fails`) and the runner-up passes."""
    first = selector.select(question, passages)
    if first is None or not fails(first, mode):
        return first
    return preferred(first, runner_up(selector, question, passages, first), mode)


def preferred(first: Quote | None, second: Quote | None, mode: str = MODE) -> Quote | None:
    """The quote shown: the runner-up when the first fails the gate (`fails`, per `mode`) and the runner-up passes
    it whole; else the first (and its refusal)."""
    if first is not None and second is not None and fails(first, mode) and not fails(second, "gate"):
        return second
    return first
