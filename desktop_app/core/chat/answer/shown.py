"""What the person is shown: the quote, the model's answer, or that the documents do not cover the question.

Pure functions. The rules (measured with bench/qa.py on the dev questions, see the README):

* the quote is the answer, and the model's answer waits behind "Show the model's answer", when the model is
  small (a GGUF file under `SMALL_MODEL_BYTES`: SmolLM2-135M's answers contained the gold answer less often
  than the quote did) or when the model's answer shares no run of words with any passage it was sent;
* when the quote does not answer (the abstention gate's confidence under abstain.THRESHOLD, or without a gate the
  selector's score under its floor), and the reranker (when one is loaded) also scores every passage under its
  floor, no passage answers: the documents do not cover it, and the closest passages are named.

A larger model (Qwen2.5-Coder-0.5B, 491 MB) gets its answer shown *beside* the quote, never instead of it: the
text shown (`ChatAnswer.text`, what `trove ask` prints and the chat pane renders) is the cited quote, then the
model's answer, with its markers verified by attribution (verify.py). The quote stays first because it cannot
invent and the shown text can only gain a gold answer by adding the generation, never lose the quote's; the
generation is kept because the 0.5B model's own answers held the gold answer about half the time on held-out
questions, often where the quote's sentence did not (and the person sees both).

The model's answer also waits behind the quote when, once its markers are verified, it cites only passages other
than the quote's: on the dev questions 20 of 150 shown answers did, and 19 of those second passages lacked the
answer (the model had copied a sentence on another topic; bench/results/qa_dev_qwen.json). It cites the quote's
passage with another, or nothing, and it is shown. Held-out (a replay of the recorded answers): citation precision
0.859 -> 0.961, shown answer holding the gold one 0.770 -> 0.760.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.abstain import THRESHOLD
from desktop_app.core.chat.answer.gate.attribution import longest_common_run
from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.models.files import ModelInfo
from desktop_app.core.text.fields import units
from desktop_app.core.text.normalize import normalize
from desktop_app.core.types import ChatBackend

SMALL_MODEL_BYTES = 300 * 1024 * 1024  # SmolLM2-135M (~100 MB) is under it; Qwen2.5-0.5B Q4_K_M (491 MB) is not
SUPPORT_RUN = 3  # tokens in a row shared with a passage ("Dr Mira Quell"): an answer copying no such run invented it
CLOSEST = 3  # passages named when the documents do not cover a question


def is_small(info: ModelInfo) -> bool:
    """A local model file smaller than SMALL_MODEL_BYTES (a server model, size unknown, is not small)."""
    return info.backend != ChatBackend.OPENAI and 0 < info.size_bytes < SMALL_MODEL_BYTES


def tokens(text: str) -> list[str]:
    """The text pipeline's tokens in text order (any script: Thai and Chinese words as ICU cuts them)."""
    return [token for field, token, _, _ in units(normalize(text).text) if field != "grams"]


def supported(generation: str, passages: Sequence[Passage], run: int = SUPPORT_RUN) -> bool:
    """Whether the model's answer copies at least `run` tokens in a row from one of the passages."""
    answer = tokens(generation)
    if len(answer) < run:
        run = max(1, len(answer))
    return bool(answer) and any(longest_common_run(answer, tokens(p.content)) >= run for p in passages)


def hide_reason(info: ModelInfo, generation: str, passages: Sequence[Passage], quote_n: int | None = None,
                cited: Collection[int] = ()) -> str:
    """Why the model's answer should be hidden behind the quote ("" when it may be shown). `cited` are the
    passages the model's verified answer cites, `quote_n` the quote's: an answer citing only other passages
    than the quote's is about something else than the sentence that answers."""
    if is_small(info):
        return "small model"
    if passages and not supported(generation, passages):
        return "not supported by a passage"
    if quote_n is not None and cited and quote_n not in cited:
        return "cites another passage than the quote's"
    return ""


def quote_answer(quote: Quote) -> str:
    """The quote as the answer: the sentence, verbatim, and its citation."""
    return quote.cited()


def not_covered(closest: Sequence[Passage], limit: int = CLOSEST) -> str:
    """The documents do not cover it; the closest passages named, so the person can look for themselves."""
    if not closest:
        return NOT_COVERED
    named = "; ".join(p.label for p in closest[:limit])
    return f"{NOT_COVERED} The closest passages: {named}."


def quote_answers(quote: Quote | None, quote_floor: float, min_support: float = 0.0) -> bool:
    """Whether the quote answers: the gate's confidence at or over abstain.THRESHOLD when the selector ran the
    gate (abstain.py); otherwise its score at or over the selector's floor with enough of the question's terms."""
    if quote is None:
        return False
    if quote.confidence is not None:
        return quote.confidence >= THRESHOLD
    return quote.score >= quote_floor and quote.support >= min_support


def abstains(quote: Quote | None, quote_floor: float, rerank_best: float | None, rerank_floor: float,
             min_support: float = 0.0) -> bool:
    """No passage answers: the quote does not (`quote_answers`), and (when a reranker scored the passages) every
    passage is under the reranker's floor too."""
    if quote_answers(quote, quote_floor, min_support):
        return False
    return rerank_best is None or rerank_best < rerank_floor
