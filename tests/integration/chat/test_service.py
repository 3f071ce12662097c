"""ChatService end to end: a real library (SQLite, FTS5, sqlite-vec), the real GGUF, the real tokenizer."""

from __future__ import annotations

import threading
from pathlib import Path

from desktop_app.core.chat.budget import CONTEXT_HEADER, NOT_COVERED
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult
from tests.integration.chat.conftest import CHAT_SETTINGS, N_THREADS, RecordingRuntime


def names(items) -> list[str]:
    return [Path(getattr(i, "source", None) or i.path).name for i in items]


def test_a_grounded_answer_streams_uses_the_right_file_and_persists(chat_library):
    tokens = []
    answer = chat_library.ask("Who invented the Zorblax reactor?", on_token=tokens.append, max_tokens=40)
    assert len(tokens) >= 2 and [t.index for t in tokens] == list(range(len(tokens)))
    assert {t.chat_id for t in tokens} == {answer.chat_id}
    assert names(answer.passages)[0] == "reactor.txt"  # the file that holds the answer comes first
    assert "Quell" in answer.text  # the made-up inventor can only come from the passage (see the --no-context test)
    sent = chat_library.recorder["runtime"].sent[-1]
    assert "Dr. Mira Quell" in sent[-1]["content"] and sent[-1]["content"].startswith(CONTEXT_HEADER)
    stored = chat_library.chat.messages(answer.chat_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert [p.source for p in stored[1].passages] == [p.source for p in answer.passages]
    assert [c.id for c in chat_library.chat.list_chats()] == [answer.chat_id]


def test_pdf_passages_carry_their_page(chat_library):
    answer = chat_library.ask("What colour is the lighthouse on Korrin Island?", max_tokens=24)
    first = answer.passages[0]
    assert Path(first.source).name == "korrin.pdf" and first.page == 2


def test_no_context_sends_no_passages(chat_library):
    answer = chat_library.ask("Who invented the Zorblax reactor?", use_context=False, max_tokens=24)
    sent = chat_library.recorder["runtime"].sent[-1]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[-1]["content"] == "Who invented the Zorblax reactor?"
    assert all("Quell" not in m["content"] and "[Source:" not in m["content"] for m in sent)
    assert answer.passages == () and answer.citations == () and "Quell" not in answer.text


def test_nothing_relevant_means_no_model_call(make_library, tmp_path):
    lib = make_library(home=tmp_path / "empty", **CHAT_SETTINGS)  # an empty library: retrieval finds nothing
    made = []
    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings,
                            runtime_factory=lambda s, p: made.append(RecordingRuntime(_gguf(s, p), n_ctx=s.n_ctx)) or made[-1])
    answer = lib.ask("What is the airspeed of an unladen swallow?")
    assert answer.refused and answer.text == NOT_COVERED and answer.passages == ()
    assert made and made[0].sent == [] and not made[0].loaded  # the model was never called, not even loaded
    assert [m.content for m in lib.chat.messages(answer.chat_id)][-1] == NOT_COVERED


def _gguf(settings, model_path):
    from desktop_app.core.chat.model_files import resolve_model_path

    return resolve_model_path(model_path, settings.model_path)


def test_a_follow_up_is_retrieved_with_the_previous_question_and_reuses_the_cache(chat_library):
    first = chat_library.ask("Who invented the Zorblax reactor?", max_tokens=32)
    second = chat_library.ask("What does it run on?", chat_id=first.chat_id, max_tokens=24)
    # "it" alone matches nothing; with the previous question in the query the reactor passage comes back
    assert "reactor.txt" in names(second.passages)
    sent = chat_library.recorder["runtime"].sent[-1]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1]["content"] == "Who invented the Zorblax reactor?" and sent[2]["content"] == first.raw_text
    third = chat_library.ask("Who restored it?", chat_id=first.chat_id, max_tokens=16)
    runtime = chat_library.recorder["runtime"]
    shared = runtime.prompt_tokens(runtime.sent[-1][:3])  # system + turn 1, unchanged since the second prompt
    assert third.reused_prefix_tokens >= shared - 6  # all but the closing template tokens came from the cache
    assert third.history_turns == 2 and len(chat_library.chat.messages(first.chat_id)) == 6


def test_cancel_keeps_the_partial_answer(chat_library):
    cancel = threading.Event()
    seen = []

    def on_token(t):
        seen.append(t.text)
        if len(seen) == 2:
            cancel.set()

    answer = chat_library.ask("Tell me everything about sourdough bread.", on_token=on_token, cancel=cancel,
                              max_tokens=48)
    assert answer.cancelled and answer.completion_tokens == 2
    assert chat_library.chat.messages(answer.chat_id)[-1].content == "".join(seen)


def test_fifty_huge_chunks_and_a_hundred_turns_still_fit_the_window(tmp_path, runtime, gguf):
    huge = [RetrievalResult(f"Chunk {i}. " + "The archive holds many long reports about harbours and tides. " * 300,
                            1.0, f"/docs/report{i}.txt", {"chunk_id": i, "page": i % 7 or None}) for i in range(50)]
    settings = Settings(**{**CHAT_SETTINGS, "max_context_tokens": 2048, "answer_reserve_tokens": 256})
    service = ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: huge[:k], lambda: settings,
                          runtime_factory=lambda s, p: runtime)
    chat = service.new_chat()
    for i in range(100):
        service.store.add_exchange(chat, f"Question {i} about tides and harbours " + "why " * 40,
                                   f"Answer {i}: " + "the tide turns twice a day. " * 25, [], [])
    turns = service.store.turns(chat)
    assert sum(runtime.count_tokens(t.question) + runtime.count_tokens(t.answer) for t in turns) > 10 * runtime.n_ctx
    plan = service.plan("What do the reports say about tides?", huge, turns, settings, runtime, True, 256)
    assert runtime.prompt_tokens(plan.messages) + 256 <= runtime.n_ctx  # counted with the model's own tokenizer
    assert plan.passages and plan.passages[-1].truncated and plan.history_start > 0 and plan.history_turns > 0
    service.store.store.close()
    # And llama.cpp really accepts such a prompt (it raises when a prompt exceeds n_ctx). A 512-token window
    # keeps the evaluation short on this machine; the budget is the same code at any size.
    small = RecordingRuntime(gguf, n_ctx=512, n_threads=N_THREADS)
    tight = settings.with_changes(n_ctx=512, answer_reserve_tokens=48)
    service = ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: huge[:k], lambda: tight,
                          runtime_factory=lambda s, p: small)
    answer = service.ask("What do the reports say about tides?", chat_id=chat, top_k=50, max_tokens=8)
    assert answer.completion_tokens >= 1 and answer.prompt_tokens + 48 <= 512 and answer.passages
    assert small.prompt_tokens(small.sent[-1]) == answer.prompt_tokens
    service.close()
