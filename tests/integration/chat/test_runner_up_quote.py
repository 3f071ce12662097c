"""The gate's second look through ChatService with the library's real quote selector over the real MiniLM: when the
best-scored sentence is refused by a rule and the next one answers, the next one is quoted and cited; when the
next one fails too, the question is refused without calling the model. A scripted runtime stands in."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.chat.answer.context import to_passage
from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.answer.quote.default import embedder_selector
from desktop_app.core.chat.models.files import ModelInfo
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult
from tests.integration.chat.conftest import CHAT_SETTINGS
from tests.support.scripted import MustNotGenerate, ScriptedRuntime

BETWEEN = ("Families with incomes between $60,000 and $80,000 pay only a few thousand dollars a year, and families "
           "earning more pay up to a tenth of their income.")
BELOW = ("Since 2007, families with incomes below $60,000 pay nothing for their children to attend, room and board "
         "included.")
OTHER = "The college library holds over three million volumes."
RESULTS = [RetrievalResult(f"{BETWEEN} {BELOW}", 1.0, "/docs/fees.txt", {"chunk_id": 1}),
           RetrievalResult(OTHER, 1.0, "/docs/library.txt", {"chunk_id": 2})]
ASKED = "After 2007 what do students from families earning less than $60,000 pay for school?"


def service(tmp_path: Path, runtime, minilm) -> ChatService:
    return ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: RESULTS[:k],
                       lambda: Settings(**CHAT_SETTINGS), runtime_factory=lambda s, p: runtime,
                       quote_selector=embedder_selector(lambda: minilm), reranker=None)


def test_the_answering_runner_up_is_quoted_when_the_first_sentence_is_refused_by_a_rule(tmp_path, minilm):
    small = ScriptedRuntime("They pay nothing.")
    small.info = lambda: ModelInfo("SmolLM2", "/m.gguf", 100 << 20)  # type: ignore[method-assign]
    first = embedder_selector(lambda: minilm).select(ASKED, [to_passage(i, r) for i, r in enumerate(RESULTS, 1)])
    assert first is not None and first.text == BETWEEN and first.confidence == 0.0  # the best-scored: refused
    answer = service(tmp_path, small, minilm).ask(ASKED)
    assert not answer.refused and answer.quote is not None and answer.quote.text == BELOW
    assert answer.text == answer.quote.cited() and [c.n for c in answer.citations] == [answer.quote.n]
    assert BELOW in next(p for p in answer.passages if p.n == answer.quote.n).content


def test_a_runner_up_that_fails_too_is_refused_without_calling_the_model(tmp_path, minilm):
    answer = service(tmp_path, MustNotGenerate(), minilm).ask(ASKED.replace("2007", "2008"))
    assert answer.refused and answer.abstained and answer.text.startswith(NOT_COVERED)
    assert answer.quote is not None and answer.quote.text == BETWEEN and answer.quote.confidence == 0.0
