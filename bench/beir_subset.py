"""The part of a BEIR-layout set whose documents a bench library has already embedded, as a set of its own.

    python bench/beir_subset.py --dataset ~/.cache/trove-bench/arguana --home ~/.cache/trove-bench/homes/arguana-minilm
        [--out ~/.cache/trove-bench/arguana-embedded] [--max-queries 300]

On a shared 2-core machine the semantic phase of a 2,807-document library can take longer than a session has.
The embed worker takes chunks in id order, and ids follow the order the sync met the files in (the directory's),
not anything about relevance, so the documents embedded by a given time are an arbitrary part of the corpus.
This writes that part (every document all of whose chunks have vectors) with the queries whose judged documents
(and, for ArguAna, the query's own document) are all in it, at most --max-queries of them (fixed-seed sample).
bench/retrieval.py then runs on it with the same --home: the sync drops the other documents (their files are
moved to <home>/set-aside), so every mode and every baseline sees the same smaller corpus.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

from retrieval import ignores_identical_ids, load_dataset

from tests.support.helpers import query_db


def embedded_documents(home: Path) -> set[str]:
    """Document ids (file stems) every chunk of which has a vector in the library at `home`."""
    rows = query_db(home / "library.db", "SELECT d.path, count(*), sum(c.id IN (SELECT rowid / 8 FROM "
                                         "chunks_vec_rowids)) FROM chunks c JOIN documents d ON d.id = c.document_id "
                                         "GROUP BY d.id")
    return {Path(path).stem for path, n, done in rows if n == done}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--home", required=True, type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--max-queries", type=int, default=300)
    ap.add_argument("--keep-files", action="store_true", help="write the set only; leave the library's files")
    ap.add_argument("--queries-from", type=Path, help="only the queries of this set (one this script wrote earlier)")
    args = ap.parse_args()
    corpus, queries, qrels = load_dataset(args.dataset, "test")
    keep = embedded_documents(args.home) & set(corpus)
    own = ignores_identical_ids(args.dataset)
    asked = sorted(q for q in queries if set(qrels[q]) <= keep and (not own or q in keep))
    if args.queries_from:
        earlier = set(load_dataset(args.queries_from, "test")[1])
        asked = [q for q in asked if q in earlier]
    if args.max_queries and len(asked) > args.max_queries:
        asked = sorted(random.Random(0).sample(asked, args.max_queries))
    out = args.out or args.dataset.with_name(args.dataset.name + "-embedded")
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for did in sorted(keep):
            fh.write(json.dumps({"_id": did, "title": corpus[did][0], "text": corpus[did][1]}) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid in asked:
            fh.write(json.dumps({"_id": qid, "text": queries[qid]}) + "\n")
    with open(out / "qrels.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid in asked:
            for did, rel in qrels[qid].items():
                fh.write(f"{qid}\t{did}\t{rel}\n")
    for marker in ("IGNORE_IDENTICAL_IDS",):
        if (args.dataset / marker).exists():
            shutil.copy(args.dataset / marker, out / marker)
    (out / "SOURCE.md").write_text(f"The documents of {args.dataset} that {args.home} had embedded ({len(keep)} of "
                                   f"{len(corpus)}), {len(asked)} queries. See bench/beir_subset.py.\n",
                                   encoding="utf-8")
    print(f"{out}: {len(keep)} of {len(corpus)} documents, {len(asked)} queries")
    if not args.keep_files:
        aside = args.home / "set-aside"
        aside.mkdir(exist_ok=True)
        for path in (args.home / "corpus").glob("*.txt"):
            if path.stem not in keep:
                path.replace(aside / path.name)


if __name__ == "__main__":
    main()
