"""`trove watch`, two `trove index` and searches on one home at once, while files change: no "database is
locked", no lost document, and the index ends equal to the disk."""

from __future__ import annotations

import random
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.support.disk_state import mismatch
from tests.support.runner import ROOT, run_trove, trove_cmd, trove_env

WORDS = "river stone cloud ember willow harbor lantern meadow quartz falcon orchard tundra".split()


def write(path: Path, rng: random.Random) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(" ".join(rng.choices(WORDS, k=200)) + f" token{rng.randint(0, 10**9)}", encoding="utf-8")


def mutate(root: Path, stop: threading.Event, rng: random.Random) -> int:
    """Create, edit, rename and delete files until `stop`; returns how many changes were made."""
    changes = 0
    while not stop.is_set():
        files = sorted(root.rglob("*.txt"))
        action = rng.choice(["create", "edit", "edit", "rename", "delete"])
        if action == "create" or not files:
            write(root / f"d{rng.randint(0, 4)}" / f"new{changes}.txt", rng)
        elif action == "edit":
            write(rng.choice(files), rng)
        elif action == "rename":
            src = rng.choice(files)
            src.rename(src.with_name(f"moved{changes}.txt"))
        else:
            rng.choice(files).unlink()
        changes += 1
        time.sleep(rng.uniform(0.01, 0.08))
    return changes


def test_watch_index_and_search_together_end_equal_to_disk(tmp_path):
    rng = random.Random(5)
    docs = tmp_path / "docs"
    for i in range(150):
        write(docs / f"d{i % 5}" / f"f{i}.txt", rng)
    home = tmp_path / "home"
    assert run_trove(home, "index", str(docs), "--no-wait").returncode == 0
    watch = subprocess.Popen(trove_cmd(home, "watch"), cwd=ROOT, env=trove_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    changes: list[int] = []
    mutator = threading.Thread(target=lambda: changes.append(mutate(docs, stop, random.Random(9))))
    searches: list = []

    def search_loop() -> None:
        while not stop.is_set():
            searches.append(run_trove(home, "search", "falcon river", "--mode", "hybrid"))

    searcher = threading.Thread(target=search_loop)
    try:
        assert watch.stdout is not None and "watching" in watch.stdout.readline()
        mutator.start()
        searcher.start()
        runs: list = []
        indexers = [threading.Thread(target=lambda: runs.append(run_trove(home, "index", str(docs))))
                    for _ in range(2)]
        for t in indexers:
            t.start()
        for t in indexers:
            t.join(300)
        time.sleep(2)
    finally:
        stop.set()
        mutator.join(30)
        searcher.join(120)
    try:
        for run in [*runs, *searches]:
            assert run.returncode == 0, run.stderr[-2000:]
            assert "locked" not in run.stderr
        assert len(runs) == 2 and len(searches) >= 2 and changes[0] > 20
        deadline = time.monotonic() + 60  # the watcher catches up with the last changes by itself
        while (diff := mismatch(docs, home / "library.db")) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert diff == {}
    finally:
        watch.send_signal(signal.SIGINT)
        _, err = watch.communicate(timeout=120)
    assert watch.returncode == 0 and "locked" not in err and "Traceback" not in err, err[-2000:]
