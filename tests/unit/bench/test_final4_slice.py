"""bench/data/qa-final4: the fresh refusal split from the SQuAD 2.0 training set (#42) — 200 answerable and 200
unanswerable questions about two articles, each answer in its article, and no article, paragraph or question id
any other split under bench/data holds."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

from abstain_ce import SPLITS  # noqa: E402
from qa import contains_any, load_questions  # noqa: E402

DATA = BENCH / "data"
SLICE = DATA / "qa-final4"
ASKED = ("The_Legend_of_Zelda_Twilight_Princess", "Spectre_(2015_film)")


def test_two_hundred_of_each_kind_about_the_two_articles_each_answer_in_its_article():
    assert SPLITS["final4"] == SLICE
    questions = load_questions(None, SLICE, "questions.jsonl")
    assert Counter((q.article, q.impossible) for q in questions) == {
        (a, kind): 100 for a in ASKED for kind in (False, True)}
    for q in questions:
        article = (SLICE / "articles" / f"{q.article}.txt").read_text(encoding="utf-8")
        assert bool(q.answers) != q.impossible, q.id
        assert q.impossible or contains_any(article, q.answers), q.id
    assert len({q.id for q in questions}) == 400


def test_no_article_paragraph_or_question_id_of_another_split():
    own = {p.name for p in (SLICE / "articles").glob("*.txt")} - {p.name for p in (DATA / "qa-final" / "articles")
                                                                    .glob("*.txt")}
    assert len(own) == 10 and {f"{a}.txt" for a in ASKED} <= own
    others = [f for f in DATA.rglob("*.txt") if SLICE not in f.parents]

    def paragraphs(files) -> set[str]:
        return {" ".join(p.split())[:80] for f in files for p in f.read_text(encoding="utf-8").split("\n\n")
                if len(p.strip()) > 80}
    assert not {f.name for f in others} & own
    assert not paragraphs(SLICE / "articles" / name for name in own) & paragraphs(others)
    ids = {json.loads(line)["id"] for line in (SLICE / "questions.jsonl").read_text(encoding="utf-8").splitlines()}
    for f in DATA.rglob("*.jsonl"):
        if SLICE in f.parents:
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            assert row.get("id") not in ids, f


def test_final5_asks_the_rest_of_the_two_articles_of_final4s_library():
    """bench/data/qa-final5: every other question about final4's two articles, none of final4's, asked of final4's
    library (it holds no articles of its own)."""
    from abstain_ce import ARTICLES

    final5 = DATA / "qa-final5"
    assert SPLITS["final5"] == final5 and ARTICLES["final5"] == SLICE / "articles"
    assert not (final5 / "articles").exists()
    questions = load_questions(None, final5, "questions.jsonl")
    assert Counter((q.article, q.impossible) for q in questions) == {
        (ASKED[0], False): 113, (ASKED[0], True): 60, (ASKED[1], False): 170, (ASKED[1], True): 88}
    four = {q.id for q in load_questions(None, SLICE, "questions.jsonl")}
    assert not four & {q.id for q in questions}
    for q in questions:
        article = (SLICE / "articles" / f"{q.article}.txt").read_text(encoding="utf-8")
        assert q.impossible or contains_any(article, q.answers), q.id


def test_final6_asks_answerable_questions_about_the_cuts_other_eight_articles():
    """bench/data/qa-final6: 300 answerable questions about the eight articles final4 and final5 do not ask about,
    asked of final4's library."""
    from abstain_ce import ARTICLES

    final6 = DATA / "qa-final6"
    assert SPLITS["final6"] == final6 and ARTICLES["final6"] == SLICE / "articles"
    questions = load_questions(None, final6, "questions.jsonl")
    per_article = Counter(q.article for q in questions)
    assert len(questions) == 300 and not any(q.impossible for q in questions)
    assert len(per_article) == 8 and set(per_article.values()) == {37, 38} and not set(per_article) & set(ASKED)
    for q in questions:
        assert contains_any((SLICE / "articles" / f"{q.article}.txt").read_text(encoding="utf-8"), q.answers), q.id
