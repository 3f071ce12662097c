"""ChatService end to end on a real library (SQLite, FTS5, sqlite-vec): the pipeline with a scripted model,
then what the real GGUF must do through the service on any CPU (fit n_ctx, stop, reuse its KV cache)."""

from __future__ import annotations

import threading
from pathlib import Path

from desktop_app.core.chat.answer.budget import NOT_COVERED
from desktop_app.core.chat.answer.prompt import DEFAULT_STYLE
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult
from tests.integration.chat.conftest import CHAT_SETTINGS, N_THREADS, RecordingRuntime
from tests.support.scripted import ScriptedRuntime, count_words, last_user

REACTOR_ANSWER = "The Zorblax reactor was invented by Dr. Mira Quell [1]."


def names(items) -> list[str]:
    return [Path(getattr(i, "source", None) or i.path).name for i in items]


def use(lib, runtime: ScriptedRuntime) -> ScriptedRuntime:
    """Answer `lib`'s questions with `runtime`."""
    lib._chat = ChatService(
        lib.store, lib._retrieve_for_chat, lambda: lib.settings, runtime_factory=lambda s, p: runtime
    )
    return runtime


def test_a_grounded_answer_streams_cites_the_right_file_and_persists(chat_library):
    runtime = use(chat_library, ScriptedRuntime(REACTOR_ANSWER))
    tokens = []
    answer = chat_library.ask("Who invented the Zorblax reactor?", on_token=tokens.append, max_tokens=40)
    assert [t.index for t in tokens] == list(range(len(tokens))) and len(tokens) == count_words(REACTOR_ANSWER)
    assert "".join(t.text for t in tokens) == answer.raw_text == REACTOR_ANSWER
    assert {t.chat_id for t in tokens} == {answer.chat_id}
    assert names(answer.passages)[0] == "reactor.txt"  # the file that holds the answer comes first
    prompt = last_user(runtime.sent[-1])
    assert "Dr. Mira Quell" in prompt and "[1] reactor.txt" in prompt
    assert prompt.endswith("Who invented the Zorblax reactor?")
    assert [c.n for c in answer.citations] == [1] and names(answer.citations) == ["reactor.txt"]
    assert runtime.calls[-1]["max_tokens"] == 40
    stored = chat_library.chat.messages(answer.chat_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].content == REACTOR_ANSWER and [c.n for c in stored[1].citations] == [1]
    assert [p.source for p in stored[1].passages] == [p.source for p in answer.passages]
    assert [c.id for c in chat_library.chat.list_chats()] == [answer.chat_id]


def test_markers_naming_no_sent_passage_are_dropped(tmp_path):
    found = [
        RetrievalResult(f"Passage {i}: Quell made it in 1987.", 1.0, f"/docs/r{i}.txt", {"chunk_id": i})
        for i in range(3)
    ]
    runtime = ScriptedRuntime("Quell made it [1][9], in 1987 [2, 7].")
    service = ChatService(
        SQLiteStore(tmp_path / "library.db"),
        lambda q, k: found[:k],
        lambda: Settings(**CHAT_SETTINGS),
        runtime_factory=lambda s, p: runtime,
        reranker=None,  # markers, not the gate: the cross-encoder reads "Quell made it" under its WINDOW_FLOOR
    )
    answer = service.ask("Who invented the Zorblax reactor?")
    assert len(answer.passages) == 3
    assert answer.generation == "Quell made it [1], in 1987 [2]."
    assert [c.n for c in answer.generation_citations] == [1, 2] and [c.path for c in answer.generation_citations] == [
        "/docs/r0.txt",
        "/docs/r1.txt",
    ]
    service.close()


def test_pdf_passages_carry_their_page(chat_library):
    use(chat_library, ScriptedRuntime("It is crimson [1]."))
    answer = chat_library.ask("What colour is the lighthouse on Korrin Island?")
    first = answer.passages[0]
    assert Path(first.source).name == "korrin.pdf" and first.page == 2
    assert answer.citations[0].page == 2


def test_no_context_sends_no_passages(chat_library):
    runtime = use(chat_library, ScriptedRuntime("I do not know."))
    answer = chat_library.ask("Who invented the Zorblax reactor?", use_context=False)
    sent = runtime.sent[-1]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[-1]["content"] == "Who invented the Zorblax reactor?"
    assert all("Quell" not in m["content"] and "[Source:" not in m["content"] for m in sent)
    assert answer.passages == () and answer.citations == ()


