"""The abstention rules through ChatService with the library's real quote selector over the real MiniLM (the
embedder the gate was fitted for): a question naming a year the best sentence does not hold, one asking about the
opposite of what it says, or a negated question over a plain sentence, is refused without calling the model; the
same passage answering the plain question is quoted, and a quote answer cites only the quote's passage. A scripted
runtime stands in."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.answer.quote.default import embedder_selector
from desktop_app.core.chat.models.files import ModelInfo
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult
from tests.integration.chat.conftest import CHAT_SETTINGS
from tests.support.scripted import MustNotGenerate, ScriptedRuntime

WITH_YEAR = "Rollo, a Viking leader, began to rule Normandy from the city of Rouen in 911."
FIRST = "Rollo was the first Viking leader to rule Normandy, from the city of Rouen."
OTHER = "The Danube flows through Vienna and Budapest before it reaches the Black Sea."


def found(*texts: str) -> list[RetrievalResult]:
    return [RetrievalResult(t, 1.0, f"/docs/d{i}.txt", {"chunk_id": i}) for i, t in enumerate(texts, 1)]


def service(tmp_path: Path, runtime, minilm, results: list[RetrievalResult]) -> ChatService:
    return ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: results[:k],
                       lambda: Settings(**CHAT_SETTINGS), runtime_factory=lambda s, p: runtime,
                       quote_selector=embedder_selector(lambda: minilm), reranker=None)


def test_a_question_naming_a_year_the_sentence_lacks_is_refused_without_the_model(tmp_path, minilm):
    answer = service(tmp_path, MustNotGenerate(), minilm, found(WITH_YEAR, OTHER)).ask(
        "Which city did Rollo rule Normandy from in 1066?")
    assert answer.refused and answer.abstained and answer.text.startswith(NOT_COVERED)
    assert answer.quote is not None and answer.quote.text == WITH_YEAR and answer.quote.confidence == 0.0
    assert "d1.txt" in answer.text  # the closest passage is named


def test_a_question_about_the_opposite_of_the_sentence_is_refused_without_the_model(tmp_path, minilm):
    answer = service(tmp_path, MustNotGenerate(), minilm, found(FIRST, OTHER)).ask(
        "Who was the last Viking leader to rule Normandy?")
    assert answer.refused and answer.abstained and answer.quote.text == FIRST and answer.quote.confidence == 0.0


def test_a_negated_question_over_a_plain_sentence_is_refused_without_the_model(tmp_path, minilm):
    answer = service(tmp_path, MustNotGenerate(), minilm, found(WITH_YEAR, OTHER)).ask(
        "When did Rollo not rule Normandy?")
    assert answer.refused and answer.abstained and answer.quote.confidence == 0.0


def test_the_answering_sentence_is_quoted_and_a_quote_answer_cites_only_its_passage(tmp_path, minilm):
    small = ScriptedRuntime("Rollo ruled from 911 [2].")  # the model cites the passage that does not hold it
    small.info = lambda: ModelInfo("SmolLM2", "/m.gguf", 100 << 20)  # type: ignore[method-assign]
    answer = service(tmp_path, small, minilm, found(OTHER, WITH_YEAR)).ask("When did Rollo rule Normandy?")
    assert not answer.refused and len(small.sent) == 1
    assert answer.quote is not None and answer.quote.text == WITH_YEAR and answer.quote.confidence > 0.0
    assert answer.text == answer.quote.cited() and [c.n for c in answer.citations] == [answer.quote.n]
    assert next(p for p in answer.passages if p.n == answer.quote.n).content == WITH_YEAR
