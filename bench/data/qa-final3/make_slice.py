"""Build the fresh final split for `bench/abstain_ce.py --split final3` (see README.md: run it once, at the end).

    python bench/data/qa-final3/make_slice.py --source dev-v1.1.json   # VinACE/san_mrc's file, see README.md

qa-final2 (Rhine) was reported in #42 and is a dev split since. This split asks about two more articles of the
SQuAD 2.0 development set that no SQuAD split under bench/data holds (ARTICLES): every question of the paragraphs
ASKED, in a fixed-seed shuffled order. ASKED are the paragraphs no other split held when it was built (2026-12-06
23:50 UTC: the XQuAD splits and a first build of qa-native-final hold English paragraphs of these articles); they
are pinned so that a rebuild gives the same files (qa-native-final, committed later, holds more of them: README.md).
The library it is asked of holds both articles whole plus the final split's 16 articles as they are in
../qa-final/articles. Deterministic: the same source gives the same files.
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
ASKED = {"Southern_California": (5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 33, 34, 37, 38),  # paragraph indices
         "Victoria_(Australia)": (0, 1, 2, 4, 5, 13, 14, 15, 16, 17, 18, 21, 22, 23, 24)}
SEED = 4343
sys.path.insert(0, str(HERE.parent / "qa-heldout"))
import make_slice as helpers  # noqa: E402  (the held-out split's builder: one definition of a row and of the files)


def xquad_paragraphs() -> set[str]:
    """The first 60 characters (whitespace collapsed) of every English paragraph the XQuAD splits hold."""
    out: set[str] = set()
    for f in HERE.parent.glob("qa-xquad*/articles/en/*.txt"):
        out |= {" ".join(p.split())[:60] for p in f.read_text(encoding="utf-8").split("\n\n") if p.strip()}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="a SQuAD 2.0 dev JSON holding the ARTICLES")
    args = ap.parse_args()
    data = {a["title"]: a for a in json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]}
    earlier = {p.stem for p in (HERE.parent / "qa-final" / "articles").glob("*.txt")}
    assert not (earlier | {"Rhine"}) & set(ARTICLES), "a new article is one an earlier split holds"
    seen = xquad_paragraphs()
    (HERE / "articles").mkdir(exist_ok=True)
    for title in sorted(earlier):
        shutil.copy(HERE.parent / "qa-final" / "articles" / f"{title}.txt", HERE / "articles" / f"{title}.txt")
    rows: list[dict] = []
    for title in ARTICLES:
        paragraphs = data[title]["paragraphs"]
        helpers.write_article(HERE, title, paragraphs)
        asked = [paragraphs[i] for i in ASKED[title]]
        assert not {" ".join(p["context"].split())[:60] for p in asked} & seen, "an XQuAD split holds one"
        print(f"{title}: {len(asked)} of {len(paragraphs)} paragraphs asked about")
        yes, no = helpers.rows_of(title, asked)
        rows += yes + no
    random.Random(SEED).shuffle(rows)
    helpers.write_questions(HERE, rows, len(ARTICLES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