def test_nothing_relevant_means_no_model_call(make_library, tmp_path):
    lib = make_library(home=tmp_path / "empty", **CHAT_SETTINGS)  # an empty library: retrieval finds nothing
    made = []
    lib._chat = ChatService(
        lib.store,
        lib._retrieve_for_chat,
        lambda: lib.settings,
        runtime_factory=lambda s, p: made.append(RecordingRuntime(_gguf(s, p), n_ctx=s.n_ctx)) or made[-1],
    )
    answer = lib.ask("What is the airspeed of an unladen swallow?")
    assert answer.refused and answer.text == NOT_COVERED and answer.passages == ()
    assert made and made[0].sent == [] and not made[0].loaded  # the model was never called, not even loaded
    assert [m.content for m in lib.chat.messages(answer.chat_id)][-1] == NOT_COVERED


def _gguf(settings, model_path):
    from desktop_app.core.chat.models.files import resolve_model_path

    return resolve_model_path(model_path, settings.model_path)


def test_a_follow_up_is_retrieved_with_the_previous_question_and_replays_the_turn(chat_library):
    runtime = use(chat_library, ScriptedRuntime(lambda msgs: f"Answer {len(msgs) // 2} [1]."))
    first = chat_library.ask("Who invented the Zorblax reactor?")
    second = chat_library.ask("What does it run on?", chat_id=first.chat_id)
    # "it" alone matches nothing; with the previous question in the query the reactor passage comes back
    assert "reactor.txt" in names(second.passages)
    sent = runtime.sent[-1]
    ex = len(DEFAULT_STYLE.example_messages())  # the style's worked example sits after the system prompt
    assert [m["role"] for m in sent] == ["system"] + ["user", "assistant"] * (ex // 2) + ["user", "assistant", "user"]
    assert sent[ex + 1]["content"] == "Who invented the Zorblax reactor?" and sent[ex + 2]["content"] == first.raw_text
    assert "Mira Quell" not in sent[ex + 1]["content"]  # old passages are not replayed
    third = chat_library.ask("Who restored it?", chat_id=first.chat_id)
    assert runtime.sent[-1][: ex + 3] == sent[: ex + 3]  # the prefix a KV cache would reuse is byte-identical
    assert runtime.sent[-1][ex + 3] == {"role": "user", "content": "What does it run on?"}  # replayed without passages
    assert third.history_turns == 2 and len(chat_library.chat.messages(first.chat_id)) == 6


def test_cancel_keeps_the_partial_answer(chat_library):
    use(chat_library, ScriptedRuntime("Sourdough needs a starter of flour and water, fed daily for a week [1]."))
    cancel = threading.Event()
    seen = []

    def on_token(t):
        seen.append(t.text)
        if len(seen) == 2:
            cancel.set()

    answer = chat_library.ask("Tell me everything about sourdough bread.", on_token=on_token, cancel=cancel)
    assert answer.cancelled and answer.completion_tokens == 2 and answer.generation == "Sourdough needs"
    assert chat_library.chat.messages(answer.chat_id)[-1].content == "".join(seen)


def test_an_answer_stops_at_max_tokens(chat_library):
    runtime = use(chat_library, ScriptedRuntime("word " * 100))
    answer = chat_library.ask("Tell me everything about sourdough bread.", max_tokens=7)
    assert answer.completion_tokens == 7 and runtime.calls[-1]["max_tokens"] == 7


def _huge_service(tmp_path, runtime, settings):
    huge = [
        RetrievalResult(
            f"Chunk {i}. " + "The archive holds many long reports about harbours and tides. " * 300,
            1.0,
            f"/docs/report{i}.txt",
            {"chunk_id": i, "page": i % 7 or None},
        )
        for i in range(50)
    ]
    service = ChatService(
        SQLiteStore(tmp_path / "library.db"),
        lambda q, k: huge[:k],
        lambda: settings,
        runtime_factory=lambda s, p: runtime,
    )
    chat = service.new_chat()
    for i in range(100):
        service.store.add_exchange(
            chat,
            f"Question {i} about tides and harbours " + "why " * 40,
            f"Answer {i}: " + "the tide turns twice a day. " * 25,
            [],
            [],
        )
    return service, chat, huge


def test_fifty_huge_chunks_and_a_hundred_turns_still_fit_the_window(tmp_path, runtime, gguf):
    settings = Settings(**{**CHAT_SETTINGS, "max_context_tokens": 2048, "answer_reserve_tokens": 256})
    service, chat, huge = _huge_service(tmp_path, runtime, settings)
    turns = service.store.turns(chat)
    assert sum(runtime.count_tokens(t.question) + runtime.count_tokens(t.answer) for t in turns) > 10 * runtime.n_ctx
    plan = service.plan("What do the reports say about tides?", huge, turns, settings, runtime, True, 256)
    assert runtime.prompt_tokens(plan.messages) + 256 <= runtime.n_ctx  # counted with the model's own tokenizer
    assert plan.passages and plan.history_start > 0 and plan.history_turns > 0
    focus = DEFAULT_STYLE.focus_tokens  # passages are cut to the question-focused window, or the last one to the budget
    assert (
        all(runtime.count_tokens(p.content) <= focus for p in plan.passages) if focus else plan.passages[-1].truncated
    )
    service.store.store.close()
    # And llama.cpp really accepts such a prompt (it raises when a prompt exceeds n_ctx). A 512-token window
    # keeps the evaluation short on this machine; the budget is the same code at any size.
    small = RecordingRuntime(gguf, n_ctx=512, n_threads=N_THREADS)
    tight = settings.with_changes(n_ctx=512, answer_reserve_tokens=48)
    service = ChatService(
        SQLiteStore(tmp_path / "library.db"), lambda q, k: huge[:k], lambda: tight, runtime_factory=lambda s, p: small
    )
    answer = service.ask("What do the reports say about tides?", chat_id=chat, top_k=50, max_tokens=8)
    assert 1 <= answer.completion_tokens <= 8 and answer.prompt_tokens + 48 <= 512 and answer.passages
    assert small.prompt_tokens(small.sent[-1]) == answer.prompt_tokens
    service.close()


def test_the_real_model_answers_through_the_service_and_reuses_its_cache_on_a_follow_up(chat_library):
    """What any CPU must do; the wording is not checked (it differs between SIMD paths)."""
    tokens = []
    first = chat_library.ask("Who invented the Zorblax reactor?", on_token=tokens.append, max_tokens=12)
    assert 1 <= first.completion_tokens <= 12 and len(tokens) == first.completion_tokens
    assert "".join(t.text for t in tokens) == first.raw_text
    assert first.prompt_tokens + 12 <= chat_library.settings.n_ctx and first.ttft_s is not None
    chat_library.ask("What does it run on?", chat_id=first.chat_id, max_tokens=8)
    third = chat_library.ask("Who restored it?", chat_id=first.chat_id, max_tokens=8)
    runtime = chat_library.recorder["runtime"]
    ex = len(DEFAULT_STYLE.example_messages())
    shared = runtime.prompt_tokens(runtime.sent[-1][: ex + 3])  # system, example, turn 1: unchanged since prompt 2
    assert third.reused_prefix_tokens >= shared - 6  # all but the closing template tokens came from the cache
    assert third.history_turns == 2


def test_the_real_model_summarises_a_small_document_within_its_window(chat_library, docs_dir):
    progress = []
    summary = chat_library.summarize(docs_dir / "reactor.txt", max_tokens=16, on_progress=progress.append)
    runtime = chat_library.recorder["runtime"]
    assert summary.calls == 1 and summary.rounds == 1 and not summary.cancelled and summary.chunks >= 1
    assert runtime.prompt_tokens(runtime.sent[-1]) + 16 <= runtime.n_ctx
    assert [(p.done, p.total, p.stage) for p in progress] == [(1, 1, "single")]


def test_a_scope_is_a_file_or_everything_under_a_folder_never_a_sibling(make_library, tmp_path):
    for folder in ("notes", "notes-old", "notes/deep"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "tides.txt").write_text(f"Tides in {folder} turn twice a day near the harbour.")
    lib = make_library(home=tmp_path / "home", **CHAT_SETTINGS)
    lib.add_folder(tmp_path)
    lib.sync()

    def found(paths):
        return sorted(Path(r.source).parent.name for r in lib.search("tides harbour", top_k=10, paths=paths))

    assert found(None) == ["deep", "notes", "notes-old"]
    assert found([tmp_path / "notes"]) == ["deep", "notes"]
    assert found([tmp_path / "notes" / "tides.txt"]) == ["notes"]
    assert found([tmp_path / "notes-old", tmp_path / "notes" / "deep"]) == ["deep", "notes-old"]
    runtime = use(lib, ScriptedRuntime("Twice a day."))
    answer = lib.ask("When do tides turn?", scope=[str(tmp_path / "notes-old")])
    assert [Path(p.source).parent.name for p in answer.passages] == ["notes-old"]
    assert "Tides in notes-old" in last_user(runtime.sent[-1])


def test_a_question_is_plain_words_not_the_search_query_language(chat_library):
    # In the search box "quoted words" are a phrase every result must hold; a question is not search syntax: words
    # quoted the way the document does not put them must not empty its passages (XQuAD's Arabic questions quote
    # names, and lost their passage this way).
    runtime = use(chat_library, ScriptedRuntime(REACTOR_ANSWER))
    for question in ('Who invented the "Zorblax power reactor"?',
                     'Is "Dr. Quell" the inventor of the Zorblax reactor?'):
        assert chat_library.search(question, 3) == []  # as a search: no passage holds the phrase
        answer = chat_library.ask(question)
        assert names(answer.passages)[0] == "reactor.txt", question
    assert len(runtime.sent) == 2
