"""Build the second training-set split for `bench/abstain_ce.py --split final5` (README.md: run it once, at the end).

    python bench/data/qa-final5/make_slice.py --source train-v2.0.json   # the same cut as ../qa-final4

Every question about the two articles of ../qa-final4 that ../qa-final4 does not ask (answerable ones with their
gold answer as whole words in the paragraph), in a fixed-seed shuffled order, asked of the same library
(../qa-final4/articles: `bench/abstain_ce.py` reads them from there). ../qa-final4 was run once as shipped and then
read to choose what the chat model's check of a quote decides; this split was built before that reading and holds
none of its questions.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
FINAL4 = HERE.parent / "qa-final4"
SEED = 5555
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
    asked = {json.loads(line)["id"] for line in (FINAL4 / "questions.jsonl").read_text(encoding="utf-8").splitlines()}
    rows: list[dict] = []
    for title in final4.ASKED:
        paragraphs = data[title]["paragraphs"]
        yes, no = helpers.rows_of(final4.file_name(title), paragraphs)
        contexts = {q["id"]: p["context"] for p in paragraphs for q in p["qas"]}
        rows += [r for r in yes if final4.whole_words(r, contexts[r["id"]]) and r["id"] not in asked]
        rows += [r for r in no if r["id"] not in asked]
    random.Random(SEED).shuffle(rows)
    helpers.write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
