"""`trove backup` / `trove restore`: one compressed file holding a library, and putting it back.

A backup is a tar.gz (the venv has no zstd binding; gzip is the stdlib's fastest): `manifest.json` first, then the
payload: a consistent copy of the database (the engine's online backup, made while the library is in use), the
settings (which hold the chat model's choice), and the model list. Side indexes are rebuilt from the database, and
downloaded model files can be fetched again, so neither is copied. The manifest names the schema version, the
embedding model, row counts and a sha256 of every payload file and of the payload as a whole.

Restore reads the manifest first and refuses a newer schema before touching anything; then it unpacks into a staging
folder inside the home, checking every file's sha256 and the gzip stream's own CRC, and SQLite's quick check on the
database. Only then does the current library move aside (renamed into a dated folder in the home, never deleted)
and the restored files take its place. Any failure before that leaves the home exactly as it was.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import IO, Any

from desktop_app import __version__
from desktop_app.core.errors import KnownError, SchemaTooNewError
from desktop_app.core.log import get_logger
from desktop_app.core.store.sqlite.backup.copies import CopyFacts, checkpoint, copy_facts, integrity
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION

log = get_logger("db")

FORMAT, FORMAT_VERSION = "trove-backup", 1
MANIFEST = "manifest.json"
DB_NAME = "library.db"
# Beside the database, what a backup carries: the settings (chat model choice included), the model list and the
# saved searches (core/search/saved.py).
HOME_FILES = ("settings.json", "models.json", "saved-searches.json")
# What belongs to the database and is rebuilt from it (moved aside with it, never copied into a backup).
DB_COMPANIONS = ("-wal", "-shm", ".vectors", ".keywords")
_CHUNK = 1 << 20


class DamagedBackupError(KnownError):
    """A backup file that is truncated, altered, or not a Trove backup at all."""


class _Damage(ValueError):
    """What is wrong inside a backup; `_members` turns it into the one-line DamagedBackupError."""


@dataclass(frozen=True)
class BackupFile:
    """One payload file of a backup."""

    name: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """What a backup says about itself (manifest.json)."""

    created_at: str
    trove_version: str
    schema_version: int
    embedder: str
    counts: dict[str, int]
    files: tuple[BackupFile, ...]
    payload_sha256: str
    format: str = FORMAT
    format_version: int = FORMAT_VERSION

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=2).encode()

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        if raw.get("format") != FORMAT:
            raise _Damage("its manifest names no Trove backup format")
        known = {f.name for f in fields(cls)}
        raw["files"] = tuple(BackupFile(**f) for f in raw["files"])
        raw["counts"] = {str(k): int(v) for k, v in raw["counts"].items()}
        manifest = cls(**{k: v for k, v in raw.items() if k in known})  # a newer format says so in format_version
        if manifest.format_version > FORMAT_VERSION:
            raise SchemaTooNewError(f"This backup was written by a newer Trove (backup format "
                                    f"{manifest.format_version}); update Trove to restore it. Nothing was changed.")
        return manifest


@dataclass(frozen=True)
class BackupReport:
    """What `Library.backup` wrote."""

    path: Path
    bytes: int
    manifest: Manifest


@dataclass(frozen=True)
class RestoreReport:
    """What `restore_library` put in place, and where the library it replaced was kept."""

    home: Path
    manifest: Manifest
    kept_aside: Path | None  # the dated folder holding the replaced files (None: there was no library)
    moved: list[str] = field(default_factory=list)


class LibraryBackups:
    """A Library's backups (`library.backups`): write one while the library is in use, verify one, restore one."""

    def __init__(self, library: Any) -> None:
        self._library = library

    def backup(self, path: str | os.PathLike[str] | None = None) -> BackupReport:
        """Write a consistent, compressed backup of an embedded library (`path`: a file, or a folder for a dated
        name; None: the current folder)."""
        target = Path(path if path is not None else ".")
        backup_to = getattr(self._library.store, "backup_to", None)
        if backup_to is None:  # a team library: what this person may read, as an embedded library (team_backup.py)
            from desktop_app.core.team_backup import copy_visible, local_settings

            store = self._library.store
            return write_backup(self._library.home, target, lambda dest: copy_visible(store, dest),
                                rewrite={"settings.json": local_settings})
        return write_backup(self._library.home, target, backup_to)

    @staticmethod
    def default_name() -> str:
        """trove-backup-<date>-<time>.tar.gz: what `backup` calls a backup written into a folder."""
        return default_backup_name()

    def check(self, path: str | os.PathLike[str]) -> Manifest:
        """Read and verify a whole backup file (manifest, schema, checksums) without changing anything."""
        return check_backup(Path(path))

    def restore(self, path: str | os.PathLike[str]) -> RestoreReport:
        """Verify the backup, close the library, keep its files aside and put the backup's in place. A damaged or
        newer backup raises first, with nothing closed or changed; afterwards open a new Library."""
        self.check(path)
        self._library.close()
        return restore_library(self._library.home, Path(path))


