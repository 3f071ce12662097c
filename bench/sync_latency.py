"""Live-sync latency and watcher memory.

1. single save: write one file into a watched folder, time until it is keyword-searchable (its document row
   and FTS rows are committed) and until it is semantic-searchable (every chunk has a vector), real MiniLM;
2. burst: 500 files written at once, the same two latencies per file;
3. memory: peak RSS (psutil, sampled every 50 ms) of a fresh process that watches a tree of 10,000 files in
   1,000 folders (startup reconcile included, hash embedder so the model does not dominate), and its RSS once
   idle. (ru_maxrss is not used: Linux carries it over from the parent across fork+exec.)

Run: .venv/bin/python bench/sync_latency.py [--saves 15] [--burst 500] [--tree 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, median, percentile, save  # noqa: E402

from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.core.store.sqlite.connect import connect  # noqa: E402

TEXT = ("Field notes {i}: the {animal} was seen near the river at dawn, feeding quietly while the mist lifted. "
        "Observers logged its behaviour, the weather and the water level for the survey. ") * 6
ANIMALS = ["heron", "otter", "kingfisher", "beaver", "dragonfly", "salamander", "moorhen", "vole"]


def _states(conn, paths: set[str]) -> dict[str, tuple[bool, bool]]:
    """path -> (keyword-searchable, semantic-searchable) for the paths already in the index."""
    rows = conn.execute(
        "SELECT d.path, d.chunk_count, COALESCE(SUM(c.embedded), 0) FROM documents d "
        "LEFT JOIN chunks c ON c.document_id = d.id WHERE d.status = 'indexed' GROUP BY d.id").fetchall()
    return {p: (n > 0, n > 0 and e == n) for p, n, e in rows if p in paths}


def _track(conn, written: dict[str, float], timeout: float) -> tuple[dict[str, float], dict[str, float]]:
    """Poll the index until every written path is semantic-searchable; latencies from its write time."""
    keyword: dict[str, float] = {}
    semantic: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    paths = set(written)
    while len(semantic) < len(paths) and time.monotonic() < deadline:
        now = time.monotonic()
        for path, (kw, sem) in _states(conn, paths).items():
            if kw and path not in keyword:
                keyword[path] = now - written[path]
            if sem and path not in semantic:
                semantic[path] = now - written[path]
        time.sleep(0.005)
    return keyword, semantic


def _summary(values: dict[str, float], expected: int) -> dict:
    v = list(values.values())
    return {"n": len(v), "expected": expected, "median_s": round(median(v), 3), "p95_s": round(percentile(v, 95), 3),
            "max_s": round(max(v), 3) if v else None}


def latency(base: Path, saves: int, burst: int, debounce: float) -> dict:
    docs = base / "docs"
    docs.mkdir(parents=True)
    lib = Library(base / "home", settings=Settings(debounce_seconds=debounce))  # real MiniLM
    lib.embedder.embed(["warm up"])  # load the model before timing: a running app has it loaded
    lib.add_folder(docs)
    watcher = lib.start_watching()
    watcher.wait_idle(60)
    conn = connect(lib.db_path, readonly=True)
    try:
        written: dict[str, float] = {}
        kw_single, sem_single = {}, {}
        for i in range(saves):
            path = docs / f"save{i:03d}.txt"
            path.write_text(TEXT.format(i=i, animal=ANIMALS[i % len(ANIMALS)]), encoding="utf-8")
            written = {str(path): time.monotonic()}
            kw, sem = _track(conn, written, 60)
            kw_single.update(kw)
            sem_single.update(sem)
            time.sleep(0.3)  # let the watcher settle between saves (not measured)
        burst_dir = docs / "burst"
        burst_dir.mkdir()
        watcher.wait_idle(60)
        written = {}
        started = time.monotonic()
        for i in range(burst):
            path = burst_dir / f"b{i:04d}.txt"
            path.write_text(TEXT.format(i=1000 + i, animal=ANIMALS[i % len(ANIMALS)]), encoding="utf-8")
            written[str(path)] = time.monotonic()
        write_seconds = time.monotonic() - started
        kw_burst, sem_burst = _track(conn, written, 600)
        all_done = time.monotonic() - started
    finally:
        conn.close()
        lib.close()
    return {
        "debounce_seconds": debounce,
        "single_save": {"keyword": _summary(kw_single, saves), "semantic": _summary(sem_single, saves)},
        "burst": {"files": burst, "write_seconds": round(write_seconds, 3), "all_semantic_after_s": round(all_done, 2),
                  "keyword": _summary(kw_burst, burst), "semantic": _summary(sem_burst, burst)},
    }


MEMORY_CHILD = r"""
import json, sys, threading, time
import psutil
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
home, tree = sys.argv[1], sys.argv[2]
proc = psutil.Process()
peak = [proc.memory_info().rss]
stop = threading.Event()
def sample():
    while not stop.wait(0.05):
        peak[0] = max(peak[0], proc.memory_info().rss)
