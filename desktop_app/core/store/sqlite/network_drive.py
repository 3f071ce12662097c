"""Libraries on network drives: which journal a library's SQLite file may use where it lies.

SQLite's WAL keeps its index in a memory-mapped -shm file that every connection must share; on a network
filesystem (NFS, SMB/CIFS, 9P, cluster filesystems) two machines each map their own copy and corrupt the database
(https://sqlite.org/wal.html, "WAL does not work over a network filesystem"), and a FUSE filesystem may be a
network one in disguise (sshfs, rclone, s3fs) or not share a mapping at all. Such a library uses the rollback
journal (journal_mode=DELETE), which needs only POSIX byte-range locks, and the person is told once per command
why searching may now wait while indexing writes. Where even a lock cannot be taken (measured by taking one, not
guessed from the mount's options), every write would fail midway, so the library refuses to open for writing
with one line instead. A mount whose locks stay on this computer (NFS nolock, SMB nobrl) passes that probe, so
the notice names the option and warns against opening the library from two computers at once.

The mount holding a path is read from /proc/self/mountinfo (Linux). Elsewhere nothing is known and WAL stays.
"""

from __future__ import annotations

import errno
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import KnownError

MOUNTINFO = Path("/proc/self/mountinfo")
# filesystems whose files other machines (or a userspace daemon) also serve: WAL's shared memory is not shared there
NETWORK_TYPES = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "9p", "afs", "ceph", "glusterfs", "lustre", "gpfs", "gfs2",
    "ocfs2", "beegfs", "coda", "davfs", "virtiofs", "fuse", "fuseblk",
})
# a lock call that says the filesystem has no locking at all (not that someone else holds the lock)
NO_LOCKING = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL})


@dataclass(frozen=True)
class Mount:
    """One line of mountinfo: where it is mounted, the filesystem type and what it mounts."""

    point: str
    fstype: str
    source: str
    options: tuple[str, ...] = ()  # the filesystem's own (super) options

    @property
    def network(self) -> bool:
        """Whether WAL is unsafe here: a network or FUSE filesystem (`fuse.sshfs` is FUSE with a subtype)."""
        return self.fstype in NETWORK_TYPES or self.fstype.startswith(("fuse.", "fuseblk."))

    @property
    def local_locks(self) -> str:
        """The option by which this network mount keeps file locks on this computer only ("" if none): NFS with
        nolock or local_lock=posix|all, SMB with nobrl. Another computer's Trove then never sees this one's lock."""
        if self.fstype.startswith("nfs"):
            return next((o for o in self.options if o in ("nolock", "local_lock=posix", "local_lock=all")), "")
        if self.fstype in ("cifs", "smb3"):
            return "nobrl" if "nobrl" in self.options else ""
        return ""


def unescape(field: str) -> str:
    r"""Mountinfo writes space, tab, newline and backslash in paths as octal escapes (\040, \011, \012, \134)."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts in mountinfo order (see proc(5)): `id parent dev root point options [optional…] - type source
    super-options`; the optional fields end at a lone "-"."""
    mounts = []
    for line in text.splitlines():
        fields = line.split(" ")
        if "-" not in fields[6:]:
            continue  # not a mountinfo line
        dash = fields.index("-", 6)
        if len(fields) < dash + 3:
            continue
        options = tuple(fields[dash + 3].split(",")) if len(fields) > dash + 3 else ()
        mounts.append(Mount(unescape(fields[4]), fields[dash + 1], unescape(fields[dash + 2]), options))
    return mounts


def mount_of(target: str, mounts: list[Mount]) -> Mount | None:
    """The mount holding `target` (an absolute path without symbolic links): the longest mount point above it, the
    last one mounted when several share it."""
    best: Mount | None = None
    for mount in mounts:
        point = mount.point.rstrip("/") or "/"
        if (target == point or target.startswith(point + "/") or point == "/") \
                and (best is None or len(point) >= len(best.point.rstrip("/") or "/")):
            best = mount
    return best


def _existing(path: Path) -> str:
    """The real path of `path`, or of its nearest folder that exists (a library file not made yet)."""
    path = path.absolute()
    while not path.exists() and path.parent != path:
        path = path.parent
    return os.path.realpath(path)


def network_mount(path: str | Path) -> Mount | None:
    """The network or FUSE mount holding `path`, or None (a local disk, or no mountinfo on this system)."""
    try:
        text = MOUNTINFO.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    mount = mount_of(_existing(Path(path)), parse_mountinfo(text))
    return mount if mount is not None and mount.network else None


def journal_mode(path: str | Path) -> str:
    """The journal a writable connection to `path` uses: "DELETE" on a network drive, else "WAL"."""
    return "DELETE" if network_mount(path) is not None else "WAL"


def network_notice(path: str | Path) -> str:
    """"" on a local disk; on a network drive the one line saying the library uses a rollback journal there, or a
    KnownError when that drive cannot lock a file (every write would then fail midway)."""
    mount = network_mount(path)
    if mount is None:
        return ""
    where = f"{mount.fstype} at {mount.point}"
    if not can_lock(Path(path).parent):
        raise KnownError(f"The library is on a network drive that cannot lock files ({where}): writing to it would "
                         "damage it; move the library folder to a local disk (or mount the drive with locking).")
    notice = (f"This library is on a network drive ({where}): it uses a rollback journal instead of WAL, "
              "so a search waits while indexing writes.")
    if mount.local_locks:  # measured nowhere but named by the mount: its locks never reach another computer
        notice += (f" Its locks stay on this computer ({mount.local_locks}): never open it from two computers at "
                   "once.")
    return notice


def can_lock(folder: Path) -> bool:
    """Take and drop a POSIX byte-range lock (the kind SQLite's rollback journal relies on) on a fresh file in
    `folder`. Only a filesystem without locking says no: nobody else can hold a lock on a file just made."""
    import fcntl  # POSIX only: never reached where there is no mountinfo

    fd, name = tempfile.mkstemp(prefix=".trove-lock-probe-", dir=folder)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, 0)
        return True
    except OSError as exc:
        if exc.errno in NO_LOCKING:
            return False
        raise
    finally:
        os.close(fd)
        os.unlink(name)
