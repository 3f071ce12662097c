"""Build bench/data/multilingual-qa: a small retrieval slice of XQuAD (th, zh, ar, en) and JSQuAD (ja).

    python bench/make_multilingual_slice.py --xquad DIR_WITH_xquad.LANG.json --jsquad valid-v1.3.json

Both sources are extractive QA sets (CC BY-SA 4.0): each question was written about one paragraph, so the
paragraph is the relevant document and the other paragraphs of the same article are natural hard negatives.
Per language this writes a BEIR-layout folder (corpus.jsonl, queries.jsonl, qrels.tsv):
  - XQuAD: all 240 paragraphs as the corpus; 200 questions drawn with a fixed seed. XQuAD is parallel, so a
    paragraph has the same id in every language and the same 200 question ids are drawn everywhere: Thai
    questions against the English corpus (the "th-en" task of manifest.json) and English questions against the
    Thai one ("en-th") measure cross-lingual retrieval.
  - JSQuAD: the paragraphs of whole articles drawn with a fixed seed until there are at least 400, and
    200 of their questions.
Deterministic: the same inputs give byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "multilingual-qa"
XQUAD_LANGS = ("th", "zh", "ar", "en")
QUERIES_PER_LANG = 200
JSQUAD_MIN_PARAGRAPHS = 400
SEED = 13


def clean(text: str) -> str:
    """The text without the byte-order mark some XQuAD paragraphs start with, and without outer spaces."""
    return text.replace("\ufeff", "").strip()


def xquad_language(path: Path, picked: set[str] | None) -> tuple[list[dict], list[dict], list[tuple[str, str]]]:
    """Corpus (every paragraph, id a<article>p<paragraph>), questions and qrels of one XQuAD file."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    corpus, queries, qrels = [], [], []
    for ai, article in enumerate(data):
        for pi, para in enumerate(article["paragraphs"]):
            pid = f"a{ai:02d}p{pi:02d}"
            corpus.append({"_id": pid, "title": "", "text": clean(para["context"])})
            for qa in para["qas"]:
                if picked is None or qa["id"] in picked:
                    queries.append({"_id": qa["id"], "text": clean(qa["question"])})
                    qrels.append((qa["id"], pid))
    return corpus, queries, qrels


def pick_xquad_questions(path: Path) -> set[str]:
    """The question ids drawn once (from the English file) and used for every language."""
    _, queries, _ = xquad_language(path, None)
    ids = sorted(q["_id"] for q in queries)
    return set(random.Random(SEED).sample(ids, QUERIES_PER_LANG))


def jsquad(path: Path) -> tuple[list[dict], list[dict], list[tuple[str, str]]]:
    """Whole articles drawn until JSQUAD_MIN_PARAGRAPHS, then QUERIES_PER_LANG of their questions."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    order = list(range(len(data)))
    random.Random(SEED).shuffle(order)
    corpus, candidates = [], []
    for ai in order:
        if len(corpus) >= JSQUAD_MIN_PARAGRAPHS:
            break
        for pi, para in enumerate(data[ai]["paragraphs"]):
            pid = f"a{ai:02d}p{pi:03d}"
            title, _, text = para["context"].partition(" [SEP] ")
            corpus.append({"_id": pid, "title": clean(title), "text": clean(text)})
            candidates.extend(
                (qa["id"], clean(qa["question"]), pid) for qa in para["qas"] if not qa.get("is_impossible")
            )
    candidates.sort()
    chosen = sorted(random.Random(SEED).sample(candidates, QUERIES_PER_LANG))
    return corpus, [{"_id": q, "text": t} for q, t, _ in chosen], [(q, pid) for q, _, pid in chosen]


def write_language(folder: Path, corpus: list[dict], queries: list[dict], qrels: list[tuple[str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus)
    with open(folder / "queries.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in queries)
    with open(folder / "qrels.tsv", "w", encoding="utf-8", newline="\n") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        fh.writelines(f"{q}\t{d}\t1\n" for q, d in qrels)
    print(f"{folder.name}: {len(corpus)} passages, {len(queries)} queries")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xquad", type=Path, required=True, help="folder with xquad.<lang>.json")
    ap.add_argument("--jsquad", type=Path, required=True, help="JSQuAD valid-v1.3.json")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    picked = pick_xquad_questions(args.xquad / "xquad.en.json")
    for lang in XQUAD_LANGS:
        write_language(args.out / lang, *xquad_language(args.xquad / f"xquad.{lang}.json", picked))
    write_language(args.out / "ja", *jsquad(args.jsquad))
    tasks = [{"name": lang, "corpus": lang, "queries": lang} for lang in ("th", "zh", "ja", "ar", "en")]
    tasks.append(
        {"name": "th-en", "corpus": "en", "queries": "th", "note": "Thai questions, English paragraphs: cross-lingual"}
    )
    tasks.append(
        {"name": "en-th", "corpus": "th", "queries": "en", "note": "English questions, Thai paragraphs: cross-lingual"}
    )
    manifest = {"name": "multilingual-qa", "tasks": tasks}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
