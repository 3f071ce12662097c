"""Only regular files are read; links never lead out of the library; whatever is left alone is listed with why."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from desktop_app.core.ingest.discover import Found, Skipped, classify, scan
from tests.support.hostile import fifo, long_path, symlinks, unix_socket


def reasons(lib) -> dict[str, str]:
    return {Path(f["path"]).name: f["reason"] for f in lib.stats()["failures"]}


def sources(results) -> list[str]:
    return [r.source for r in results]


def test_a_fifo_is_reported_and_never_opened(tmp_path):
    fifo(tmp_path)  # opening it for reading would block forever: no writer will ever come
    unix_socket(tmp_path)
    (tmp_path / "fine.txt").write_text("fine", encoding="utf-8")
    out: list = []
    walker = threading.Thread(target=lambda: out.extend(scan(tmp_path, ())), daemon=True)
    walker.start()
    walker.join(20)
    assert not walker.is_alive(), "discovery blocked on the FIFO"
    kinds = {item.path.name: item for item in out}
    assert isinstance(kinds["fine.txt"], Found)
    assert isinstance(kinds["fifo.txt"], Skipped) and "FIFO" in kinds["fifo.txt"].reason
    assert isinstance(kinds["chan.txt"], Skipped) and "socket" in kinds["chan.txt"].reason


def test_links_are_never_followed_out_and_every_problem_is_named(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    symlinks(root, nested=False)
    items = {item.path.name: item for item in scan(root, (), [str(root)])}
    assert isinstance(items["plain.txt"], Found)
    assert "inner_link.txt" not in items and "back" not in items  # inside the library: the target is indexed
    assert "loop" in items["self.txt"].reason and "loop" in items["loop_a.txt"].reason
    assert "dangling" in items["dangling.md"].reason
    for name in ("up", "upup", "etc", "system.txt"):
        assert "outside the library" in items[name].reason
    assert all(not str(i.path).startswith("/etc") for i in items.values())


def test_the_library_records_skipped_entries_once_and_sees_them_change(make_library, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    symlinks(root, nested=False)
    fifo(root)
    lib = make_library()
    lib.add_folder(root)
    first = lib.sync()
    assert sources(lib.search("lighthouse", mode="keyword")) == [str((root / "plain.txt").resolve())]
    got = reasons(lib)
    assert "FIFO" in got["fifo.txt"] and "loop" in got["self.txt"] and "outside" in got["etc"]
    assert "dangling" in got["dangling.md"] and "inner_link.txt" not in got
    again = lib.sync()
    assert again.failed == 0 and again.errors == [] and first.failed == len(got)  # not rewritten every sync
    os.remove(root / "fifo.txt")
    (root / "fifo.txt").write_text("now a plain file about a heron", encoding="utf-8")
    (root / "missing.md").write_text("the target arrived: egret", encoding="utf-8")
    lib.sync()
    assert sources(lib.search("heron", mode="keyword")) == [str((root / "fifo.txt").resolve())]
    assert "fifo.txt" not in reasons(lib)
    assert "dangling.md" not in reasons(lib)  # the link now leads inside: its target is indexed, once
    assert len(lib.search("egret", mode="keyword")) == 1


def test_a_link_into_another_library_folder_is_indexed_once(make_library, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (b / "note.txt").write_text("shared albatross note", encoding="utf-8")
    os.symlink(b / "note.txt", a / "link.txt")
    os.symlink(b, a / "b_dir")
    lib = make_library()
    lib.add_folder(a)
    lib.add_folder(b)
    lib.sync()
    assert sources(lib.search("albatross", mode="keyword")) == [str((b / "note.txt").resolve())]
    assert reasons(lib) == {}


def test_links_made_while_watching_are_classified_too(make_library, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("alpha", encoding="utf-8")
    lib = make_library()
    lib.add_folder(root)
    lib.sync()
    os.symlink("/etc", root / "etc")
    target = "/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd"
    os.symlink(target, root / "host.txt")
    lib.sync_paths([root / "etc", root / "host.txt"])  # what the watcher does with a created path
    got = reasons(lib)
    assert "outside" in got["etc"] and "outside" in got["host.txt"]
    assert all(not r.source.startswith("/etc") for r in lib.search("localhost root", mode="keyword"))
    assert classify(root / "a.txt", (), [str(root)]) == Found(root / "a.txt", 5, (root / "a.txt").stat().st_mtime_ns)


def test_unlistable_and_too_long_folders_are_reported(make_library, tmp_path, monkeypatch):
    root = tmp_path / "docs"
    (root / "private").mkdir(parents=True)
    (root / "private" / "x.txt").write_text("x", encoding="utf-8")
    long_path(root)
    real_scandir = os.scandir

    def scandir(path):  # tests run as root, which lists any folder: refuse one by hand
        if Path(path).name == "private":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    lib = make_library()
    lib.add_folder(root)
    lib.sync()
    got = reasons(lib)
    assert "permission denied" in got["private"]
    assert any("too long" in r for r in got.values())
