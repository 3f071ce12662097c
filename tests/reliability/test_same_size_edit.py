"""An edit that keeps the size and puts the old modification time back is still seen (the inode change time)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from desktop_app.core.ingest.discover import change_stamp, classify


def rewrite_keeping_size_and_mtime(path: Path, text: str) -> None:
    """What `rsync -t`, `touch -r` and some sync clients leave: new bytes, same length, the old mtime."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    for _ in range(200):  # until the clock the kernel stamps ctime with has moved on (coarse: a few ms)
        path.write_text(text)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = os.stat(path)
        if after.st_ctime_ns != before.st_ctime_ns:
            break
        time.sleep(0.01)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns


def test_a_same_size_same_mtime_rewrite_is_reindexed(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    note = docs / "note.txt"
    note.write_text("the animal in this note is an aardvark\n")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    assert lib.search("aardvark", mode="keyword")
    rewrite_keeping_size_and_mtime(note, "the animal in this note is a pangolin!\n")
    report = lib.sync()
    assert report.indexed == 1, report
    assert lib.search("pangolin", mode="keyword")
    assert not lib.search("aardvark", mode="keyword")
    assert lib.sync().unchanged == 1  # and it is not re-read again and again


def test_a_watched_path_sees_the_same_edit(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    note = docs / "watched.md"
    note.write_text("# Notes\n\nabout a margay\n")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    rewrite_keeping_size_and_mtime(note, "# Notes\n\nabout a kinkaj\n")
    lib.sync_paths([note], wait=True)
    assert lib.search("kinkaj", mode="keyword")


def test_the_change_stamp_is_the_later_of_mtime_and_ctime(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("x")
    os.utime(path, ns=(0, 1_000_000_000))  # an mtime in 1970; ctime is now
    found = classify(path, (), [str(tmp_path)])
    st = os.stat(path)
    assert found is not None and found.mtime_ns == change_stamp(st) == st.st_ctime_ns > st.st_mtime_ns
