"""Folder leases: on a shared library only one machine indexes a folder at a time.

A lease is a row (folder, machine, expires_at by the server's clock). Claiming inserts it, renews our own,
or takes over one that expired (its machine stopped renewing: crashed, switched off, lost its network).
While this process holds leases, a thread renews them every third of the lease time.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger

log = get_logger("db")

LEASE_SECONDS = float(os.environ.get("TROVE_LEASE_SECONDS", "30"))

_CLAIM = """
INSERT INTO folder_leases (folder_id, machine_id, expires_at)
VALUES (%(f)s, %(m)s, clock_timestamp() + make_interval(secs => %(s)s))
ON CONFLICT (folder_id) DO UPDATE SET machine_id = EXCLUDED.machine_id, expires_at = EXCLUDED.expires_at
WHERE folder_leases.machine_id = EXCLUDED.machine_id OR folder_leases.expires_at < clock_timestamp()
RETURNING machine_id
"""


class LeaseKeeper:
    """Claims, renews and releases this machine's folder leases."""

    def __init__(self, machine: str, write: Callable[..., Any], seconds: float = LEASE_SECONDS) -> None:
        self.machine = machine
        self.seconds = max(seconds, 1.0)
        self._write = write
        self._held: set[int] = set()
        self._renewed: dict[int, float] = {}  # monotonic time of each held lease's last renewal
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def claim(self, folder_id: int) -> bool:
        """Take or renew the lease on a folder; False while another live machine holds it. A lease renewed less
        than a third of its time ago is ours without asking the server (the watcher claims once per change)."""
        with self._lock:
            if folder_id in self._held and time.monotonic() - self._renewed.get(folder_id, 0.0) < self.seconds / 3:
                return True
        return self._claim_now(folder_id)

    def _claim_now(self, folder_id: int) -> bool:
        args = {"f": folder_id, "m": self.machine, "s": self.seconds}
        got = self._write(lambda conn: conn.execute(_CLAIM, args).fetchone() is not None)
        with self._lock:
            if got:
                self._held.add(folder_id)
                self._renewed[folder_id] = time.monotonic()
                self._ensure_thread()
            else:
                self._held.discard(folder_id)
        return bool(got)

    def release(self, folder_id: int) -> None:
        """Give up a folder's lease (if we hold it)."""
        with self._lock:
            self._held.discard(folder_id)
            self._renewed.pop(folder_id, None)
        self._write(lambda conn: conn.execute(
            "DELETE FROM folder_leases WHERE folder_id = %s AND machine_id = %s", (folder_id, self.machine)))

    def held(self) -> set[int]:
        """The folders whose leases this process holds."""
        with self._lock:
            return set(self._held)

    def renew_all(self) -> None:
        """Extend every held lease; a lease lost meanwhile (we were paused past expiry) is dropped."""
        for folder_id in self.held():
            if not self._claim_now(folder_id):
                log.warning("lost the lease on folder %s to another machine", folder_id)

    def stop(self) -> None:
        """Stop renewing and release everything held (another machine may take over at once)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5.0)
        held = self.held()
        if held:
            with self._lock:
                self._held.clear()
            self._write(lambda conn: conn.execute(
                "DELETE FROM folder_leases WHERE folder_id = ANY(%s) AND machine_id = %s", (list(held), self.machine)))

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name="trove-leases", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                self.renew_all()
            except KnownError as exc:  # the server is away: retry at the next tick (the lease may lapse)
                log.warning("could not renew folder leases: %s", exc)
