"""Meta, folders (each on one machine's disk, watched by one or more machines) and counts."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import psycopg

from desktop_app.core.errors import KnownError
from desktop_app.core.store.postgres.access.permissions import PEOPLE_GROUP, Share, display_name, share_of
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.connect import plain_notice, scalar
from desktop_app.core.store.rows import Failure, FolderCounts, FolderRow, FolderState

# This machine's view of its folders: the folder, plus its own watcher row (state, when it scanned).
_COLUMNS = "f.id, f.path, w.state, w.added_at, w.last_scan, f.machine_id, f.owner, f.visibility, f.people"
_MINE = f"SELECT {_COLUMNS} FROM folders f JOIN folder_watchers w ON w.folder_id = f.id AND w.machine_id = %(m)s"
MY_FOLDER_IDS = "SELECT folder_id FROM folder_watchers WHERE machine_id = %(m)s"
SAMPLE = 20  # documents compared to decide that another machine's folder is the same files (a shared drive)


def _folder(row: Any) -> FolderRow:
    share = share_of(row[7], row[8])
    return FolderRow(int(row[0]), row[1], FolderState(row[2]), float(row[3] or 0.0), row[4], row[5],
                     owner=display_name(row[6]), visibility=share.visibility, people=share.people)


def same_files(samples: Sequence[tuple[str, int]]) -> bool:
    """Whether this machine sees another machine's folder as the same files: most sampled documents exist here
    with the same size (a share mounted at the same path), not merely a folder with the same name."""
    if not samples:
        return False
    seen = 0
    for path, size in samples:
        try:
            seen += os.stat(path).st_size == size
        except OSError:
            pass
    return seen >= max(1, int(0.8 * len(samples)))


class FolderSQL(PostgresBase):
    """Meta, folders (with who may see them), counts and failures."""

    person: bool = False  # set by PostgresStore: this connection's role is a person, not the administrator
    role: str = ""

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A library-wide value the index depends on."""
        row = self._read(lambda c: c.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone())
        return row[0] if row else default

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or with None, remove) a meta value (a person may not change the library-wide ones)."""
        def work(conn: psycopg.Connection) -> None:
            if value is None:
                conn.execute("DELETE FROM meta WHERE key = %s", (key,))
            else:
                conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) "  # plain: meta's CHECK (013)
                             "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (key, plain_notice(value)))
        try:
            self._write(work)
        except psycopg.errors.InsufficientPrivilege:
            raise KnownError(f"Only the team library's administrator can change {key!r}.") from None

    def add_folder(self, path: str, share: Share | None = None) -> FolderRow:
        """This machine's folder at `path`: the one it has, another machine's of the same person that is the same
        files (a shared drive: watched from here too, indexed once), or a new one seen by `share` (None: the
        library's default for new folders). An existing folder keeps who sees it unless `share` is given."""
        roles = self._share_roles(share) if share else None
        me = {"m": self.machine_id, "p": path, "now": time.time()}

        def work(conn: psycopg.Connection) -> FolderRow:
            row = conn.execute(_MINE + " WHERE f.path = %(p)s ORDER BY f.machine_id <> %(m)s", me).fetchone()
            if row is not None and share is None:
                return _folder(row)
            folder_id = int(row[0]) if row is not None else (_shared_folder(conn, me) or _own_folder(conn, me))
            if share is not None:
                _set_share(conn, folder_id, share.visibility, roles or [])
            conn.execute("INSERT INTO folder_watchers (folder_id, machine_id, state, added_at) "
                         "VALUES (%s, %s, 'active', %s) ON CONFLICT DO NOTHING", (folder_id, me["m"], me["now"]))
            return _folder(conn.execute(_MINE + " WHERE f.id = %(id)s", {**me, "id": folder_id}).fetchone())
        return self._write(work)

    def set_folder_share(self, folder_id: int, share: Share) -> FolderRow:
        """Change who may see a folder (its owner, or the administrator, may)."""
        roles = self._share_roles(share)

        def work(conn: psycopg.Connection) -> None:
            _set_share(conn, folder_id, share.visibility, roles)
        self._write(work)
        return self.folder(folder_id) or next(f for f in self.all_folders() if f.id == folder_id)

    def default_share(self) -> Share:
        """Who sees a new folder unless its owner says otherwise (the administrator's setting; team by default)."""
        return share_of(self.get_meta("default_share") or "team", ())

    def set_default_share(self, share: Share) -> None:
        """The administrator's choice for new folders: team or private."""
        if share.visibility == "people":
            raise KnownError("The default for new folders is team or private.")
        self.set_meta("default_share", share.visibility)

    def _share_roles(self, share: Share) -> list[str]:
        """The login roles of the people a folder is shared with (a KnownError names anyone not in the library)."""
        if not share.people:
            return []
        known = {r[0] for r in self._read(lambda c: c.execute(
            "SELECT r.rolname FROM pg_roles r WHERE r.rolname = ANY(%s) AND pg_has_role(r.oid, %s, 'MEMBER')",
            (share.roles, PEOPLE_GROUP)).fetchall())} if self._has_people_group() else set()
        missing = [display_name(r) for r in share.roles if r not in known]
        if missing:
            raise KnownError(f"No one named {', '.join(missing)} is in this team library "
                             "(trove server users lists who is).")
        return share.roles

    def _has_people_group(self) -> bool:
        return self._read(lambda c: c.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                              (PEOPLE_GROUP,)).fetchone() is not None)

    def folders(self) -> list[FolderRow]:
        """The folders this machine watches, by path."""
        rows = self._read(lambda c: c.execute(_MINE + " ORDER BY f.path", {"m": self.machine_id}).fetchall())
        return [_folder(r) for r in rows]

    def all_folders(self) -> list[FolderRow]:
        """Every machine's folders (state as their own machine last recorded it), by path."""
        rows = self._read(lambda c: c.execute(
            "SELECT f.id, f.path, COALESCE(w.state, 'active'), f.added_at, w.last_scan, f.machine_id, f.owner, "
            "f.visibility, f.people FROM folders f "
            "LEFT JOIN folder_watchers w ON w.folder_id = f.id AND w.machine_id = f.machine_id "
            "ORDER BY f.path, f.machine_id").fetchall())
        return [_folder(r) for r in rows]

    def folder(self, folder_id: int) -> FolderRow | None:
        """One of this machine's folders by id."""
        row = self._read(lambda c: c.execute(_MINE + " WHERE f.id = %(id)s",
                                             {"m": self.machine_id, "id": folder_id}).fetchone())
        return _folder(row) if row else None

    def folder_ids(self, paths: Sequence[str]) -> tuple[int, ...]:
        """Ids of the library folders (of any machine) among `paths`."""
        if not paths:
            return ()
        rows = self._read(lambda c: c.execute("SELECT id FROM folders WHERE path = ANY(%s)", (list(paths),)).fetchall())
        return tuple(int(r[0]) for r in rows)

    def set_folder_state(self, folder_id: int, state: FolderState) -> None:
        """Record this machine's state for a folder (another machine may see the same folder differently)."""
        self._write(lambda c: c.execute(
            "UPDATE folder_watchers SET state = %s WHERE folder_id = %s AND machine_id = %s",
            (FolderState(state).value, folder_id, self.machine_id)))

    def mark_scanned(self, folder_id: int, when: float) -> None:
        """Record the end of this machine's full reconcile of a folder."""
        self._write(lambda c: c.execute(
            "UPDATE folder_watchers SET last_scan = %s WHERE folder_id = %s AND machine_id = %s",
            (when, folder_id, self.machine_id)))

    def delete_folder(self, folder_id: int) -> int:
        """Stop watching a folder here; the last machine to let it go purges it with its documents."""
        def work(conn: psycopg.Connection) -> int:
            conn.execute("DELETE FROM folder_watchers WHERE folder_id = %s AND machine_id = %s",
                         (folder_id, self.machine_id))
            conn.execute("DELETE FROM folder_leases WHERE folder_id = %s AND machine_id = %s",
                         (folder_id, self.machine_id))
            if conn.execute("SELECT 1 FROM folder_watchers WHERE folder_id = %s", (folder_id,)).fetchone():
                return 0
            n = scalar(conn.execute("SELECT count(*) FROM documents WHERE folder_id = %s", (folder_id,)))
            conn.execute("DELETE FROM folders WHERE id = %s", (folder_id,))
            return int(n)
        return self._write(work)

    def counts(self, folder_id: int | None = None) -> FolderCounts:
        """Documents, failures, chunks, embedded chunks and pages waiting for OCR, of one folder (None: all).
        Read from the kept counts (migration 008) and what waits: no document or chunk is scanned."""
        def work(conn: psycopg.Connection) -> FolderCounts:
            where, args = ("WHERE folder_id = %s", (folder_id,)) if folder_id is not None else ("", ())
            docs, failed, chunks = conn.execute(
                f"SELECT COALESCE(sum(documents), 0), COALESCE(sum(failed), 0), COALESCE(sum(chunks), 0) "
                f"FROM doc_counts {where}", args).fetchone() or (0, 0, 0)
            mine = " AND folder_id = %s" if folder_id is not None else ""
            waiting = scalar(conn.execute("SELECT count(*) FROM chunks WHERE NOT embedded" + mine, args))
            if folder_id is None:
                ocr = scalar(conn.execute("SELECT count(*) FROM ocr_pages WHERE status = 'pending'"))
            else:
                ocr = scalar(conn.execute("SELECT count(*) FROM ocr_pages o JOIN documents d ON d.id = o.document_id "
                                          "WHERE o.status = 'pending' AND d.folder_id = %s", args))
            return FolderCounts(int(docs), int(failed), int(chunks), int(chunks) - int(waiting or 0), int(ocr or 0))
        return self._read(work)

    def folder_has_documents(self, folder_id: int) -> bool:
        """Whether anything was ever indexed (or failed) from the folder."""
        return self._read(lambda c: c.execute(
            "SELECT 1 FROM documents WHERE folder_id = %s LIMIT 1", (folder_id,)).fetchone() is not None)

    def failures(self) -> list[Failure]:
        """Every failed file with its reason, by path."""
        rows = self._read(lambda c: c.execute(
            "SELECT path, error FROM documents WHERE status = 'failed' ORDER BY path").fetchall())  # documents_failed
        return [Failure(r[0], r[1] or "") for r in rows]

    # ---- leases --------------------------------------------------------------------------------

    def claim_folder(self, folder_id: int) -> bool:
        """Take or keep the right to index a folder (renewed in the background until release or close)."""
        return self.leases.claim(folder_id)

    def release_folder(self, folder_id: int) -> None:
        """Give up the right to index a folder."""
        self.leases.release(folder_id)

    def folder_holder(self, folder_id: int) -> str | None:
        """The machine whose lease on the folder is live now."""
        row = self._read(lambda c: c.execute(
            "SELECT machine_id FROM folder_leases WHERE folder_id = %s AND expires_at > clock_timestamp()",
            (folder_id,)).fetchone())
        return row[0] if row else None


