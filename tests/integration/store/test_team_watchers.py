"""Two `trove watch` processes (different machines, different folders) and a third searching, on one server.

After a burst of edits on both disks the server matches both exactly; a watcher killed mid-run leaves no
half-indexed document, and another machine that sees the same folder takes it over once the lease expires.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_app.core.store.postgres import PostgresStore
from tests.support.pg_server import assert_server_consistent, server_documents

ROOT = Path(__file__).parents[3]
TIMEOUT = 90.0  # generous: the two cores are shared with other test runs


def env_for(machine: str, url: str) -> dict[str, str]:
    return {**os.environ, "TROVE_EMBEDDER": "hash", "TROVE_MACHINE_ID": machine, "TROVE_DB": url,
            "TROVE_LEASE_SECONDS": "2", "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


def watcher(tmp_path: Path, machine: str, url: str, folder: Path) -> subprocess.Popen:
    home = tmp_path / f"home-{machine}"
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"debounce_seconds": 0.2, "rescan_minutes": 0.05}))
    log = open(tmp_path / f"{machine}.log", "w")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([sys.executable, "-m", "desktop_app", "--home", str(home), "watch", str(folder)],
                            cwd=ROOT, env=env_for(machine, url), stdout=log, stderr=subprocess.STDOUT)


def disk_state(*folders: Path) -> dict[str, tuple[int, str]]:
    out = {}
    for folder in folders:
        for p in folder.rglob("*.txt"):
            text = p.read_text(encoding="utf-8")
            out[str(p)] = (len(text.encode()), text.strip())
    return out


def wait_for_match(url: str, *folders: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while True:
        disk, server = disk_state(*folders), server_documents(url)
        if server == disk:
            return
        if time.monotonic() > deadline:
            missing = sorted(set(disk) - set(server))[:5]
            extra = sorted(set(server) - set(disk))[:5]
            stale = sorted(p for p in disk if p in server and server[p] != disk[p])[:5]
            raise AssertionError(f"server never matched the disks: missing {missing}, extra {extra}, stale {stale}")
        time.sleep(0.3)


def write_notes(folder: Path, start: int, n: int, word: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(start, start + n):
        (folder / f"{word}{i:04d}.txt").write_text(f"{word} note {i} about the harbour\n", encoding="utf-8")


def burst(folder: Path, word: str) -> None:
    """Edits, creations, deletions and renames, as fast as Python can make them."""
    files = sorted(folder.glob("*.txt"))
    for p in files[:5]:
        p.write_text(p.read_text() + f"edited {word}\n", encoding="utf-8")
    write_notes(folder, 100, 5, word)
    for p in files[5:8]:
        p.unlink()
    for p in files[8:10]:
        p.rename(p.with_name("renamed-" + p.name))
    (folder / "sub").mkdir(exist_ok=True)
    (folder / "sub" / f"{word}-deep.txt").write_text(f"{word} deep note\n", encoding="utf-8")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def search(url: str, machine: str, tmp_path: Path, query: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "desktop_app", "--home", str(tmp_path / "home-searcher"), "search",
                           query, "-k", "100", "--mode", "keyword", "--json"], cwd=ROOT, env=env_for(machine, url),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_two_desktops_one_server_and_a_takeover(pg_url, tmp_path):
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    write_notes(alice, 0, 20, "alpha")
    write_notes(bob, 0, 20, "beta")
    PostgresStore(pg_url, machine="setup").close()  # the schema exists before anyone polls it
    procs = [watcher(tmp_path, "desk-a", pg_url, alice), watcher(tmp_path, "desk-b", pg_url, bob)]
    try:
        wait_for_match(pg_url, alice, bob)
        burst(alice, "alpha")
        burst(bob, "beta")
        wait_for_match(pg_url, alice, bob)

        found = search(pg_url, "desk-c", tmp_path, "harbour")  # a third machine searches both desktops' files
        machines = {(Path(r["source"]).parent.name, r["metadata"].get("machine")) for r in found}
        assert machines == {("alice", "desk-a"), ("bob", "desk-b")}

        write_notes(alice, 200, 400, "alpha")  # a long run for desk-a ...
        deadline = time.monotonic() + TIMEOUT
        while len(server_documents(pg_url)) < len(disk_state(bob)) + 40:
            assert time.monotonic() < deadline, "desk-a never started on the new files"
            time.sleep(0.05)
        procs[0].kill()  # ... killed mid-run: no clean shutdown, its lease is left to expire
        procs[0].wait()
        assert_server_consistent(pg_url)
        assert len(server_documents(pg_url)) < len(disk_state(alice, bob))

        procs.append(watcher(tmp_path, "desk-c", pg_url, alice))  # sees the same files: takes desk-a's folder over
        wait_for_match(pg_url, alice, bob)
        assert_server_consistent(pg_url)
    finally:
        for proc in procs:
            stop(proc)
    logs = "".join((tmp_path / f"{m}.log").read_text() for m in ("desk-b", "desk-c"))
    assert "Traceback" not in logs
