"""Lay out collections the project never tuned on in BEIR's form (corpus.jsonl, queries.jsonl, qrels.tsv), outside git.

    python bench/fetch_beir.py --nfcorpus PATH [--out DIR]

NFCorpus (Boteva et al., ECIR 2016; https://www.cl.uni-heidelberg.de/statnlpgroup/nfcorpus/) is "free for use for
academic purposes" only, so it is never committed: get the release (nfcorpus.tar.gz, unpacked: a folder holding
test.docs, test.all.queries, test.vid-desc.queries, test.2-1-0.qrel, ...) and point --nfcorpus at it. The sets
are written under --out (default $TROVE_BENCH_DATA or ~/.cache/trove-bench), one folder per query kind, all over
the test split's 3,162 documents with its graded 2-1-0 judgements (2 direct link, 1 indirect):

* nfcorpus-all      the 323 test queries as NutritionFacts.org pages: title, description, topics, transcript
                    and comments run together (long natural-language queries: median 979 characters)
* nfcorpus-viddesc  the 102 test queries that are video descriptions (median 120 characters, ~20 words)

The release's text is lower-cased with stopwords and numbers removed and no punctuation (its "root directory"
files); the raw abstracts (raw/doc_dump.txt) are not used. bench/retrieval.py reads a set with
`--dataset ~/.cache/trove-bench/nfcorpus-all`.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

SETS = {"nfcorpus-all": "test.all.queries", "nfcorpus-viddesc": "test.vid-desc.queries"}


def default_out() -> Path:
    return Path(os.environ.get("TROVE_BENCH_DATA") or Path.home() / ".cache" / "trove-bench")


def _rows(path: Path) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def nfcorpus(source: Path, out: Path) -> list[Path]:
    """Write each NFCorpus test set in BEIR form; returns the folders written."""
    docs = {r[0]: r[1] if len(r) > 1 else "" for r in _rows(source / "test.docs")}
    qrels: dict[str, dict[str, int]] = {}
    for qid, _, did, rel in _rows(source / "test.2-1-0.qrel"):
        if did in docs and int(rel) > 0:
            qrels.setdefault(qid, {})[did] = int(rel)
    written = []
    for name, queries_file in SETS.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
            for did, text in docs.items():
                fh.write(json.dumps({"_id": did, "title": "", "text": text}) + "\n")
        queries = {r[0]: r[1] for r in _rows(source / queries_file) if len(r) > 1 and r[0] in qrels}
        with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
            for qid, text in queries.items():
                fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
        with open(folder / "qrels.tsv", "w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for qid in queries:
                for did, rel in qrels[qid].items():
                    fh.write(f"{qid}\t{did}\t{rel}\n")
        (folder / "SOURCE.md").write_text(
            f"NFCorpus test split ({queries_file}, test.docs, test.2-1-0.qrel) from {source}.\n"
            "Free for academic use only: do not commit or redistribute. See bench/fetch_beir.py.\n", encoding="utf-8")
        print(f"{folder}: {len(docs)} documents, {len(queries)} queries")
        written.append(folder)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nfcorpus", type=Path, required=True, help="the unpacked NFCorpus release")
    ap.add_argument("--out", type=Path, default=default_out())
    args = ap.parse_args()
    nfcorpus(args.nfcorpus, args.out)


if __name__ == "__main__":
    main()
