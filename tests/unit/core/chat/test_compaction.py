"""Compaction that keeps meaning: extractive summaries (pure) and the chat flow with a scripted model."""

from __future__ import annotations

from desktop_app.core.chat.answer.prompt import SUMMARY_HEADER
from desktop_app.core.chat.compaction import extractive_summary, first_sentence, uses_model_summary
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult, Turn
from tests.support.scripted import ScriptedRuntime, count_words


def test_first_sentence_and_its_word_cap():
    assert first_sentence("Dr. Mira Quell invented it in 1987 [1]. It runs on helium.") == \
        "Dr. Mira Quell invented it in 1987 [1]."
    assert first_sentence("word " * 60, max_words=5) == "word word word word word …"
    assert first_sentence("") == ""


def test_an_extractive_summary_drops_repetitive_lines_first_and_keeps_distinct_facts():
    turns = [Turn(f"Tides part {i}?", "The tide turns twice a day. More text.") for i in range(10)]
    text = extractive_summary(turns, "Q: Who built it? A: Mira Quell in 1987.", 1000, count_words)
    assert text.splitlines()[0] == "Q: Who built it? A: Mira Quell in 1987." and len(text.splitlines()) == 11
    assert "Q: Tides part 9? A: The tide turns twice a day." in text and "More text" not in text
    short = extractive_summary(turns, "Q: Who built it? A: Mira Quell in 1987.", 30, count_words)
    assert count_words(short) <= 30 and short.startswith("Q: Who built it? A: Mira Quell in 1987.")
    assert "part 0?" not in short  # among equally repetitive lines the oldest go first
    one = extractive_summary([], "one two three four five six", 4, count_words)
    assert count_words(one) <= 4 and one.startswith("one two")  # a single line too long is cut, not dropped


def test_small_local_models_summarise_extractively():
    assert not uses_model_summary(ScriptedRuntime())  # no file at all: size 0


# The passages here barely match the questions, so the quote selector would abstain and never call the model:
# these tests are about compaction, so every question asks the model anyway (ask_model=True).


def quell_aware(messages) -> str:
    """The scripted model answers about 'her' only when the summary of turn 1 is in the system prompt."""
    system = messages[0]["content"]
    if "What else did she invent" in messages[-1]["content"]:
        return "Mira Quell also invented the helium pump." if "Mira Quell" in system else "I do not know who she is."
    return "Filler answer about tides: " + "the tide turns twice a day near the harbour, " * 6 + "and so on."


def test_a_follow_up_about_a_compacted_turn_still_finds_it_in_the_summary(tmp_path):
    found = [RetrievalResult("Tide tables list high and low water for each day.", 1.0, "/d/tides.txt", {"chunk_id": 1})]
    settings = Settings(n_ctx=700, answer_reserve_tokens=60, max_context_tokens=100, context_min_score=0.0,
                        context_top_k=1)
    runtime = ScriptedRuntime(quell_aware, n_ctx=700)
    service = ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: found[:k], lambda: settings,
                          runtime_factory=lambda s, p: runtime)
    runtime.reply = "Dr. Mira Quell invented the Zorblax reactor in 1987 [1]."
    chat = service.ask("Who invented the Zorblax reactor?", ask_model=True).chat_id
    runtime.reply = quell_aware
    for i in range(12):
        service.ask(f"Tell me about the tides, part {i}.", chat_id=chat, ask_model=True)
    covered, summary = service.store.summary(chat)
    assert covered >= 1 and "Q: Who invented the Zorblax reactor? A: Dr. Mira Quell invented" in summary
    answer = service.ask("What else did she invent?", chat_id=chat, ask_model=True)
    sent = runtime.sent[-1]
    assert SUMMARY_HEADER in sent[0]["content"] and "Mira Quell" in sent[0]["content"]
    assert all("Zorblax" not in m["content"] for m in sent[1:])  # the turn itself is no longer replayed
    assert answer.generation == "Mira Quell also invented the helium pump."
    assert all(runtime.prompt_tokens(m) + 60 <= 700 for m in runtime.sent)
    roles = [m.role for m in service.store.messages(chat)]
    assert "summary" in roles and len(service.store.turns(chat)) == 14  # every turn is still stored
    service.close()


def test_the_summary_is_not_rewritten_on_every_turn(tmp_path):
    found = [RetrievalResult("Tide tables.", 1.0, "/d/tides.txt", {"chunk_id": 1})]
    settings = Settings(n_ctx=700, answer_reserve_tokens=60, max_context_tokens=100, context_min_score=0.0)
    runtime = ScriptedRuntime(quell_aware, n_ctx=700)
    service = ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: found[:k], lambda: settings,
                          runtime_factory=lambda s, p: runtime)
    chat = service.new_chat()
    for i in range(16):
        service.ask(f"Tides, part {i}?", chat_id=chat, ask_model=True)
    summaries = [m for m in service.store.messages(chat) if m.role == "summary"]
    assert 1 <= len(summaries) <= 6  # compaction runs in steps (80% down to 60% of the window), not every turn
    prefixes = {tuple(m["content"] for m in s[:1]) for s in runtime.sent}
    assert len(prefixes) == len(summaries) + 1  # the system prompt changes only when a summary is written
    service.close()
