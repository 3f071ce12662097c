"""The quoted passage goes to the model with its context (up to QUOTE_CONTEXT_TOKENS), the others with only the
question's focus window: the passage an answer cites must still hold the stretch around the quote
(planning.anchor_quote, budget._pick_passages). Word counter as tokenizer."""

from __future__ import annotations

from desktop_app.core.chat.answer.budget import BudgetConfig, plan_prompt
from desktop_app.core.chat.answer.planning import QUOTE_CONTEXT_TOKENS, anchor_quote
from desktop_app.core.chat.answer.prompt import DEFAULT_STYLE
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.types import RetrievalResult


def words(text: str) -> int:
    return len(text.split())


def long_chunk(topic: str, sentences: int) -> str:
    """`sentences` ten-word sentences about `topic`, numbered so a stretch can be told from another."""
    return " ".join(f"Sentence {i} tells about the {topic} and little else here." for i in range(sentences))


QUOTE_TEXT = "The pangolin keeps its scales at night, says the keeper."


def results() -> list[RetrievalResult]:
    other = long_chunk("pangolin", 40)  # 400 words: over the focus window
    quoted = long_chunk("burrow", 20) + " " + QUOTE_TEXT + " " + long_chunk("gravel", 20)
    return [RetrievalResult(other, 0.9, "/docs/a.txt", {"chunk_id": 1, "page": None}),
            RetrievalResult(quoted, 0.8, "/docs/b.txt", {"chunk_id": 2, "page": 3})]


def plan(found):
    return plan_prompt("Where does the pangolin keep its scales?", found, [], BudgetConfig(max_context_tokens=3000),
                       words, style=DEFAULT_STYLE)


def test_the_quoted_passage_keeps_its_context_and_the_others_their_focus_window():
    found = results()
    start = found[1].content.index(QUOTE_TEXT)
    quote = Quote(QUOTE_TEXT, n=2, start=start, end=start + len(QUOTE_TEXT), score=0.9, source="/docs/b.txt", page=3)
    sent = {p.source: p for p in plan(anchor_quote(found, quote, DEFAULT_STYLE, words)).passages}
    assert set(sent) == {"/docs/a.txt", "/docs/b.txt"}
    assert words(sent["/docs/a.txt"].content) <= DEFAULT_STYLE.focus_tokens + 2  # +2: the ellipsis marks
    quoted = sent["/docs/b.txt"].content
    assert QUOTE_TEXT in quoted and quoted.strip("… ") in found[1].content  # a verbatim stretch around the quote
    assert DEFAULT_STYLE.focus_tokens < words(quoted) <= QUOTE_CONTEXT_TOKENS + 2
    assert "Sentence 19 tells about the burrow" in quoted and "Sentence 0 tells about the gravel" in quoted


def test_without_a_quote_every_passage_gets_the_focus_window():
    sent = plan(anchor_quote(results(), None, DEFAULT_STYLE, words)).passages
    assert len(sent) == 2 and all(words(p.content) <= DEFAULT_STYLE.focus_tokens + 2 for p in sent)
