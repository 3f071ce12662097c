"""Build the held-out SQuAD 2.0 split for `bench/qa.py --split heldout` (see README.md: do not tune on it).

    python bench/data/qa-heldout/make_slice.py --source dev-v2.0.json

The dev split (bench/data/qa) keeps the first 20 paragraphs of each article. This split keeps the NEXT
paragraphs of the same articles (paragraphs FIRST..FIRST+PARAGRAPHS-1), so no passage and no question is
shared with the dev split. Writes articles/<title>.txt (title on the first line, paragraphs blank-line
separated) and questions.jsonl (ANSWERABLE answerable and UNANSWERABLE unanswerable questions, drawn
round-robin across articles with a fixed seed). Deterministic: the same source gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRST, PARAGRAPHS = 20, 20
ANSWERABLE, UNANSWERABLE = 300, 100
SEED = 2020


def spread(pools: list[list[dict]], total: int, rng: random.Random) -> list[dict]:
    """`total` items drawn round-robin from each shuffled pool, so every article contributes about equally."""
    for pool in pools:
        rng.shuffle(pool)
    out: list[dict] = []
    i = 0
    while len(out) < total and any(i < len(p) for p in pools):
        out += [p[i] for p in pools if i < len(p)][: total - len(out)]
        i += 1
    return out


def rows_of(title: str, paragraphs: list[dict]) -> tuple[list[dict], list[dict]]:
    """The answerable and the unanswerable question rows asked about `paragraphs`."""
    yes, no = [], []
    for p in paragraphs:
        for q in p["qas"]:
            row = {"id": q["id"], "article": title, "question": " ".join(q["question"].split()),
                   "answers": sorted({a["text"] for a in q["answers"]}), "is_impossible": bool(q["is_impossible"])}
            if row["is_impossible"]:
                row["plausible_answers"] = sorted({a["text"] for a in q.get("plausible_answers", [])})
            (no if row["is_impossible"] else yes).append(row)
    return yes, no


def write_article(here: Path, title: str, paragraphs: list[dict]) -> None:
    """articles/<title>.txt: the title, then the paragraphs' text (whitespace collapsed), blank-line separated."""
    text = title.replace("_", " ") + "\n\n" + "\n\n".join(" ".join(p["context"].split()) for p in paragraphs)
    (here / "articles" / f"{title}.txt").write_text(text + "\n", encoding="utf-8")


def write_questions(here: Path, rows: list[dict], articles: int) -> None:
    """questions.jsonl, one row a line, and a line saying what was written."""
    with (here / "questions.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{articles} articles, {sum(r['is_impossible'] for r in rows)} unanswerable of {len(rows)} questions")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    data = json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]
    rng = random.Random(SEED)
    (HERE / "articles").mkdir(exist_ok=True)
    answerable, unanswerable = [], []
    for article in data:
        title = article["title"]
        paragraphs = article["paragraphs"][FIRST : FIRST + PARAGRAPHS]
        write_article(HERE, title, paragraphs)
        yes, no = rows_of(title, paragraphs)
        answerable.append(yes)
        unanswerable.append(no)
    rows = spread(answerable, ANSWERABLE, rng) + spread(unanswerable, UNANSWERABLE, rng)
    rng.shuffle(rows)
    write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
