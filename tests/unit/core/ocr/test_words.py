"""OCR's word boxes: read from RapidOCR's per-line word results (band pixels -> page fractions, kept by the band's
rule), stored as compact JSON and read back; anything of another shape is left out, never guessed."""

from __future__ import annotations

import pytest

from desktop_app.core.ocr.words import OcrWord, band_words, decode_words, encode_words

# RapidOCR's shape: per line, (text, score, four corner points) per word, in the band's pixels
LINE = (("Receipt", 0.99, [[45, 42], [185, 42], [185, 89], [45, 89]]),
        ("total", 0.98, [[187, 42], [271, 42], [271, 89], [187, 89]]))


def test_a_bands_words_become_fractions_of_the_page():
    words = band_words((LINE,), top=100, keep_from=0, keep_to=1000, width=1000, height=500)
    assert [w.text for w in words] == ["Receipt", "total"]
    first = words[0]
    assert (first.left, first.right) == pytest.approx((0.045, 0.185))
    assert (first.top, first.bottom) == pytest.approx((142 / 500, 189 / 500))  # the band's top added


def test_words_outside_the_bands_keep_range_are_left_to_the_next_band():
    assert band_words((LINE,), top=0, keep_from=0, keep_to=60, width=1000, height=500) == []
    assert len(band_words((LINE,), top=0, keep_from=60, keep_to=500, width=1000, height=500)) == 2


@pytest.mark.parametrize("odd", [None, (), ((None,),), (("x", 0.9, None),), (("", 0.9, LINE[0][2]),),
                                 (("flat", 0.9, [[5, 5], [5, 5], [5, 5], [5, 5]]),), "text"])
def test_other_shapes_give_no_words(odd):
    assert band_words(odd if odd is None or isinstance(odd, str) else (odd,), 0, 0, 500, 1000, 500) == []


def test_stored_words_read_back_rounded():
    words = [OcrWord("pangolin", 0.123456, 0.2, 0.3, 0.25), OcrWord("日本", 0.5, 0.5, 0.6, 0.55)]
    stored = encode_words(words)
    assert stored is not None and "日本" in stored  # not escaped: a page's words stay small
    back = decode_words(stored)
    assert [w.text for w in back] == ["pangolin", "日本"] and back[0].left == 0.1235
    assert encode_words([]) is None and decode_words(None) == [] and decode_words("") == []
    assert decode_words("not json") == [] and decode_words('{"a": 1}') == [] and decode_words('[["x", 1]]') == []
