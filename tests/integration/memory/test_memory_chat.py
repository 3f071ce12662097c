"""Conversation memory wired into chat, on both engines: real SQLite (FTS5, sqlite-vec) and a team library on the
test session's real PostgreSQL (the person's memory in its row-level-secured tables), the real embedder (MiniLM),
a scripted model for the pipeline, and the bundled GGUF for what any CPU must do (the prompt fits and carries the
fact)."""

from __future__ import annotations

import json

import pytest

from desktop_app.core.chat.answer.memory_step import is_memory
from desktop_app.core.chat.models.files import resolve_model_path
from desktop_app.core.chat.service import ChatService
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.chat.conftest import RecordingRuntime
from tests.support.scripted import ScriptedRuntime, last_user

DAY = 86400.0
SETTINGS = {"embedder": "minilm", "n_ctx": 2048, "n_threads": 1, "context_min_score": 0.02, "context_top_k": 3,
            "max_context_tokens": 400, "temperature": 0.0, "answer_reserve_tokens": 64,
            "refuse_without_context": False}


def reply(messages) -> str:
    """The scripted model: states the staging port when asked about it, otherwise a long, dull answer."""
    question = last_user(messages).rsplit("Question:", 1)[-1].lower()
    if "which port" in question:
        return "We decided the staging server listens on port 8099 from now on."
    return "Noted. " + " ".join(f"word{i}" for i in range(60))


@pytest.fixture
def library(tmp_path, minilm, engine):
    """A library on each engine (conftest.py)."""
    lib = Library(home=tmp_path / "home", settings=Settings(**SETTINGS), embedder=minilm, db=engine.db)
    assert lib.memory.fact_sql.db is lib.store and lib.store.info().engine == engine.name  # memory in that engine
    yield lib
    lib.close()


@pytest.fixture
def runtime(library):
    rt = ScriptedRuntime(reply, n_ctx=2048)
    library._chat = ChatService(library.store, library._retrieve_for_chat, lambda: library.settings,
                                runtime_factory=lambda s, p: rt, quote_selector=None, reranker=None,
                                memory=lambda: library.memory)
    return rt


def system(rt) -> str:
    return rt.sent[-1][0]["content"]


def memory_places(answer) -> list[str]:
    return [p.place for p in answer.passages if is_memory(p)]


def later(library, days: float) -> None:
    """Move memory's clock on by `days`."""
    memory = library.memory
    now = memory.clock() + days * DAY
    memory.clock = memory.facts.clock = memory.searcher.clock = memory.recaller.clock = lambda: now


def test_a_fact_stated_in_chat_1_is_in_chat_2s_prompt_with_its_age(library, runtime):
    first = library.ask("My editor is neovim, by the way.")
    later(library, 34)
    second = library.ask("How should I configure my editor for Python?")
    assert second.chat_id != first.chat_id
    assert "- editor → neovim (confidence 90%, updated 34d ago)" in system(runtime)
    assert any(p.startswith("fact editor, 34d ago") for p in memory_places(second))  # in Sources, citable
    kinds = [m["kind"] for m in second.memory]
    assert kinds[0] == "facts" and "fact" in kinds and "neovim" in second.memory[0]["text"]


def test_a_correction_supersedes_the_old_value_and_both_stay_findable(library, runtime):
    said = library.ask("Remember that the staging port is 8099.")
    library.ask("Actually, remember that the staging port is 8100.")
    library.ask("What else is there to do today?")  # a third chat: the first two went quiet (raw memory)
    assert "staging port → 8100" in system(runtime) and "8099" not in system(runtime)
    hits = library.memory.search("staging port")
    assert [(h.provenance["value"], h.outdated) for h in hits if h.kind == "fact"] == [("8100", False),
                                                                                      ("8099", True)]
    old = [h for h in hits if h.kind == "history" and h.provenance["chat_id"] == said.chat_id]
    assert old and old[0].outdated and "8100" in old[0].provenance["superseded_by"]


def test_a_chat_compacted_after_20_turns_recalls_a_number_from_turn_3(library, runtime):
    chat = library.chat.new_chat("Invoices")
    for i in range(1, 21):
        q = ("The invoice total for the Henderson job was 4,312 euros." if i == 3
             else f"Can you suggest recipe idea number {i}?")
        library.ask(q, chat_id=chat)
    covered, summary = library.chat.store.summary(chat)
    assert covered >= 3 and summary  # compacted: saved, then summarised
    assert library.memory.chunk_sql.last_turn(chat) >= covered
    answer = library.ask("What was the invoice total for the Henderson job?", chat_id=chat)
    recalled = [m for m in answer.memory if m["kind"] == "history"]
    assert recalled and "4,312" in recalled[0]["text"]
    first, last = recalled[0]["provenance"]["turns"]
    assert first <= 3 <= last and recalled[0]["label"].startswith("chat 'Invoices' turn")
    assert recalled[0]["context"] and "n" not in recalled[0]  # context: in the prompt, never a citable passage
    assert "4,312" in system(runtime) and "4,312" not in last_user(runtime.sent[-1])
    assert not [p for p in answer.passages if "4,312" in p.content]
    again = library.ask("And the invoice total for the Henderson job, once more?", chat_id=chat)
    assert not [m for m in again.memory if m["kind"] == "history" and m["ref"] == recalled[0]["ref"]]


