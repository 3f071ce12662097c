"""Soak `trove watch`: random edits, renames, deletes, folder moves and kill -9s; after each step the index must
equal the disk.

    python bench/soak.py [--minutes 30] [--seed 1] [--embedder hash|minilm] [--settle 30] [--out FILE]

A `trove watch` process watches a temp folder of text files. Each step changes the folder (or kills the watcher
with SIGKILL and starts a new one), then waits until the index holds exactly the files on disk with their
current content (`tests/support/disk_state.mismatch`). A step that has not converged after --settle seconds
is a mismatch (its difference is saved). At the end the database must pass `PRAGMA integrity_check` with every
document whole. Prints steps, kills, mismatches and convergence times; saves JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.watch.test_crash_safety import check_consistent  # noqa: E402
from tests.support.disk_state import mismatch  # noqa: E402

WORDS = ("river stone cloud ember willow harbor lantern meadow quartz falcon orchard tundra glacier comet "
         "saffron basalt heron thistle").split()


class Soak:
    """The folder, the watcher process, and the actions that change them."""

    def __init__(self, work: Path, rng: random.Random, embedder: str) -> None:
        self.docs, self.outside, self.home = work / "docs", work / "outside", work / "home"
        self.rng, self.embedder = rng, embedder
        self.serial = 0
        self.outside.mkdir(parents=True)
        self.home.mkdir()
        (self.home / "settings.json").write_text(json.dumps({"debounce_seconds": 0.3}), encoding="utf-8")
        for i in range(80):
            self.write(self.docs / f"d{i % 6}" / f"f{i}.txt")
        self.watch: subprocess.Popen | None = None
        self.log = open(work / "watch.log", "ab")  # noqa: SIM115 - open for the watcher's whole life

    # ---- the watcher ---------------------------------------------------------------------------

    def start(self) -> None:
        env = {**os.environ, "TROVE_EMBEDDER": self.embedder, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "desktop_app", "--home", str(self.home), "watch", str(self.docs)]
        self.watch = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=self.log)

    def kill(self) -> None:
        assert self.watch is not None
        self.watch.send_signal(signal.SIGKILL)
        self.watch.wait(30)
        self.start()

    def stop(self) -> int:
        assert self.watch is not None
        self.watch.send_signal(signal.SIGINT)
        try:
            return self.watch.wait(120)
        finally:
            self.log.close()

    # ---- the folder ----------------------------------------------------------------------------

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.serial += 1
        path.write_text(" ".join(self.rng.choices(WORDS, k=self.rng.randint(20, 400))) + f" s{self.serial}",
                        encoding="utf-8")

    def files(self) -> list[Path]:
        return sorted(self.docs.rglob("*.txt"))

    def folders(self) -> list[Path]:
        return sorted(p for p in self.docs.rglob("*") if p.is_dir())

    def step(self) -> str:
        """Do one random thing; returns its name."""
        action = self.rng.choices(
            ["edit", "create", "delete", "rename", "move_folder", "folder_out", "folder_in", "burst", "kill",
             "kill_mid"], weights=[25, 15, 10, 12, 8, 4, 4, 8, 7, 7])[0]
        files, folders = self.files(), self.folders()
        if action in ("edit", "delete", "rename") and not files or action in ("move_folder", "folder_out") \
                and not folders:
            action = "create"
        getattr(self, f"do_{action}")(files, folders)
        return action

    def do_edit(self, files, _folders) -> None:
        self.write(self.rng.choice(files))

    def do_create(self, _files, folders) -> None:
        parent = self.rng.choice(folders) if folders and self.rng.random() < 0.8 else self.docs
        self.write(parent / f"new{self.serial}.txt")

    def do_delete(self, files, _folders) -> None:
        self.rng.choice(files).unlink()

    def do_rename(self, files, folders) -> None:
        src = self.rng.choice(files)
        target = self.rng.choice(folders) if folders and self.rng.random() < 0.5 else src.parent
        src.rename(target / f"renamed{self.serial}.txt")
        self.serial += 1

    def do_move_folder(self, _files, folders) -> None:
        src = self.rng.choice(folders)
        dests = [f for f in folders if not f.is_relative_to(src)] + [self.docs]
        dest = self.rng.choice(dests) / f"m{self.serial}"
        self.serial += 1
        src.rename(dest)

    def do_folder_out(self, _files, folders) -> None:
        src = self.rng.choice(folders)
        src.rename(self.outside / f"out{self.serial}")
        self.serial += 1

    def do_folder_in(self, _files, _folders) -> None:
        gone = sorted(self.outside.iterdir())
        if gone:
            self.rng.choice(gone).rename(self.docs / f"back{self.serial}")
        else:
            for i in range(5):
                self.write(self.docs / f"fresh{self.serial}" / f"x{i}.txt")
        self.serial += 1

    def do_burst(self, files, folders) -> None:
        for _ in range(self.rng.randint(5, 30)):
            self.do_create(files, folders) if self.rng.random() < 0.5 or not files else self.do_edit(files, folders)

    def do_kill(self, _files, _folders) -> None:
        self.kill()

    def do_kill_mid(self, files, folders) -> None:
        """Change something, then kill the watcher while it may be applying it."""
        self.do_burst(files, folders)
        time.sleep(self.rng.uniform(0.0, 1.0))
        self.kill()


def converge(soak: Soak, settle: float) -> tuple[float, dict]:
    """Seconds until the index equals the disk, or (settle, the last difference)."""
    started = time.monotonic()
    diff: dict = {}
    while time.monotonic() - started < settle:
        diff = mismatch(soak.docs, soak.home / "library.db")
        if not diff:
            return time.monotonic() - started, {}
        time.sleep(0.1)
    return settle, diff


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--settle", type=float, default=30.0, help="seconds a step may take to converge")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "soak.json"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trove-soak-"))
    soak = Soak(work, random.Random(args.seed), args.embedder)
    soak.start()
    try:
        return run_soak(soak, args, work)
    finally:
        if soak.watch is not None and soak.watch.poll() is None:  # never leave a watcher behind
            soak.watch.kill()


def run_soak(soak: Soak, args: argparse.Namespace, work: Path) -> int:
    """The steps, then the summary; returns the exit status (1 if any step did not converge)."""
    took, first = converge(soak, 120)
    assert not first, f"the first index never matched the disk: {first}"
    steps, kills, times, mismatches, actions = 0, 0, [], [], {}
    deadline = time.monotonic() + args.minutes * 60
    while time.monotonic() < deadline:
        action = soak.step()
        steps += 1
        kills += action.startswith("kill")
        actions[action] = actions.get(action, 0) + 1
        seconds, diff = converge(soak, args.settle)
        times.append(seconds)
        if diff:
            mismatches.append({"step": steps, "action": action, "diff": {k: v[:5] for k, v in diff.items()}})
            print(f"step {steps} ({action}): MISMATCH {json.dumps(diff)[:300]}", flush=True)
        if steps % 25 == 0:
            print(f"{steps} steps, {kills} kills, {len(mismatches)} mismatches, "
                  f"median convergence {statistics.median(times):.2f} s", flush=True)
    code = soak.stop()
    consistent = check_consistent(soak.home / "library.db")
    result = {
        "minutes": args.minutes, "seed": args.seed, "embedder": args.embedder, "steps": steps, "kills": kills,
        "mismatches": len(mismatches), "mismatch_details": mismatches[:20], "actions": actions,
        "convergence_seconds": {"median": round(statistics.median(times), 3) if times else None,
                                "p95": round(sorted(times)[int(0.95 * (len(times) - 1))], 3) if times else None,
                                "max": round(max(times), 3) if times else None},
        "files_at_end": len(soak.files()), "index_at_end": consistent, "watch_exit": code,
        "first_index_seconds": round(took, 2), "cpus": os.cpu_count(),
    }
    conv = result["convergence_seconds"]
    print(f"soak: {steps} steps, {kills} kills, {len(mismatches)} mismatches in {args.minutes:g} min; "
          f"convergence median {conv['median']} s, p95 {conv['p95']} s; integrity ok, "
          f"{consistent['documents']} documents; watch exited {code}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"saved {out}")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if not mismatches and code == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
