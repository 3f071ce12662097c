"""`trove files` over hostile files: every skipped, encrypted and failed file is listed with its reason, in the state
the ledger gives it, and its counts equal `trove stats`."""

from __future__ import annotations

import json
import os

import pytest

from desktop_app.cli import main
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.reliability.hostile import Case, build_case
from tests.reliability.runner import write_settings

# the groups that end skipped, encrypted or failed, and a few that index (the slow bombs are left to the hostile run)
GROUPS = ("fifo", "socket", "symlinks", "long-path", "elf", "pdf-encrypted", "docx-billion-laughs", "encodings")
LIMITS = {"embedder": "hash", "max_text_file_mb": 1, "extract_timeout_seconds": 20}


def ledger_state(case: Case) -> str:
    """The state the ledger must give a case (the hostile folder's "failed" splits by reason)."""
    if case.expect == "indexed":
        return "indexed"
    if "encrypted" in case.reason:
        return "encrypted"
    if case.expect == "skipped" or case.reason == "binary":
        return "skipped"
    return "failed"


def cli_json(capsys, home, *args: str) -> dict:
    assert main(["--home", str(home), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def hostile_library(tmp_path):
    root = tmp_path / "hostile"
    cases = [c for g in GROUPS for c in build_case(g, root / g)]
    (root / "sizes").mkdir()
    big = root / "sizes" / "big.txt"
    big.write_text("too much text here\n" * 120_000, encoding="utf-8")  # 2.3 MB over a 1 MB limit
    (root / "sizes" / "empty.md").write_bytes(b"")
    cases += [Case("big", big, "skipped", "too large"), Case("empty", root / "sizes" / "empty.md", "skipped", "empty")]
    home = tmp_path / "home"
    write_settings(home, **LIMITS)
    with Library(home, settings=Settings(**LIMITS)) as lib:
        lib.add_folder(root)
        lib.sync(wait=True, timeout=300)
    return home, root, cases


def test_the_ledger_lists_every_bad_file_with_its_reason(hostile_library, capsys):
    home, root, cases = hostile_library
    listed = cli_json(capsys, home, "files")
    by_path = {f["path"]: f for f in listed["files"]}
    problems = []
    for case in (c for c in cases if c.expect != "absent"):
        target = str(case.path.absolute()) if case.expect != "indexed" else str(case.path.resolve())
        row = by_path.get(target) or next((f for p, f in by_path.items() if p.startswith(target + os.sep)), None)
        if row is None:
            problems.append(f"{case.name}: not listed")
        elif row["state"] != ledger_state(case) or case.reason.lower() not in row["reason"].lower():
            problems.append(f"{case.name}: {row['state']} {row['reason']!r}, wanted {ledger_state(case)} "
                            f"{case.reason!r}")
    assert problems == []
    assert {"skipped", "encrypted", "indexed"} <= set(listed["counts"]) and listed["counts"]["skipped"] >= 9


def test_the_ledger_counts_equal_trove_stats(hostile_library, capsys):
    home, root, _cases = hostile_library
    stats = cli_json(capsys, home, "stats")
    listed = cli_json(capsys, home, "files")
    assert (listed["documents"], listed["failed"]) == (stats["documents"], stats["failed"])
    assert len(listed["files"]) == stats["documents"] + stats["failed"]
    failed_paths = sorted(f["path"] for f in listed["files"] if f["state"] in ("skipped", "encrypted", "failed"))
    assert failed_paths == sorted(f["path"] for f in stats["failures"])
    only = cli_json(capsys, home, "files", "--state", "skipped", "--state", "encrypted",
                    "--folder", str(root / "symlinks"))
    assert only["files"] and {f["state"] for f in only["files"]} == {"skipped"}
    assert all(f["path"].startswith(str(root / "symlinks") + os.sep) for f in only["files"])
    assert main(["--home", str(home), "files", "--state", "failed"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"documents: {stats['documents']}  failed: {stats['failed']}")
