"""Build the non-English *dev* QA split for `bench/qa.py --split xquad-dev` (tune on this one; see README.md).

    python bench/data/qa-xquad-dev/make_slice.py --xquad DIR_WITH_xquad.LANG.json --dev-split bench/data/qa

The same layout as the held-out `qa-xquad` split, from the XQuAD articles that neither the SQuAD dev split nor
`qa-xquad` holds: ARTICLES whole articles drawn with a fixed seed, QUESTIONS question ids of theirs, the same
articles and ids in every language. Deterministic: the same inputs give the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELDOUT = HERE.parent / "qa-xquad"
sys.path.insert(0, str(HELDOUT))
from make_slice import LANGS, clean, write_slice  # noqa: E402  (the held-out split's own writer: both read alike)

ARTICLES, QUESTIONS = 8, 50
SEED = 2026


def heldout_paragraph_starts() -> set[str]:
    """The first 80 characters of every English paragraph the held-out split holds (its files carry no title)."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in (HELDOUT / "articles" / "en").glob("*.txt"))
    return {p.strip()[:80] for p in text.split("\n\n") if p.strip()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xquad", required=True, help="folder holding xquad.<lang>.json")
    ap.add_argument("--dev-split", required=True, help="bench/data/qa (its articles are left out)")
    args = ap.parse_args()
    data = {lang: json.loads((Path(args.xquad) / f"xquad.{lang}.json").read_text(encoding="utf-8"))["data"]
            for lang in LANGS}
    dev_titles = {p.stem for p in (Path(args.dev_split) / "articles").glob("*.txt")}
    heldout = heldout_paragraph_starts()
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
