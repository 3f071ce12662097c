"""Cold start: `trove search` as a whole fresh process, per mode and embedder, against `import desktop_app`.

Each case is one new process timed from spawn to exit (wall) and by its CPU time (user + system, from the
kernel's accounting of the finished child). Cases:
  import     `python -c "import desktop_app"`: the interpreter and the package, the floor for everything
  version    `trove --version`: plus the CLI's imports
  keyword    `trove search --mode keyword ...`: open the database, one FTS5 query
  semantic   `trove search --mode semantic ...`: plus loading the embedding model and embedding the query
  hybrid     `trove search --mode hybrid ...`: both sides (the default mode)
  window     `trove gui --screenshot X.png` offscreen on an empty library (only with --cases window)
semantic and hybrid run once per embedder named by --embedders, each against a library indexed with that
embedder (TROVE_EMBEDDER selects it, as a user's setting would). Every command runs once untimed first (page
cache), then --runs times, the commands interleaved so each sees the same machine load; min / median / max
are reported. With --app, the same cases also run through a frozen build. Results: bench/results/cold_start.json.

  .venv/bin/python bench/cold_start.py [--runs 7] [--embedders minilm,use-multilingual] [--app dist/trove/trove]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "cold_start.json"
SEARCHES = {
    "keyword": ["search", "--mode", "keyword", "sourdough starter"],
    "semantic": ["search", "--mode", "semantic", "how do I make bread rise"],
    "hybrid": ["search", "--mode", "hybrid", "how do I make bread rise"],
}
OTHER = {"version": ["--version"], "window": ["gui", "--screenshot", "{tmp}/shot.png"]}
DEFAULT_CASES = "import,version,keyword,semantic,hybrid"


def minimal_env(home: Path, trove_home: Path, embedder: str, side: str) -> dict[str, str]:
    """What every process gets: no venv on PATH, offscreen Qt, the embedder as the user's setting. The source
    side imports this checkout (PYTHONPATH), whatever copy the venv has installed."""
    env = {
        "HOME": str(home),
        "TROVE_HOME": str(trove_home),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "TMPDIR": str(home),
        "TROVE_EMBEDDER": embedder,
    }
    if side == "source":
        env["PYTHONPATH"] = str(ROOT)
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, str]:
    """Wall seconds from spawn to exit, the child's CPU seconds (user + system), exit code, tail of stderr.

    The CPU time is the growth of RUSAGE_CHILDREN across the run: children run one at a time here.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, proc.returncode, proc.stderr[-400:]


def summary(values: list[float]) -> dict:
    return {
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
        "all": [round(v, 3) for v in values],
    }


def plan(cases: list[str], embedders: list[str], sides: dict[str, list[str]], python: str) -> list[tuple]:
    """(key, side, embedder, argv) for every command to time; `import` runs the source interpreter only."""
    out = []
    for case in cases:
        if case == "import":
            out.append((("import", "-"), "source", embedders[0], [python, "-c", "import desktop_app"]))
            continue
        for side, base in sides.items():
            for emb in embedders if case in ("semantic", "hybrid") else embedders[:1]:
                argv = SEARCHES.get(case) or OTHER[case]
                out.append(((case, emb if case in ("semantic", "hybrid") else "-"), side, emb, [*base, *argv]))
    return out


def index_libraries(sides: dict[str, list[str]], embedders: list[str], work: Path) -> dict:
    """One indexed library of resources/sample_docs per side and embedder: {(side, embedder): (home, trove_home)}."""
    homes = {}
    for side, base in sides.items():
        for emb in embedders:
            home, trove_home = work / side / emb / "home", work / side / emb / "trove"
            home.mkdir(parents=True)
            subprocess.run(
                [*base, "index", str(ROOT / "resources" / "sample_docs")],
                env=minimal_env(home, trove_home, emb, side),
                check=True,
                capture_output=True,
                cwd=home,
            )
            homes[(side, emb)] = (home, trove_home)
    return homes


