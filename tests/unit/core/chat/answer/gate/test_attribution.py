"""Exact-overlap attribution (pure): an uncited answer that copies a passage gets that passage cited."""

from __future__ import annotations

import re
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.attribution import MIN_WORDS, attribute, longest_common_run, sentences

REACTOR = Passage(
    1,
    "The Zorblax reactor was invented by Dr. Mira Quell in 1987 at the Vantor Institute. "
    "It runs on compressed helium and produces forty megawatts.",
    "/d/reactor.txt",
)
BREAD = Passage(2, "Sourdough bread needs a starter made of flour and water, fed daily for a week.", "/d/bread.md")


def unmarked(text: str) -> str:
    return re.sub(r" \[\d+\]", "", text)


def test_a_copied_sentence_is_cited_at_its_end():
    out = attribute("It was invented by Dr. Mira Quell in 1987. Nice.", [BREAD, REACTOR])
    assert out.text == "It was invented by Dr. Mira Quell in 1987 [1]. Nice." and out.cited == (1,)


def test_each_sentence_gets_the_passage_it_copies():
    text = (
        "Sourdough needs a starter made of flour and water, fed daily. It runs on compressed helium and produces power!"
    )
    out = attribute(text, [REACTOR, BREAD])
    assert out.text == (
        "Sourdough needs a starter made of flour and water, fed daily [2]. "
        "It runs on compressed helium and produces power [1]!"
    )
    assert out.cited == (2, 1)


def test_short_overlaps_and_common_phrases_cite_nothing():
    for text in ("Dr. Mira Quell.", "It was in 1987 at the Vantor.", "The documents do not cover this.", ""):
        out = attribute(text, [REACTOR, BREAD])
        assert out.text == text and out.cited == ()


def test_the_longest_run_wins_and_ties_go_to_the_earlier_passage():
    a = Passage(1, "one two three four five six seven", "a")
    b = Passage(2, "one two three four five six seven eight nine", "b")
    assert attribute("one two three four five six seven eight nine", [a, b]).cited == (2,)
    assert attribute("one two three four five six seven", [b, a]).cited == (2,)  # equal runs: first given
    assert attribute("one two three four five six seven", [a, b]).cited == (1,)


def test_an_answer_without_a_final_stop_gets_its_marker_at_the_end():
    assert attribute("invented by Dr. Mira Quell in 1987", [REACTOR]).text == "invented by Dr. Mira Quell in 1987 [1]"


def test_longest_common_run():
    assert longest_common_run(["a", "b", "c", "d"], ["x", "a", "b", "c", "y"]) == 3
    assert longest_common_run([], ["a"]) == 0 and longest_common_run(["a"], []) == 0


def test_a_run_of_only_the_questions_words_counts_for_nothing():
    sentence, passage = "kiss and tell was held by soldiers".split(), "the film kiss and tell was made".split()
    assert longest_common_run(sentence, passage) == 4  # "kiss and tell was"
    assert longest_common_run(sentence, passage, frozenset({"kiss", "and", "tell"})) == 4  # "was" is new
    assert longest_common_run(sentence, passage, frozenset({"kiss", "and", "tell", "was"})) == 0


PIECES = ["helium", "compressed", "runs", "on", "It", "the", "reactor", ".", "!", "?", "\n", " ", ", ", "Quell", "1987"]


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=40).map(" ".join),
    contents=st.lists(st.lists(st.sampled_from(PIECES), max_size=30).map(" ".join), max_size=4),
)
def test_attribution_only_adds_markers_naming_given_passages(text, contents):
    passages = [Passage(i + 1, c, f"/d/{i}") for i, c in enumerate(contents)]
    out = attribute(text, passages)
    assert unmarked(out.text) == text or re.search(r" \[\d+\]", text)  # nothing but markers was added
    assert set(out.cited) <= {p.n for p in passages}
    assert len(re.findall(r" \[\d+\]", out.text)) - len(re.findall(r" \[\d+\]", text)) >= len(out.cited)


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.lists(st.sampled_from(["alpha", "beta", "gamma"]), max_size=5),
    copied=st.lists(
        st.sampled_from(["north", "south", "river", "mountain", "city", "old", "new"]), min_size=MIN_WORDS, max_size=12
    ),
)
def test_a_run_of_min_words_copied_from_one_passage_cites_it(prefix, copied):
    source = Passage(3, "Some intro. " + " ".join(copied) + " and more.", "/d/src")
    other = Passage(1, "alpha beta gamma delta", "/d/other")
    out = attribute(" ".join(prefix + copied) + ".", [other, source])
    assert out.cited == (3,) and out.text.endswith(" [3].")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_sentences_cover_every_non_blank_character_in_order(text):
    spans = sentences(text)
    assert all(a < b <= c for (a, b), (c, _) in pairwise(spans))
    assert [w for a, b in spans for w in text[a:b].split()] == text.split()


def test_sentences_do_not_end_after_initials_and_titles():
    text = "It was Dr. Mira Quell in the U.S. at St. Ives. Then J. Smith came!\nNew line"
    assert [text[a:b].strip() for a, b in sentences(text)] == [
        "It was Dr. Mira Quell in the U.S. at St. Ives.",
        "Then J. Smith came!",
        "New line",
    ]
