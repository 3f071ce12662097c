"""The rerank step's abstention with a strong reranker that reads the quote's neighbourhood (abstain_reason).

A deterministic fake stands in for the cross-encoder here (the real one: tests/integration/core/test_cross_encoder.py):
it reads only the first FIRST words of each text, as the cross-encoder reads only a passage's first pieces, and
scores a text by whether those words hold the answer's key word.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_app.core.chat.answer.gate.abstain import WINDOW_BEFORE
from desktop_app.core.chat.answer.quote.selector import EmbedderQuoteSelector, Quote
from desktop_app.core.chat.answer.rerank_step import Reranked, abstain_reason, neighbourhood
from desktop_app.core.types import RetrievalResult

FIRST = 60
QUESTION = "How many avulsions have occurred in the past 6000 years?"
ANSWER = "Over the past 6000 years, approximately 80 avulsions have occurred."
FILLER = " ".join(f"The delta's branches shifted course in period {i}." for i in range(40))  # ~280 words
LONG = f"{FILLER} {ANSWER} The Rhine now reaches the sea through several branches."
OTHER = "Huguenots settled in the Rhine-Main-Area and founded new towns there."


class FirstWords:
    """A strong reranker reading the first FIRST words of a text: 5.0 when they hold "avulsions", else -11.0."""

    strong = True
    floor = -10.25
    quote_floor = None
    window_floor: float | None = -5.0

    def __init__(self, reads_window: bool = True) -> None:
        self.reads_window = reads_window
        self.read: list[str] = []

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.read += texts
        return [5.0 if "avulsions" in " ".join(t.split()[:FIRST]) else -11.0 for t in texts]


def quote_in(content: str, sentence: str, source: str) -> Quote:
    start = content.index(sentence)
    return Quote(sentence, 1, start, start + len(sentence), 0.8, source, confidence=0.9)


def found(reranker: FirstWords, *contents: str) -> Reranked:
    results = [RetrievalResult(c, 1.0, f"/d/{i}.txt") for i, c in enumerate(contents)]
    return Reranked(results, max(reranker.score(QUESTION, contents)))


def test_the_neighbourhood_is_the_quote_and_what_follows_it_with_a_few_words_before():
    results = [RetrievalResult(OTHER, 1.0, "/d/0.txt"), RetrievalResult(LONG, 1.0, "/d/1.txt")]
    window = neighbourhood(results, quote_in(LONG, ANSWER, "/d/1.txt"))
    assert window.startswith(" ".join(FILLER.split()[-WINDOW_BEFORE:])) and window.endswith("several branches.")
    assert ANSWER in " ".join(window.split()[:FIRST])
    assert neighbourhood(results, Quote("Not in any passage.", 1, 0, 19, 0.5, "/d/1.txt")) == ""


def test_an_answer_deep_in_a_long_passage_is_not_refused_by_the_floor():
    reranker = FirstWords()
    sent = found(reranker, LONG)
    assert sent.best is not None and sent.best < reranker.floor  # the passage's first words hold no answer
    quote = quote_in(LONG, ANSWER, "/d/0.txt")
    assert not abstain_reason(reranker, sent, quote, EmbedderQuoteSelector(None, None), QUESTION)
    assert abstain_reason(FirstWords(reads_window=False), sent, quote, EmbedderQuoteSelector(None, None), QUESTION)


def test_a_quote_whose_neighbourhood_is_not_about_the_question_is_refused_over_the_floor():
    reranker = FirstWords()
    passage = f"{ANSWER} {FILLER} {OTHER}"
    sent = found(reranker, passage)  # a passage about the question was sent (over the floor) ...
    quote = quote_in(passage, OTHER, "/d/0.txt")  # ... but the quote chosen, far from its answer, is about Huguenots
    assert sent.best is not None and sent.best > reranker.floor
    assert abstain_reason(reranker, sent, quote, EmbedderQuoteSelector(None, None), QUESTION)
    reranker.window_floor = None  # without the neighbourhood's own floor, the sure quote gate answers
    assert not abstain_reason(reranker, sent, quote, EmbedderQuoteSelector(None, None), QUESTION)
