"""bench/data/qa-xquad-final2: the second fresh XQuAD final split (#45) — the same question ids in four languages
about articles no other XQuAD split holds, every gold answer in its own article, and the English ids asked before
listed."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

from qa import SPLITS, contains_any, load_questions  # noqa: E402

SLICE = BENCH / "data" / "qa-xquad-final2"
OTHERS = ("qa-xquad", "qa-xquad-dev", "qa-xquad-final")


def test_the_same_answerable_ids_in_every_language_each_answer_in_its_article():
    assert SPLITS["xquad-final2"] == SLICE
    questions = load_questions(None, SLICE)
    assert Counter(q.lang for q in questions) == {"th": 290, "zh": 290, "ar": 290, "en": 290}
    ids = {lang: {q.id for q in questions if q.lang == lang} for lang in ("th", "zh", "ar", "en")}
    assert ids["th"] == ids["zh"] == ids["ar"] == ids["en"]
    for q in questions:
        article = (SLICE / "articles" / q.lang / f"{q.article}.txt").read_text(encoding="utf-8")
        assert not q.impossible and contains_any(article, q.answers), (q.lang, q.id)


def test_no_paragraph_or_question_id_of_another_xquad_split_and_none_the_retrieval_bench_uses():
    def paragraphs(split: Path) -> set[str]:
        return {p.strip()[:80] for f in (split / "articles" / "en").glob("*.txt")
                for p in f.read_text(encoding="utf-8").split("\n\n") if p.strip()}

    def ids(path: Path) -> set[str]:
        return {json.loads(line)["id" if "qa-" in str(path) else "_id"]
                for line in path.read_text(encoding="utf-8").splitlines() if line}

    mine = paragraphs(SLICE)
    assert len(mine) == 16 * 5
    mine_ids = ids(SLICE / "questions.jsonl")
    for other in OTHERS:
        assert not mine & paragraphs(BENCH / "data" / other), other
        assert not mine_ids & ids(BENCH / "data" / other / "questions.jsonl"), other
    assert not mine_ids & ids(BENCH / "data" / "multilingual-qa" / "en" / "queries.jsonl")


def test_english_asked_lists_ids_of_the_split_whose_question_an_english_split_holds():
    asked = (SLICE / "english_asked.txt").read_text(encoding="utf-8").split()
    english = {q.id: q.question.lower() for q in load_questions(None, SLICE) if q.lang == "en"}
    splits = ("qa", "qa-heldout", "qa-final", "qa-final2", "qa-final3")
    held = {" ".join(json.loads(line)["question"].lower().split()) for split in splits
            for path in (BENCH / "data" / split).glob("questions*.jsonl")  # qa: questions_all.jsonl too
            for line in path.read_text(encoding="utf-8").splitlines() if line}
    assert len(asked) == 189 and set(asked) <= set(english)
    assert all(english[i] in held for i in asked[:20])
    assert not any(english[i] in held for i in sorted(set(english) - set(asked))[:20])
