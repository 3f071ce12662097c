"""Lay out collections the project never tuned on in BEIR's form (corpus.jsonl, queries.jsonl, qrels.tsv), outside git.

    python bench/fetch_beir.py --nfcorpus PATH [--arguana PATH] [--out DIR]

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

ArguAna (Wachsmuth, Syed and Stein, ACL 2018, "Retrieval of the Best Counterargument without Prior Topic
Knowledge"; BEIR lists it under CC BY-SA 4.0; the text is idebate.org's debates) is laid out from the authors'
arguana-counterargs-corpus release: --arguana points at that folder (it holds 02-extracted-arguments/test/<theme>/
<debate>/{pro,con}/NNa-point.txt and NNb-counter.txt). The BEIR zip's host is out of reach here; a public GitHub
copy of the release (cchang-vassar/Semantic-Relations-in-Vector-Embeddings, commit 0adbf683, folder
arguana-counterargs-corpus) carries it. It is written outside git all the same (its terms are the source's):

* arguana  the test split as BEIR builds it: every point and counter of the 214 test debates is a document
           (2,807: 1,406 points, 1,401 counters; BEIR's ids, test-<theme>-<debate initials>-<pro|con>NN<a|b>,
           title the debate's words), each point with a counter is a query (1,401; median ~1,000 characters) whose
           one relevant document is its own counter. The query's own point is in the corpus, so bench/retrieval.py
           drops a query's own id from every ranking (BEIR's ignore_identical_ids; the file IGNORE_IDENTICAL_IDS
           says so). BEIR's corpus adds arguments of other debates (8,674 in all), so figures are not BEIR's.
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


def _arguana_id(point: Path, split: str) -> str:
    """BEIR's id of an argument file: test-<theme>-<initials of the debate's words>-<pro|con>NN<a|b>."""
    debate = point.parent.parent
    initials = "".join(w[0] for w in debate.name.split("-") if w)
    return f"{split}-{debate.parent.name}-{initials}-{point.name.split('-')[0]}"


def _argument_text(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def arguana(source: Path, out: Path, split: str = "test") -> Path:
    """Write the ArguAna split in BEIR form (see the module docstring); returns the folder written."""
    root = source / "02-extracted-arguments" / split
    if not root.is_dir():
        raise SystemExit(f"{root}: not found (point --arguana at the arguana-counterargs-corpus folder)")
    docs: dict[str, dict[str, str]] = {}
    pairs: dict[str, str] = {}
    for path in sorted(root.glob("*/*/*/*.txt")):
        if path.parent.name not in ("pro", "con") or not path.name.endswith(("a-point.txt", "b-counter.txt")):
            continue
        did = _arguana_id(path, split)
        docs[did] = {"_id": did, "title": path.parent.parent.name.replace("-", " "), "text": _argument_text(path)}
    for did in docs:
        if did.endswith("a") and did[:-1] + "b" in docs:
            pairs[did] = did[:-1] + "b"
    folder = out / "arguana"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for doc in docs.values():
            fh.write(json.dumps(doc) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for qid in pairs:
            fh.write(json.dumps({"_id": qid, "text": docs[qid]["text"]}) + "\n")
    with open(folder / "qrels.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, did in pairs.items():
            fh.write(f"{qid}\t{did}\t1\n")
    (folder / "IGNORE_IDENTICAL_IDS").write_text("a query's own id is dropped from its rankings\n", encoding="utf-8")
    (folder / "SOURCE.md").write_text(
        f"ArguAna {split} split (Wachsmuth et al., ACL 2018) from {source}, laid out as BEIR does; BEIR lists it as "
        "CC BY-SA 4.0 (idebate.org text). Kept out of git. See bench/fetch_beir.py.\n", encoding="utf-8")
    print(f"{folder}: {len(docs)} documents, {len(pairs)} queries")
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nfcorpus", type=Path, help="the unpacked NFCorpus release")
    ap.add_argument("--arguana", type=Path, help="the arguana-counterargs-corpus folder")
    ap.add_argument("--out", type=Path, default=default_out())
    args = ap.parse_args()
    if not (args.nfcorpus or args.arguana):
        ap.error("give --nfcorpus and/or --arguana")
    if args.nfcorpus:
        nfcorpus(args.nfcorpus, args.out)
    if args.arguana:
        arguana(args.arguana, args.out)


if __name__ == "__main__":
    main()
