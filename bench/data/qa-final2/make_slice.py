"""Build the fresh final split for `bench/abstain_ce.py --split final2` (see README.md: run it once, at the end).

    python bench/data/qa-final2/make_slice.py --source dev-v2.0.json

Every earlier SQuAD split (qa, qa-heldout, qa-final) asks about the same 16 articles, and qa-final had been run
and read several times by the end of #42. This split asks only about articles of the SQuAD 2.0 development set
that none of them holds (ARTICLES: the ones the source file has; see README.md for where it came from), every
question of those articles, in a fixed-seed shuffled order. The library it is asked of holds those articles
whole plus the final split's 16 articles as they are in ../qa-final/articles (the passages a question about a new
article competes with, and the library an absent-article question is asked of). Deterministic: the same source
gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARTICLES = ("Rhine",)  # SQuAD 2.0 dev articles outside the 16 of the earlier splits that the source holds
SEED = 4242
sys.path.insert(0, str(HERE.parent / "qa-heldout"))
import make_slice as helpers  # noqa: E402  (the held-out split's builder: one definition of a row and of the files)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="a SQuAD 2.0 dev JSON holding the ARTICLES")
    args = ap.parse_args()
    data = {a["title"]: a for a in json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]}
    earlier = {p.stem for p in (HERE.parent / "qa-final" / "articles").glob("*.txt")}
    assert not earlier & set(ARTICLES), "a new article is one an earlier split holds"
    (HERE / "articles").mkdir(exist_ok=True)
    for title in sorted(earlier):
        shutil.copy(HERE.parent / "qa-final" / "articles" / f"{title}.txt", HERE / "articles" / f"{title}.txt")
    rows: list[dict] = []
    for title in ARTICLES:
        helpers.write_article(HERE, title, data[title]["paragraphs"])
        yes, no = helpers.rows_of(title, data[title]["paragraphs"])
        rows += yes + no
    random.Random(SEED).shuffle(rows)
    helpers.write_questions(HERE, rows, len(ARTICLES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
