"""What the disk holds vs what the index holds: the check behind the concurrency test and bench/soak.py."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from desktop_app.core.store.sqlite.connect import OperationalError, connect


def disk_state(root: Path, suffixes: tuple[str, ...] = (".txt", ".md")) -> dict[str, str]:
    """{absolute path: content hash} of the regular files under `root` Trove would index (not hidden)."""
    out = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(folder) / name
            if name.startswith(".") or path.suffix not in suffixes or path.is_symlink():
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue  # deleted while we looked
            if data.strip():
                out[str(path)] = hashlib.blake2b(data, digest_size=20).hexdigest()
    return out


def index_state(db: Path) -> dict[str, str]:
    """{path: content hash} of the documents indexed now."""
    if not db.exists():
        return {}
    conn = connect(db, readonly=True)
    try:
        return dict(conn.execute("SELECT path, content_hash FROM documents WHERE status = 'indexed'"))
    except OperationalError:  # the first instants of a new library: the schema is not there yet
        return {}
    finally:
        conn.close()


def mismatch(root: Path, db: Path) -> dict[str, list[str]]:
    """Paths missing from the index, extra in it, or indexed with other content ({} when they agree)."""
    disk, index = disk_state(root), index_state(db)
    out = {"missing": sorted(set(disk) - set(index)), "extra": sorted(set(index) - set(disk)),
           "stale": sorted(p for p in set(disk) & set(index) if disk[p] != index[p])}
    return {k: v for k, v in out.items() if v}