def default_backup_name(now: float | None = None) -> str:
    """trove-backup-<date>-<time>.tar.gz"""
    return time.strftime("trove-backup-%Y%m%d-%H%M%S.tar.gz", time.localtime(now))


# ---- writing ------------------------------------------------------------------------------------------------


def write_backup(home: Path, target: Path, copy_db: Any,
                 rewrite: dict[str, Callable[[bytes], bytes]] | None = None) -> BackupReport:
    """Write a backup of the library in `home` to `target`; `copy_db(path)` writes the consistent database copy;
    `rewrite` changes a home file on its way in (a team library's settings lose the server's address).

    The file appears whole or not at all (written as `<target>.partial`, then renamed)."""
    target = Path(target).expanduser().absolute()
    if target.is_dir():
        target = target / default_backup_name()
    if target.exists():
        raise KnownError(f"{target} already exists; name a new file for the backup.")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    db_copy = target.with_name(f".{target.name}.db-partial")
    rewritten = {name: target.with_name(f".{target.name}.{name}-partial") for name in (rewrite or {})}
    try:
        copy_db(db_copy)
        facts = copy_facts(db_copy)
        payload = [(DB_NAME, db_copy)]
        for name in HOME_FILES:
            if (home / name).is_file() and name in rewritten:
                rewritten[name].write_bytes((rewrite or {})[name]((home / name).read_bytes()))
                payload.append((name, rewritten[name]))
            elif (home / name).is_file():
                payload.append((name, home / name))
        manifest = _manifest(facts, payload)
        _write_archive(partial, manifest, payload)
        os.replace(partial, target)
    except OSError as exc:
        raise KnownError(f"Cannot write the backup {target}: {exc.strerror or exc}") from exc
    finally:
        for leftover in (db_copy, partial, *rewritten.values()):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
    log.info("backed up %s to %s (%d bytes)", home, target, target.stat().st_size)
    return BackupReport(target, target.stat().st_size, manifest)


def _manifest(facts: CopyFacts, payload: list[tuple[str, Path]]) -> Manifest:
    whole = hashlib.sha256()
    files = []
    for name, path in payload:
        one = hashlib.sha256()
        with open(path, "rb") as src:
            while block := src.read(_CHUNK):
                one.update(block)
                whole.update(block)
        files.append(BackupFile(name, path.stat().st_size, one.hexdigest()))
    return Manifest(time.strftime("%Y-%m-%dT%H:%M:%S%z"), __version__, facts.schema_version, facts.embedder,
                    facts.counts, tuple(files), whole.hexdigest())


def _write_archive(path: Path, manifest: Manifest, payload: list[tuple[str, Path]]) -> None:
    with open(path, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
        data = manifest.to_json()
        info = tarfile.TarInfo(MANIFEST)
        info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
        tar.addfile(info, io.BytesIO(data))
        for name, src in payload:
            member = tarfile.TarInfo(name)  # no owner names or ids of this machine in the file
            member.size, member.mtime, member.mode = src.stat().st_size, int(src.stat().st_mtime), 0o600
            with open(src, "rb") as fh:
                tar.addfile(member, fh)
        raw.flush()
        os.fsync(raw.fileno())


# ---- reading ------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _members(archive: Path) -> Iterator[tuple[tarfile.TarFile, Iterator[tarfile.TarInfo], gzip.GzipFile]]:
    """The archive as a stream: (tar, its members, the gzip stream). Damage of any kind becomes one line."""
    try:
        with open(archive, "rb") as raw, gzip.GzipFile(fileobj=raw) as gz, tarfile.open(fileobj=gz, mode="r|") as tar:
            yield tar, iter(tar), gz
    except FileNotFoundError as exc:
        raise KnownError(f"No backup file at {archive}; nothing was changed.") from exc
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, UnicodeDecodeError, ValueError, KeyError,
            TypeError) as exc:
        raise DamagedBackupError(f"The backup {archive} is damaged or not a Trove backup ({_why(exc)}); "
                                 "nothing was changed.") from exc
    except OSError as exc:
        raise KnownError(f"Cannot read the backup {archive}: {exc.strerror or exc}; nothing was changed.") from exc


def _why(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:160]


