"""`trove watch` as a user runs it: a subprocess that keeps the index in sync until SIGTERM / SIGINT."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from desktop_app.core.store.sqlite.connect import connect
from tests.integration.watch.conftest import wait_until

ROOT = Path(__file__).resolve().parents[3]


def _start(args: list[str]) -> tuple[subprocess.Popen, queue.Queue]:
    env = {**os.environ, "TROVE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_app", *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    lines: queue.Queue = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return proc, lines


def _read_until(lines: queue.Queue, predicate, seen: list) -> None:
    def check():
        while not lines.empty():
            seen.append(lines.get())
        return any(predicate(line) for line in seen)

    wait_until(check, timeout=30, message="expected output from trove watch")


def _doc_count(db: Path, path: Path) -> int:
    conn = connect(db, readonly=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM documents WHERE path = ?", (str(path),)).fetchone()[0]
    finally:
        conn.close()


def test_watch_json_events_follow_a_new_file_and_stop_cleanly_on_sigterm(tmp_path):
    docs, home = tmp_path / "docs", tmp_path / "home"
    docs.mkdir()
    (docs / "first.txt").write_text("the first serval", encoding="utf-8")
    proc, lines = _start(["--home", str(home), "watch", str(docs), "--json-events"])
    seen: list[str] = []
    try:
        _read_until(lines, lambda line: '"phase": "idle"' in line, seen)
        events = [json.loads(line) for line in seen]
        assert {e["kind"] for e in events} >= {"status", "progress"}
        assert any(e.get("current_file", "").endswith("first.txt") for e in events)
        (docs / "second.txt").write_text("the second serval", encoding="utf-8")
        wait_until(
            lambda: _doc_count(home / "library.db", docs / "second.txt") == 1,
            timeout=30,
            message="second.txt in the index",
        )
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    _read_until(lines, lambda line: '"stopped"' in line, seen)
    assert all(json.loads(line) for line in seen)  # every line is one JSON object


def test_watch_plain_output_reports_errors_and_stops_on_sigint(tmp_path):
    docs, home = tmp_path / "docs", tmp_path / "home"
    docs.mkdir()
    proc, lines = _start(["--home", str(home), "watch", str(docs)])
    seen: list[str] = []
    try:
        _read_until(lines, lambda line: line.startswith("watching 1 folder"), seen)
        (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
        _read_until(lines, lambda line: line.startswith("error: Could not index broken.pdf"), seen)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    _read_until(lines, lambda line: line == "stopped", seen)


def test_watch_without_folders_is_a_usage_error(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--home", str(tmp_path / "h"), "watch"],
        cwd=ROOT,
        env={**os.environ, "TROVE_EMBEDDER": "hash", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "trove watch PATH" in out.stderr
