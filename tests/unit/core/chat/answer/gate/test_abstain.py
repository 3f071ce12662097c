"""The abstention gate's signals on fixed inputs, and its logistic rule (abstain.py)."""

from __future__ import annotations

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate import abstain
from desktop_app.core.chat.answer.gate.abstain import (
    Signals,
    answer_kind,
    answer_probability,
    rare_words,
    refusal_rule,
    signals,
    typed,
)
from desktop_app.core.chat.answer.quote.selector import Quote

ROUEN = ("Rollo, a Viking leader, was granted land by King Charles in 911. "
         "His descendants ruled Normandy from Rouen for two centuries.")
P = [Passage(1, ROUEN, "/d/normans.txt"), Passage(2, "The Danube flows through Vienna and Budapest.", "/d/r.txt")]


def quote_of(sentence: str, score: float = 0.6, margin: float = 0.1) -> Quote:
    start = ROUEN.index(sentence)
    return Quote(sentence, 1, start, start + len(sentence), score, margin=margin)


def test_rare_words_are_names_and_numbers_after_the_first_word():
    assert rare_words("Who granted Rollo land in 911?") == ["Rollo", "911"]
    assert rare_words("What fell to the Normans in the 10th century?") == ["Normans", "10th"]
    assert rare_words("Why do rivers flow?") == []


def test_the_kind_of_answer_a_question_asks_for():
    assert answer_kind("When was Rollo granted land?") == "when"
    assert answer_kind("In what year did Rollo arrive?") == "when"
    assert answer_kind("How many centuries did they rule?") == "count"
    assert answer_kind("Who granted the land?") == "who"
    assert answer_kind("Why was the land granted?") == ""


def test_typed_asks_whether_the_sentence_offers_that_kind_beyond_the_question():
    first = "Rollo, a Viking leader, was granted land by King Charles in 911."
    assert typed("When was Rollo granted land?", first) == 1.0
    assert typed("When did his descendants rule?", "His descendants ruled Normandy from Rouen.") == 0.0
    assert typed("Who granted Rollo land?", first) == 1.0  # "Charles" is not in the question
    assert typed("Why was the land granted?", first) == 0.5
    assert typed("When was land granted in 911?", "Land was granted in 911.") == 0.0  # only the question's year


def test_signals_on_a_question_the_passage_answers_and_on_a_swapped_one():
    good = signals("Who granted Rollo land in 911?", quote_of("Rollo, a Viking leader, was granted land by King "
                                                              "Charles in 911."), P)
    assert good.rare == 1.0 and good.missing == 0.0 and good.typed == 1.0 and good.sentence > 0.9
    swapped = signals("Who granted Rollo land in 1066?", quote_of("Rollo, a Viking leader, was granted land by "
                                                                  "King Charles in 911."), P)
    assert swapped.rare == 0.5 and swapped.missing == 1.0 and swapped.sentence < good.sentence
    assert swapped.score == 0.6 and swapped.margin == 0.1  # the selector's own figures, passed through


def test_the_rule_is_a_logistic_model_of_the_signals():
    s = Signals(score=0.5, margin=0.1, sentence=0.5, passage=0.5, rare=1.0, missing=0.0, typed=0.5)
    zero = dict.fromkeys(abstain.WEIGHTS, 0.0)
    assert answer_probability(s, zero) == 0.5
    assert answer_probability(s, {**zero, "missing": -1.0}) == 0.5  # no term missing: no effect
    more_missing = Signals(**{**s.to_dict(), "missing": 2.0})
    assert answer_probability(more_missing, {**zero, "missing": -1.0}) < 0.5
    assert 0.0 < answer_probability(s) < 1.0


def test_rare_sentence_and_negated_read_the_quoted_sentence_itself():
    grant = "Rollo, a Viking leader, was granted land by King Charles in 911."
    later = "His descendants ruled Normandy from Rouen for two centuries."
    assert signals("Who granted Rollo land in 911?", quote_of(grant), P).rare_sentence == 1.0
    assert signals("Where did Rollo's descendants rule?", quote_of(later), P).rare_sentence == 0.0
    assert signals("Who was not granted land by Charles?", quote_of(grant), P).negated == 1.0
    assert signals("Who wasn't granted land?", quote_of(grant), P).negated == 1.0
    assert signals("Who was granted land by Charles?", quote_of(grant), P).negated == 0.0


