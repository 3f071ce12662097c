"""`trove index` over each hostile case alone: wall time, peak RSS (the whole process tree), outcome.

    python bench/hostile_index.py [--timeout 120] [--rss-cap-gb 6] [--cases fifo,names] [--embedder hash|minilm]
                                  [--all] [--out bench/results/hostile_index.json]

Each case group of tests/support/hostile.py is built in a fresh temp folder and indexed by a fresh
`python -m desktop_app --home H index FOLDER --json` process. A run past --timeout, or whose process tree
passes --rss-cap-gb, is killed and reported as such (the cap protects a shared machine). `--all` also indexes
the whole hostile folder in one run, the way a user would meet it. Prints one line per case and saves JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hostile import BUILDERS, build_case, build_hostile_folder  # noqa: E402


def tree_rss(proc: psutil.Process) -> int:
    """RSS of a process and all its descendants, in bytes (0 once it is gone)."""
    total = 0
    try:
        for p in [proc, *proc.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
    except psutil.Error:
        return 0
    return total


def worker_rss(proc: psutil.Process) -> int:
    """The largest RSS of one descendant process (the parser worker), in bytes."""
    largest = 0
    try:
        children = proc.children(recursive=True)
    except psutil.Error:
        return 0
    for p in children:
        try:
            largest = max(largest, p.memory_info().rss)
        except psutil.Error:
            pass
    return largest


def run_index(home: Path, folder: Path, *, timeout: float, rss_cap: int, embedder: str) -> dict:
    """One `trove index` run, watched: {"seconds", "peak_rss_mb", "worker_peak_rss_mb", "outcome", "returncode",
    "report", "stderr_tail"}."""
    env = {**os.environ, "TROVE_EMBEDDER": embedder, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "desktop_app", "--home", str(home), "index", str(folder), "--json"]
    out_file, err_file = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out_file, stderr=err_file, start_new_session=True)
    watched = psutil.Process(proc.pid)
    peak, worker_peak, outcome = 0, 0, "finished"
    while proc.poll() is None:
        peak = max(peak, tree_rss(watched))
        worker_peak = max(worker_peak, worker_rss(watched))
        if time.monotonic() - started > timeout:
            outcome = f"killed after {timeout:.0f} s"
        elif peak > rss_cap:
            outcome = f"killed at {peak / 2**30:.1f} GB RSS"
        if outcome != "finished":
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
        time.sleep(0.1)
    seconds = time.monotonic() - started
    out_file.seek(0)
    err_file.seek(0)
    stdout, stderr = out_file.read().decode("utf-8", "replace"), err_file.read().decode("utf-8", "replace")
    try:
        report = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        report = None
    if outcome == "finished" and proc.returncode != 0:
        outcome = "error exit" if "Traceback" not in stderr else "traceback"
    return {"seconds": round(seconds, 2), "peak_rss_mb": round(peak / 2**20),
            "worker_peak_rss_mb": round(worker_peak / 2**20), "outcome": outcome,
            "returncode": proc.returncode, "stderr_tail": stderr.strip().splitlines()[-1:] if stderr.strip() else [],
            "report": _short_report(report)}


def _short_report(report: dict | None) -> dict | None:
    if report is None:
        return None
    return {k: report.get(k) for k in ("indexed", "failed", "chunks", "seconds")} | {
        "errors": [f"{Path(e['path']).name[:40]!r}: {e['reason'][:100]}" for e in report.get("errors", [])]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--rss-cap-gb", type=float, default=6.0)
    parser.add_argument("--cases", default=",".join(BUILDERS))
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--all", action="store_true", help="also index the whole hostile folder in one run")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "hostile_index.json"))
    args = parser.parse_args()
    results = {}
    load_before = list(os.getloadavg())
    for name in args.cases.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            cases = build_case(name, Path(tmp) / "docs" / name)
            r = run_index(Path(tmp) / "home", Path(tmp) / "docs", timeout=args.timeout,
                          rss_cap=int(args.rss_cap_gb * 2**30), embedder=args.embedder)
            r["cases"] = [c.name for c in cases]
            results[name] = r
            print(f"{name:22s} {r['outcome']:24s} {r['seconds']:8.1f} s {r['peak_rss_mb']:7d} MB "
                  f"(worker {r['worker_peak_rss_mb']:5d} MB)  "
                  f"{(r['stderr_tail'] or [''])[0][:110]}", flush=True)
    if args.all:
        with tempfile.TemporaryDirectory() as tmp:
            build_hostile_folder(Path(tmp) / "docs")
            r = run_index(Path(tmp) / "home", Path(tmp) / "docs", timeout=args.timeout * 3,
                          rss_cap=int(args.rss_cap_gb * 2**30), embedder=args.embedder)
            results["(whole folder)"] = r
            print(f"{'(whole folder)':22s} {r['outcome']:24s} {r['seconds']:8.1f} s {r['peak_rss_mb']:7d} MB  "
                  f"{(r['stderr_tail'] or [''])[0][:110]}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    from desktop_app.core.settings import Settings
    machine = {"cpus": os.cpu_count(), "load_before": load_before, "load_after": list(os.getloadavg()),
               "worker_memory_cap_mb": Settings().extract_memory_mb}
    out.write_text(json.dumps({"embedder": args.embedder, "timeout": args.timeout, "machine": machine,
                               "cases": results}, indent=2, ensure_ascii=False))
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
