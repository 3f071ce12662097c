"""The quoted answer through ChatService on a real library (SQLite, FTS5, sqlite-vec, the hash embedder): the
quote is verbatim text of a cited passage and reaches the caller before the model's first token; the reranker's
order is the prompt's order; abstention never calls the model. A scripted runtime stands in for the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.answer.quote.selector import EmbedderQuoteSelector
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult
from tests.integration.chat.conftest import CHAT_SETTINGS
from tests.support.scripted import MustNotGenerate, ScriptedRuntime, last_user

REACTOR_ANSWER = "The Zorblax reactor was invented by Dr. Mira Quell [1]."
FOUND = [RetrievalResult(f"Passage {i} says the reactor number {i} runs on helium.", 1.0, f"/docs/r{i}.txt",
                         {"chunk_id": i}) for i in range(5)]


class ReversingReranker:
    """Scores each text by its position, so the last result found ranks first."""

    def __init__(self) -> None:
        self.calls = 0
        self.floor = 0.0

    def score(self, query: str, texts):
        self.calls += 1
        return [float(i) for i in range(len(texts))]


def service_over(tmp_path: Path, runtime, **kwargs) -> ChatService:
    return ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: FOUND[:k],
                       lambda: Settings(**CHAT_SETTINGS), runtime_factory=lambda s, p: runtime, **kwargs)


def test_the_quote_is_a_cited_passages_own_text_and_arrives_before_the_first_token(chat_library):
    runtime = ScriptedRuntime(REACTOR_ANSWER)
    chat_library._chat = ChatService(chat_library.store, chat_library._retrieve_for_chat, lambda: chat_library.settings,
                                     runtime_factory=lambda s, p: runtime, reranker=None,
                                     embedder=lambda: chat_library.embedder)
    events = []
    answer = chat_library.ask("Who invented the Zorblax reactor?", on_quote=lambda q: events.append(("quote", q)),
                              on_token=lambda t: events.append(("token", t)))
    assert events[0][0] == "quote" and len(events) > 1 and {e[0] for e in events[1:]} == {"token"}
    quote = answer.quote
    assert quote is not None and events[0][1] == quote
    passage = next(p for p in answer.passages if p.n == quote.n)
    assert passage.content[quote.start:quote.end] == quote.text and Path(passage.source).name == "reactor.txt"
    assert "Mira Quell" in quote.text and quote.n in {c.n for c in answer.citations}
    assert answer.text.startswith(quote.cited())  # what the person is shown starts with the quote
    assert answer.generation == REACTOR_ANSWER and answer.quote_s is not None


def test_a_small_model_s_answer_waits_behind_the_quote(tmp_path):
    small = ScriptedRuntime("Trains leave platform nine.")
    small.info = lambda: type(ScriptedRuntime().info())("SmolLM2", "/m.gguf", 100 << 20)  # type: ignore[method-assign]
    answer = service_over(tmp_path, small, reranker=None).ask("Which reactor runs on helium?")
    assert not answer.generation_shown and answer.hidden_because == "small model"
    assert answer.text == answer.quote.cited() and answer.generation == "Trains leave platform nine."
    assert [c.n for c in answer.citations] == [answer.quote.n]


def test_an_answer_copying_no_passage_is_hidden_even_from_a_big_model(tmp_path):
    answer = service_over(tmp_path, ScriptedRuntime("Trains leave platform nine."), reranker=None).ask(
        "Which reactor runs on helium?")
    assert answer.hidden_because == "not supported by a passage" and answer.text == answer.quote.cited()
    shown = service_over(tmp_path, ScriptedRuntime("Trains leave platform nine."), reranker=None).ask(
        "Which reactor runs on helium?", show_generation=True)
    assert shown.generation_shown and shown.text == f"{shown.quote.cited()}\n\nTrains leave platform nine."


TWO_TOPICS = [
    RetrievalResult("The Zorblax reactor runs on helium and was built in Oslo.", 1.0, "/docs/reactor.txt",
                    {"chunk_id": 1}),
    RetrievalResult("Trains leave platform nine every hour from the harbour station.", 1.0, "/docs/trains.txt",
                    {"chunk_id": 2}),
]


@pytest.mark.parametrize("generation", ["Trains leave platform nine every hour [2].",
                                        "Trains leave platform nine every hour.",  # attributed to [2] by its words
                                        "Trains leave platform nine every hour [1]."])  # moved to [2] by verify
def test_an_answer_citing_only_another_passage_than_the_quotes_waits_behind_it(tmp_path, generation):
    service = ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: TWO_TOPICS[:k],
                          lambda: Settings(**CHAT_SETTINGS), runtime_factory=lambda s, p: ScriptedRuntime(generation),
                          reranker=None)
    answer = service.ask("Which reactor runs on helium?")
    assert answer.quote is not None and answer.quote.n == 1 and "helium" in answer.quote.text
    assert [c.n for c in answer.generation_citations] == [2]
    assert answer.hidden_because == "cites another passage than the quote's" and not answer.generation_shown
    assert answer.text == answer.quote.cited() and [c.n for c in answer.citations] == [1]


@pytest.mark.parametrize("generation", ["The Zorblax reactor runs on helium [1].",
                                        "The Zorblax reactor runs on helium [1], and trains leave platform nine "
                                        "every hour [2]."])
def test_an_answer_citing_the_quotes_passage_is_shown_beside_it(tmp_path, generation):
    service = ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: TWO_TOPICS[:k],
                          lambda: Settings(**CHAT_SETTINGS), runtime_factory=lambda s, p: ScriptedRuntime(generation),
                          reranker=None)
    answer = service.ask("Which reactor runs on helium?")
    assert answer.quote is not None and answer.quote.n == 1
    assert answer.generation_shown and answer.hidden_because == ""
    assert answer.text == f"{answer.quote.cited()}\n\n{answer.generation}" and 1 in {c.n for c in answer.citations}


def test_the_rerankers_order_is_the_order_of_the_prompts_passages(tmp_path):
    runtime, reranker = ScriptedRuntime("It runs on helium [1]."), ReversingReranker()
    answer = service_over(tmp_path, runtime, reranker=reranker).ask("Which reactor runs on helium?", top_k=3)
    assert reranker.calls >= 1
    assert [Path(p.source).name for p in answer.passages] == ["r4.txt", "r3.txt", "r2.txt"]
    prompt = last_user(runtime.sent[-1])
    assert prompt.index("[1] r4.txt") < prompt.index("[2] r3.txt") < prompt.index("[3] r2.txt")


@pytest.mark.parametrize("reranker", [None, ReversingReranker()])
def test_abstention_says_the_documents_do_not_cover_it_without_calling_the_model(tmp_path, reranker):
    never = EmbedderQuoteSelector(None, None, floor=2.0)  # no sentence can score this high
    if reranker is not None:
        reranker.score = lambda q, texts: [-5.0] * len(texts)  # type: ignore[method-assign]
    service = service_over(tmp_path, MustNotGenerate(), quote_selector=never, reranker=reranker)
    answer = service.ask("What is the airspeed of an unladen swallow?")
    assert answer.refused and answer.abstained and answer.text.startswith(NOT_COVERED)
    assert "r0.txt" in answer.text and answer.citations == () and len(answer.passages) == 3
    stored = service.messages(answer.chat_id)
    assert stored[-1].content == answer.text


def test_the_model_is_asked_anyway_when_the_person_says_so(tmp_path):
    runtime = ScriptedRuntime("Passage 0 says the reactor number 0 runs on helium [1].")
    never = EmbedderQuoteSelector(None, None, floor=2.0)
    answer = service_over(tmp_path, runtime, quote_selector=never, reranker=None).ask(
        "What is the airspeed of an unladen swallow?", ask_model=True)
    assert not answer.refused and len(runtime.sent) == 1 and answer.generation


def test_a_reranker_that_still_sees_an_answer_overrules_a_low_quote_score(tmp_path):
    runtime = ScriptedRuntime("It runs on helium [1].")
    never = EmbedderQuoteSelector(None, None, floor=2.0)
    answer = service_over(tmp_path, runtime, quote_selector=never, reranker=ReversingReranker()).ask(
        "Which reactor runs on helium?")
    assert not answer.refused and len(runtime.sent) == 1


class UnsureSelector(EmbedderQuoteSelector):
    """The keyword selector, with the abstention gate's confidence set under its threshold on every quote."""

    def select(self, question, passages):
        from dataclasses import replace

        from desktop_app.core.chat.answer.gate.abstain import THRESHOLD

        quote = super().select(question, passages)
        return replace(quote, confidence=THRESHOLD / 2) if quote is not None else None


def test_the_gate_abstaining_never_calls_the_model(tmp_path):
    service = service_over(tmp_path, MustNotGenerate(), quote_selector=UnsureSelector(None, None), reranker=None)
    answer = service.ask("Which reactor runs on helium?")  # the quote scores well; the gate still says no
    assert answer.refused and answer.abstained and answer.text.startswith(NOT_COVERED)
    assert answer.quote is not None and answer.quote.confidence is not None
