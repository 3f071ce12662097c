"""The line for a question in a language the library's search model cannot read (core/chat/answer/language_hint.py),
with the real embedders' identities (no weights are loaded: only the model id is read)."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.answer.language_hint import language_hint
from desktop_app.core.embed.auto import AutoEmbedder
from desktop_app.core.embed.base import make_embedder

THAI = "ใครเป็นผู้คิดค้นเครื่องปฏิกรณ์ซอร์แบล็กซ์"
CHINESE = "谁发明了佐布拉克斯反应堆？"
ENGLISH = "Who invented the Zorblax reactor?"


def test_a_thai_question_over_an_english_only_model_is_told_which_model_reads_it():
    hint = language_hint(THAI, make_embedder("minilm", 8))
    assert "English-only" in hint and "Thai" in hint and "multilingual-e5-small" in hint and "USE multilingual" in hint


@pytest.mark.parametrize("name", ["e5-small", "use-multilingual", "hash"])
def test_a_model_that_reads_the_language_or_reads_no_language_gets_no_hint(name):
    assert language_hint(THAI, make_embedder(name, 8)) == ""


@pytest.mark.parametrize("question", [ENGLISH, "Qui a inventé le réacteur Zorblax ?", "1987?", ""])
def test_english_latin_script_and_undetermined_questions_get_no_hint(question):
    assert language_hint(question, make_embedder("minilm", 8)) == ""


def test_auto_is_judged_by_the_model_it_chose():
    english_library = AutoEmbedder(lambda: [("en", 100)], lambda name: make_embedder(name, 8))
    thai_library = AutoEmbedder(lambda: [("en", 50), ("th", 50)], lambda name: make_embedder(name, 8))
    assert "Chinese" in language_hint(CHINESE, english_library)
    assert language_hint(CHINESE, thai_library) == ""


def test_no_embedder_no_hint():
    assert language_hint(THAI, None) == ""
