"""Which questions' answers span passages, and their subjects (span/question.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.chat.answer.span.question import Shape, read_span_question


@pytest.mark.parametrize(("question", "subjects"), [
    ("Compare keyword search and semantic search.", ("keyword search", "semantic search")),
    ("compare Python with Java", ("Python", "Java")),
    ("What are the differences between BM25 and embeddings?", ("BM25", "embeddings")),
    ("How does sourdough differ from yeast bread?", ("sourdough", "yeast bread")),
    ("tabs vs spaces", ("tabs", "spaces")),
    ("Which magazine was started first Arthur's Magazine or First for Women?", ("Arthur's Magazine",
                                                                               "First for Women")),
    ("Who was born earlier, Emma Bull or Virginia Woolf?", ("Emma Bull", "Virginia Woolf")),
    ("Were Scott Derrickson and Ed Wood of the same nationality?", ("Scott Derrickson", "Ed Wood")),
    ("What occupation do Chris Menges and Aram Avakian share?", ("Chris Menges", "Aram Avakian")),
])
def test_comparisons_name_both_subjects(question, subjects):
    read = read_span_question(question)
    assert read is not None and read.shape is Shape.COMPARE and read.subjects == subjects


@pytest.mark.parametrize(("question", "shape", "topic"), [
    ("List every keyboard shortcut.", Shape.LIST, "keyboard shortcut"),
    ("Name all the planets", Shape.LIST, "planets"),
    ("What are all the first aid steps?", Shape.LIST, "first aid steps"),
    ("What do my documents say about search?", Shape.ABOUT, "search"),
    ("What do the notes say about the launch?", Shape.ABOUT, "launch"),
    ("Summarise what the notes say about the budget", Shape.ABOUT, "budget"),
])
def test_lists_and_topics(question, shape, topic):
    read = read_span_question(question)
    assert read is not None and read.shape is shape and read.topic == topic


@pytest.mark.parametrize("question", [
    "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
    "The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?",
    "Who is the mother of the director of film Polish-Russian War?",
])
def test_bridge_questions(question):
    read = read_span_question(question)
    assert read is not None and read.shape is Shape.BRIDGE


@pytest.mark.parametrize("question", [
    "What is the capital of France?", "How long should sourdough rise?", "When was the reactor invented?",
    "Who invented the Zorblax reactor?", "How many people came to the launch?", "",
    "Tell me everything about sourdough bread.", "Summarise the quarterly report",
])
def test_single_quote_questions_are_left_to_the_usual_path(question):
    assert read_span_question(question) is None


@given(st.text(max_size=200))
def test_any_text_reads_without_error(text):
    read = read_span_question(text)
    assert read is None or all(s.strip() for s in read.subjects)
