"""kill -9 in the middle of indexing loses at most the file in flight; the next run resumes."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from desktop_app.core.store.sqlite.connect import connect
from tests.integration.watch.conftest import wait_until

ROOT = Path(__file__).resolve().parents[3]
N_FILES = 800  # the keyword phase lasts long enough to be killed after 150 documents on any machine
WORDS = "river stone cloud ember willow harbor lantern meadow quartz falcon orchard tundra".split()


def _make_tree(base: Path) -> Path:
    rng = random.Random(7)
    for i in range(N_FILES):
        folder = base / f"d{i // 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        paragraphs = [" ".join(rng.choices(WORDS, k=120)) + f" marker{i}" for _ in range(12)]
        (folder / f"f{i:04d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    return base


def _env() -> dict:
    return {**os.environ, "TROVE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}


def _count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    conn = connect(db, readonly=True)
    try:
        return conn.execute(sql).fetchone()[0]
    except Exception:  # the schema may not exist yet in the first instants
        return 0
    finally:
        conn.close()


def _kill_when(cmd: list[str], db: Path, sql: str, low: int, high: int) -> int:
    """Start `cmd`, SIGKILL it as soon as `sql` counts between low and high. Returns the count seen at the kill."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        seen = wait_until(
            lambda: (n := _count(db, sql)) >= low and n, timeout=60, interval=0.01, message=f"{sql} >= {low}"
        )
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert seen < high, f"killed too late to test anything ({seen})"
    return seen


def check_consistent(db: Path) -> dict:
    """Integrity ok and no half-indexed document: chunks, FTS rows and vectors agree, per document and in total."""
    conn = connect(db, readonly=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        mismatched = conn.execute(
            "SELECT d.path, d.chunk_count, COUNT(c.id) FROM documents d LEFT JOIN chunks c ON c.document_id = d.id "
            "GROUP BY d.id HAVING d.chunk_count != COUNT(c.id)"
        ).fetchall()
        assert mismatched == []
        assert (
            conn.execute("SELECT COUNT(*) FROM documents WHERE status = 'indexed' AND chunk_count = 0").fetchone()[0]
            == 0
        )
        chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        assert conn.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0] == chunks
        assert (
            conn.execute("SELECT COUNT(*) FROM chunks_vec WHERE rowid / 8 NOT IN (SELECT id FROM chunks)").fetchone()[0]
            == 0
        )
        embedded = conn.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 1").fetchone()[0]
        assert conn.execute("SELECT COUNT(DISTINCT rowid / 8) FROM chunks_vec").fetchone()[0] == embedded
        docs = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        return {"documents": docs, "chunks": chunks, "embedded": embedded}
    finally:
        conn.close()


def _index_json(home: Path, folder: Path, *extra: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--home", str(home), "index", str(folder), "--json", *extra],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_sigkill_mid_index_resumes_and_stays_consistent(tmp_path):
    docs = _make_tree(tmp_path / "big")
    home = tmp_path / "home"
    db = home / "library.db"
    cli = [sys.executable, "-m", "desktop_app", "--home", str(home), "index", str(docs)]

    # 1. killed in the keyword phase, after some documents were committed
    committed = _kill_when(cli, db, "SELECT COUNT(*) FROM documents", 150, N_FILES)
    state = check_consistent(db)
    assert committed <= state["documents"] < N_FILES

    # 2. a fresh run resumes: what was committed is reported unchanged, the rest indexed, nothing twice
    report = _index_json(home, docs, "--no-wait")
    assert report["unchanged"] == state["documents"]
    assert report["indexed"] + report["unchanged"] == N_FILES and report["failed"] == 0
    state = check_consistent(db)
    assert state["documents"] == N_FILES and state["embedded"] < state["chunks"]

    # 3. killed in the semantic phase, while vectors are being written
    runner = [sys.executable, str(Path(__file__).with_name("slow_embed_run.py")), str(home), str(docs)]
    embedded = _kill_when(
        runner, db, "SELECT COUNT(*) FROM chunks WHERE embedded = 1", state["embedded"] + 1, state["chunks"]
    )
    state = check_consistent(db)
    assert embedded <= state["embedded"] < state["chunks"]

    # 4. the next run finishes the vectors without re-indexing a single file
    report = _index_json(home, docs)
    assert report["unchanged"] == N_FILES and report["indexed"] == 0
    final = check_consistent(db)
    assert final["documents"] == N_FILES and final["embedded"] == final["chunks"]


def test_a_kill_during_the_vector_phase_loses_at_most_the_round_in_flight(tmp_path):
    """Rounds of vectors are committed before they are reported: everything reported survives a kill -9."""
    docs = tmp_path / "docs"
    for i in range(300):
        (docs / f"d{i // 100}").mkdir(parents=True, exist_ok=True)
        (docs / f"d{i // 100}" / f"f{i:03d}.txt").write_text(" ".join(WORDS * 20) + f" marker{i}", encoding="utf-8")
    home = tmp_path / "home"
    runner = [sys.executable, str(Path(__file__).with_name("slow_embed_run.py")), str(home), str(docs)]
    proc = subprocess.Popen(runner, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reported: list[int] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            reported.append(int(line.split()[1]))
            if len(reported) == 3:
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert len(reported) == 3 and proc.returncode == -signal.SIGKILL
    kept = check_consistent(home / "library.db")["embedded"]
    assert reported[-1] <= kept < 300  # nothing reported was lost; the rest is picked up by the next run