def measure(commands: list[tuple], homes: dict, work: Path, runs: int, warmup: int = 1) -> dict:
    """Time every command `runs` times (after `warmup` untimed runs each), interleaved; keyed "case/embedder/side"."""
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    errors: dict[str, str] = {}
    for round_no in range(runs + warmup):
        for (case, emb_key), side, emb, argv in commands:
            home, trove_home = homes[(side, emb)]
            if case == "window":
                trove_home = work / side / "empty"
            key = f"{case}/{emb_key}/{side}"
            argv = [a.replace("{tmp}", str(home)) for a in argv]
            wall, cpu, code, err = timed(argv, minimal_env(home, trove_home, emb, side), home)
            if code != 0:
                errors[key] = f"exit {code}: {err.strip()}"
            elif round_no >= warmup:  # the first rounds warm the page cache
                walls.setdefault(key, []).append(wall)
                cpus.setdefault(key, []).append(cpu)
    return {key: {"wall_s": summary(walls[key]), "cpu_s": summary(cpus[key])} for key in walls} | (
        {"errors": errors} if errors else {}
    )


def ratios(cases: dict, embedders: list[str], side: str = "source") -> dict:
    """Median wall and CPU of each search over keyword's and over `import desktop_app`'s."""

    def med(key: str, what: str) -> float | None:
        entry = cases.get(key)
        return entry[what]["median"] if entry else None

    out = {}
    keyword, floor = f"keyword/-/{side}", f"import/-/{side}"
    for emb in embedders:
        for mode in ("semantic", "hybrid"):
            key = f"{mode}/{emb}/{side}"
            for what in ("wall_s", "cpu_s"):
                mine, kw, base = med(key, what), med(keyword, what), med(floor, what)
                if mine is not None and kw:
                    out[f"{mode}/{emb} over keyword ({what[:-2]})"] = round(mine / kw, 2)
                if mine is not None and base:
                    out[f"{mode}/{emb} over import ({what[:-2]})"] = round(mine / base, 2)
    return out


def print_table(cases: dict) -> None:
    print(f"{'case':<34} {'wall min':>9} {'median':>8} {'max':>8}   {'CPU min':>8} {'median':>8} {'max':>8}")
    for key, entry in cases.items():
        w, c = entry["wall_s"], entry["cpu_s"]
        print(
            f"{key:<34} {w['min']:>9.2f} {w['median']:>8.2f} {w['max']:>8.2f}   "
            f"{c['min']:>8.2f} {c['median']:>8.2f} {c['max']:>8.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the source app's python")
    parser.add_argument("--app", help="also time this frozen executable (e.g. dist/trove/trove)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per command first (page cache)")
    parser.add_argument(
        "--cases", default=DEFAULT_CASES, help="comma-separated: import," + ",".join([*OTHER, *SEARCHES])
    )
    parser.add_argument("--embedders", default="minilm,use-multilingual", help="for the semantic and hybrid cases")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()

    sides = {"source": [args.python, "-m", "desktop_app"]}
    if args.app:
        sides["frozen"] = [str(Path(args.app).resolve())]
    cases = [c for c in args.cases.split(",") if c]
    embedders = [e for e in args.embedders.split(",") if e]
    work = Path(tempfile.mkdtemp(prefix="trove-coldstart-"))
    results: dict = {
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load_avg_1m_start": os.getloadavg()[0]},
        "python": args.python,
        "app": args.app,
        "runs": args.runs,
        "warmup": args.warmup,
        "embedders": embedders,
    }
    try:
        homes = index_libraries(sides, embedders, work)
        for side in sides:
            (work / side / "empty").mkdir(parents=True, exist_ok=True)
        measured = measure(plan(cases, embedders, sides, args.python), homes, work, args.runs, args.warmup)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["machine"]["load_avg_1m_end"] = os.getloadavg()[0]
    errors = measured.pop("errors", {})
    results["cases"], results["errors"] = measured, errors
    results["ratios"] = ratios(measured, embedders)
    print_table(measured)
    for name, value in results["ratios"].items():
        print(f"{name}: {value:.2f}x")
    if errors:
        print(f"ERRORS: {errors}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"saved {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0 if not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
