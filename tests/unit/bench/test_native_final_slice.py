"""bench/data/qa-native-final: the fresh final split of questions written in their own language (#45) — how its
builder reads the sources, and that the committed slice is what `--split native-final` expects."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

from qa import SPLITS, contains_any, load_questions  # noqa: E402

SLICE = BENCH / "data" / "qa-native-final"


def _make_slice():
    spec = importlib.util.spec_from_file_location("native_final_make_slice", SLICE / "make_slice.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_jsquad_titles_are_dropped_and_iapp_paragraph_breaks_kept():
    m = _make_slice()
    assert m.paragraphs_of("ja", "梅雨 [SEP] 梅雨（つゆ）は、気象現象。") == ["梅雨（つゆ）は、気象現象。"]
    assert m.paragraphs_of("th", "ย่อหน้าแรก  มีสองคำ\n\nย่อหน้าที่สอง") == ["ย่อหน้าแรก มีสองคำ", "ย่อหน้าที่สอง"]
    assert m.paragraphs_of("zh", "\ufeff甲 [SEP] 乙") == ["甲 [SEP] 乙"]  # only JSQuAD carries the title that way


def test_articles_are_cut_into_units_and_paragraphs_other_splits_hold_are_left_out():
    m = _make_slice()
    paras = [{"context": f"paragraph number {i} of the article", "qas": []} for i in range(7)]
    seen = {"paragraph number 3 of the article"[:60]}
    units = m.units("en", [("Title", paras)], seen)
    assert [len(u) for u in units] == [m.PARAS, 1]  # 6 fresh paragraphs in runs of at most PARAS
    assert all(p["context"] != "paragraph number 3 of the article" for u in units for p in u)


def test_iapp_rows_become_one_context_per_article_with_its_questions():
    m = _make_slice()
    rows = [{"article_id": "a", "question_id": f"a_{i}", "context": "บริบท", "title": "t", "question": f"q{i}",
             "answers": {"text": ["บริบท"]}} for i in range(2)]
    path = Path(__file__).parent / "_iapp_rows.jsonl"
    try:
        path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
        [(title, [para])] = m.iapp_articles(path)
    finally:
        path.unlink(missing_ok=True)
    assert title == "t" and para["context"] == "บริบท"
    assert [q["id"] for q in para["qas"]] == ["a_0", "a_1"]


def test_the_committed_slice_is_a_split_of_fifty_answerable_questions_per_language():
    assert SPLITS["native-final"] == SLICE
    questions = load_questions(None, SLICE)
    by_lang: dict[str, int] = {}
    for q in questions:
        by_lang[q.lang] = by_lang.get(q.lang, 0) + 1
        article = (SLICE / "articles" / q.lang / f"{q.article}.txt").read_text(encoding="utf-8")
        assert not q.impossible and contains_any(article, q.answers), q.id
    assert by_lang == {"th": 50, "zh": 50, "ar": 50, "ja": 50, "en": 50}
    assert len({(q.lang, q.id) for q in questions}) == len(questions)


def test_no_paragraph_of_the_slice_is_in_an_earlier_split():
    m = _make_slice()
    seen = m.seen_paragraphs()
    mine = [p for f in (SLICE / "articles").glob("*/*.txt") for p in f.read_text(encoding="utf-8").split("\n\n")]
    assert seen and mine
    assert not [p for p in mine if p.strip() and m.clean(p)[:60] in seen]
