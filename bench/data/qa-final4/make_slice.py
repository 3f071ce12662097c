"""Build the fresh final split for `bench/abstain_ce.py --split final4` (see README.md: run it once, at the end).

    python bench/data/qa-final4/make_slice.py --source train-v2.0.json   # PhongNTDo's 10-article cut, README.md

Every SQuAD 2.0 development-set paragraph in reach is held by another split under bench/data, so this split comes
from the SQuAD 2.0 *training* set: a 10-article cut of it, of which two articles (ASKED) carry unanswerable
questions. It asks ANSWERABLE answerable questions (their gold answer as whole words in the paragraph) and
UNANSWERABLE unanswerable ones of those two, drawn round-robin from the two articles in a fixed-seed order. The
library it is asked of holds all 10 articles of the cut whole plus the final split's 16 articles as they are in
../qa-final/articles. Deterministic: the same source gives the same files.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import shutil
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ASKED = ("The_Legend_of_Zelda:_Twilight_Princess", "Spectre_(2015_film)")  # the cut's two with unanswerable ones
ANSWERABLE, UNANSWERABLE = 200, 200
SEED = 4444
_spec = importlib.util.spec_from_file_location("heldout_slice", HERE.parent / "qa-heldout" / "make_slice.py")
assert _spec is not None and _spec.loader is not None
helpers = importlib.util.module_from_spec(_spec)  # the held-out split's builder: one definition of a row and the files
_spec.loader.exec_module(helpers)  # (loaded by path: ../qa-final5 and ../qa-final6 import this file as make_slice)


def read_source(description: str) -> dict[str, dict]:
    """The articles of the SQuAD 2.0 JSON given as --source, by title."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--source", required=True, help="the SQuAD 2.0 JSON (train-v2.0.json, README.md)")
    args = ap.parse_args()
    return {a["title"]: a for a in json.loads(Path(args.source).read_text(encoding="utf-8"))["data"]}


def answerable(title: str, paragraphs: list[dict]) -> tuple[list[dict], list[dict]]:
    """The answerable rows whose gold answer stands as whole words (`whole_words`), and the unanswerable rows."""
    yes, no = helpers.rows_of(file_name(title), paragraphs)
    contexts = {q["id"]: p["context"] for p in paragraphs for q in p["qas"]}
    return [row for row in yes if whole_words(row, contexts[row["id"]])], no


def file_name(title: str) -> str:
    """The article's file name: a title's ':' is not a file name character everywhere."""
    return title.replace(":", "")


def whole_words(row: dict, context: str) -> bool:
    """Whether an answerable row's gold answer stands as whole words in its paragraph: neither end touches a letter,
    digit or symbol (only a space, punctuation or the text's edge), as the bench's judge reads it (bench/qa.py
    `normalize` keeps "$158.8" and "Nike+iPod" whole). A training-set answer is sometimes cut inside a word ("six" of
    "sixth") or from such a run ("158.8 million", "Nike"): no shown answer could ever be credited with it."""
    def loose(ch: str) -> bool:
        return ch.isspace() or unicodedata.category(ch).startswith("P")

    for answer in row["answers"]:
        for m in re.finditer(re.escape(answer), context):
            before, after = context[m.start() - 1: m.start()], context[m.end(): m.end() + 1]
            if all(not ch or loose(ch) for ch in (before, after)):
                return True
    return False


def main() -> int:
    data = read_source(__doc__.splitlines()[0])
    earlier = {p.stem for p in (HERE.parent / "qa-final" / "articles").glob("*.txt")}
    assert not earlier & set(data), "an article of the cut is one an earlier split holds"
    (HERE / "articles").mkdir(exist_ok=True)
    for title in sorted(earlier):
        shutil.copy(HERE.parent / "qa-final" / "articles" / f"{title}.txt", HERE / "articles" / f"{title}.txt")
    yes: list[list[dict]] = []
    no: list[list[dict]] = []
    for title in sorted(data):
        helpers.write_article(HERE, file_name(title), data[title]["paragraphs"])
        if title in ASKED:
            a, b = answerable(title, data[title]["paragraphs"])
            yes.append(a)
            no.append(b)
    rng = random.Random(SEED)
    rows = helpers.spread(yes, ANSWERABLE, rng) + helpers.spread(no, UNANSWERABLE, rng)
    rng.shuffle(rows)
    helpers.write_questions(HERE, rows, len(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