def _shared_folder(conn: psycopg.Connection, me: dict[str, Any]) -> int | None:
    """Another machine's folder at the same path, of the same person, whose files this machine sees too (only a
    folder's owner writes in it, so someone else's stays theirs: this person gets a folder of their own)."""
    for (folder_id,) in conn.execute("SELECT id FROM folders WHERE path = %(p)s AND machine_id <> %(m)s "
                                     "AND owner = current_user ORDER BY id", me).fetchall():
        samples = conn.execute("SELECT path, size FROM documents WHERE folder_id = %s AND status = 'indexed' "
                               "ORDER BY id LIMIT %s", (folder_id, SAMPLE)).fetchall()
        if same_files([(p, int(s)) for p, s in samples]):
            return int(folder_id)
    return None


def _own_folder(conn: psycopg.Connection, me: dict[str, Any]) -> int:
    """This machine's folder row for the path (made now, or kept from before it stopped watching it)."""
    conn.execute("INSERT INTO folders (machine_id, path, added_at) VALUES (%(m)s, %(p)s, %(now)s) "
                 "ON CONFLICT (machine_id, path) DO NOTHING", me)
    return int(scalar(conn.execute("SELECT id FROM folders WHERE machine_id = %(m)s AND path = %(p)s", me)))


def _set_share(conn: psycopg.Connection, folder_id: int, visibility: str, roles: list[str]) -> None:
    """Write a folder's visibility; nothing changed (the policy hides it or it is not ours) is a KnownError."""
    if conn.execute("UPDATE folders SET visibility = %s, people = %s WHERE id = %s",
                    (visibility, roles, folder_id)).rowcount == 0:
        raise KnownError("Only the person who added this folder can change who sees it.")
