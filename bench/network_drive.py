"""What the rollback journal costs a library on a network drive: the same folder indexed and searched on the local
disk (WAL) and through a real FUSE mount (bindfs, made here as root; core/store/sqlite/network_drive.py switches it
to journal_mode=DELETE with synchronous=FULL). FUSE's own overhead is part of the second figure.

    python bench/network_drive.py [--files 300] [--searches 50]

Needs root, /dev/fuse and bindfs (packaging/system_deps.sh). Hash embedder: the journal is measured, not a model.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings


def measure(home: Path, docs: Path, searches: int) -> tuple[str, float, float]:
    """(journal mode, seconds to index `docs`, mean ms of a keyword search)."""
    started = time.perf_counter()
    with Library(home, settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs)
        lib.sync(wait=True)
        indexed = time.perf_counter() - started
        started = time.perf_counter()
        for q in range(searches):
            lib.search(f"harbour tides {q}", mode="keyword", top_k=5)
        searched = (time.perf_counter() - started) / searches * 1000
        mode = lib.store._read(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0])
    return mode, indexed, searched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--searches", type=int, default=50)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="trove-netdrive-"))
    docs, backing, drive = root / "docs", root / "backing", root / "drive"
    for folder in (docs, backing, drive):
        folder.mkdir()
    for i in range(args.files):
        (docs / f"d{i:04d}.txt").write_text((f"Report {i} on harbour tides, ferry times and cargo {i * 7}. " * 40
                                             + "\n\n") * 3)
    subprocess.run(["bindfs", str(backing), str(drive)], check=True)
    try:
        for name, home in (("local disk", root / "local"), ("FUSE (bindfs)", drive / "home")):
            mode, indexed, searched = measure(home, docs, args.searches)
            print(f"{name}: journal {mode}, index {args.files} files {indexed:.1f} s, keyword search {searched:.1f} ms")
    finally:
        subprocess.run(["fusermount3", "-u", "-z", str(drive)], check=False)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
