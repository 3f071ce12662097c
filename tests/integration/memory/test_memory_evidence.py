"""Evidence is documents and facts; conversation is context (issue 42), on both engines with the real parts: MiniLM,
the real quote selector and abstention gate, memory holding many past questions in many chats. No shown answer, quote
or citation is the text of a past question, and a refusal never calls the model (a scripted runtime counts calls)."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.service import ChatService
from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.types import Turn
from tests.support.scripted import ScriptedRuntime

SETTINGS = {"embedder": "minilm", "n_ctx": 2048, "n_threads": 1, "context_min_score": 0.02, "context_top_k": 3,
            "max_context_tokens": 400, "temperature": 0.0, "answer_reserve_tokens": 64}
DOCS = {
    "reactor.txt": "The Zorblax reactor was invented by Dr. Mira Quell in 1987 at the Vantor Institute.\n\n"
                   "It runs on compressed helium and produces forty megawatts.",
    "bread.md": "# Sourdough\n\nSourdough bread needs a starter made of flour and water, fed daily for a week.\n\n"
                "Bake the loaf at 240 degrees for forty minutes.",
    "trains.txt": "Trains to Harrowgate leave platform nine every hour, on the hour, from six in the morning.",
}
ABSENT = [  # about articles the library does not hold (SQuAD-style, as in the issue)
    "What company was formed by the merger of Sky Television and British Satellite Broadcasting?",
    "What channel replaced Sky Travel?",
    "Which river flows through the city of Warsaw?",
]
PRESENT = ["Who invented the Zorblax reactor?", "How long should the sourdough loaf bake?"]
PAST = ABSENT + PRESENT + [f"Which dessert goes with recipe idea number {i}?" for i in range(30)]


def past_chats(library, n_chats: int = 34) -> list[str]:
    """`n_chats` earlier chats of three questions each (the questions asked again below among them), kept in raw
    memory as quiet chats are. Returns every past question."""
    chats = ChatSessions(library.store)
    asked = []
    for c in range(n_chats):
        chat = chats.create_chat(f"Earlier chat {c}")
        turns = [Turn(PAST[(3 * c + i) % len(PAST)], "I am not sure; the documents may say.") for i in range(3)]
        for t in turns:
            chats.add_exchange(chat, t.question, t.answer, [], [])
            asked.append(t.question)
        library.memory.save_compacted(chat, turns, first_turn=1, title=f"Earlier chat {c}")
    return asked


def counting_runtime(library, reply: str = "The passages say so [1].", selector="auto") -> ScriptedRuntime:
    rt = ScriptedRuntime(reply, n_ctx=2048)
    library._chat = ChatService(library.store, library._retrieve_for_chat, lambda: library.settings,
                                runtime_factory=lambda s, p: rt, quote_selector=selector, reranker=None,
                                memory=lambda: library.memory)
    return rt


@pytest.fixture
def library(tmp_path, minilm, engine):
    lib = Library(home=tmp_path / "home", settings=Settings(**SETTINGS), embedder=minilm, db=engine.db)
    assert lib.store.info().engine == engine.name
    yield lib
    lib.close()


def shows_a_past_question(answer, asked) -> list[str]:
    """Every place where the answer shows or cites the text of a past question (empty: none)."""
    found = []
    shown = [("text", answer.text), *(("citation", c.snippet) for c in answer.citations),
             *(("passage", p.content) for p in answer.passages)]
    if answer.quote is not None:
        shown.append(("quote", answer.quote.text))
    for where, text in shown:
        found += [f"{where}: {q}" for q in set(asked) if q in text]
        if "[turn " in text or "User: " in text:
            found.append(f"{where}: a chat turn: {text[:80]}")
    return found


def test_no_shown_answer_or_citation_is_the_text_of_a_past_question(library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    library.add_folder(docs)
    library.sync()
    assert library.wait_for_embeddings(timeout=120)
    asked = past_chats(library)
    assert library.memory.chunk_sql.count() >= 34 and len(asked) >= 100
    rt = counting_runtime(library)
    answers = {q: library.ask(q) for q in [*ABSENT, *PRESENT, "What did I ask about the Zorblax reactor earlier?"]}
    for question, answer in answers.items():
        assert shows_a_past_question(answer, asked) == [], question
        assert all(p.kind == "document" for p in answer.passages), question
    for question in ABSENT:  # nothing in the library answers: refused, the model not asked
        assert answers[question].refused, question
    reactor = answers["Who invented the Zorblax reactor?"]
    assert not reactor.refused and reactor.quote is not None and "Mira Quell" in reactor.quote.text
    recalled = answers["What did I ask about the Zorblax reactor earlier?"]
    context = [m for m in recalled.memory if m.get("context")]
    assert context and all(m["kind"] == "history" and "n" not in m for m in context)  # context, not evidence
    assert len(rt.sent) == sum(not a.refused for a in answers.values())


def test_a_refusal_never_calls_the_runtime_even_with_the_question_in_memory(library):
    asked = past_chats(library, n_chats=4)
    rt = counting_runtime(library, selector="auto")
    for question in ABSENT:  # each was asked before, word for word: memory holds it, no document does
        answer = library.ask(question)
        assert answer.refused and shows_a_past_question(answer, asked) == [] and answer.passages == ()
    assert rt.sent == [] and rt.calls == []  # never asked, never streamed
