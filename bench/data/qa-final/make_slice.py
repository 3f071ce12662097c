"""Build the final SQuAD 2.0 split for `bench/qa.py --split final` (see README.md: read it once, at the end).

    python bench/data/qa-final/make_slice.py --source dev-v2.0.json

The dev split (bench/data/qa) keeps paragraphs 1-20 of each article and the held-out split (../qa-heldout)
paragraphs 21-40; by the end of round 3 the held-out split had been reported several times. This split asks
only questions of paragraphs 41 and later, which no earlier split held (8 of the 16 articles have them), and
indexes paragraphs 21 and later of every article, so the passages around the answer are as many as the held-out
split's. Every question of those paragraphs is kept (no sampling). Deterministic: the same source gives the
same files.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
INDEXED_FROM, ASKED_FROM = 20, 40  # 0-based paragraph numbers: index from paragraph 21, ask from paragraph 41
SEED = 2026


def _heldout_helpers():
    """The held-out split's builder: one definition of a question row and of the files written."""
    spec = importlib.util.spec_from_file_location("heldout_slice", HERE.parent / "qa-heldout" / "make_slice.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    helpers = _heldout_helpers()
    data = json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]
    (HERE / "articles").mkdir(exist_ok=True)
    rows: list[dict] = []
    for article in data:
        title = article["title"]
        helpers.write_article(HERE, title, article["paragraphs"][INDEXED_FROM:])
        yes, no = helpers.rows_of(title, article["paragraphs"][ASKED_FROM:])
        rows += yes + no
    random.Random(SEED).shuffle(rows)
    helpers.write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
