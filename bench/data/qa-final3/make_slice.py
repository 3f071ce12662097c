"""Build the fresh final split for `bench/abstain_ce.py --split final3` (see README.md: run it once, at the end).

    python bench/data/qa-final3/make_slice.py --source dev-v1.1.json   # VinACE/san_mrc's file, see README.md

qa-final2 (Rhine) was reported in #42 and is a dev split since. This split asks about two more articles of the
SQuAD 2.0 development set that no split under bench/data holds as a SQuAD split (ARTICLES), every question of
theirs except those about a paragraph another split holds (the XQuAD splits and qa-native-final hold English
paragraphs of them: those questions are asked there), in a fixed-seed shuffled order. The library it is asked of holds both articles whole
plus the final split's 16 articles as they are in ../qa-final/articles. Deterministic: the same source gives the
same files.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARTICLES = ("Southern_California", "Victoria_(Australia)")  # unused by the SQuAD splits; Sky is quoted in #42's text
SEED = 4343
sys.path.insert(0, str(HERE.parent / "qa-heldout"))
import make_slice as helpers  # noqa: E402  (the held-out split's builder: one definition of a row and of the files)


def held_paragraphs() -> set[str]:
    """The first 60 characters (whitespace collapsed) of every paragraph another split under bench/data holds."""
    out: set[str] = set()
    for f in HERE.parent.glob("*/articles/**/*.txt"):
        if f.parent.parent != HERE:
            out |= {" ".join(p.split())[:60] for p in f.read_text(encoding="utf-8").split("\n\n") if p.strip()}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="a SQuAD 2.0 dev JSON holding the ARTICLES")
    args = ap.parse_args()
    data = {a["title"]: a for a in json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]}
    earlier = {p.stem for p in (HERE.parent / "qa-final" / "articles").glob("*.txt")}
    assert not (earlier | {"Rhine"}) & set(ARTICLES), "a new article is one an earlier split holds"
    seen = held_paragraphs()
    (HERE / "articles").mkdir(exist_ok=True)
    for title in sorted(earlier):
        shutil.copy(HERE.parent / "qa-final" / "articles" / f"{title}.txt", HERE / "articles" / f"{title}.txt")
    rows: list[dict] = []
    for title in ARTICLES:
        paragraphs = data[title]["paragraphs"]
        helpers.write_article(HERE, title, paragraphs)
        asked = [p for p in paragraphs if " ".join(p["context"].split())[:60] not in seen]
        print(f"{title}: {len(paragraphs) - len(asked)} of {len(paragraphs)} paragraphs held by another split")
        yes, no = helpers.rows_of(title, asked)
        rows += yes + no
    random.Random(SEED).shuffle(rows)
    helpers.write_questions(HERE, rows, len(ARTICLES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
