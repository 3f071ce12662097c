"""A word in each script is found through a real FTS5 table built with the pipeline's fields and MATCH
renderer, ranks its own document first, and is highlighted on the right characters of the original text."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.store.sqlite.connect import connect
from desktop_app.core.text import build_query, fts5_rank, fts5_schema, highlight_spans, index_fields, to_fts5

EVAL = Path(__file__).resolve().parents[3] / "data" / "multilingual"  # tests/data/multilingual

DOCS = {
    "memory-th": ("Memory", (EVAL / "memory-th.txt").read_text(encoding="utf-8")),
    "memory-en": ("Memory", (EVAL / "memory-en.txt").read_text(encoding="utf-8")),
    "zh": ("检索增强生成",
           "检索增强生成（RAG）系统先把文档存储在本地数据库中，再将长文本分块，最后根据用户的问题检索最相关的段落。"),
    "ja": ("読書", "私は昨日、市立図書館で日本語の本を三冊借りました。週末に家で読むつもりです。"),
    "ko": ("도서관", "우리는 어제 도서관에서 한국어 책을 세 권 빌렸습니다. 주말에 집에서 읽을 생각입니다."),
    "ar": ("القراءة", "ذهب الطلاب إلى المكتبة لقراءة الكتب، وأحمد يحب القراءة في مكتبة الجامعة كل يوم."),
    "ar-marks": ("رحلة", "ذَهَبَ الأَطْفَالُ إِلَى الحَدِيقَةِ ثُمَّ إِلَى السُّوقِ"),
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("fts") / "text.db")
    conn.execute(fts5_schema("docs_fts"))
    ids = {}
    for rowid, (name, (title, text)) in enumerate(DOCS.items(), 1):
        fields = index_fields(title, text)
        conn.execute("INSERT INTO docs_fts (rowid, title, words, stems, grams) VALUES (?, ?, ?, ?, ?)",
                     (rowid, fields["title"], fields["words"], fields["stems"], fields["grams"]))
        ids[rowid] = name
    yield conn, ids
    conn.close()


def search(index, query: str) -> list[str]:
    conn, ids = index
    match = to_fts5(build_query(query))
    assert match is not None
    rows = conn.execute(f"SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY {fts5_rank('docs_fts')}", (match,))
    return [ids[r[0]] for r in rows]


def marked(doc: str, query: str) -> list[str]:
    text = DOCS[doc][1]
    spans = highlight_spans(text, build_query(query))
    assert all(0 <= s < e <= len(text) for s, e in spans)
    return [text[s:e] for s, e in spans]


@pytest.mark.parametrize(("query", "doc", "word"), [
    ("ถาวร", "memory-th", "ถาวร"),  # "persistent", mid-run in เก็บเอกสารแบบถาวรและค้นหาได้
    ("ไดเรกทอรี ", "memory-th", "ไดเรกทอรี"),  # "directory", at the end of การนำเข้าเอกสารจากไฟล์และไดเรกทอรี
    ("คอลเลกชัน", "memory-th", "คอลเลกชัน"),  # a loanword ICU cuts in three; all three parts match
])
def test_a_thai_word_from_the_middle_of_a_sentence(index, query, doc, word):
    assert search(index, query)[0] == doc
    assert word in marked(doc, query)


@pytest.mark.parametrize(("query", "word"), [("文档存储", "文档存储"), ("分块", "分块"), ("检索", "检索")])
def test_a_chinese_word_inside_a_sentence(index, query, word):
    assert search(index, query)[0] == "zh"
    assert word in marked("zh", query)


@pytest.mark.parametrize(("query", "word"), [("図書館", "図書館"), ("日本 ", "日本")])
def test_a_japanese_word_and_a_part_of_one(index, query, word):
    assert search(index, query)[0] == "ja"
    assert word in marked("ja", query)


def test_a_korean_word_without_its_particle(index):
    assert search(index, "도서관 ")[0] == "ko"  # the text has 도서관에서 ("at the library")
    assert marked("ko", "도서관 ") == ["도서관"]


@pytest.mark.parametrize(("query", "doc", "word"), [
    ("مكتبة", "ar", "المكتبة"),  # without the article; the text has it
    ("مكتبه", "ar", "مكتبة"),  # taa marbuta typed as haa
    ("احمد", "ar", "وأحمد"),  # another alef form, and the text has the conjunction و attached
    ("الْمَكْتَبَةُ", "ar", "المكتبة"),  # the query with tashkeel, the text without
    ("حديقة", "ar-marks", "الحَدِيقَةِ"),  # the text with tashkeel, the query without: marks stay highlighted
])
def test_an_arabic_word_through_article_alef_and_tashkeel(index, query, doc, word):
    assert search(index, query)[0] == doc
    assert word in marked(doc, query)


def test_english_words_are_stemmed_and_highlighted(index):
    assert search(index, "persisting injections")[0] == "memory-en"
    words = set(marked("memory-en", "persisting injections"))
    assert {"persistent", "persists", "Persistence", "injected", "injection", "inject"} <= words
