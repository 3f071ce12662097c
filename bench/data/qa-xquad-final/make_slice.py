"""Build the fresh non-English *final* QA split for `bench/qa.py --split xquad-final` (never tune on it; README.md).

    python bench/data/qa-xquad-final/make_slice.py --xquad DIR_WITH_xquad.LANG.json --dev-split bench/data/qa

The same layout as `qa-xquad` and `qa-xquad-dev`, from every XQuAD article that none of the SQuAD dev split,
`qa-xquad` (held out, read four times) and `qa-xquad-dev` holds, and QUESTIONS question ids of theirs that
bench/data/multilingual-qa (the retrieval bench) does not use; the same articles and ids in every language.
Deterministic: the same inputs give the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELDOUT = HERE.parent / "qa-xquad"
DEV = HERE.parent / "qa-xquad-dev"
sys.path.insert(0, str(HELDOUT))
from make_slice import LANGS, clean, used_by_retrieval_bench, write_slice  # noqa: E402  (one writer for all three)

QUESTIONS = 50
SEED = 2056


def paragraph_starts(split: Path) -> set[str]:
    """The first 80 characters of every English paragraph `split` holds (its files carry no title)."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in (split / "articles" / "en").glob("*.txt"))
    return {p.strip()[:80] for p in text.split("\n\n") if p.strip()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xquad", required=True, help="folder holding xquad.<lang>.json")
    ap.add_argument("--dev-split", required=True, help="bench/data/qa (its articles are left out)")
    args = ap.parse_args()
    data = {lang: json.loads((Path(args.xquad) / f"xquad.{lang}.json").read_text(encoding="utf-8"))["data"]
            for lang in LANGS}
    dev_titles = {p.stem for p in (Path(args.dev_split) / "articles").glob("*.txt")}
    seen = paragraph_starts(HELDOUT) | paragraph_starts(DEV)
    english = data["en"]
    chosen = [i for i, a in enumerate(english) if a["title"] not in dev_titles
              and not any(clean(p["context"])[:80] in seen for p in a["paragraphs"])]
    skip = used_by_retrieval_bench()
    ids = sorted(q["id"] for i in chosen for p in english[i]["paragraphs"] for q in p["qas"] if q["id"] not in skip)
    picked = set(random.Random(SEED).sample(ids, QUESTIONS))
    count = write_slice(HERE, data, chosen, picked)
    print(f"{len(chosen)} articles ({', '.join(english[i]['title'] for i in chosen)}) x {len(LANGS)} languages, "
          f"{count} questions from {len(ids)} candidate ids")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
