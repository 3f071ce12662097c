"""Every file name works end to end: stored, found, shown escaped, opened, followed by the watcher."""

from __future__ import annotations

import os
import time
from pathlib import Path

from desktop_app.core.pathnames import display_path
from tests.support.hostile import names
from tests.support.runner import run_trove


def test_every_name_is_indexed_found_and_opens(make_library, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    cases = names(root)
    lib = make_library()
    lib.add_folder(root)
    report = lib.sync()
    assert report.failed == 0 and report.indexed == len(cases)
    for case in cases:
        hits = lib.search(case.word, mode="keyword")
        assert [h.source for h in hits] == [str(case.path.resolve())], case.name
        assert lib.search(case.word, mode="hybrid")[0].source == hits[0].source
        with open(hits[0].source, encoding="utf-8") as fh:  # the stored path opens the very file
            assert case.word in fh.read()


def test_a_folder_whose_own_name_is_undecodable(make_library, tmp_path):
    root = tmp_path / os.fsdecode(b"dossier-\xe9t\xe9")
    (root / "sub").mkdir(parents=True)
    (root / "sub" / os.fsdecode(b"n\xf6te.txt")).write_text("kingfisher", encoding="utf-8")
    lib = make_library()
    lib.add_folder(root)
    lib.sync()
    assert len(lib.search("kingfisher", mode="keyword")) == 1
    moved = root / "moved"
    os.rename(root / "sub", moved)
    lib.move_path(root / "sub", moved)  # prefix matching on stored paths that hold escaped bytes
    assert [Path(r.source).parent.name for r in lib.search("kingfisher", mode="keyword")] == ["moved"]
    for f in moved.iterdir():
        f.unlink()
    lib.sync_paths([moved / os.fsdecode(b"n\xf6te.txt")])
    assert lib.search("kingfisher", mode="keyword") == []
    assert lib.remove_folder(root) == 0


def test_cli_prints_every_name_escaped_on_one_line(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    names(root)
    (root / os.fsdecode(b"bin\xffary.txt")).write_bytes(b"\x00\x01binary")  # a failure whose name must print
    run = run_trove(tmp_path / "home", "index", str(root))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    stats = run_trove(tmp_path / "home", "stats")
    assert stats.returncode == 0, stats.stderr
    assert "bin\\xffary.txt: binary file" in stats.stdout  # undecodable bytes escaped, never a crash
    search = run_trove(tmp_path / "home", "search", "capybara")
    assert search.returncode == 0 and "bad\\xffname.txt" in search.stdout
    lines = run_trove(tmp_path / "home", "search", "quokka").stdout.splitlines()
    assert "new\\nline.txt" in lines[0]  # the newline in the name is shown escaped: one line per result
    as_json = run_trove(tmp_path / "home", "search", "capybara", "--json").json()
    assert as_json[0]["source"] == str((root / os.fsdecode(b"bad\xffname.txt")).resolve())  # JSON keeps the bytes
    assert display_path(as_json[0]["source"]).endswith("bad\\xffname.txt")


def test_the_watcher_survives_an_undecodable_name(make_library, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    lib = make_library(debounce_seconds=0.2)
    lib.add_folder(root)
    lib.sync()
    watcher = lib.start_watching()
    try:
        (root / os.fsdecode(b"bad\xffname.txt")).write_text("watched capybara", encoding="utf-8")
        (root / "after.txt").write_text("later tortoise", encoding="utf-8")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (lib.search("capybara", mode="keyword")
                                                   and lib.search("tortoise", mode="keyword")):
            time.sleep(0.1)
        assert lib.search("capybara", mode="keyword") and lib.search("tortoise", mode="keyword")
        assert watcher.running
    finally:
        lib.stop_watching()
