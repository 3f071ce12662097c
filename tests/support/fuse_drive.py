"""A real FUSE mount for network-drive tests: bindfs (a passthrough FUSE filesystem; packaging/system_deps.sh
installs it with fuse3) over a folder of the test's disk. Tests run as root with /dev/fuse, as CI does."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def fuse_mount(tmp_path: Path, *options: str) -> Iterator[Path]:
    """A folder of the test's disk (tmp_path/backing) seen through a real FUSE mount (tmp_path/drive)."""
    assert shutil.which("bindfs") and Path("/dev/fuse").exists(), \
        "the network-drive tests mount FUSE: apt-get install fuse3 bindfs (packaging/system_deps.sh), /dev/fuse"
    backing, point = tmp_path / "backing", tmp_path / "drive"
    backing.mkdir()
    point.mkdir()
    done = subprocess.run(["bindfs", *options, str(backing), str(point)], capture_output=True, text=True)
    assert done.returncode == 0, f"tests run as root (CI): bindfs failed: {done.stderr.strip()}"
    try:
        yield point
    finally:
        subprocess.run(["fusermount3", "-u", "-z", str(point)], check=True)
