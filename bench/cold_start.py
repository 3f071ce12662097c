"""Cold start: the frozen app (dist/trove/trove) against the source one (`python -m desktop_app`).

Each case is one fresh process, timed from spawn to exit, run alternately frozen/source so both see the same
machine load. Cases:
  version    `trove --version`: interpreter start plus the CLI import, nothing else
  keyword    `trove search --mode keyword ...` on a small indexed library: open the database, FTS5 query
  window     `trove gui --screenshot X.png` offscreen, empty library: start to a rendered, usable window
  hybrid     `trove search --mode hybrid ...`: also imports torch and loads MiniLM (the slowest start)

The first run of each case is reported apart (page cache cold for that binary); the ratio uses the median of
the rest. Results: bench/results/cold_start.json.

  .venv/bin/python bench/cold_start.py [--app dist/trove/trove] [--runs 5] [--cases version,keyword,window,hybrid]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "cold_start.json"
CASES = {
    "version": ["--version"],
    "keyword": ["search", "--mode", "keyword", "sourdough starter"],
    "window": ["gui", "--screenshot", "{tmp}/shot.png"],
    "hybrid": ["search", "--mode", "hybrid", "how do I make bread rise"],
}


def minimal_env(home: Path, trove_home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What both apps get: no venv on PATH, no PYTHONPATH, offscreen Qt; the apps set HF_HUB_OFFLINE themselves."""
    env = {"HOME": str(home), "TROVE_HOME": str(trove_home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(home)}
    env.update(extra or {})
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Seconds from spawn to exit, the exit code, and the tail of stderr."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=env["HOME"])
    return time.perf_counter() - start, proc.returncode, proc.stderr[-400:]


def sample_docs() -> Path:
    return ROOT / "resources" / "sample_docs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default=str(ROOT / "dist" / "trove" / "trove"), help="the frozen executable")
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"), help="the source app's python")
    parser.add_argument("--runs", type=int, default=5, help="runs per case and app (the first is reported apart)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ",".join(CASES))
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()

    app = Path(args.app)
    if not os.access(app, os.X_OK):
        print(f"no frozen app at {app}: run `make package` first", file=sys.stderr)
        return 1
    commands = {"frozen": [str(app)], "source": [args.python, "-m", "desktop_app"]}
    # The source app is found through the venv's editable install; cwd is a temp dir, so nothing else leaks in.
    work = Path(tempfile.mkdtemp(prefix="trove-coldstart-"))
    results: dict = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                                 "load_avg_1m": os.getloadavg()[0]},
                     "app": str(app), "bundle_bytes": sum(f.stat().st_size for f in app.parent.rglob("*") if f.is_file()),
                     "runs": args.runs, "cases": {}}
    try:
        homes = {}
        for side in commands:  # one indexed library per side, so neither reads the other's database
            home = work / side / "home"
            trove_home = work / side / "trove"
            home.mkdir(parents=True)
            homes[side] = (home, trove_home)
            subprocess.run([*commands[side], "index", str(sample_docs())], env=minimal_env(home, trove_home),
                           check=True, capture_output=True, cwd=home)
        empty_home = {side: work / side / "empty" for side in commands}
        for case in [c for c in args.cases.split(",") if c]:
            times: dict[str, list[float]] = {"frozen": [], "source": []}
            errors: dict[str, str] = {}
            for _ in range(args.runs):
                for side, base in commands.items():
                    home, trove_home = homes[side]
                    if case == "window":
                        trove_home = empty_home[side]
                    argv = [a.replace("{tmp}", str(home)) for a in CASES[case]]
                    seconds, code, err = timed([*base, *argv], minimal_env(home, trove_home))
                    if code != 0:
                        errors[side] = f"exit {code}: {err.strip()}"
                        break
                    times[side].append(seconds)
            entry: dict = {"argv": CASES[case]}
            for side, values in times.items():
                if values:
                    rest = values[1:] or values
                    entry[side] = {"first_s": round(values[0], 3), "median_s": round(statistics.median(rest), 3),
                                   "min_s": round(min(rest), 3), "all_s": [round(v, 3) for v in values]}
            if errors:
                entry["errors"] = errors
            if "frozen" in entry and "source" in entry:
                entry["frozen_over_source"] = round(entry["frozen"]["median_s"] / entry["source"]["median_s"], 2)
            results["cases"][case] = entry
            line = f"{case:>8}: "
            line += "  ".join(f"{side} {entry[side]['median_s']:.2f}s (first {entry[side]['first_s']:.2f}s)"
                              for side in ("frozen", "source") if side in entry)
            if "frozen_over_source" in entry:
                line += f"  ratio frozen/source {entry['frozen_over_source']:.2f}x"
            if errors:
                line += f"  ERRORS {errors}"
            print(line, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"saved {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0 if all("errors" not in c for c in results["cases"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
