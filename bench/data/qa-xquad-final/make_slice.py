"""Build the fresh non-English *final* QA split for `bench/qa.py --split xquad-final` (never tune on it; README.md).

    python bench/data/qa-xquad-final/make_slice.py --xquad DIR_WITH_xquad.LANG.json --dev-split bench/data/qa

The same layout as `qa-xquad` and `qa-xquad-dev`, from every XQuAD article that none of the SQuAD dev split,
`qa-xquad` (held out, read four times) and `qa-xquad-dev` holds, and QUESTIONS question ids of theirs that
bench/data/multilingual-qa (the retrieval bench) does not use; the same articles and ids in every language.
Deterministic: the same inputs give the same files.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELDOUT = HERE.parent / "qa-xquad"
DEV = HERE.parent / "qa-xquad-dev"
sys.path.insert(0, str(HELDOUT))
from make_slice import LANGS, clean, paragraph_starts, read_sources, used_by_retrieval_bench, write_slice  # noqa: E402  (one writer for all three)

QUESTIONS = 50
SEED = 2056



def main() -> int:
    data, dev_titles = read_sources(__doc__)
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