def _read_manifest(tar: tarfile.TarFile, members: Iterator[tarfile.TarInfo]) -> Manifest:
    first = next(members, None)
    if first is None or first.name != MANIFEST:
        raise _Damage("its first entry is not manifest.json")
    data = tar.extractfile(first)
    if data is None:
        raise _Damage("manifest.json is not a file")
    return Manifest.from_json(data.read())


def _check_schema(version: int, archive: Path) -> None:
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(f"The backup {archive} was made by a newer Trove (schema {version}; "
                                f"this version knows up to {SCHEMA_VERSION}); update Trove to restore it. "
                                "Nothing was changed.")


def read_manifest(archive: Path) -> Manifest:
    """The manifest of a backup (its first entry), refusing a backup of a newer schema."""
    archive = Path(archive).expanduser()
    with _members(archive) as (tar, members, _gz):
        manifest = _read_manifest(tar, members)
    _check_schema(manifest.schema_version, archive)
    return manifest


def check_backup(archive: Path) -> Manifest:
    """Read a whole backup and verify it (manifest, schema, every sha256, the gzip CRC) without writing anything."""
    return _unpack(Path(archive).expanduser(), None)


def _unpack(archive: Path, into: Path | None) -> Manifest:
    """Verify `archive` as it streams; with `into`, write its payload files there."""
    with _members(archive) as (tar, members, gz):
        manifest = _read_manifest(tar, members)
        _check_schema(manifest.schema_version, archive)
        expected = {f.name: f for f in manifest.files}
        whole, seen = hashlib.sha256(), []
        for member in members:
            want = expected.get(member.name)
            if want is None or not member.isfile() or member.name in seen:
                raise _Damage(f"unexpected entry {member.name!r}")
            seen.append(member.name)
            got = _copy_member(tar.extractfile(member), into / member.name if into else None, whole)
            if got != want.sha256:
                raise _Damage(f"{member.name} does not match its checksum")
        while gz.read(_CHUNK):  # to the end of the gzip stream, so its CRC and length are checked too
            pass
        if seen != [f.name for f in manifest.files]:
            raise _Damage(f"files missing: {', '.join(sorted(set(expected) - set(seen)))}")
        if whole.hexdigest() != manifest.payload_sha256:
            raise _Damage("the payload does not match its checksum")
    return manifest


def _copy_member(src: IO[bytes] | None, dest: Path | None, whole: Any) -> str:
    one = hashlib.sha256()
    assert src is not None
    out = open(dest, "wb") if dest is not None else None  # noqa: SIM115 -- closed below
    try:
        while block := src.read(_CHUNK):
            one.update(block)
            whole.update(block)
            if out is not None:
                out.write(block)
    finally:
        if out is not None:
            out.close()
    return one.hexdigest()


# ---- restoring ----------------------------------------------------------------------------------------------


def restore_library(home: Path, archive: Path) -> RestoreReport:
    """Put the backup `archive` in place as the library in `home` (which no Library may have open).

    The current database, its companions and the home files the backup replaces are renamed into
    `home/before-restore-<date>-<time>/` first. A damaged or newer backup raises before anything changes."""
    archive, home = Path(archive).expanduser().absolute(), Path(home)
    read_manifest(archive)  # a newer schema is refused before anything is unpacked
    stamp = time.strftime("%Y%m%d-%H%M%S")
    staging = home / f".restoring-{stamp}"
    staging.mkdir(mode=0o700)
    try:
        manifest = _unpack(archive, staging)
        problem = integrity(staging / DB_NAME)
        if problem != "ok":
            raise DamagedBackupError(f"The database in the backup {archive} is damaged ({problem}); "
                                     "nothing was changed.")
        _check_schema(copy_facts(staging / DB_NAME).schema_version, archive)  # the database itself, too
        kept, moved = _keep_aside(home, stamp)
        for entry in manifest.files:
            os.replace(staging / entry.name, home / entry.name)
    except OSError as exc:
        raise KnownError(f"Cannot restore into {home}: {exc.strerror or exc}; nothing was changed.") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("restored %s from %s; the replaced library is in %s", home, archive, kept)
    return RestoreReport(home, manifest, kept, moved)


def _keep_aside(home: Path, stamp: str) -> tuple[Path | None, list[str]]:
    """Rename the current library's files into home/before-restore-<stamp>/; returns it (None: nothing to keep)."""
    db = home / DB_NAME
    checkpoint(db)
    names = [DB_NAME + s for s in ("", *DB_COMPANIONS)] + list(HOME_FILES)
    present = [n for n in names if os.path.lexists(home / n)]
    if not present:
        return None, []
    aside = home / f"before-restore-{stamp}"
    aside.mkdir(mode=0o700)
    for name in present:
        os.replace(home / name, aside / name)
    return aside, present
