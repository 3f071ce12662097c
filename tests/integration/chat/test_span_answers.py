"""Answers that span passages (issue 48) end to end: the built-in sample library and a two-hop pair of documents,
indexed with the real MiniLM on real SQLite, asked through Library.ask with the real bundled GGUF as the chat model.
A comparison, a list and a bridge question are answered with whole units quoted verbatim from stored passages,
bullets grouped under their document, each cited; the model is never asked; a plain question goes the usual way.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from desktop_app.core.chat.answer.span.step import span_step
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.resources import sample_docs_dir
from tests.integration.chat.conftest import N_CTX, N_THREADS, RecordingRuntime

SETTINGS = {"embedder": "minilm", "n_ctx": N_CTX, "n_threads": N_THREADS, "temperature": 0.0,
            "answer_reserve_tokens": 32, "context_top_k": 5, "max_context_tokens": 600}
HOTPOT = Path(__file__).parents[3] / "bench" / "data" / "multihop" / "hotpot_dev_100.jsonl.gz"


def sample_docs(root: Path) -> Path:
    """A copy of the built-in sample library (what a new user tries first)."""
    shutil.copytree(sample_docs_dir(), root)
    return root


def library(home: Path, docs: Path, minilm) -> tuple[Library, dict]:
    lib = Library(home, settings=Settings(**SETTINGS), embedder=minilm)
    lib.add_folder(docs)
    lib.sync(wait=True)
    recorder: dict = {}

    def factory(settings, model_path):
        from desktop_app.core.chat.models.files import resolve_model_path

        recorder["runtime"] = RecordingRuntime(resolve_model_path(model_path, settings.model_path),
                                               n_ctx=settings.n_ctx, n_threads=settings.n_threads)
        return recorder["runtime"]

    from desktop_app.core.chat.service import ChatService

    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings, runtime_factory=factory,
                            embedder=lambda: lib.embedder)
    return lib, recorder


def bullets(answer) -> list[tuple[str, int]]:
    """(text, cited passage number) of every bullet."""
    out = []
    for line in answer.text.splitlines():
        if line.startswith("- "):
            text, marker = line[2:].rsplit(" [", 1)
            out.append((text, int(marker.rstrip("]"))))
    return out


def flat(text: str) -> str:
    return " ".join(text.split())


def assert_quoted_verbatim(lib: Library, answer) -> None:
    """Every bullet is a stretch of the passage it cites, and every passage is a stored chunk of its document;
    every document header names a cited file, each once, its bullets under it."""
    passages = {p.n: p for p in answer.passages}
    assert [c.n for c in answer.citations] == sorted(passages) == list(range(1, len(passages) + 1))
    for text, n in bullets(answer):
        assert flat(text) in flat(passages[n].content)
    for p in answer.passages:
        assert p.content in [t for _, t in lib.document_chunks(p.source)]
    headers = [line.strip("*") for line in answer.text.splitlines() if line.startswith("**")]
    assert len(headers) == len(set(headers)) == len({p.source for p in answer.passages})
    current = None
    for line in answer.text.splitlines():
        if line.startswith("**"):
            current = line.strip("*").replace("\\", "")
        elif line.startswith("- "):
            n = int(line.rsplit(" [", 1)[1].rstrip("]"))
            assert Path(passages[n].source).name == current


@pytest.fixture
def sample(tmp_path, minilm):
    lib, recorder = library(tmp_path / "home", sample_docs(tmp_path / "docs"), minilm)
    yield lib, recorder, tmp_path / "docs"
    lib.close()


def test_a_comparison_quotes_each_side_and_the_model_is_not_asked(sample):
    lib, recorder, _ = sample
    answer = lib.ask("Compare keyword search and semantic search.")
    assert answer.hidden_because == "quotes from several passages" and not answer.refused
    assert_quoted_verbatim(lib, answer)
    texts = [t for t, _ in bullets(answer)]
    assert len(texts) >= 2
    assert any("keyword search" in t.casefold() for t in texts)
    assert any("semantic search" in t.casefold() for t in texts)
    assert "runtime" not in recorder or not recorder["runtime"].sent  # no model call
    stored = lib.chat.messages(answer.chat_id)[-1]
    assert stored.role == "assistant" and stored.content == answer.text  # the chat keeps what was shown


def test_list_every_keyboard_shortcut_lists_each_line_of_the_table(sample):
    lib, _, docs = sample
    answer = lib.ask("List every keyboard shortcut.")
    assert_quoted_verbatim(lib, answer)
    table = (docs / "keyboard-shortcuts.txt").read_text(encoding="utf-8").split("\n\n")[1]
    rows = [flat(line) for line in table.splitlines() if line.strip()]
    assert len(rows) == 9 and rows[0].startswith("Ctrl+F")
    shown = [flat(t) for t, _ in bullets(answer)]
    assert all(row in shown for row in rows)


def test_what_the_documents_say_about_a_topic_is_quoted_not_refused(sample):
    lib, recorder, _ = sample
    answer = lib.ask("What do my documents say about semantic search?")
    assert not answer.refused and answer.hidden_because == "quotes from several passages"
    assert_quoted_verbatim(lib, answer)
    assert any("semantic" in t.casefold() for t, _ in bullets(answer))
    assert "runtime" not in recorder or not recorder["runtime"].sent


def test_a_plain_question_is_not_a_span_answer(sample):
    lib, _, _ = sample
    chat = lib.chat.new_chat()
    assert span_step(lib.chat, chat, "How long should sourdough rise?", 0, ()) is None
    lib.chat.span_answers = False  # type: ignore[attr-defined]
    assert span_step(lib.chat, chat, "Compare keyword search and semantic search.", 0, ()) is None


def test_a_bridge_question_quotes_both_documents(tmp_path, minilm):
    """HotpotQA dev question 6 with its ten paragraphs (bench/data/multihop): the album's passage names the group,
    the group's passage names who formed it; both gold paragraphs are quoted, under their own file."""
    with gzip.open(HOTPOT, "rt", encoding="utf-8") as f:
        q = [json.loads(line) for line in f][5]
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, (title, sentences) in enumerate(q["context"]):
        (docs / f"p{i}.txt").write_text(f"{title}\n\n{''.join(sentences).strip()}\n", encoding="utf-8")
    gold = {f"p{i}.txt" for i, (title, _) in enumerate(q["context"]) if title in {t for t, _ in q["supporting_facts"]}}
    lib, recorder = library(tmp_path / "home", docs, minilm)
    try:
        answer = lib.ask(q["question"])
        assert answer.hidden_because == "quotes from several passages"
        assert_quoted_verbatim(lib, answer)
        assert len(gold) == 2 and gold <= {Path(p.source).name for p in answer.passages}
        assert "runtime" not in recorder or not recorder["runtime"].sent
    finally:
        lib.close()
