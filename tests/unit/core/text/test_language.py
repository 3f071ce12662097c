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


LOG = "\n".join(f"2024-05-01T12:00:{i:02d}Z INFO [worker-3] request id=7f3a9c{i} GET /api/v2/items status=200"
                for i in range(40))
CSV = "id,name,email,amount,created_at\n" + "\n".join(
    f"{i},Jane Smith,jane{i}@example.com,{i * 3.5},2024-01-{i % 28 + 1:02d}" for i in range(50))
NUMBERS = "\n".join(f"| {i} | {i * 1.5:.2f} | {i * i} | Q{i % 4 + 1} |" for i in range(60))


@pytest.mark.parametrize("text", [
    LOG, CSV, NUMBERS, "Backup completed successfully\n" * 50, "OK\nDone\nPASS\n" * 40, "ID 42 OK",
    "def f(x):\n    return x.items()  # noqa\n" * 20,
])
def test_letters_that_name_no_language_are_undetermined_not_another_language(text):
    assert detect_language(text) in ("und", "en")  # never "latn": logs, CSV, code and numbers are not French


@pytest.mark.parametrize("text", [
    "Le chat dort sur le canapé pendant que nous préparons le dîner dans la cuisine.",
    "Die Bibliothek speichert alle Dokumente der Gruppe an einem Ort und ist schnell.",
    "La biblioteca guarda los documentos del equipo en un solo lugar para todos.",
    "Perpustakaan ini menyimpan dokumen yang penting dengan aman untuk semua orang.",
    "Thư viện lưu trữ tài liệu của nhóm ở một nơi duy nhất.",
])
def test_another_latin_language_is_still_named(text):
    assert detect_language(text) == "latn"


def test_a_one_line_chinese_or_korean_note_is_its_language_not_undetermined():
    # ten Han characters are a sentence; ten Latin letters ("Backup ok!") are not
    assert detect_language("这个图书馆的中文书很多") == "zh"
    assert detect_language("도서관에 책이 많다") == "ko"
    assert detect_language("Backup ok!") == "und"


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=400)
       | st.lists(st.sampled_from("the of and le la der und 42 x_1 Backup completed é".split()), max_size=80)
       .map(" ".join).filter(str.isascii))
def test_ascii_text_takes_the_quick_path_to_the_same_code(text):
    # A no-break space is not a letter of any script: it sends the text down the general path unchanged.
    assert detect_language(text) == detect_language(text + "\u00a0")


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["abc ", "é", "Ω", "αβ", "中文", "かな", "한국", "ไทย", "عربي", "שלום", "Հայ", "क",
                                 "Жж", " ", "1", "-", "\u00a0", "ß"]), max_size=40).map("".join))
def test_script_counts_scan_only_non_ascii_runs_and_count_what_the_whole_text_holds(text):
    from desktop_app.core.text.language import _SCRIPTS, script_counts
    whole: dict[str, int] = {}
    for match in _SCRIPTS.finditer(text):
        whole[match.lastgroup] = whole.get(match.lastgroup, 0) + len(match.group(0))
    assert list(script_counts(text).items()) == list(whole.items())


_WORDS = sorted({"the", "of", "and", "is", "der", "und", "les", "que", "de", "x1", "Foo", "BAR", "the.of", "_a",
                 "THE", "Und", "it's", "e-mail"})


def _ascii_reference(text: str) -> str:
    """ASCII text by the rule the fast path implements: the words are what `[a-z]+` finds in the lower-cased text."""
    import re

    from desktop_app.core.text import language

    words = re.findall(r"[a-z]+", text[:language.SAMPLE].lower())
    if sum(map(len, words)) < language.MIN_LETTERS:
        return "und"
    if sum(w in language._ENGLISH for w in words) * 10 >= len(words):
        return "en"
    return "latn" if sum(w in language._OTHER_LATIN for w in words) * 10 >= len(words) else "und"


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(alphabet=st.characters(max_codepoint=127), max_size=120),
                 st.lists(st.sampled_from(_WORDS), max_size=40).map(" ".join)))
def test_ascii_text_is_decided_on_its_letter_runs(text):
    # detect_language reads ASCII words through bytes.translate + split: the same words as the regex, the same code
    assert detect_language(text) == _ascii_reference(text)
