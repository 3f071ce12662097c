"""Build the answerable-only split for `bench/abstain_ce.py --split final6` (README.md: run it once, at the end).

    python bench/data/qa-final6/make_slice.py --source train-v2.0.json   # the same cut as ../qa-final4

QUESTIONS answerable questions about the eight articles of the 10-article SQuAD 2.0 training cut that ../qa-final4
and ../qa-final5 do not ask about (those two hold every unanswerable question of the cut), drawn round-robin from the
eight in a fixed-seed order; only questions whose gold answer stands as whole words in the paragraph (../qa-final4's
rule). Asked of ../qa-final4's library, which holds all ten articles (`bench/abstain_ce.py` reads them from there).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FINAL4 = HERE.parent / "qa-final4"
QUESTIONS = 300
SEED = 6666
sys.path.insert(0, str(FINAL4))
import make_slice as final4  # noqa: E402  (../qa-final4's builder: its source, its articles, its answerable rule)


def main() -> int:
    data = final4.read_source(__doc__.splitlines()[0])
    pools: list[list[dict]] = []
    for title in sorted(set(data) - set(final4.ASKED)):
        paragraphs = data[title]["paragraphs"]
        yes, no = final4.answerable(title, paragraphs)
        assert not no, f"{title} has unanswerable questions"
        pools.append(yes)
    rng = random.Random(SEED)
    rows = final4.helpers.spread(pools, QUESTIONS, rng)
    rng.shuffle(rows)
    final4.helpers.write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