def test_the_rules_refuse_whatever_the_gate_would_say():
    plain = Signals(score=0.95, margin=0.3, sentence=1.0, passage=1.0, rare=1.0, missing=0.0, typed=1.0)
    assert refusal_rule(plain) == "" and answer_probability(plain) > abstain.THRESHOLD
    for change in ({"negated": 1.0}, {"antonym": 1.0}, {"number_missing": 1.0}):
        ruled = Signals(**{**plain.to_dict(), **change})
        assert refusal_rule(ruled) and answer_probability(ruled) == 0.0


def test_a_missing_kind_of_answer_or_name_weighs_in_the_gate_but_does_not_refuse_alone():
    """On all 3,157 dev-paragraph questions these two refused 0.037 and 0.047 of the answerable as rules."""
    plain = Signals(score=0.95, margin=0.3, sentence=1.0, passage=1.0, rare=1.0, missing=0.0, typed=1.0)
    for change in ({"typed": 0.0}, {"rare_sentence": 0.0}):
        softer = Signals(**{**plain.to_dict(), **change})
        assert refusal_rule(softer) == ""
        assert 0.0 < answer_probability(softer) < answer_probability(plain)


def test_an_opposite_word_and_a_number_the_sentence_lacks_are_read_from_the_quoted_sentence():
    grant = "Rollo, a Viking leader, was granted land by King Charles in 911."
    assert signals("Who was the last to grant Rollo land in 911?", quote_of(grant), P).antonym == 0.0
    assert abstain.swapped_opposite("Who was the last leader of Normandy?", "He was the first leader of Normandy.")
    assert not abstain.swapped_opposite("Who was the first leader?", "He was the first leader, not the last.")
    assert signals("Who granted Rollo land in 1066?", quote_of(grant), P).number_missing == 1.0
    assert signals("Who granted Rollo land in 911?", quote_of(grant), P).number_missing == 0.0
    assert abstain.plain_numbers("Was it 2,500 men, or 3.5 thousand, in 1066?") == ["2,500", "3.5", "1066"]


def test_a_number_written_with_thousands_separators_is_the_same_number():
    """"10000" asked of a sentence saying "10,000" is not a swapped number (a false refusal on the dev split)."""
    said = "By 1883, engines that could provide 10,000 hp had become feasible."
    question = "As of what year were 10000 horsepower engines available?"
    quote, passages = Quote(said, 1, 0, len(said), 0.6), [Passage(1, said, "/d/steam.txt")]
    assert signals(question, quote, passages).number_missing == 0.0
    assert signals("When were 20000 horsepower engines available?", quote, passages).number_missing == 1.0


def test_the_floor_holds_for_the_better_of_the_passages_and_the_quotes_neighbourhood():
    sure = Quote("Rollo was granted land in 911.", 1, 0, 30, 0.6, confidence=0.9)
    assert abstain.reranked_refusal(-11.0, -10.25, sure)  # no passage read as about the question
    assert not abstain.reranked_refusal(-11.0, -10.25, sure, window_best=3.0)  # its neighbourhood is
    assert abstain.reranked_refusal(-11.0, -10.25, sure, window_best=-10.5)
    assert abstain.reranked_refusal(2.0, -10.25, sure, window_best=-7.0, window_floor=-5.0)
    assert not abstain.reranked_refusal(2.0, -10.25, sure, window_best=-4.0, window_floor=-5.0)
    assert not abstain.reranked_refusal(2.0, -10.25, sure, window_best=-7.0)  # no neighbourhood floor: the gate's


def test_the_quote_window_starts_a_few_words_before_the_quote_and_keeps_the_rest():
    text = "one two three four. The quote. After it."
    start = text.index("The quote")
    assert abstain.quote_window(text, start, start + 10, before=2) == "three four. The quote. After it."
    assert abstain.quote_window(text, start, start + 10, before=0) == "The quote. After it."
    assert abstain.quote_window(text, 0, 3, before=40) == text
