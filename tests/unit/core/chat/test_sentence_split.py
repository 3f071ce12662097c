"""Sentence spans for quoting, in every script the text pipeline handles."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.sentence_split import sentence_spans


def pieces(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def test_english_sentences_keep_abbreviations_and_lines_apart():
    text = ("Dr. Mira Quell built it in 1987. It runs on helium! Does it?\n"
            "Ctrl+F or Ctrl+K   Focus the search bar\nEsc  Clear")
    assert pieces(text) == ["Dr. Mira Quell built it in 1987.", "It runs on helium!", "Does it?",
                            "Ctrl+F or Ctrl+K   Focus the search bar", "Esc  Clear"]


def test_chinese_ends_sentences_at_full_width_marks():
    text = "中国的首都是北京。上海是最大的城市！你知道吗？"
    assert pieces(text) == ["中国的首都是北京。", "上海是最大的城市！", "你知道吗？"]


def test_arabic_question_mark_ends_a_sentence():
    assert pieces("ما هي عاصمة مصر؟ القاهرة هي العاصمة.") == ["ما هي عاصمة مصر؟", "القاهرة هي العاصمة."]


def test_a_space_between_thai_words_ends_a_sentence():
    assert pieces("กรุงเทพเป็นเมืองหลวง ประเทศไทยมีจังหวัดมาก") == ["กรุงเทพเป็นเมืองหลวง", "ประเทศไทยมีจังหวัดมาก"]


def test_a_page_without_full_stops_is_cut_into_bounded_pieces():
    text = " ".join(["word"] * 400)
    spans = sentence_spans(text, limit=100)
    assert len(spans) > 10 and all(b - a <= 100 for a, b in spans)


TEXT = st.text(alphabet=st.sampled_from(list("ab .!?\n。؟กข 中,")), max_size=300)


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_spans_are_ordered_stripped_and_lose_no_text(text):
    spans = sentence_spans(text, limit=40)
    covered = set()
    last = 0
    for a, b in spans:
        assert last <= a < b <= len(text)
        assert text[a:b] == text[a:b].strip()
        covered.update(range(a, b))
        last = b
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
