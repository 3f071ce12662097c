"""A generated answer's citation markers checked against the passages they name (verify.py)."""

from __future__ import annotations

from desktop_app.core.chat.answer.assemble import cite
from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.verify import support, verify_markers
from desktop_app.core.chat.answer.prompt import DEFAULT_STYLE

P = [Passage(1, "The Normans came from Normandy in northern France.", "/d/a.txt"),
     Passage(2, "Rollo died in the year 931 at Rouen.", "/d/b.txt")]


def test_a_supported_marker_stays_as_written():
    assert verify_markers("Rollo died in the year 931 [2].", P) == "Rollo died in the year 931 [2]."
    assert verify_markers("Rollo died in 931 [2-2].", P) == "Rollo died in 931 [2-2]."


def test_a_marker_on_the_wrong_passage_moves_to_the_one_the_sentence_copies():
    assert verify_markers("Rollo died in the year 931 [1].", P) == "Rollo died in the year 931 [2]."
    both = verify_markers("The Normans came from Normandy [1]. Rollo died in 931 [1, 2].", P)
    assert both == "The Normans came from Normandy [1]. Rollo died in 931 [2]."


def test_a_marker_no_passage_supports_is_dropped_and_the_words_stay():
    assert verify_markers("Bananas are yellow [2].", P) == "Bananas are yellow."
    assert verify_markers("Bananas are yellow.", P) == "Bananas are yellow."


def test_a_marker_after_the_full_stop_vouches_for_the_sentence_before_it():
    assert verify_markers("Rollo died in the year 931. [1]", P) == "Rollo died in the year 931. [2]"


def test_support_counts_tokens_in_a_row_in_any_script():
    assert support("Rollo died in 931 [2]", P[1].content) == 3
    assert support("曼谷是泰国的首都", "曼谷是泰国的首都和最大城市") >= 3


def test_cite_verifies_the_models_markers_before_resolving_them():
    text, citations = cite("Rollo died in the year 931 [1].", P, DEFAULT_STYLE)
    assert text == "Rollo died in the year 931 [2]." and [c.n for c in citations] == [2]
