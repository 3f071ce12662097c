"""The chat's conversation without a window: one request at a time, stale events dropped, how each exchange ends."""

from __future__ import annotations

from dataclasses import replace

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.conversation import Conversation, Ending
from desktop_app.core.chat.sessions import ChatMessage
from desktop_app.core.chat.summarize import Summary

P = (Passage(1, "Venus is the hottest planet in the solar system.", "/d/planets.md"),
     Passage(2, "Mars has two small moons.", "/d/planets.md"))
Q = Quote("Venus is the hottest planet in the solar system.", 1, 0, 48, 0.9, source="/d/planets.md")


def answer(**kw) -> ChatAnswer:
    cited = (Citation(1, "/d/planets.md", None, None, "Venus"),)
    return replace(ChatAnswer("Venus [1].", 7, cited, P, quote=Q), **kw)


def test_one_request_at_a_time_and_its_stop_event():
    c = Conversation()
    first = c.begin("Which planet is hottest?")
    assert first is not None and c.busy
    assert c.begin("And the coldest?") is None  # the prologue refuses while one is in flight
    assert [e.question for e in c.exchanges] == ["Which planet is hottest?"]
    c.stop()
    assert first.cancel.is_set()
    assert c.answered(first.id, answer(cancelled=True))
    assert not c.busy and c.exchanges[-1].ending is Ending.CANCELLED and c.exchanges[-1].note == "stopped"
    second = c.begin("And the coldest?")
    assert second is not None and second.id != first.id and not second.cancel.is_set()


def test_the_quote_comes_before_the_tokens_and_the_answer_keeps_both():
    c = Conversation()
    r = c.begin("Which planet is hottest?")
    assert r is not None
    assert c.quote(r.id, Q)
    assert c.exchanges[-1].quote is Q and c.exchanges[-1].streamed == ""
    for t in ("Venus", " is", " hottest"):
        assert c.token(r.id, t)
    assert c.exchanges[-1].streamed == "Venus is hottest" and c.tokens_received == 3
    assert c.answered(r.id, answer())
    done = c.exchanges[-1]
    assert done.ending is Ending.ANSWERED and done.passages == P and done.cited == (1,) and c.chat_id == 7
    assert c.sources(0) == (P, (1,), Q)
    assert c.quote(r.id, Q) is False  # a quote after the answer changes nothing


def test_tokens_of_a_request_left_behind_are_ignored():
    c = Conversation()
    old = c.begin("Which planet is hottest?")
    assert old is not None
    c.token(old.id, "Ve")
    c.clear()  # a new chat while the old answer still streams
    assert old.cancel.is_set() and not c.busy and c.exchanges == [] and c.chat_id is None
    new = c.begin("Which planet has moons?")
    assert new is not None
    assert not c.token(old.id, "nus") and not c.quote(old.id, Q) and not c.answered(old.id, answer())
    assert not c.failed(old.id, RuntimeError("late"))
    assert c.exchanges[-1].streamed == "" and c.exchanges[-1].quote is None and c.busy
    assert c.token(new.id, "Mars")
    assert c.exchanges[-1].streamed == "Mars" and c.tokens_received == 2


def test_a_failure_keeps_what_streamed_and_says_why():
    c = Conversation()
    r = c.begin("Which planet is hottest?")
    assert r is not None
    c.quote(r.id, Q)
    c.token(r.id, "Venus")
    assert c.failed(r.id, RuntimeError("the model file is gone"))
    e = c.exchanges[-1]
    assert (e.ending, e.note, e.streamed, e.quote) == (Ending.FAILED, "Failed: the model file is gone", "Venus", Q)
    assert not c.busy and c.begin("again?") is not None


def test_the_hidden_model_answer_toggles_only_when_there_is_one():
    c = Conversation()
    r = c.begin("Which planet is hottest?")
    assert r is not None
    c.answered(r.id, answer(generation="Venus is the hottest [1].", generation_shown=False))
    assert c.toggle(0) and c.exchanges[0].expanded
    assert c.toggle(0) and not c.exchanges[0].expanded
    r = c.begin("And Mars?")
    assert r is not None
    c.answered(r.id, answer(generation="Mars has moons [2].", generation_shown=True))
    assert not c.toggle(1) and not c.exchanges[1].expanded  # already shown: nothing to toggle
    assert not c.toggle(5) and not c.toggle(-1)


def test_a_summary_reports_progress_then_its_size():
    c = Conversation()
    r = c.begin("Summarise planets.md", note="starting…")
    assert r is not None and c.exchanges[-1].note == "starting…"
    assert c.progress(r.id, 1, 3) and c.exchanges[-1].note == "step 1 of 3…"
    assert c.summarized(r.id, Summary("/d/planets.md", "Planets differ.", chunks=4, calls=3, rounds=2))
    e = c.exchanges[-1]
    assert (e.text, e.note, e.ending) == ("Planets differ.", "4 chunks, 3 model calls", Ending.ANSWERED)
    assert not c.progress(r.id, 2, 3)  # late progress of a finished summary


def test_a_past_chat_loads_as_finished_exchanges_with_their_passages():
    c = Conversation()
    cite = (Citation(2, "/d/planets.md", None, None, "Mars"),)
    messages = [ChatMessage(1, 9, "user", "Moons?", (), (), 0.0),
                ChatMessage(2, 9, "assistant", " Mars has two [2][5]. ", cite, P, 0.0)]
    c.load(9, messages)
    assert c.chat_id == 9 and not c.busy
    (e,) = c.exchanges
    assert (e.question, e.text, e.ending) == ("Moons?", "Mars has two [2].", Ending.ANSWERED)  # [5] names no passage
    assert c.sources(0) == (P, (2,), None)


def test_a_reopened_chat_shows_what_was_shown_not_the_models_raw_text(tmp_path):
    from desktop_app.core.chat.sessions import ChatSessions
    from desktop_app.core.store.sqlite import SQLiteStore

    chats = ChatSessions(SQLiteStore(tmp_path / "library.db"))
    chat = chats.create_chat("q")
    passage = Passage(1, "Ctrl+F or Ctrl+K focuses the search bar.", "/d/keys.txt")
    quote = Quote(passage.content, 1, 0, len(passage.content), 0.9, source=passage.source)
    chats.add_exchange(chat, "Which shortcut focuses search?", "Ctrl+N [1]", [], [passage], quote.cited(),
                       quote.to_dict())
    stored = chats.messages(chat)
    assert stored[-1].content == "Ctrl+N [1]" and stored[-1].citations == ()  # replayed to the model as it wrote
    conversation = Conversation()
    conversation.load(chat, stored)
    assert conversation.exchanges[0].text == quote.cited() and conversation.exchanges[0].quote == quote
    assert conversation.sources(0) == ((passage,), (), quote)
