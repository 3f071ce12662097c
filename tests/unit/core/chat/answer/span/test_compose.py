"""Quotes from several passages (span/compose.py): pooling, the list a quote heads, grouping and numbering, verbatim
text.

The selector here scores by keyword overlap alone (EmbedderQuoteSelector without an embedder: the same class chat
falls back to when no embedder loads); tests/integration/chat/test_span_answers.py runs the real MiniLM one.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.quote.selector import Candidate, EmbedderQuoteSelector, Quote, candidates
from desktop_app.core.chat.answer.span.compose import Pick, bullet, choose, list_run, pool, render, shown
from desktop_app.core.chat.answer.span.question import read_span_question

SHORTCUTS = ("Trove keyboard shortcuts\n========================\n\nCtrl+F or Ctrl+K   Focus the search bar\n"
             "Esc                Clear the search bar\nCtrl+N             Start a new chat\n\nTips\n----\n"
             "* Double-clicking a result also opens it.\n")


def quote_of(passage: Passage, text: str, score: float = 1.0) -> Quote:
    start = passage.content.index(text)
    return Quote(text=text, n=passage.n, start=start, end=start + len(text), score=score, source=passage.source)


def test_pool_keeps_each_chunk_once_and_numbers_in_order():
    a = Passage(3, "alpha", "/a.txt", chunk_id=1)
    b = Passage(1, "beta", "/b.txt", chunk_id=2)
    again = Passage(2, "alpha", "/a.txt", chunk_id=1)
    out = pool([a], [[again, b], [b]])
    assert [(p.n, p.source) for p in out] == [(1, "/a.txt"), (2, "/b.txt")]


def test_the_list_a_heading_quote_heads_is_every_row_up_to_the_next_heading():
    p = Passage(1, SHORTCUTS, "/k.txt")
    heading = "Trove keyboard shortcuts\n========================"
    run = list_run(Candidate(p, 0, 0, len(heading)))
    assert [" ".join(c.text.split()) for c in run] == [
        "Ctrl+F or Ctrl+K Focus the search bar", "Esc Clear the search bar", "Ctrl+N Start a new chat"]


def test_a_quote_inside_a_list_brings_its_neighbours_not_itself():
    p = Passage(1, SHORTCUTS, "/k.txt")
    at = SHORTCUTS.index("Esc")
    run = list_run(Candidate(p, 0, at, SHORTCUTS.index("\n", at)))
    assert [c.text.split()[0] for c in run] == ["Ctrl+F", "Ctrl+N"]


def test_a_comparison_takes_a_sentence_about_the_other_subject_from_another_document():
    one = Passage(1, "Keyword search is exact and finds rare names. It ranks with BM25.", "/docs/keyword.md",
                  chunk_id=1)
    two = Passage(2, "Semantic search finds paraphrases of the query. It uses vectors.", "/docs/semantic.md",
                  chunk_id=2)
    question = "Compare keyword search and semantic search."
    first = quote_of(one, "Keyword search is exact and finds rare names.")
    picks = choose(question, read_span_question(question), first, [one, two], EmbedderQuoteSelector(None, None),
                   keep=0.1)
    assert [p.candidate.text for p in picks] == ["Keyword search is exact and finds rare names.",
                                                 "Semantic search finds paraphrases of the query."]
    shown = render(picks, first)
    assert shown.text.splitlines() == [
        "**keyword.md**", "- Keyword search is exact and finds rare names. [1]", "",
        "**semantic.md**", "- Semantic search finds paraphrases of the query. [2]"]
    assert [(c.n, c.path) for c in shown.citations] == [(1, "/docs/keyword.md"), (2, "/docs/semantic.md")]
    assert shown.quote.text == first.text and shown.quote.n == 1


def test_nothing_clears_a_floor_of_one_so_only_the_first_quote_is_left():
    one = Passage(1, "Keyword search is exact. It ranks with BM25.", "/k.md", chunk_id=1)
    two = Passage(2, "Semantic search finds paraphrases.", "/s.md", chunk_id=2)
    question = "Compare keyword search and semantic search."
    first = quote_of(one, "Keyword search is exact.")
    picks = choose(question, read_span_question(question), first, [one, two], EmbedderQuoteSelector(None, None),
                   keep=1.5)
    assert len(picks) == 1


@given(st.lists(st.sampled_from(["Alpha beta.", "Gamma delta epsilon.", "Zeta eta.", "Theta iota kappa."]),
                min_size=2, max_size=8), st.integers(min_value=1, max_value=3))
def test_rendered_bullets_are_the_units_picked_verbatim_grouped_by_document(sentences, documents):
    passages = [Passage(i + 1, " ".join(sentences[i::documents]), f"/d{i}.txt", chunk_id=i)
                for i in range(documents) if sentences[i::documents]]
    found = candidates(passages)
    picks = [Pick(c, "question") for c in found]
    first = Quote(found[0].text, found[0].passage.n, found[0].start, found[0].end, 1.0, found[0].passage.source)
    out = render(picks, first)
    lines = [line for line in out.text.splitlines() if line.startswith("- ")]
    assert len(lines) == len(shown(picks)) == len(out.quotes)
    by_n = {p.n: p for p in out.passages}
    for line in lines:
        text, marker = line[2:].rsplit(" [", 1)
        assert text in by_n[int(marker[:-1])].content
    headers = [line for line in out.text.splitlines() if line.startswith("**")]
    assert len(headers) == len(set(headers)) == len(passages)


def test_a_unit_another_shown_unit_holds_is_not_shown_twice():
    p = Passage(1, "Winner (band)\n\nWinner is a South Korean boy band. It was formed by YG Entertainment.", "/w.txt",
                chunk_id=1)
    q = Passage(2, "2014 S/S is the debut album of Winner.", "/a.txt", chunk_id=2)
    first = Candidate(q, 0, 0, len(q.content))
    titled = Candidate(p, 1, 0, p.content.index(" It was"))
    plain = Candidate(p, 1, p.content.index("Winner is"), p.content.index(" It was"))
    picks = [Pick(first, "question"), Pick(plain, "hop2"), Pick(titled, "hop")]
    assert [x.angle for x in shown(picks)] == ["question", "hop"]
    text = render(picks, Quote(q.content, 2, 0, len(q.content), 1.0, "/a.txt")).text
    assert text.count("Winner is a South Korean boy band.") == 1


def test_a_heading_is_shown_without_its_underline_and_the_quote_keeps_the_text():
    p = Passage(1, SHORTCUTS, "/k.txt", chunk_id=1)
    heading = "Trove keyboard shortcuts\n========================"
    first = Candidate(p, 0, 0, len(heading))
    picks = [Pick(first, "question"), *(Pick(c, "list") for c in list_run(first))]
    out = render(picks, Quote(heading, 1, 0, len(heading), 1.0, "/k.txt"))
    lines = out.text.splitlines()
    assert lines[1] == "- Trove keyboard shortcuts [1]" and "=" not in out.text
    assert lines[2] == "- Ctrl+F or Ctrl+K Focus the search bar [1]"
    assert out.quotes[0] == (1, heading)  # verbatim, as the viewer highlights it
    assert bullet("----") == "----"  # a unit that is only a rule is still shown as it is
