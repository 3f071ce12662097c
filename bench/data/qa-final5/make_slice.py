"""Build the second training-set split for `bench/abstain_ce.py --split final5` (README.md: run it once, at the end).

    python bench/data/qa-final5/make_slice.py --source train-v2.0.json   # the same cut as ../qa-final4

Every question about the two articles of ../qa-final4 that ../qa-final4 does not ask (answerable ones with their
gold answer as whole words in the paragraph), in a fixed-seed shuffled order, asked of the same library
(../qa-final4/articles: `bench/abstain_ce.py` reads them from there). ../qa-final4 was run once as shipped and then
read to choose what the chat model's check of a quote decides; this split was built before that reading and holds
none of its questions.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FINAL4 = HERE.parent / "qa-final4"
SEED = 5555
sys.path.insert(0, str(FINAL4))
import make_slice as final4  # noqa: E402  (../qa-final4's builder: its source, its articles, its answerable rule)


def main() -> int:
    data = final4.read_source(__doc__.splitlines()[0])
    asked = {json.loads(line)["id"] for line in (FINAL4 / "questions.jsonl").read_text(encoding="utf-8").splitlines()}
    rows: list[dict] = []
    for title in final4.ASKED:
        paragraphs = data[title]["paragraphs"]
        yes, no = final4.answerable(title, paragraphs)
        rows += [r for r in yes + no if r["id"] not in asked]
    random.Random(SEED).shuffle(rows)
    final4.helpers.write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
