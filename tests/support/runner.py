"""Running `trove` as a person would (a separate process), and checking what it printed and what it left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]


def trove_env(**extra: str) -> dict[str, str]:
    """The environment of a test run: offline, the fast hash embedder unless told otherwise."""
    env = {**os.environ, "TROVE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(ROOT), "PYTHONUTF8": "0", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    env.pop("TROVE_HOME", None)
    env.update(extra)
    return {k: v for k, v in env.items() if v != ""}


def trove_cmd(home: Path, *args: str | bytes) -> list[str | bytes]:
    return [sys.executable, "-m", "desktop_app", "--home", str(home), *args]


@dataclass(frozen=True)
class Run:
    """A finished `trove` process."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss_mb: int

    def json(self):
        return json.loads(self.stdout)


def run_trove(home: Path, *args: str | bytes, env: dict[str, str] | None = None, timeout: float = 180,
              preexec_fn: Callable[[], None] | None = None) -> Run:
    """Run `trove --home HOME ARGS...`, polling the process tree's RSS; kill it past `timeout`."""
    started = time.monotonic()
    proc = subprocess.Popen(trove_cmd(home, *args), cwd=ROOT, env=env or trove_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=preexec_fn)
    outputs: list[tuple[bytes, bytes]] = []
    reader = threading.Thread(target=lambda: outputs.append(proc.communicate()), daemon=True)
    reader.start()
    watched = psutil.Process(proc.pid)
    peak = 0
    while reader.is_alive():
        peak = max(peak, tree_rss(watched))
        if time.monotonic() - started > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            reader.join(30)
            raise AssertionError(f"trove {' '.join(map(str, args))} took longer than {timeout} s")
        reader.join(0.05)
    stdout, stderr = outputs[0]
    return Run(proc.returncode, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"),
               time.monotonic() - started, peak // 2**20)


def tree_rss(proc: psutil.Process) -> int:
    """RSS of a process and its descendants (bytes)."""
    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def assert_one_line_error(run: Run, *needles: str) -> None:
    """Exit 1 with one `trove: ...` line on stderr holding every needle; no traceback anywhere."""
    assert run.returncode == 1, (run.returncode, run.stdout[-2000:], run.stderr[-3000:])
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout, run.stderr[-3000:]
    lines = [line for line in run.stderr.splitlines() if line.startswith("trove: ")]
    assert len(lines) >= 1, run.stderr
    for needle in needles:
        assert needle in lines[-1], (needle, lines[-1])


def write_settings(home: Path, **values) -> None:
    """A settings.json in `home` (created) holding these values."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps(values), encoding="utf-8")
