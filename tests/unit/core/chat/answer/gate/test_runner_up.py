"""The gate's second look (gate/runner_up.py) with the library's real quote selector over the real MiniLM (the
embedder the gate was fitted for): a first quote that a refusal rule refuses gives way to the unit the selector ranks
next when that one passes the gate; when it fails too, the first stays with its refusal."""

from __future__ import annotations

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate import abstain
from desktop_app.core.chat.answer.gate.runner_up import fails, runner_up, second_look
from desktop_app.core.chat.answer.quote.default import embedder_selector
from desktop_app.core.chat.answer.quote.selector import Quote

BETWEEN = ("Families with incomes between $60,000 and $80,000 pay only a few thousand dollars a year, and families "
           "earning more pay up to a tenth of their income.")
BELOW = ("Since 2007, families with incomes below $60,000 pay nothing for their children to attend, room and board "
         "included.")
OTHER = "The college library holds over three million volumes."
PASSAGES = [Passage(1, f"{BETWEEN} {BELOW}", "/d/fees.txt"), Passage(2, OTHER, "/d/library.txt")]
ASKED = "After 2007 how much do students from families earning less than $60,000 pay for school?"
ASKED_WRONG_YEAR = "After 2008 how much do students from families earning less than $60,000 pay for school?"


def test_a_first_quote_a_rule_refuses_gives_way_to_the_runner_up_that_passes(minilm):
    selector = embedder_selector(lambda: minilm)
    first = selector.select(ASKED, PASSAGES)
    assert first is not None and first.text == BETWEEN  # "less" asked, "more" said: the antonym rule holds
    assert first.confidence == 0.0 and abstain.refusal_rule(abstain.signals(ASKED, first, PASSAGES))
    shown = second_look(selector, ASKED, PASSAGES)
    assert shown is not None and shown.text == BELOW and shown.n == 1
    assert PASSAGES[0].content[shown.start:shown.end] == shown.text  # still verbatim, with where it is
    assert shown.confidence is not None and shown.confidence >= abstain.RERANKED_THRESHOLD
    assert shown.margin >= 0.0  # scored as if the first were not a candidate


def test_a_runner_up_that_fails_too_leaves_the_first_quote_and_its_refusal(minilm):
    selector = embedder_selector(lambda: minilm)
    second = runner_up(selector, ASKED_WRONG_YEAR, PASSAGES, selector.select(ASKED_WRONG_YEAR, PASSAGES))
    assert second is not None and second.text == BELOW and second.confidence == 0.0  # 2008 is not in it
    shown = second_look(selector, ASKED_WRONG_YEAR, PASSAGES)
    assert shown is not None and shown.text == BETWEEN and shown.confidence == 0.0


def test_the_runner_up_is_never_the_first_quote_or_a_unit_it_was_widened_over(minilm):
    selector = embedder_selector(lambda: minilm)
    passages = [Passage(1, "The Rhine ferry at Kaub carried carts and passengers across the river for centuries. "
                           "In 1902 the Kaub ferry carried 12,000 passengers.", "/d/kaub.txt"),
                Passage(2, "Ferries on the Rhine carried salt and wine in the Middle Ages.", "/d/salt.txt")]
    question = "How many passengers did the Kaub ferry carry in 1902?"
    first = selector.select(question, passages)
    second = runner_up(selector, question, passages, first)
    assert first is not None and second is not None
    assert second.n != first.n or second.end <= first.start or first.end <= second.start


def test_which_failures_get_a_second_look():
    def quote(confidence):
        return Quote("It was so.", 1, 0, 10, 0.5, confidence=confidence)

    assert fails(quote(0.0), "rule") and fails(quote(0.0), "gate")  # a refusal rule holds
    assert not fails(quote(0.1), "rule") and fails(quote(0.1), "gate")  # the graded gate alone says no
    assert not fails(quote(0.9), "gate") and not fails(quote(0.0), "off")
    assert not fails(quote(None), "gate") and not fails(None, "gate")  # no gate ran: nothing to second-guess


class SelectOnly:
    """A selector whose ranking cannot be read (a model selector): only `select`."""

    name, floor, min_support = "model", 0.0, 0.0

    def select(self, question, passages):
        return Quote(BETWEEN, 1, 0, len(BETWEEN), 0.9, confidence=0.0)


def test_a_selector_whose_ranking_cannot_be_read_keeps_its_quote():
    shown = second_look(SelectOnly(), ASKED, PASSAGES)
    assert shown is not None and shown.text == BETWEEN and shown.confidence == 0.0
