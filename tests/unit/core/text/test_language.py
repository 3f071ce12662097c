"""Per-chunk main script/language codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.text import LANGUAGES, detect_language

EVAL = Path(__file__).resolve().parents[3] / "data" / "multilingual"  # tests/data/multilingual


@pytest.mark.parametrize(("text", "code"), [
    ("ระบบค้นหาเอกสารแบบถาวร", "th"),
    ("检索增强生成系统先把文档存储在本地数据库中。", "zh"),
    ("私は昨日、市立図書館で日本語の本を借りました。", "ja"),
    ("우리는 어제 도서관에서 책을 빌렸습니다.", "ko"),
    ("ذهب الطلاب إلى المكتبة لقراءة الكتب", "ar"),
    ("The library keeps the documents of the team in one place.", "en"),
    ("La bibliothèque garde les documents de l'équipe.", "latn"),
    ("Библиотека хранит документы.", "cyrl"),
    ("Η βιβλιοθήκη κρατά τα έγγραφα.", "el"),
    ("12345 -- !!", "und"),
    ("", "und"),
])
def test_codes(text, code):
    assert detect_language(text) == code


def test_thai_technical_writing_full_of_english_identifiers_is_thai():
    text = (EVAL / "memory-th.txt").read_text(encoding="utf-8")
    assert detect_language(text) == "th"
    assert detect_language((EVAL / "memory-en.txt").read_text(encoding="utf-8")) == "en"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_gets_a_known_code(text):
    assert detect_language(text) in LANGUAGES
