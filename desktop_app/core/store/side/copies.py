"""Where this desktop keeps its side indexes of a team library, and the record of which folders they may hold.

One directory per server, database and role under the person's own Trove home (side_home), so nothing another
person may not see is ever on their disk by this path. `folders.json` in it lists every folder the files were
built from (and every folder seen since): the team engine (postgres/side.py) deletes the files when one of those
is no longer readable, and `forget` deletes the whole directory when the server refuses the role.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

from desktop_app.core.log import get_logger
from desktop_app.core.redact import redact

log = get_logger("db")

COVERED = "folders.json"  # the folders this directory's files may hold something of
_RECORDING = threading.Lock()  # record() is one read-modify-write of COVERED


def side_path(root: Path, location: str, role: str) -> Path:
    """Where this desktop keeps one team library's side indexes as one role (a digest of the redacted URL)."""
    digest = hashlib.blake2b(f"{location}\0{role}".encode(), digest_size=8).hexdigest()
    return root / f"team-{digest}"


def side_home(root: Path, location: str, role: str) -> Path:
    """side_path, made (0700) if missing."""
    where = side_path(root, location, role)
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    return where


def forget(root: Path, url: str) -> bool:
    """Delete the side indexes kept for `url`'s role (the server refused it: revoked, or no longer admitted to
    the library). True when there was something to delete. A URL without a user names no role: nothing."""
    try:
        user = urlsplit(url).username
    except ValueError:
        return False
    if not user:
        return False
    where = side_path(root, redact(url), unquote(user))
    if not where.exists():
        return False
    shutil.rmtree(where, ignore_errors=True)
    log.warning("the server refused %s: this desktop's copy of what it could read is deleted", redact(url))
    return True


def covered(where: Path) -> set[int]:
    """The folders recorded as possibly in `where`'s files (empty when none are recorded)."""
    try:
        return {int(f) for f in json.loads((where / COVERED).read_text())}
    except (OSError, ValueError, TypeError):
        return set()


def record(where: Path, folders: set[int]) -> None:
    """Add `folders` to the record of what `where`'s files may hold (written whole, by rename). One writer at a time
    in this process: hybrid search builds its keyword and vector copies on two threads at once, and two writers of
    one temporary file lose a rename (and one of the two additions)."""
    with _RECORDING:
        known = covered(where)
        if folders <= known and (where / COVERED).exists():
            return
        temporary = where / f"{COVERED}.{os.getpid()}.{threading.get_ident()}.tmp"
        temporary.write_text(json.dumps(sorted(known | folders)))
        os.replace(temporary, where / COVERED)

