"""The snapshot before a migration: opening a library of an older schema copies its database aside first.

`library.db.before-upgrade` is a whole copy (SQLite's online backup) made before the first pending migration runs,
with `library.db.before-upgrade.json` beside it: the schema it holds, the schema it was being upgraded to, and
whether that upgrade finished. There is one snapshot at most (bounded disk): it is taken only when the disk has room
for it (the file and its -wal, plus 10%), else the library is not touched and the open fails with one line. It stays
through the start that migrated and is deleted at the next start that opens the library without a migration. A
migration that failed (or was killed) midway leaves it, and the next attempt keeps that older snapshot rather than
taking a new one. `trove repair --rollback` puts it back (`roll_back`); the upgraded file is kept aside.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import DiskFullError, KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.store.sqlite.backup.copies import copy_database, database_bytes
from desktop_app.core.store.sqlite.connect import Connection

log = get_logger("db")

SUFFIX = ".before-upgrade"
ROOM = 1.1  # free space a snapshot needs, against the database's size (file and -wal)
# Files named after the database that belong to it (moved with it on a rollback; side indexes are rebuilt).
COMPANIONS = ("-wal", "-shm", ".vectors", ".keywords")


@dataclass(frozen=True)
class Snapshot:
    """The snapshot beside a library database, as its record describes it."""

    path: Path
    from_schema: int
    to_schema: int
    taken_at: str
    migrated: bool  # the upgrade it was taken for finished


@dataclass(frozen=True)
class Rollback:
    """What `roll_back` did."""

    snapshot: Snapshot
    kept_as: Path  # the upgraded database, renamed (never deleted)


def snapshot_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + SUFFIX)


def _record_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + SUFFIX + ".json")


def current(db_path: Path) -> Snapshot | None:
    """The snapshot beside `db_path`, or None (no snapshot, or one without a readable record)."""
    snap, record = snapshot_path(db_path), _record_path(db_path)
    if not snap.is_file():
        return None
    try:
        raw = json.loads(record.read_text(encoding="utf-8"))
        return Snapshot(snap, int(raw["from_schema"]), int(raw["to_schema"]), str(raw["taken_at"]),
                        bool(raw["migrated"]))
    except (OSError, ValueError, KeyError, TypeError):
        return Snapshot(snap, 0, 0, "", False)  # a snapshot whose upgrade is unknown is kept, never deleted


def _write_record(db_path: Path, snapshot: Snapshot) -> None:
    record = _record_path(db_path)
    tmp = record.with_name(record.name + ".tmp")
    tmp.write_text(json.dumps({"from_schema": snapshot.from_schema, "to_schema": snapshot.to_schema,
                               "taken_at": snapshot.taken_at, "migrated": snapshot.migrated}), encoding="utf-8")
    os.replace(tmp, record)


def before_migrations(conn: Connection, db_path: Path, applied: set[int], to_schema: int) -> None:
    """Take the snapshot when migrations are pending on an existing library (`applied` is not empty). A snapshot
    left by an unfinished upgrade is kept as it is: it holds the older library."""
    found = current(db_path)
    if found is not None and not found.migrated:
        log.warning("an upgrade of %s did not finish; its snapshot (schema %d) stays: `trove repair --rollback` "
                    "returns to it", db_path, found.from_schema)
        return
    need = int(database_bytes(db_path) * ROOM)
    free = shutil.disk_usage(db_path.parent).free
    if free < need:
        raise DiskFullError(f"Upgrading this library first keeps a copy of it ({need / 1e6:.1f} MB), and its disk "
                            f"has {free / 1e6:.1f} MB free; free some space and open it again. Nothing was changed.")
    snap = snapshot_path(db_path)
    partial = snap.with_name(snap.name + ".partial")
    try:
        copy_database(conn, partial)
        os.replace(partial, snap)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    _write_record(db_path, Snapshot(snap, max(applied), to_schema, time.strftime("%Y-%m-%d %H:%M:%S"), False))
    log.info("kept a snapshot of %s (schema %d) before upgrading it to schema %d", db_path, max(applied), to_schema)


def after_start(db_path: Path, migrated: bool) -> None:
    """The library opened. After the start that migrated, mark its snapshot finished; at the next start that
    needed no migration, delete a finished snapshot (the upgraded library has now opened twice)."""
    found = current(db_path)
    if found is None or not found.from_schema:
        return
    if migrated:
        _write_record(db_path, Snapshot(found.path, found.from_schema, found.to_schema, found.taken_at, True))
    elif found.migrated:
        for leftover in (found.path, _record_path(db_path)):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
        log.info("deleted the snapshot from before the upgrade of %s: it opened again after the upgrade", db_path)


def roll_back(db_path: Path) -> Rollback:
    """Put the snapshot back as the library database (which no Store may have open). The upgraded database and its
    companions are renamed to `<name>.rolled-back-<time>[suffix]`, never deleted."""
    found = current(db_path)
    if found is None:
        raise KnownError(f"There is no snapshot from before an upgrade beside {db_path}: nothing to roll back to.")
    kept = db_path.with_name(f"{db_path.name}.rolled-back-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", *COMPANIONS):
        src = Path(str(db_path) + suffix)
        if os.path.lexists(src):
            os.replace(src, Path(str(kept) + suffix))
    os.replace(found.path, db_path)
    with contextlib.suppress(FileNotFoundError):
        _record_path(db_path).unlink()
    log.warning("rolled %s back to its snapshot of schema %d; the upgraded file is %s", db_path, found.from_schema,
                kept)
    return Rollback(found, kept)
