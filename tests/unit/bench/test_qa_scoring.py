"""bench/qa.py's scoring and its 95% intervals: SQuAD matching in spaced and unspaced scripts, Wilson, quantiles."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from _qa_stats import paired_difference, proportion, quantile, ratio_of_sums, wilson  # noqa: E402
from qa import Question, contains_any, equals_any, interleave_languages, normalize  # noqa: E402


def test_squad_normalisation_drops_case_punctuation_and_articles():
    assert normalize("The  Normans, (in) FRANCE!") == "normans in france"
    assert normalize("القاهرة، مصر") == "القاهرة مصر"  # Arabic comma is punctuation too


@pytest.mark.parametrize("text, golds, expected", [
    ("They settled in Normandy in 911.", ["911"], True),
    ("They settled in Normandy in 1911.", ["911"], False),  # whole words only in spaced scripts
    ("เทสลาได้รับสิทธิบัตรในปี 1900 ที่อเมริกา", ["1900"], True),
    ("ศาลฎีกาของสหรัฐอเมริกาตัดสินว่า", ["ศาลฎีกาของสหรัฐอเมริกา"], True),  # Thai: a substring
    ("该专利于一九〇〇年获得。", ["一九〇〇年"], True),
    ("该专利于一九〇一年获得。", ["一九〇〇年"], False),
    ("anything", [""], False),
    ("ในปี1900เทสลาได้รับสิทธิบัตร", ["1900"], True),  # digits inside Thai text, no spaces around them
    ("ในปี19000เทสลา", ["1900"], False),  # but not cut out of a longer number
    ("แดนดริดจ์ (9 พฤศจิกายน ค.ศ. 1922 - 8 กันยายน", ["9 พฤศจิกายน ค.ศ. 1922"], True),  # a space still ends "1922"
    ("ในปี 1900 8 เทสลา", ["1900"], True),
    ("서울지방검찰청은 영장을 발부받았다", ["서울지방검찰청"], True),  # Korean: a particle attaches to the answer
    ("1989년 2월 15일에 시위를", ["1989년 2월 15일"], True),
    ("대서울지방검찰청은", ["서울지방검찰청"], False),  # but the answer starts a word
    ("1989년 2월 150일", ["1989년 2월 15"], False),  # and is not cut out of a longer number
    ("임종석(任鍾晳)은 정치인", ["임종석"], True),  # Hanja beside it
    ("在1900年获得专利", ["1900年"], True),
])
def test_contains_any(text, golds, expected):
    assert contains_any(text, golds) is expected


def test_equals_any_is_the_whole_answer():
    assert equals_any("the Normans.", ["Normans"]) and not equals_any("the Normans came", ["Normans"])


def test_wilson_interval_brackets_the_share_and_narrows_with_n():
    lo, hi = wilson(60, 100)
    assert lo < 0.6 < hi and round(lo, 3) == 0.502 and round(hi, 3) == 0.691  # textbook values
    lo2, hi2 = wilson(600, 1000)
    assert hi2 - lo2 < hi - lo
    assert wilson(0, 0) == (0.0, 1.0) and wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert proportion([True, False, True, True])["value"] == 0.75


def test_quantile_interval_holds_the_median_of_an_even_spread():
    values = [float(i) for i in range(1, 101)]
    q = quantile(values, 0.5)
    assert q["value"] == 50.5 and q["lo"] < 50.5 < q["hi"] and 38 <= q["lo"] and q["hi"] <= 63
    assert quantile([], 0.5)["n"] == 0 and quantile([3.0], 0.9)["value"] == 3.0


def test_citation_precision_resamples_questions():
    pairs = [(1, 1)] * 18 + [(0, 2)] * 2  # 18 right of 22 citations
    stat = ratio_of_sums(pairs)
    assert stat["value"] == pytest.approx(18 / 22) and stat["lo"] < stat["value"] < stat["hi"] <= 1.0
    assert ratio_of_sums([(0, 0)])["n"] == 0


def test_a_multilingual_split_takes_languages_in_turn():
    qs = [Question(f"{lang}{i}", "a", "q", ("x",), False, lang) for lang in ("th", "zh", "en") for i in range(2)]
    assert [q.id for q in interleave_languages(qs)] == ["th0", "zh0", "en0", "th1", "zh1", "en1"]
    assert interleave_languages(qs[:2]) == qs[:2]


def test_paired_difference_is_the_difference_of_shares_with_an_interval_around_it():
    a = [True] * 30 + [False] * 10
    b = [True] * 20 + [False] * 20
    d = paired_difference(a, b)
    assert d["value"] == 0.25 and d["n"] == 40
    assert d["lo"] < 0.25 < d["hi"] and d["lo"] > 0  # ten more right, none fewer: the interval stays above 0
    same = paired_difference(a, a)
    assert same["value"] == same["lo"] == same["hi"] == 0.0
    mixed = paired_difference([True, False] * 20, [False, True] * 20)  # as many lost as gained
    assert mixed["value"] == 0.0 and mixed["lo"] < 0 < mixed["hi"]
