"""Thai questions find their paragraph in a small real Thai library (eight XQuAD articles, one file each), through
the whole pipeline: chunking in words of every script, the keyword index's segmentation, the real multilingual
embedder, and the focus window that goes into the prompt."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from desktop_app.core.chat.answer.focus import focus
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

DATA = Path(__file__).resolve().parents[3] / "data" / "multilingual" / "xquad-th"
TOP_K = 3


def utf8_pieces(text: str) -> int:
    return (len(text.encode("utf-8")) + 1) // 2


@pytest.fixture(scope="module")
def thai_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("thai")
    shutil.copytree(DATA, root / "docs", ignore=shutil.ignore_patterns("*.jsonl"))
    with Library(root / "home", settings=Settings(embedder="use-multilingual")) as lib:
        lib.add_folder(root / "docs")
        lib.sync()
        assert lib.wait_for_embeddings(600)
        yield lib


def questions() -> list[dict]:
    return [json.loads(line) for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines()]


def paragraph(q: dict) -> str:
    return (DATA / f"{q['article']}.txt").read_text(encoding="utf-8").split("\n\n")[q["paragraph"]].strip()


def holds_part_of(chunk: str, para: str) -> bool:
    """The chunk (an exact slice of its article) covers some of the paragraph: they share a 40-character stretch."""
    probe = min(40, len(para))
    return any(para[i:i + probe] in chunk for i in range(0, len(para) - probe + 1, 20))


def test_the_articles_are_cut_into_chunks_of_paragraph_size(thai_library):
    chunks = thai_library.stats()["chunks"]
    assert chunks >= 2 * 8  # eight articles: one chunk each before chunks were counted in Thai words


@pytest.mark.parametrize("mode,least", [("hybrid", 0.9), ("semantic", 0.75), ("keyword", 0.85)])
def test_thai_questions_find_their_paragraph_in_the_top_chunks(thai_library, mode, least):
    qs = questions()
    found = 0
    for q in qs:
        hits = thai_library.search(q["question"], top_k=TOP_K, mode=mode)
        found += any(Path(h.source).stem == q["article"] and holds_part_of(h.content, paragraph(q)) for h in hits)
    assert found / len(qs) >= least, f"{mode}: {found} of {len(qs)}"


def test_the_focus_window_of_the_best_chunk_keeps_the_paragraph_asked_about(thai_library):
    qs = questions()
    kept = 0
    for q in qs:
        best = thai_library.search(q["question"], top_k=1, mode="hybrid")[0]
        window = focus(q["question"], best.content, 96, utf8_pieces).strip("… ")
        kept += holds_part_of(window, paragraph(q)) if len(window) >= 40 else window in paragraph(q)
    assert kept / len(qs) >= 0.75, f"{kept} of {len(qs)}"  # 48 of 59 (51 best chunks hold it)
