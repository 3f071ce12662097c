"""Cross-lingual search by meaning: a Thai question finds the English page on its topic, and the reverse.

The documents are the Thai and English versions of one real technical page (tests/data/multilingual); the
other documents are the app's English sample documents, one of them about search and indexing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.core.embed.conftest import shared_eval

SAMPLES = Path(__file__).resolve().parents[4] / "resources" / "sample_docs"
# "How does the memory system split documents into pieces and put context into the prompt?"
THAI_QUESTION = "ระบบหน่วยความจำแบ่งเอกสารเป็นชิ้นเล็กๆ และแทรกบริบทเข้าไปในพรอมต์อย่างไร"
ENGLISH_QUESTION = "How does the memory store split documents into chunks and inject context into the prompt?"


def library_with(tmp_path: Path, page: str, embedder) -> Library:
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLES, docs)
    shutil.copy(shared_eval("multilingual") / page, docs / page)
    lib = Library(tmp_path / "home", settings=Settings(), embedder=embedder)
    lib.add_folder(docs)
    lib.sync()
    return lib


@pytest.mark.parametrize("name", ["use_multilingual", "e5_small"])
def test_a_thai_question_finds_the_english_page(request, tmp_path, name):
    with library_with(tmp_path, "memory-en.txt", request.getfixturevalue(name)) as lib:
        assert lib.search(THAI_QUESTION, mode="keyword") == []  # no word in common: only meaning can match
        hits = lib.search(THAI_QUESTION, mode="semantic", top_k=3, group_by_document=True)
        assert Path(hits[0].source).name == "memory-en.txt"
        hybrid = lib.search(THAI_QUESTION, mode="hybrid", top_k=3, group_by_document=True)
        assert Path(hybrid[0].source).name == "memory-en.txt"


@pytest.mark.parametrize("name", ["use_multilingual", "e5_small"])
def test_an_english_question_finds_the_thai_page(request, tmp_path, name):
    with library_with(tmp_path, "memory-th.txt", request.getfixturevalue(name)) as lib:
        hybrid = lib.search(ENGLISH_QUESTION, mode="hybrid", top_k=3, group_by_document=True)
        assert Path(hybrid[0].source).name == "memory-th.txt"
        # By meaning alone the Thai page is within the first two documents: with e5-small it ties the English page
        # on search (0.8712 against 0.8714 since Thai chunks are cut in words, not at the few spaces)
        hits = lib.search(ENGLISH_QUESTION, mode="semantic", top_k=3, group_by_document=True)
        assert "memory-th.txt" in [Path(h.source).name for h in hits[:2]]


def test_the_english_model_does_not_bridge_the_languages(tmp_path, minilm_onnx):
    """The control: all-MiniLM-L6-v2 (English only) does not rank the English page first for the Thai question."""
    with library_with(tmp_path, "memory-en.txt", minilm_onnx) as lib:
        hits = lib.search(THAI_QUESTION, mode="semantic", top_k=3, group_by_document=True)
        assert not hits or Path(hits[0].source).name != "memory-en.txt"
