"""Rebuild this slice from the SQuAD 2.0 dev articles (the file named by --source; see README.md).

    python bench/data/qa/make_slice.py --source dev-v2.0.json

Writes articles/<title>.txt (the first PARAGRAPHS paragraphs of each article, blank-line separated, the title
on the first line), questions.jsonl (a seeded sample of answerable and unanswerable questions asked about
those paragraphs) and questions_all.jsonl (every question asked about them, 1,482 answerable and 1,675
unanswerable, in a seeded order: what bench/abstain.py --all fits the abstention gate on). Deterministic: the
same source gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARAGRAPHS = 20
ANSWERABLE, UNANSWERABLE = 150, 50
SEED = 12


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


def write(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


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
        paragraphs = article["paragraphs"][:PARAGRAPHS]
        text = title.replace("_", " ") + "\n\n" + "\n\n".join(" ".join(p["context"].split()) for p in paragraphs)
        (HERE / "articles" / f"{title}.txt").write_text(text + "\n", encoding="utf-8")
        yes, no = [], []
        for p in paragraphs:
            for q in p["qas"]:
                row = {"id": q["id"], "article": title, "question": " ".join(q["question"].split()),
                       "answers": sorted({a["text"] for a in q["answers"]}), "is_impossible": bool(q["is_impossible"])}
                if row["is_impossible"]:
                    row["plausible_answers"] = sorted({a["text"] for a in q.get("plausible_answers", [])})
                (no if row["is_impossible"] else yes).append(row)
        answerable.append(yes)
        unanswerable.append(no)
    every = [row for pool in answerable + unanswerable for row in pool]
    random.Random(SEED + 1).shuffle(every)
    write(HERE / "questions_all.jsonl", every)
    rows = spread(answerable, ANSWERABLE, rng) + spread(unanswerable, UNANSWERABLE, rng)
    rng.shuffle(rows)
    write(HERE / "questions.jsonl", rows)
    print(f"{len(data)} articles, {sum(r['is_impossible'] for r in rows)} unanswerable of {len(rows)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
