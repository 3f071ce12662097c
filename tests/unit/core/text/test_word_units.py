"""Words of every script as units of length (core/text/word_units.py), and the query read as the text is."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.text import build_query, index_fields
from desktop_app.core.text.segment import ICU_BREAKER
from desktop_app.core.text.word_units import BLOCK, MAX_WORD_CHARS, first_unsettled, restart_point, units

THAI = "ระบบเก็บเอกสารแบบถาวรและค้นหาได้"


def test_a_thai_run_is_cut_into_the_words_icu_finds():
    assert ICU_BREAKER is not None  # the icu4py wheel is a dependency on every platform we ship
    words = [THAI[a:b] for a, b in units(THAI)]
    assert "".join(words) == THAI and len(words) >= 6
    assert "เอกสาร" in words and "ค้นหา" in words


def test_spaced_text_keeps_whitespace_words_and_long_runs_are_cut():
    text = "Backup completed " + "x" * 150 + " مكتبة"
    assert [text[a:b] for a, b in units(text)] == ["Backup", "completed", "x" * 64, "x" * 64, "x" * 22, "مكتبة"]


def test_mixed_thai_and_english_in_one_run():
    text = "ใช้backendนี้"
    assert "".join(text[a:b] for a, b in units(text)) == text and len(units(text)) >= 3


mixed = st.text(alphabet="กขคงจำ่้ไทยab中文語 \n。", max_size=3000)


@settings(max_examples=200, deadline=None)
@given(text=mixed)
def test_units_tile_every_run_and_never_exceed_the_word_limit(text):
    found = units(text)
    assert all(0 < b - a <= MAX_WORD_CHARS for a, b in found)
    assert all(b0 <= a1 for (_, b0), (a1, _) in zip(found, found[1:], strict=False))  # in order, never overlapping
    covered = "".join(text[a:b] for a, b in found)
    assert covered == "".join(text.split())


@settings(max_examples=100, deadline=None)
@given(text=mixed, at=st.integers(0, 5000))
def test_units_restart_at_a_block_start_as_in_the_whole(text, at):
    found = units(text)
    if not found:
        return
    pos = found[at % len(found)][0]
    keep = restart_point(text, pos)
    assert keep <= pos and (pos - keep) < BLOCK
    tail = [(a + keep, b + keep) for a, b in units(text[keep:])]
    assert tail == [u for u in found if u[0] >= keep]
    assert first_unsettled(text, found) <= len(found) - 1


# ---- the query goes through the same segmentation as the text -----------------------------------------------

@pytest.mark.parametrize("text,question", [
    ("ระบบ memory ให้บริการเก็บเอกสารแบบถาวรและค้นหาได้", "เก็บเอกสารแบบถาวรได้ไหม"),
    ("特斯拉在1900年获得了电力传输的专利。", "特斯拉什么时候获得专利"),
    ("حصل تسلا على براءة اختراع لجهاز الإرسال في عام 1900", "متى حصل تسلا على براءة الاختراع؟"),
    ("حَصَلَ تِسْلا عَلَى بَرَاءَةِ اخْتِرَاعٍ لِجِهَازِ الإِرْسَالِ", "متى حصل تسلا على براءة الاختراع"),
    ("حصل تسلا على براءة اختراع لجهاز الإرسال", "مَتَى حَصَلَ تِسْلا عَلَى بَرَاءَةِ الاخْتِرَاعِ"),
])
def test_the_query_is_cut_and_folded_as_the_text_is(text, question):
    fields = index_fields("", text)
    indexed = {f: set(fields[f].split()) for f in ("words", "stems", "grams")}
    query = build_query(question, prefix_last=False)
    shared = [t for t in query.terms if t.token in indexed[t.field]]
    assert len(shared) >= 3, (query.terms, indexed)  # the question's content words are the text's tokens


@pytest.mark.parametrize("word", ["เอกสาร", "ถาวร", "ค้นหา"])
def test_a_thai_word_of_the_question_is_a_token_of_the_text(word):
    text = "ระบบ memory ให้บริการเก็บเอกสารแบบถาวรและค้นหาได้"
    assert word in index_fields("", text)["words"].split()
    assert word in build_query(f"อยากรู้เรื่อง{word}ครับ", prefix_last=False).tokens("words")


def test_units_of_english_are_whitespace_words():
    text = "The Normans gave their name to Normandy.\n\nRollo swore fealty."
    assert units(text) == [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
