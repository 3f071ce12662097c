"""Build the fresh *native* final QA split for `bench/quote_units.py --split native-final` (never tune on it).

    python bench/data/qa-native-final/make_slice.py --src /tmp/qa-fresh

Questions written in their own language over that language's own Wikipedia articles (not translations, not
parallel): Thai iApp Wiki QA (test), Chinese CMRC 2018 (dev), Arabic ARCD (test), Japanese JSQuAD v1.3 (valid),
Korean KorQuAD 1.0 (dev), and an English reference from SQuAD 2.0 dev paragraphs that no split of bench/data holds.
Per language: the source's articles cut into units of at most PARAS paragraphs (contexts), the units shuffled with
random.Random(SEED) and taken until the language has at least PARAGRAPHS paragraphs (the size of one language of the
XQuAD splits: 12 articles x 5), then QUESTIONS of their answerable questions drawn with the same generator. Writes
articles/<lang>/<lang>-<nn>.txt (paragraphs blank-line separated, no title) and questions.jsonl like the XQuAD
splits. KorQuAD 1.0 is CC BY-ND, so Korean goes to KO_HOME (outside git; `--split native-final-ko`).
Deterministic: the same inputs give the same files. Sources and licences: README.md.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH_DATA = HERE.parent
KO_HOME = Path.home() / ".cache" / "trove-bench" / "qa-native-final-ko"
PARAS, PARAGRAPHS, QUESTIONS = 5, 60, 50
SEED = 2057
EARLIER = ("qa", "qa-heldout", "qa-final", "qa-final2", "qa-xquad", "qa-xquad-dev", "qa-xquad-final")  # not later ones
FILES = {"th": "iapp-test.jsonl", "zh": "cmrc2018_dev.json", "ar": "arcd-test.json", "ja": "jsquad-valid-v1.3.json",
         "ko": "KorQuAD_v1.0_dev.json", "en": "squad-dev-v2.0-cut.json"}


def clean(text: str) -> str:
    """Whitespace collapsed (a byte-order mark dropped)."""
    return " ".join(text.replace("\ufeff", "").split())


def seen_paragraphs() -> set[str]:
    """The first 60 characters of every paragraph the splits made before this one (EARLIER) hold."""
    seen: set[str] = set()
    for f in sorted(f for split in EARLIER for f in (BENCH_DATA / split).glob("articles/**/*.txt")):
        seen.update(clean(p)[:60] for p in f.read_text(encoding="utf-8").split("\n\n") if p.strip())
    return seen


def squad_articles(path: Path) -> list[tuple[str, list[dict]]]:
    """(title, paragraphs) of a SQuAD-format file; paragraphs as {"context", "qas"}."""
    return [(a.get("title", ""), a["paragraphs"]) for a in json.loads(path.read_text(encoding="utf-8"))["data"]]


def iapp_articles(path: Path) -> list[tuple[str, list[dict]]]:
    """iApp Wiki QA's jsonl (one row per question) grouped into one context per article, SQuAD-shaped."""
    by_article: dict[str, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        para = by_article.setdefault(r["article_id"], {"context": r["context"], "qas": [], "title": r["title"]})
        if r["context"] == para["context"]:
            para["qas"].append({"id": r["question_id"], "question": r["question"],
                                "answers": [{"text": t} for t in r["answers"]["text"]]})
    return [(p["title"], [p]) for p in by_article.values()]


def paragraphs_of(lang: str, context: str) -> list[str]:
    """A context's paragraphs, cleaned: JSQuAD's leading "title [SEP] " dropped, iApp's blank lines kept."""
    if lang == "ja" and " [SEP] " in context:
        context = context.split(" [SEP] ", 1)[1]
    return [clean(p) for p in context.split("\n\n") if clean(p)]


def units(lang: str, articles: list[tuple[str, list[dict]]], seen: set[str]) -> list[list[dict]]:
    """Each article's paragraphs that no other split holds, in runs of at most PARAS."""
    out = []
    for _title, paras in articles:
        fresh = [p for p in paras if not any(x[:60] in seen for x in paragraphs_of(lang, p["context"]))]
        out += [fresh[i:i + PARAS] for i in range(0, len(fresh), PARAS)]
    return [u for u in out if u]


def build(lang: str, src: Path, seen: set[str], home: Path) -> tuple[int, int]:
    """Write one language's articles and return (its question rows, its units)."""
    path = src / FILES[lang]
    articles = iapp_articles(path) if lang == "th" else squad_articles(path)
    pool = units(lang, articles, seen)
    rng = random.Random(f"{SEED}-{lang}")
    rng.shuffle(pool)
    chosen, count = [], 0
    for u in pool:
        if count >= PARAGRAPHS:
            break
        chosen.append(u)
        count += len(u)
    candidates = []
    folder = home / "articles" / lang
    folder.mkdir(parents=True, exist_ok=True)
    for n, unit in enumerate(chosen):
        name = f"{lang}-{n:02d}"
        texts = [paragraphs_of(lang, p["context"]) for p in unit]
        (folder / f"{name}.txt").write_text("\n\n".join(x for t in texts for x in t) + "\n", encoding="utf-8")
        body = " ".join(x for t in texts for x in t)
        for p in unit:
            for q in p["qas"]:
                answers = sorted({clean(a["text"]) for a in q["answers"] if clean(a["text"])})
                if q.get("is_impossible") or not answers or not any(a in body for a in answers):
                    continue
                candidates.append({"lang": lang, "id": str(q["id"]), "article": name, "question": clean(q["question"]),
                                   "answers": answers, "is_impossible": False})
    picked = rng.sample(candidates, min(QUESTIONS, len(candidates)))
    picked.sort(key=lambda r: (r["article"], r["id"]))
    rows_path = home / "questions.jsonl"
    with rows_path.open("a", encoding="utf-8", newline="\n") as f:
        for row in picked:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{lang}: {len(chosen)} articles, {count} paragraphs, {len(picked)} of {len(candidates)} questions")
    return len(picked), len(chosen)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="folder holding the source files (README.md: where from)")
    args = ap.parse_args()
    src = Path(args.src)
    seen = seen_paragraphs()
    for home in (HERE, KO_HOME):
        (home / "questions.jsonl").unlink(missing_ok=True)
    for lang in ("th", "zh", "ar", "ja", "en"):
        build(lang, src, seen, HERE)
    if (src / FILES["ko"]).exists():
        build("ko", src, seen, KO_HOME)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
