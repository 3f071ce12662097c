"""Banded OCR: the keep ranges of the bands split the page into consecutive pieces."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.ocr.engine import band_ranges


@given(st.integers(min_value=1, max_value=20_000), st.integers(min_value=200, max_value=2000),
       st.integers(min_value=0, max_value=150))
def test_keep_ranges_partition_the_page_and_lie_inside_their_band(height, band, overlap):
    ranges = band_ranges(height, band, overlap)
    assert ranges[0][2] == 0 and ranges[-1][3] == height
    for (_, _, _, keep_to), (_, _, next_from, _) in pairwise(ranges):
        assert keep_to == next_from
    for top, bottom, keep_from, keep_to in ranges:
        assert top <= keep_from < keep_to <= bottom and bottom - top <= band
