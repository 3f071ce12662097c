"""Work stays linear in the input for every shape of text: counted (profiler events, characters handed to
ICU), never timed."""

from __future__ import annotations

import sys

import pytest

from desktop_app.core.text import build_query, detect_language, highlight_spans, index_fields, segment

SHAPES = {  # one unit of each shape of text; repeated to size
    "thai without spaces": "ให้บริการเก็บเอกสารแบบถาวรและค้นหาได้",
    "han without spaces": "检索增强生成系统先把文档存储在本地数据库中",
    "japanese without spaces": "私は昨日市立図書館で日本語の本を三冊借りました",
    "one latin word": "a",
    "one line of english": "retrieval augmented generation of documents, ",
    "decomposed accents": "cafe\u0301 e\u0301cole ",
    "arabic with tashkeel": "ذَهَبَ الطُّلَّابُ إِلَى الْمَكْتَبَةِ ",
    "korean": "도서관에서 책을 읽었습니다 ",
}


def profiled_work(fn, arg) -> int:
    """Python-level calls and C calls made by fn(arg): a deterministic measure of work."""
    count = 0

    def hook(frame, event, _arg):
        nonlocal count
        count += 1

    sys.setprofile(hook)
    try:
        fn(arg)
    finally:
        sys.setprofile(None)
    return count


def sized(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("operation", ["index", "highlight", "query", "language"])
def test_work_grows_linearly(shape, operation):
    query = build_query("ถาวร 文档 図書館 مكتبة cafe generation 도서관")
    fn = {"index": lambda t: index_fields("", t), "highlight": lambda t: highlight_spans(t, query),
          "query": build_query, "language": detect_language}[operation]
    small, large = (profiled_work(fn, sized(SHAPES[shape], n)) for n in (4_000, 16_000))
    assert large <= 4.4 * small + 2_000, (small, large)


def test_icu_sees_each_character_about_once_on_a_megabyte_run():
    seen = 0

    def counting(text: str, locale: str):
        nonlocal seen
        seen += len(text)
        return segment.ICU_BREAKER(text, locale)

    for unit in (SHAPES["thai without spaces"], SHAPES["han without spaces"]):
        run = sized(unit, 1_000_000)
        seen = 0
        words = list(segment.words(run, breaker=counting))
        assert words[-1][2] == len(run)
        assert seen <= 1.02 * len(run)  # pieces overlap by a few words only


@pytest.mark.parametrize(("unit", "n"), [("a", 5_000_000), ("retrieval augmented generation, ", 2_000_000)])
def test_a_5mb_run_and_a_2mb_line_are_indexed_in_bounded_output(unit, n):
    fields = index_fields("", sized(unit, n))
    assert len(" ".join(fields.values())) <= n  # one 64-letter token for the run; the line's stems
