"""Build the non-English held-out QA split for `bench/qa.py --split xquad` (see README.md: do not tune on it).

    python bench/data/qa-xquad/make_slice.py --xquad DIR_WITH_xquad.LANG.json --dev-split bench/data/qa

XQuAD is parallel (the same 240 SQuAD v1.1 dev paragraphs and questions in every language). This keeps
ARTICLES whole articles (5 paragraphs each), drawn with a fixed seed from the articles that are NOT in the
SQuAD dev split, and QUESTIONS questions of theirs that bench/data/multilingual-qa does not use; the same
articles and question ids in every language. Writes articles/<lang>/<lang>-<nn>.txt (paragraphs separated by
blank lines, no title: XQuAD's titles are English) and questions.jsonl (`lang`, `id`, `article`, `question`,
`answers`, `is_impossible` = false). Deterministic: the same inputs give the same files.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
MULTILINGUAL = HERE.parent / "multilingual-qa"
LANGS = ("th", "zh", "ar", "en")
ARTICLES, QUESTIONS = 12, 50
SEED = 2021


def clean(text: str) -> str:
    """The text without the byte-order mark some XQuAD paragraphs start with, whitespace collapsed."""
    return " ".join(text.replace("\ufeff", "").split())


def used_by_retrieval_bench() -> set[str]:
    """Question ids bench/data/multilingual-qa already uses (the retrieval bench tunes on them)."""
    lines = (MULTILINGUAL / "en" / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["_id"] for line in lines if line}


def write_slice(here: Path, data: dict[str, list], chosen: list[int], picked: set[str]) -> int:
    """Write articles/<lang>/<lang>-<nn>.txt for the `chosen` articles and questions.jsonl for the `picked` ids
    under `here`, the same articles and ids in every language; returns the number of question rows."""
    rows = []
    for lang in LANGS:
        folder = here / "articles" / lang
        folder.mkdir(parents=True, exist_ok=True)
        for n, i in enumerate(chosen):
            name = f"{lang}-{n:02d}"
            paragraphs = data[lang][i]["paragraphs"]
            (folder / f"{name}.txt").write_text("\n\n".join(clean(p["context"]) for p in paragraphs) + "\n",
                                                encoding="utf-8")
            for p in paragraphs:
                for q in p["qas"]:
                    if q["id"] in picked:
                        rows.append({"lang": lang, "id": q["id"], "article": name, "question": clean(q["question"]),
                                     "answers": sorted({clean(a["text"]) for a in q["answers"]}),
                                     "is_impossible": False})
    with (here / "questions.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


def read_sources(doc: str) -> tuple[dict[str, list], set[str]]:
    """The command line every XQuAD split's make_slice.py takes: each language's XQuAD articles, and the titles of
    the SQuAD dev split's articles (left out of every XQuAD split)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--xquad", required=True, help="folder holding xquad.<lang>.json")
    ap.add_argument("--dev-split", required=True, help="bench/data/qa (its articles are left out)")
    args = ap.parse_args()
    data = {lang: json.loads((Path(args.xquad) / f"xquad.{lang}.json").read_text(encoding="utf-8"))["data"]
            for lang in LANGS}
    return data, {p.stem for p in (Path(args.dev_split) / "articles").glob("*.txt")}


def paragraph_starts(split: Path) -> set[str]:
    """The first 80 characters of every English paragraph `split` holds (its files carry no title)."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in (split / "articles" / "en").glob("*.txt"))
    return {p.strip()[:80] for p in text.split("\n\n") if p.strip()}


def main() -> int:
    data, dev_titles = read_sources(__doc__)
    english = data["en"]
    candidates = [i for i, a in enumerate(english) if a["title"] not in dev_titles]
    rng = random.Random(SEED)
    chosen = sorted(rng.sample(candidates, ARTICLES))
    skip = used_by_retrieval_bench()
    ids = sorted(q["id"] for i in chosen for p in english[i]["paragraphs"] for q in p["qas"] if q["id"] not in skip)
    picked = set(rng.sample(ids, QUESTIONS))
    count = write_slice(HERE, data, chosen, picked)
    print(f"{ARTICLES} articles x {len(LANGS)} languages, {count} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
