"""highlight_spans gives exactly the spans of the computation it replaced (every unit of `fields.analyze_spans`
filtered, then merged), on real text in several scripts and on generated text."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.text import Query, build_query, highlight_spans
from desktop_app.core.text.fields import analyze_spans, word_unit
from desktop_app.core.text.segment import MAX_WORD

XQUAD = Path(__file__).resolve().parents[4] / "bench" / "data" / "multilingual-qa"  # CC BY-SA 4.0, see its README
SCRIPTS = ("en", "th", "zh", "ar", "ja")


def reference_spans(text: str, query: Query) -> list[tuple[int, int]]:
    """The highlight computation as it was before the ASCII path (2026-12-06), kept as the oracle."""
    if not query or not text:
        return []
    exact = {(t.field, t.token) for t in query.terms}
    prefixes = [(t.field, t.token) for t in query.terms if t.prefix]
    spans = [(start, end) for field, token, start, end in analyze_spans(text)
             if (field, token) in exact or any(f == field and token.startswith(p) for f, p in prefixes)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _lines(lang: str, name: str, n: int) -> list[str]:
    with open(XQUAD / lang / name, encoding="utf-8") as fh:
        return [json.loads(line)["text"] for _, line in zip(range(n), fh, strict=False)]


def test_real_text_in_each_script_gets_the_same_spans():
    marked = {}
    for lang in SCRIPTS:
        passages, questions = _lines(lang, "corpus.jsonl", 12), _lines(lang, "queries.jsonl", 40)
        marked[lang] = 0
        for i, question in enumerate(questions):
            for typed in (question, question.rstrip("?؟？ ") + " ", question.rstrip("?؟？ ")[:-2]):  # and a prefix
                query = build_query(typed)
                for passage in (passages[i % len(passages)], passages[(i * 7) % len(passages)]):
                    spans = highlight_spans(passage, query)
                    assert spans == reference_spans(passage, query), (lang, typed, passage[:60])
                    marked[lang] += len(spans)
    assert all(marked.values()), marked  # every script's questions did mark something


def test_a_passage_searched_with_its_own_words_gets_the_same_spans():
    for lang in SCRIPTS:
        for passage in _lines(lang, "corpus.jsonl", 6):
            query = build_query(passage, drop_stopwords=False)  # its first MAX_TERMS tokens: marks all over it
            spans = highlight_spans(passage, query)
            assert spans
            assert spans == reference_spans(passage, query)


def test_mixed_and_unnormalised_text():
    text = ("Cafe\u0301 RUNNING runners ค้นหาเอกสาร database检索系统 المَكتَبةِ x" + "a" * 70 + "b 𠀀𠀁日本 "
            "Straße naïve 2024-03 e\u0301te\u0301 \ud800 run")
    for typed in ("cafe running", "database 检索", "ค้นหา", "مكتبة", "a" * 70, "run", "ete ", "straße", "日"):
        query = build_query(typed)
        assert highlight_spans(text, query) == reference_spans(text, query), typed
    assert highlight_spans(text, build_query("running"))  # the test reaches matches


PIECES = st.sampled_from(["running", "Run", "CELLS", "cell", "ค้นหา", "เอกสาร", "检索", "图书馆", "日本語", "도서관",
                          "المكتبة", "مُكتَبة", "café", "cafe\u0301", "Straße", "x" * 70, "2024", "ab12", "\u0301",
                          "\ud800", " ", ". ", "\n", "-", "の", "和", "และ", "ไทย", "é", "ı"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=25).map("".join), st.lists(PIECES, min_size=1, max_size=4).map("".join))
def test_any_text_gets_the_same_spans(text, typed):
    query = build_query(typed)
    assert highlight_spans(text, query) == reference_spans(text, query)


# Words whose Porter stem changes a letter near their start (a final y made i: "aying" -> "ai", "eyed" -> "ei") or
# is shorter than two letters ("ies" -> "i"), with words that only look alike: the ASCII path finds words by their
# first two letters, so these are where it could differ.
ENDINGS = st.sampled_from(["aying", "eyed", "ies", "dying", "lying", "sky", "skies", "yes", "ay", "by", "ai", "ei",
                           "ayed", "Ayes", "EYE", "i", "y", "iy", "yi", "ties", "tying", "happy", "happiness",
                           "7", "70s", "x", "xy", " ", ", ", "K", "ſ", "İ"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ENDINGS, max_size=20).map("".join), st.lists(ENDINGS, min_size=1, max_size=3).map("".join))
def test_words_whose_stem_changes_near_their_start_get_the_same_spans(text, typed):
    query = build_query(typed)
    assert highlight_spans(text, query) == reference_spans(text, query)


def test_every_word_of_the_docs_and_bench_data_and_generated_words_start_as_their_stem():
    """The rule the ASCII path rests on (highlight._ascii_heads): an ASCII word's token keeps its first two
    characters (one, for a one-character token), `i` and `y` alike."""
    root = Path(__file__).resolve().parents[4]
    words: set[str] = set()
    for path in [*root.glob("docs/**/*.md"), *root.glob("bench/data/**/*.jsonl"), *root.glob("bench/data/**/*.json")]:
        words.update(w.lower() for w in re.findall(r"[A-Za-z0-9]+", path.read_text(encoding="utf-8")))
    assert len(words) > 10_000  # the real words were read (about 20,000)
    rng = random.Random(1)
    letters = "aeiouybcdfghjklmnpqrstvwxz"
    suffixes = ["ies", "ied", "ying", "yed", "ing", "ed", "eed", "ational", "ly", "s", "es", "y", "ey", "ay", "e",
                "iness", "fulness", "ic", "al", "ance", ""]
    words.update("".join(rng.choice(letters) for _ in range(rng.randint(1, 6))) + rng.choice(suffixes)
                 for _ in range(50_000))
    words.update(a + b + s for a in letters for b in letters for s in suffixes)

    def alike(x: str, y: str) -> bool:
        return all(p == q or (p in "iy" and q in "iy") for p, q in zip(x, y, strict=True))

    bad = []
    for word in words:
        field, token = word_unit(word[:MAX_WORD])
        k = min(2, len(token))
        if field != "stems" or not alike(token[:k], word[:k]):
            bad.append((word, field, token))
    assert not bad, bad[:10]
