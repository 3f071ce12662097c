"""Every script through the real Library: a word from the middle of a Thai sentence, Chinese, Japanese, Korean and
Arabic words are found by keyword search, with highlights on the right characters of the result's text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.core.text.test_search_scripts import DOCS


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    from desktop_app.core.library import Library
    from desktop_app.core.settings import Settings

    root = tmp_path_factory.mktemp("scripts")
    docs = root / "docs"
    docs.mkdir()
    for name, (title, text) in DOCS.items():
        (docs / f"{name}.txt").write_text(f"{title}\n\n{text}", encoding="utf-8")
    lib = Library(root / "home", settings=Settings(embedder="hash"))
    lib.add_folder(docs)
    lib.sync(wait=True)
    yield lib
    lib.close()


def top(library, query: str) -> tuple[str, list[str]]:
    """The best keyword hit's file stem and the words highlighted in its text."""
    hit = library.search(query, mode="keyword", top_k=3)[0]
    return Path(hit.source).stem, [hit.content[a:b] for a, b in hit.metadata["highlights"]]


@pytest.mark.parametrize(("query", "doc", "word"), [
    ("ถาวร", "memory-th", "ถาวร"),  # mid-run in เก็บเอกสารแบบถาวรและค้นหาได้
    ("ไดเรกทอรี ", "memory-th", "ไดเรกทอรี"),
    ("文档存储", "zh", "文档存储"),
    ("分块", "zh", "分块"),
    ("図書館", "ja", "図書館"),
    ("日本 ", "ja", "日本"),  # 日本 inside 日本語
    ("도서관 ", "ko", "도서관"),  # the text has 도서관에서
    ("مكتبة", "ar", "المكتبة"),  # without the article
    ("احمد", "ar", "وأحمد"),  # another alef form, with و attached in the text
    ("الْمَكْتَبَةُ", "ar", "المكتبة"),  # with tashkeel in the query
    ("حديقة", "ar-marks", "الحَدِيقَةِ"),  # with tashkeel in the text
])
def test_a_word_in_each_script_is_found_and_highlighted(library, query, doc, word):
    found, marks = top(library, query)
    assert found == doc and word in marks


def test_each_chunk_knows_its_language_and_the_filter_uses_it(library):
    langs = dict(library.store.languages())
    assert {"th", "zh", "ja", "ko", "ar", "en"} <= set(langs)
    hits = library.search("Memory", mode="keyword", langs=["th"])
    assert hits and all(h.metadata["lang"] == "th" for h in hits)
    assert {Path(h.source).stem for h in hits} == {"memory-th"}
