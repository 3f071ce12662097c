"""Build the second fresh XQuAD final split for `bench/qa.py --split xquad-final2` (never tune on it; README.md).

    python bench/data/qa-xquad-final2/make_slice.py --xquad DIR_WITH_xquad.LANG.json --dev-split bench/data/qa

The same layout as `qa-xquad-final`, from the 16 XQuAD articles that the English SQuAD splits (`bench/data/qa`,
`qa-heldout`, `qa-final*`) are drawn from: every XQuAD split so far left them out, so their Thai, Chinese and
Arabic questions were never asked. Every question id of theirs that bench/data/multilingual-qa (the retrieval
bench) does not use and whose gold answer bench/qa.py's judge finds in its paragraph in all four languages, the
same ids in every language. `english_asked.txt` lists the ids whose English question an
English QA split holds (tuned on or reported before): the English reference is given with and without them.
Deterministic: the same inputs give the same files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "qa-xquad"))
sys.path.insert(0, str(HERE.parents[1]))
from make_slice import LANGS, clean, read_sources, used_by_retrieval_bench, write_slice  # noqa: E402  (one writer)
from qa import contains_any  # noqa: E402  (the judge bench/qa.py grades quotes with)

ENGLISH_SPLITS = ("qa", "qa-heldout", "qa-final", "qa-final2", "qa-final3")


def english_asked() -> set[str]:
    """Every English question an English QA split holds, whitespace collapsed and lower-cased."""
    out = set()
    for name in ENGLISH_SPLITS:
        for path in (HERE.parent / name).glob("questions*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    out.add(clean(json.loads(line)["question"]).lower())
    return out


def judgeable(data: dict[str, list], chosen: list[int]) -> set[str]:
    """The ids whose gold answer the bench's judge (qa.contains_any) finds in its own paragraph in every language: a
    translation that glues the answer to the word before it ("الأمرانضمت") could never be judged right."""
    found: dict[str, list[bool]] = {}
    for lang in LANGS:
        for i in chosen:
            for p in data[lang][i]["paragraphs"]:
                context = clean(p["context"])
                for q in p["qas"]:
                    golds = sorted({clean(a["text"]) for a in q["answers"]})
                    found.setdefault(q["id"], []).append(contains_any(context, golds))
    return {i for i, ok in found.items() if len(ok) == len(LANGS) and all(ok)}


def main() -> int:
    data, dev_titles = read_sources(__doc__)
    english = data["en"]
    chosen = [i for i, a in enumerate(english) if a["title"] in dev_titles]
    skip = used_by_retrieval_bench()
    fair = judgeable(data, chosen)
    questions = [q for i in chosen for p in english[i]["paragraphs"] for q in p["qas"]
                 if q["id"] not in skip and q["id"] in fair]
    picked = {q["id"] for q in questions}
    count = write_slice(HERE, data, chosen, picked)
    asked = english_asked()
    seen = sorted(q["id"] for q in questions if clean(q["question"]).lower() in asked)
    (HERE / "english_asked.txt").write_text("".join(f"{i}\n" for i in seen), encoding="utf-8")
    print(f"{len(chosen)} articles ({', '.join(english[i]['title'] for i in chosen)}), {count} questions; "
          f"{len(seen)} of {len(picked)} ids asked in English before")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
