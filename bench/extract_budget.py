"""What a per-file budget costs: extraction in the same process vs the sandbox's worker vs a process per file.

    python bench/extract_budget.py [--files 150] [--out bench/results/extract_budget.json]

A folder of small real files (PDF via fpdf2, DOCX via python-docx, HTML) is extracted four ways, all in
this process's timing loop, each file through all four in a random order (so load on a shared machine is
shared out fairly):

* in-process: `extract(path)` — the baseline, no budget at all;
* cooperative: `extract(path)` with a deadline and an RSS check after every file — the cheapest limit there
  is, and the one that cannot stop a single page that runs for hours or a single C call that allocates 3 GB;
* worker: `ExtractionSandbox.extract` — one long-lived spawned process, a pipe round trip per file;
* fork per file: a forked child per file (the cost of a fresh process each time; unsafe in a threaded app).

Prints per-file milliseconds and the ratio to in-process; saves JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_app.core.ingest.extract import extract  # noqa: E402
from desktop_app.core.ingest.sandbox import Budget, ExtractionSandbox  # noqa: E402
from tests.support.helpers import write_docx, write_pdf  # noqa: E402

WORDS = "river stone cloud ember willow harbor lantern meadow quartz falcon orchard tundra".split()


def make_folder(root: Path, n: int) -> list[Path]:
    """n files of each kind: one-page PDFs, short DOCX, small HTML pages."""
    paths = []
    for i in range(n):
        text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(120))
        paths.append(write_pdf(root / f"p{i:04d}.pdf", [text]))
        paths.append(write_docx(root / f"d{i:04d}.docx", [text, text[::-1]]))
        page = root / f"h{i:04d}.html"
        page.write_text(f"<html><head><title>t{i}</title></head><body><p>{text}</p></body></html>", encoding="utf-8")
        paths.append(page)
    return paths


def time_interleaved(paths: list[Path], methods: dict, rng: random.Random) -> dict[str, list[float]]:
    """Each file through every method, in a fresh random order per file: load that comes and goes on a
    shared machine lands on all methods alike instead of on whichever ran during it."""
    out: dict[str, list[float]] = {name: [] for name in methods}
    for path in paths:
        for name in rng.sample(list(methods), len(methods)):
            started = time.perf_counter()
            methods[name](path)
            out[name].append(time.perf_counter() - started)
    return out


def cooperative(path: Path) -> None:
    deadline = time.monotonic() + 60
    extract(path)
    if time.monotonic() > deadline or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 2**21:
        raise RuntimeError("over budget")  # noticed only after the fact: it cannot stop anything


def fork_per_file(path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=lambda: writer.send(extract(path)))
    proc.start()
    reader.recv()
    proc.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=150, help="files of each kind")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "extract_budget.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_folder(Path(tmp), args.files)
        for path in paths[:30]:
            extract(path)  # warm: imports and caches, so the baseline is not charged for them
        sandbox = ExtractionSandbox()
        budget = Budget()
        sandbox.extract(paths[0], budget)  # the worker's start (about a second) is paid once per process
        methods = {"in-process": extract, "cooperative": cooperative,
                   "worker": lambda p: sandbox.extract(p, budget), "fork per file": fork_per_file}
        results = {}
        for name, times in time_interleaved(paths, methods, random.Random(3)).items():
            results[name] = {"ms_per_file": round(1000 * statistics.mean(times), 3),
                             "median_ms": round(1000 * statistics.median(times), 3)}
        sandbox.close()
    base = results["in-process"]["ms_per_file"]
    for name, r in results.items():
        r["ratio"] = round(r["ms_per_file"] / base, 3)
        print(f"{name:14s} {r['ms_per_file']:8.2f} ms/file (median {r['median_ms']:.2f})  {r['ratio']:.2f}x")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"files": len(paths), "cpus": os.cpu_count(), "results": results}, indent=2))
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
