"""What is shown: the quote when the model is small or its answer copies nothing; abstention's agreement rule."""

from __future__ import annotations

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.answer.shown import (
    SMALL_MODEL_BYTES,
    abstains,
    hide_reason,
    is_small,
    not_covered,
    supported,
)
from desktop_app.core.chat.models.files import ModelInfo

P = [Passage(1, "The lighthouse on Korrin Island is painted crimson and was restored by Elsa Varga.", "/d/k.pdf", 2)]
SMALL = ModelInfo("SmolLM2-135M", "/m.gguf", 100 * 1024 * 1024)
BIG = ModelInfo("Qwen2.5-0.5B", "/q.gguf", 491 * 1024 * 1024)


def quote(score: float) -> Quote:
    return Quote("The lighthouse is crimson.", 1, 0, 10, score)


def test_small_means_a_local_file_under_the_threshold():
    assert is_small(SMALL) and not is_small(BIG)
    assert not is_small(ModelInfo("server", "http://127.0.0.1/v1", 0, backend="openai"))
    assert not is_small(ModelInfo("x", "/x.gguf", SMALL_MODEL_BYTES))


def test_an_answer_that_copies_no_passage_is_not_supported():
    assert supported("It was restored by Elsa Varga [1].", P)
    assert not supported("Trains leave platform nine every hour.", P)
    assert hide_reason(BIG, "Trains leave platform nine every hour.", P) == "not supported by a passage"
    assert hide_reason(BIG, "It is painted crimson and was restored by Elsa Varga.", P) == ""
    assert hide_reason(SMALL, "It is painted crimson and was restored by Elsa Varga.", P) == "small model"


def test_an_answer_citing_only_other_passages_than_the_quotes_is_hidden():
    answer = "It is painted crimson and was restored by Elsa Varga."
    assert hide_reason(BIG, answer, P, quote_n=2, cited={1}) == "cites another passage than the quote's"
    assert hide_reason(BIG, answer, P, quote_n=1, cited={1}) == ""
    assert hide_reason(BIG, answer, P, quote_n=2, cited={1, 2}) == ""  # the quote's passage among them
    assert hide_reason(BIG, answer, P, quote_n=2, cited=()) == ""  # cites nothing: nothing to contradict
    assert hide_reason(BIG, answer, P, quote_n=None, cited={1}) == ""  # no quote


def test_abstention_needs_both_scores_low():
    assert abstains(quote(0.1), 0.3, None, 0.0)
    assert not abstains(quote(0.5), 0.3, None, 0.0)
    assert not abstains(quote(0.1), 0.3, 2.0, 0.0)  # the reranker still sees an answering passage
    assert abstains(quote(0.1), 0.3, -3.0, 0.0)
    assert abstains(None, 0.3, None, 0.0)
    thin = Quote("The lighthouse is crimson.", 1, 0, 10, 0.5, support=0.4)  # the passages lack much of the question
    assert abstains(thin, 0.3, None, 0.0, min_support=0.6) and not abstains(thin, 0.3, None, 0.0, min_support=0.3)


def test_not_covered_names_the_closest_passages():
    text = not_covered(P)
    assert text.startswith(NOT_COVERED) and "k.pdf, p. 2" in text
    assert not_covered([]) == NOT_COVERED


def test_the_gates_confidence_decides_when_the_selector_ran_it():
    from dataclasses import replace

    from desktop_app.core.chat.answer.gate.abstain import THRESHOLD

    sure, unsure = replace(quote(0.1), confidence=THRESHOLD), replace(quote(0.9), confidence=THRESHOLD - 0.01)
    assert not abstains(sure, 0.3, None, 0.0)  # a low score, but the gate (which read the score) says it answers
    assert abstains(unsure, 0.3, None, 0.0) and not abstains(unsure, 0.3, 2.0, 0.0)  # the reranker must agree
