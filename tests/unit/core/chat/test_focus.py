"""Focusing a passage on the question (pure; a word counter stands in for the tokenizer)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.focus import ELLIPSIS, focus, key_words


def words(text: str) -> int:
    return len(text.split())


TEXT = ("The Normans were the people who gave their name to Normandy. They were descended from Norse raiders. "
        "Their leader Rollo swore fealty to King Charles III. The Duchy was founded in 911 as a fiefdom. "
        "Norman architecture is known for round arches. The language became Norman French.")


def test_a_passage_that_fits_is_sent_whole():
    assert focus("Who was the leader?", TEXT, 200, words) == TEXT


def test_the_sentence_sharing_the_question_words_is_kept_with_neighbours_that_fit():
    out = focus("When was the Duchy founded?", TEXT, 22, words)
    assert "The Duchy was founded in 911 as a fiefdom." in out and words(out) <= 22
    assert out.startswith(ELLIPSIS) and out.endswith("Norman French.")  # ties go to the following sentences
    assert focus("Who swore fealty to King Charles?", TEXT, 14, words) == (
        f"{ELLIPSIS} Their leader Rollo swore fealty to King Charles III. {ELLIPSIS}")


def test_a_budget_below_one_sentence_cuts_words():
    out = focus("Who swore fealty?", TEXT, 6, words)
    assert words(out) <= 6 and out.endswith(ELLIPSIS)


def test_key_words_drop_function_words_and_share_stems():
    assert key_words("Who invented the reactor?") == {"inven", "react"}
    assert key_words("invention of reactors") == {"inven", "react"}


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(["Alpha beta.", "Gamma delta epsilon!", "Zeta eta theta iota.", "Kappa?",
                                      "lambda mu nu xi omicron pi rho sigma tau.", "\n"]), max_size=30).map(" ".join),
       question=st.sampled_from(["alpha", "theta iota", "sigma", "nothing here", ""]), budget=st.integers(0, 60))
def test_focus_stays_in_budget_and_only_keeps_text_of_the_passage(text, question, budget):
    out = focus(question, text, budget, words)
    if budget <= 0 or words(text) <= budget:
        assert out == text
        return
    assert words(out) <= budget
    inner = out.replace(ELLIPSIS, "").split()
    flat = text.split()
    assert any(flat[i:i + len(inner)] == inner for i in range(len(flat) - len(inner) + 1)) or not inner
