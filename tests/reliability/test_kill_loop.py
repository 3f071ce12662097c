"""kill -9 at 22 random points of the keyword and vector phases: never a half-indexed document, and the next run
converges to exactly what a clean run gives."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from desktop_app.core.store.sqlite.connect import connect
from tests.integration.watch.test_crash_safety import check_consistent
from tests.support.runner import ROOT, trove_env

N_FILES = 400
KILLS_PER_PHASE = 11
SLEEP = "0.15"  # seconds per round of vectors: the vector phase lasts long enough to be hit anywhere
WORDS = "river stone cloud ember willow harbor lantern meadow quartz falcon orchard tundra".split()


def make_docs(root: Path) -> Path:
    rng = random.Random(11)
    for i in range(N_FILES):
        folder = root / f"d{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(" ".join(rng.choices(WORDS, k=70)) + f" marker{i}" for _ in range(3))
        (folder / f"f{i:03d}.txt").write_text(body, encoding="utf-8")
    return root


def count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    try:
        conn = connect(db, readonly=True)
    except Exception:  # not created yet
        return 0
    try:
        return conn.execute(sql).fetchone()[0]
    except Exception:  # the schema may not exist in the first instants
        return 0
    finally:
        conn.close()


def runner(home: Path, docs: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.support.index_runner", str(home), str(docs), SLEEP],
                            cwd=ROOT, env=trove_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def kill_when(home: Path, docs: Path, sql: str, target: int, rng: random.Random) -> bool:
    """Start a run; SIGKILL it once `sql` reaches `target` (plus a random few ms). False if it finished first."""
    proc = runner(home, docs)
    db = home / "library.db"
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and count(db, sql) < target:
            assert time.monotonic() < deadline, f"{sql} never reached {target}"
            time.sleep(0.005)
        time.sleep(rng.random() * 0.03)
        if proc.poll() is not None:
            return False
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
        return True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


def finished_state(db: Path) -> set[tuple]:
    conn = connect(db, readonly=True)
    try:
        return set(conn.execute("SELECT path, status, content_hash, chunk_count FROM documents"))
    finally:
        conn.close()


def test_kill_9_anywhere_converges_to_the_clean_run(tmp_path):
    docs = make_docs(tmp_path / "docs")
    clean_home = tmp_path / "clean"
    clean = runner(clean_home, docs)
    assert clean.wait(300) == 0, clean.stderr.read().decode() if clean.stderr else ""
    clean_counts = check_consistent(clean_home / "library.db")
    assert clean_counts["embedded"] == clean_counts["chunks"] > 2 * N_FILES

    rng = random.Random(2024)
    home = tmp_path / "killed"
    db = home / "library.db"
    kills = {"keyword": 0, "vectors": 0}
    while kills["keyword"] < KILLS_PER_PHASE:
        have = count(db, "SELECT COUNT(*) FROM documents")
        if have >= N_FILES - 5:
            break
        target = have + rng.randint(1, max(1, (N_FILES - have) // (KILLS_PER_PHASE - kills["keyword"] + 1)))
        kills["keyword"] += kill_when(home, docs, "SELECT COUNT(*) FROM documents", target, rng)
        check_consistent(db)
    while kills["vectors"] < KILLS_PER_PHASE:
        have = count(db, "SELECT COUNT(*) FROM chunks WHERE embedded = 1")
        left = clean_counts["chunks"] - have
        if left < 40:
            break
        target = have + rng.randint(1, max(1, left // (KILLS_PER_PHASE - kills["vectors"] + 1)))
        kills["vectors"] += kill_when(home, docs, "SELECT COUNT(*) FROM chunks WHERE embedded = 1", target, rng)
        check_consistent(db)
    print(f"\nkills: {kills}")
    assert kills["keyword"] + kills["vectors"] >= 20 and min(kills.values()) >= 8

    final = runner(home, docs)
    assert final.wait(300) == 0
    assert check_consistent(db) == clean_counts
    assert finished_state(db) == finished_state(clean_home / "library.db")