threading.Thread(target=sample, daemon=True).start()
lib = Library(home, settings=Settings(embedder="hash", debounce_seconds=0.5))
lib.add_folder(tree)
before = proc.memory_info().rss
t0 = time.monotonic()
watcher = lib.start_watching()
watcher.wait_idle(600)
reconcile = time.monotonic() - t0
lib.wait_for_embeddings(600)
time.sleep(2)
idle = proc.memory_info().rss
polling = any(s.polling for s in watcher.status())
lib.close()
stop.set()
print(json.dumps({"rss_before_mb": before / 2**20, "rss_idle_watching_mb": idle / 2**20,
                  "rss_peak_sampled_mb": peak[0] / 2**20,
                  "startup_reconcile_s": reconcile, "polling": polling}))
"""


def memory(base: Path, files: int, folders: int) -> dict:
    tree = base / "tree"
    per = files // folders
    for f in range(folders):
        d = tree / f"group{f // 50:02d}" / f"folder{f:04d}"
        d.mkdir(parents=True)
        for i in range(per):
            (d / f"n{i:02d}.txt").write_text(f"note {f}-{i} about the {ANIMALS[(f + i) % len(ANIMALS)]}\n",
                                            encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(base / "mem-home"), str(tree)], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return {"files": files, "folders": folders, **{k: round(v, 1) if isinstance(v, float) else v
                                                    for k, v in data.items()}}


def print_table(results: dict) -> None:
    print(f"\nlive sync latency (debounce {results['latency']['debounce_seconds']} s, real MiniLM)")
    print(f"{'case':<14}{'searchable':<12}{'n':>6}{'median s':>10}{'p95 s':>9}{'max s':>9}")
    for case, key in (("single save", "single_save"), (f"burst {results['latency']['burst']['files']}", "burst")):
        for phase in ("keyword", "semantic"):
            s = results["latency"][key][phase]
            print(f"{case:<14}{phase:<12}{s['n']:>6}{s['median_s']:>10.3f}{s['p95_s']:>9.3f}{s['max_s'] or 0:>9.3f}")
    m = results["memory"]
    print(f"\nwatcher memory, {m['files']} files in {m['folders']} folders (hash embedder):")
    print(f"  RSS before watching {m['rss_before_mb']} MB, peak {m['rss_peak_sampled_mb']} MB (sampled every 50 ms), "
          f"idle while watching {m['rss_idle_watching_mb']} MB; "
          f"startup reconcile {m['startup_reconcile_s']} s; polling={m['polling']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=15)
    parser.add_argument("--burst", type=int, default=500)
    parser.add_argument("--tree", type=int, default=10_000)
    parser.add_argument("--folders", type=int, default=1_000)
    parser.add_argument("--debounce", type=float, default=0.5, help="the default setting")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trove-sync-bench-") as tmp:
        results = {"latency": latency(Path(tmp) / "lat", args.saves, args.burst, args.debounce),
                   "memory": memory(Path(tmp) / "mem", args.tree, args.folders)}
    print_table(results)
    save("sync_latency", results)


if __name__ == "__main__":
    main()