def test_a_question_in_chat_3_recalls_a_decision_from_chat_1_with_provenance(library, runtime):
    one = library.ask("Which port should the staging server listen on?")
    library.ask("Any idea for lunch today?")
    three = library.ask("What did we decide about the staging port last week?")
    [item] = [m for m in three.memory if m["kind"] == "history"]
    assert item["provenance"]["chat_id"] == one.chat_id and item["provenance"]["turns"] == [1, 1]
    assert "8099" in item["text"] and item["label"].startswith("chat 'Which port should the staging server")
    # context, not evidence: labelled as memory in the system prompt, never a numbered passage or a citation
    assert item["context"] and "n" not in item and not memory_places(three) and not three.citations
    assert f"[memory: {item['label']}]" in system(runtime) and "8099" not in last_user(runtime.sent[-1])


def test_a_document_question_gets_no_past_chat_excerpt(library, runtime):
    library.ask("Which port should the staging server listen on?")
    answer = library.ask("Which port should the staging server listen on in production?")
    assert not [m for m in answer.memory if m["kind"] == "history"]  # not about the conversation: no context
    assert "8099" not in system(runtime) and "8099" not in last_user(runtime.sent[-1])


def test_forget_delete_and_memory_off_remove_it_from_later_prompts_and_search(library, runtime):
    library.ask("Remember that the shed code is 4417.")
    thesis = library.ask("My thesis is on coral bleaching.")
    library.ask("What should I do first?")
    assert "4417" in system(runtime) and "coral bleaching" in system(runtime)
    library.memory.forget("shed_code")
    library.ask("What is the shed code?")
    assert "4417" not in system(runtime) and not [h for h in library.memory.search("shed code") if h.kind == "fact"]
    library.chat.delete_chat(thesis.chat_id)
    answer = library.ask("What is my thesis about?")
    assert "coral" not in system(runtime) and not memory_places(answer)
    assert all("coral" not in h.text for h in library.memory.search("coral bleaching thesis"))
    library.ask("Remember that the boat is called Nimbus.")
    library.memory.set_enabled(False)
    off = library.ask("What is the boat called?")
    assert "Nimbus" not in system(runtime) and not off.memory and not memory_places(off)
    assert library.memory.search("boat called") == []
    library.memory.set_enabled(True)
    assert "Nimbus" in library.memory.facts_for_prompt()  # off hid it; it was not deleted


@pytest.mark.parametrize(("statement", "question", "needle"), [
    ("จำไว้ว่า รหัสห้องประชุมคือ 5521", "รหัสห้องประชุม คืออะไร", "5521"),
    ("تذكر أن رمز غرفة الاجتماعات هو 5521", "ما هو رمز غرفة الاجتماعات", "5521"),
    ("Remember that the meeting room code is 5521.", "What is the meeting room code?", "5521"),
])
def test_thai_and_arabic_facts_and_history_are_found_like_english(library, runtime, statement, question, needle):
    said = library.ask(statement)
    answer = library.ask(question)
    assert needle in system(runtime)  # the fact list
    kinds = {m["kind"] for m in answer.memory if needle in m.get("text", "")}
    assert kinds == {"facts", "fact"}  # listed, and in Sources as a fact; the past chat is not evidence
    assert said.text.startswith("Remembered: ") and needle in said.text and len(runtime.sent) == 1


def test_ask_json_lists_the_memory_it_injected(library, runtime, capsys):
    from desktop_app.cli.chat import answer_dict

    library.ask("My editor is neovim.")
    out = answer_dict(library.ask("Which editor do I use?"))
    json.dumps(out)
    assert out["memory"][0]["kind"] == "facts" and "neovim" in out["memory"][0]["text"]


def test_the_bundled_model_gets_a_prompt_that_fits_and_carries_the_fact(library):
    """The real GGUF: the fact list rides in the system prompt, and prompt + answer reserve fit n_ctx."""
    made = {}

    def factory(settings, model_path):
        made["rt"] = RecordingRuntime(resolve_model_path(model_path, settings.model_path), n_ctx=settings.n_ctx,
                                      n_threads=settings.n_threads)
        return made["rt"]

    library._chat = ChatService(library.store, library._retrieve_for_chat, lambda: library.settings,
                                runtime_factory=factory, quote_selector=None, reranker=None,
                                memory=lambda: library.memory)
    library.memory.add("editor", "neovim", confidence=0.9)
    answer = library.ask("Which editor do I use?", max_tokens=8)
    rt = made["rt"]
    assert "- editor → neovim (confidence 90%, updated today)" in rt.sent[-1][0]["content"]
    assert 0 < answer.prompt_tokens and answer.prompt_tokens + 64 <= rt.n_ctx
    assert answer.prompt_tokens == rt.prompt_tokens(rt.sent[-1])
