"""Query-language filters at size: keyword candidates unfiltered, date-filtered, tag-filtered and folder-filtered
on a generated SQLite library (one chunk per document; a third of the documents dated, a tenth tagged).

    python bench/query_filters.py --chunks 50000 --queries 100

Prints p50 / p95 ms of each and its ratio to the unfiltered query in the same run. A date or tag filter asks the
documents table (the keyword side index holds folders, types and languages only), so the ratio says what a filter
costs once the side index would answer an unfiltered query. Indicative on a shared machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.rows import Filters, NewChunk, NewDocument
from desktop_app.core.store.sqlite import SQLiteStore

WORDS = [f"w{i}" for i in range(5000)]


def build(path: Path, n: int, rng: random.Random) -> SQLiteStore:
    store = SQLiteStore(path)
    store.ensure_embedding_model("none", 8)
    folders = [store.add_folder(str(path.parent / f"f{i}")) for i in range(10)]
    facts: list[tuple[int, str | None, tuple[str, ...]]] = []
    for start in range(0, n, 2000):
        with store.write_batch():
            for i in range(start, min(n, start + 2000)):
                folder = folders[i % len(folders)]
                text = " ".join(rng.choice(WORDS) for _ in range(60))
                doc_id = store.write_document(
                    NewDocument(folder_id=folder.id, path=f"{folder.path}/d{i}.txt", title=f"d{i}", type="text",
                                size=len(text), mtime_ns=(1_600_000_000 + i * 600) * 10**9, digest=f"h{i}"),
                    [NewChunk(Span(0, len(text), text), None)])
                date = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}" if i % 3 == 0 else None
                tags = ("work",) if i % 10 == 0 else ()
                if date or tags:
                    facts.append((doc_id, date, tags))
        for doc_id, date, tags in facts:
            store.set_document_facts(doc_id, date, tags)
        facts.clear()
    return store


def timed(fn, queries: list[str]) -> tuple[float, float]:
    times = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        store = build(Path(tmp) / "library.db", args.chunks, rng)
        print(f"built {args.chunks} chunks in {time.perf_counter() - started:.1f} s")
        queries = [" ".join(rng.choice(WORDS) for _ in range(3)) for _ in range(args.queries)]
        folder_id = store.folders()[0].id
        cases = {"unfiltered": None, "date 2024-03": Filters(date_from="2024-03-01", date_to="2024-04-01"),
                 "tag work": Filters(tags=("work",)), "folder": Filters(folder_ids=(folder_id,))}
        base = None
        for name, filters in cases.items():
            p50, p95 = timed(lambda q, f=filters: store.keyword_candidates(q, 30, filters=f), queries)
            base = base or p95
            print(f"{name:>14}: p50 {p50:7.2f} ms  p95 {p95:7.2f} ms  p95 ratio {p95 / base:5.2f}")
        store.close()


if __name__ == "__main__":
    main()
