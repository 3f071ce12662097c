"""Build the answerable-only split for `bench/abstain_ce.py --split final6` (README.md: run it once, at the end).

    python bench/data/qa-final6/make_slice.py --source train-v2.0.json   # the same cut as ../qa-final4

QUESTIONS answerable questions about the eight articles of the 10-article SQuAD 2.0 training cut that ../qa-final4
and ../qa-final5 do not ask about (those two hold every unanswerable question of the cut), drawn round-robin from the
eight in a fixed-seed order; only questions whose gold answer stands as whole words in the paragraph (../qa-final4's
rule). Asked of ../qa-final4's library, which holds all ten articles (`bench/abstain_ce.py` reads them from there).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
FINAL4 = HERE.parent / "qa-final4"
QUESTIONS = 300
SEED = 6666
_spec = importlib.util.spec_from_file_location("final4_slice", FINAL4 / "make_slice.py")
assert _spec is not None and _spec.loader is not None
final4 = importlib.util.module_from_spec(_spec)  # ../qa-final4's builder: its articles and its answerable rule
_spec.loader.exec_module(final4)
helpers = final4.helpers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="the SQuAD 2.0 JSON ../qa-final4 was built from")
    args = ap.parse_args()
    data = {a["title"]: a for a in json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]}
    pools: list[list[dict]] = []
    for title in sorted(set(data) - set(final4.ASKED)):
        paragraphs = data[title]["paragraphs"]
        yes, no = helpers.rows_of(final4.file_name(title), paragraphs)
        assert not no, f"{title} has unanswerable questions"
        contexts = {q["id"]: p["context"] for p in paragraphs for q in p["qas"]}
        pools.append([r for r in yes if final4.whole_words(r, contexts[r["id"]])])
    rng = random.Random(SEED)
    rows = helpers.spread(pools, QUESTIONS, rng)
    rng.shuffle(rows)
    helpers.write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
