"""The rule that lets past-chat excerpts into a prompt (core/memory/about_chat.py): questions about the conversation
yes, document and fact questions no; its figures on the held-out half of bench/data/about_chat and on the SQuAD
questions of the held-out QA splits (bench/about_chat.py reports the same numbers)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.memory.about_chat import about_chat

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "bench"))
import about_chat as bench  # noqa: E402


@pytest.mark.parametrize("question", [
    "What did we decide about the port?", "what did I ask earlier", "As I said before, which one is faster?",
    "Remind me what you told me about the invoice.", "What was my last question?",
])
def test_questions_about_the_conversation(question):
    assert about_chat(question)


@pytest.mark.parametrize("question", [
    "What is my locker code?", "What did the committee agree on in 1920?", "How did we evolve from apes?",
    "What did Einstein say about quantum mechanics?", "Remember that my locker code is 4417.", "",
])
def test_document_and_fact_questions(question):
    assert not about_chat(question)


def test_held_out_precision_and_recall():
    rows = [(label, about_chat(q), src) for q, label, src in bench.labelled("test")]
    said = [label for label, guess, _ in rows if guess]
    positives = [guess for label, guess, _ in rows if label]
    squad = [guess for _, guess, src in rows if src.startswith("qa")]
    assert len(positives) >= 40 and len(squad) >= 800
    assert sum(said) / len(said) >= 0.95 and sum(positives) / len(positives) >= 0.9
    assert sum(squad) <= 2  # SQuAD questions nobody here wrote: at most 2 of ~900 taken for conversation


@given(st.text(max_size=300))
def test_never_raises(text):
    assert about_chat(text) in (True, False)
