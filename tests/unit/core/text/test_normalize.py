"""NFC with a map back to original offsets, token folding, and the Arabic normaliser/light stemmer."""

from __future__ import annotations

import itertools
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.text import arabic
from desktop_app.core.text.normalize import _JOINER, clean, fold_word, normalize

# Letters, combining marks, Hangul jamo, Thai, a CJK compatibility ideograph: what NFC composes or rewrites.
PIECES = st.sampled_from(["e", "\u0301", "\u0323", "a", " ", "\u1100", "\u1161", "\u11a8", "ก", "\u0e33", "\u0e49",
                          "\uf900", "\u212b", "x", "\ud800", "日", "\U00020000", "\u0344", "\n"])
TEXTS = st.one_of(st.text(), st.lists(PIECES, max_size=60).map("".join))


def test_thai_sara_am_survives():
    assert normalize("น้ำ").text == "น้ำ"  # NFKC would turn ำ into ํา
    assert fold_word("น้ำ") == "น้ำ"


def test_decomposed_accents_compose_and_map_back():
    text = "cafe\u0301 X"
    norm = normalize(text)
    assert norm.text == "café X"
    assert norm.original(norm.text.index("X")) == text.index("X")
    assert norm.original(len(norm.text)) == len(text)
    assert text[norm.original(0):norm.original(4)] == "cafe\u0301"


def test_lone_surrogates_become_replacement_characters():
    assert clean("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert normalize("a\ud800").text == "a\ufffd"


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_normalized_text_is_nfc_and_offsets_stay_in_order_and_in_range(text):
    norm = normalize(text)
    assert norm.text == unicodedata.normalize("NFC", clean(text))
    mapped = [norm.original(i) for i in range(len(norm.text) + 1)]
    assert mapped == sorted(mapped)
    assert all(0 <= m <= len(text) for m in mapped)
    assert mapped[-1] == len(text) and (not text or mapped[0] == 0)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_a_slice_between_letters_maps_back_to_the_original_characters_it_came_from(text):
    norm = normalize(text)
    cuts = [i for i in range(len(norm.text) + 1) if i == len(norm.text) or not _JOINER.match(norm.text, i)]
    for i, j in itertools.pairwise(cuts):  # every letter with its marks (a token boundary is always such a cut)
        assert unicodedata.normalize("NFC", clean(text)[norm.original(i):norm.original(j)]) == norm.text[i:j]


def test_fold_word():
    assert fold_word("Straße") == "strasse"
    assert fold_word("Café") == "cafe"
    assert fold_word("ÉCOLE") == "ecole"
    assert fold_word("Ελληνικά") == "ελληνικα"
    assert fold_word("日本語") == "日本語"
    assert fold_word("आपका") == "आपका"  # Devanagari vowel signs are part of the word, never stripped


def test_arabic_normalisation():
    assert arabic.normalize("مُكْتَبَةٌ") == "مكتبه"  # tashkeel gone, ة → ه
    assert arabic.normalize("أحمد") == arabic.normalize("إحمد") == arabic.normalize("آحمد") == "احمد"
    assert arabic.normalize("مستشفى") == "مستشفي"  # ى → ي
    assert arabic.normalize("كـــتاب") == "كتاب"  # tatweel


def test_arabic_light_stem_removes_article_prefixes_and_suffixes():
    stem = lambda w: arabic.light_stem(arabic.normalize(w))  # noqa: E731
    assert stem("المكتبة") == stem("مكتبة") == stem("والمكتبات") == stem("بالمكتبة") == stem("للمكتبة") == "مكتب"
    assert stem("كالبحر") == stem("البحث")[:2] + "ر" and stem("البحث") == "بحث"
    assert stem("من") == "من"  # never below two letters
