"""Build the non-English *dev* QA split for `bench/qa.py --split xquad-dev` (tune on this one; see README.md).

    python bench/data/qa-xquad-dev/make_slice.py --xquad DIR_WITH_xquad.LANG.json --dev-split bench/data/qa

The same layout as the held-out `qa-xquad` split, from the XQuAD articles that neither the SQuAD dev split nor
`qa-xquad` holds: ARTICLES whole articles drawn with a fixed seed, QUESTIONS question ids of theirs, the same
articles and ids in every language. Deterministic: the same inputs give the same files.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELDOUT = HERE.parent / "qa-xquad"
sys.path.insert(0, str(HELDOUT))
from make_slice import LANGS, clean, paragraph_starts, read_sources, write_slice  # noqa: E402  (the held-out split's own writer: both read alike)

ARTICLES, QUESTIONS = 8, 50
SEED = 2026



def main() -> int:
    data, dev_titles = read_sources(__doc__)
    heldout = paragraph_starts(HELDOUT)
    english = data["en"]
    candidates = [i for i, a in enumerate(english) if a["title"] not in dev_titles
                  and not any(clean(p["context"])[:80] in heldout for p in a["paragraphs"])]
    rng = random.Random(SEED)
    chosen = sorted(rng.sample(candidates, ARTICLES))
    ids = sorted(q["id"] for i in chosen for p in english[i]["paragraphs"] for q in p["qas"])
    picked = set(rng.sample(ids, QUESTIONS))
    count = write_slice(HERE, data, chosen, picked)
    print(f"{ARTICLES} articles ({', '.join(english[i]['title'] for i in chosen)}) x {len(LANGS)} languages, "
          f"{count} questions; {len(candidates)} candidate articles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
