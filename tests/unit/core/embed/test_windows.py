"""Cutting texts into model windows: within the token limit, in order, covering everything (hypothesis)."""

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.embed.windows import window_spans_by_count, windows_by_count, windows_from_offsets

# Text of any script, with and without spaces: Latin words, Thai and Chinese runs, Arabic, punctuation.
ALPHABET = st.sampled_from(list("abc xyz.,\n") + list("กขคไทย") + list("中文検索。、") + list("مكتبة،؟") + ["  "])
TEXTS = st.lists(ALPHABET, max_size=400).map("".join)


def word_pieces(s: str) -> int:
    """A stand-in tokenizer count: runs of letters of up to 3 characters, and each other non-space."""
    return len(re.findall(r"\w{1,3}|[^\w\s]", s))


def offsets_of(s: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\w{1,3}|[^\w\s]", s)]


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(min_value=1, max_value=40), st.floats(min_value=0, max_value=0.5))
def test_spans_fit_the_limit_advance_and_cover_the_text(text, limit, overlap):
    spans = window_spans_by_count(text, word_pieces, limit, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (a, b), (c, _) in itertools.pairwise(spans):
        assert a < c <= b  # the next window starts later, and leaves no gap
    for a, b in spans:
        assert b > a or text == ""
        assert word_pieces(text[a:b]) <= limit or b - a == 1


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.integers(min_value=2, max_value=40))
def test_count_that_is_not_monotone_still_gives_windows_in_order(text, limit):
    def wobbly(s: str) -> int:
        return word_pieces(s) + (len(s) % 3)

    spans = window_spans_by_count(text, wobbly, limit)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(c > a and c <= b for (a, b), (c, _) in itertools.pairwise(spans))


def test_a_short_text_is_one_window():
    assert windows_by_count("a short text", word_pieces, 10) == ["a short text"]
    assert windows_by_count("", word_pieces, 10) == [""]


def test_windows_end_at_a_space_or_punctuation_when_they_can():
    text = " ".join(f"word{i}." for i in range(300))
    windows = windows_by_count(text, word_pieces, 50)
    assert len(windows) > 5
    assert all(w[-1] in " ." for w in windows[:-1])
    assert all(word_pieces(w) <= 50 for w in windows)


def test_windows_are_mostly_full():
    text = "กขค " * 2000
    windows = windows_by_count(text, word_pieces, 64)
    assert all(word_pieces(w) >= 0.7 * 64 for w in windows[:-1])


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.integers(min_value=2, max_value=30), st.data())
def test_offset_windows_fit_the_limit_and_cover_every_token(text, limit, data):
    overlap = data.draw(st.integers(min_value=0, max_value=limit - 1))
    offsets = offsets_of(text)
    windows = windows_from_offsets(text, offsets, limit, overlap)
    if len(offsets) <= limit:
        assert windows == [text]
        return
    assert all(word_pieces(w) <= limit for w in windows)
    assert sum(word_pieces(w) for w in windows) == len(offsets) + overlap * (len(windows) - 1)


def test_bad_limits_are_refused():
    with pytest.raises(ValueError):
        windows_by_count("abc", word_pieces, 0)
    with pytest.raises(ValueError):
        windows_from_offsets("abc", [(0, 1)], 2, 2)
