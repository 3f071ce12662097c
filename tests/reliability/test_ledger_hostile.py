"""`trove files` over hostile files: every skipped, encrypted and failed file is listed with its reason, in the state
the ledger gives it, and its counts equal `trove stats`."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from desktop_app.cli import main
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.store.ledger_rows import FileState, LedgerQuery
from tests.support.hostile import Case, build_case
from tests.support.runner import write_settings

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


def quiet_files(root) -> list[Case]:
    """Files left alone for what they are, not for anything wrong: hidden ones and types Trove does not read (and a
    folder the settings exclude, which is not listed at all)."""
    (root / ".obsidian" / "plugins").mkdir(parents=True)
    (root / ".obsidian" / "workspace.md").write_text("a hidden folder's note about a tayra", encoding="utf-8")
    (root / ".obsidian" / "plugins" / "x.md").write_text("deeper in the hidden folder", encoding="utf-8")
    (root / ".draft.md").write_text("a hidden note about a kinkajou", encoding="utf-8")
    (root / "song.mp3").write_bytes(b"ID3" + bytes(200))
    (root / "bundle.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (root / "node_modules").mkdir()
    (root / "node_modules" / "pkg.md").write_text("excluded by the settings' patterns", encoding="utf-8")
    (root / "seen.md").write_text("a visible note about a coati", encoding="utf-8")
    return [Case("hidden-folder", root / ".obsidian", "skipped", "hidden folder"),
            Case("hidden-file", root / ".draft.md", "skipped", "hidden file"),
            Case("unsupported-mp3", root / "song.mp3", "skipped", "unsupported file type (.mp3)"),
            Case("unsupported-zip", root / "bundle.zip", "skipped", "unsupported file type (.zip)"),
            Case("visible", root / "seen.md", "indexed", word="coati")]


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
    cases += quiet_files(root / "quiet")
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
    assert {"skipped", "encrypted", "indexed"} <= set(listed["counts"]) and listed["counts"]["skipped"] >= 13
    quiet = str(root / "quiet") + os.sep
    assert sorted(p.removeprefix(quiet) for p in by_path if p.startswith(quiet)) == [
        ".draft.md", ".obsidian", "bundle.zip", "seen.md", "song.mp3"]  # nothing inside the hidden or excluded folder
    assert {p.removeprefix(quiet) for p, f in by_path.items() if f["not_read"]} == {
        ".draft.md", ".obsidian", "bundle.zip", "song.mp3"}
    assert by_path[quiet + ".obsidian"]["type"] == "" and by_path[quiet + "song.mp3"]["type"] == ""  # no kind


def test_the_ledger_counts_equal_trove_stats(hostile_library, capsys):
    home, root, _cases = hostile_library
    stats = cli_json(capsys, home, "stats")
    listed = cli_json(capsys, home, "files")
    assert (listed["documents"], listed["failed"], listed["not_read"]) == (
        stats["documents"], stats["failed"], stats["not_read"])
    assert stats["not_read"] == 4  # the quiet folder's hidden and unsupported files
    assert len(listed["files"]) == stats["documents"] + stats["failed"] + stats["not_read"]
    failed_paths = sorted(f["path"] for f in listed["files"]
                          if f["state"] in ("skipped", "encrypted", "failed") and not f["not_read"])
    assert failed_paths == sorted(f["path"] for f in stats["failures"])
    only = cli_json(capsys, home, "files", "--state", "skipped", "--state", "encrypted",
                    "--folder", str(root / "symlinks"))
    assert only["files"] and {f["state"] for f in only["files"]} == {"skipped"}
    assert all(f["path"].startswith(str(root / "symlinks") + os.sep) for f in only["files"])
    assert main(["--home", str(home), "files", "--state", "failed"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"documents: {stats['documents']}  failed: {stats['failed']}  not read: 4")
    assert main(["--home", str(home), "stats"]) == 0
    assert "not read: 4 hidden or unsupported files" in capsys.readouterr().out


def test_files_never_read_stay_listed_through_a_sync_a_retry_and_a_removal(hostile_library):
    home, root, _cases = hostile_library
    quiet = root / "quiet"
    with Library(home, settings=Settings(**LIMITS)) as lib:
        again = lib.sync(wait=True, timeout=300)
        assert again.failed == 0 and again.errors == []  # neither failures nor rewritten every sync
        lib.ledger.retry([quiet / ".draft.md", quiet / "song.mp3"], wait=True)
        rows = {r.path: r for r in lib.ledger.rows(LedgerQuery(folder=str(quiet)))}
        assert rows[str(quiet / ".draft.md")].not_read and rows[str(quiet / "song.mp3")].state == FileState.SKIPPED
        assert lib.stats()["not_read"] == 4
        (quiet / "song.mp3").unlink()
        shutil.rmtree(quiet / ".obsidian")
        lib.sync(wait=True, timeout=300)
        assert lib.stats()["not_read"] == 2 and lib.ledger.counts().not_read == 2
        assert str(quiet / "song.mp3") not in {r.path for r in lib.ledger.rows()}
