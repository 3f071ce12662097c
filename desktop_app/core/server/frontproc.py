"""Starting and stopping the TLS front (store/postgres/access/front.py, run as a script) beside the server, as the
server's user."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from desktop_app.core.server.process import ServerError, append_log, read_here, write_private
from desktop_app.core.store.postgres.access import front

READY_SECONDS = 20
WILDCARDS = ("0.0.0.0", "::", "*", "")


class FrontProcess:
    """The front of one server: DATA/front.json (what it serves), DATA/front.pid, DATA/front.log."""

    def __init__(self, data: Path) -> None:
        self.config = data / "front.json"
        self.pid_file = data / "front.pid"
        self.log = data / "front.log"

    def configure(self, conf: dict[str, Any], user: str | None) -> None:
        """Write what the front serves; a running front takes it on its next connection."""
        write_private(self.config, json.dumps(conf, indent=2).encode(), user)

    def pid(self) -> int | None:
        """The running front's process id (None: not running; a recorded id reused by another program after a
        reboot is not ours)."""
        try:
            pid = int(read_here(self.pid_file).strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        try:
            if str(self.config).encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
                return None
        except OSError:
            pass  # no /proc (macOS): trust the pid file
        return pid

    def start(self, user: str | None, listen: str, port: int) -> None:
        """Start the front (when it is not running) and wait until it accepts connections."""
        if self.pid() is not None:
            return
        # It starts as whoever runs `trove server start`, because the interpreter may live where the server's
        # system user cannot read; as root it binds its port, loads what it needs, and then drops to that user
        # (front.json's "user"). Its log and pid file are opened here, never through a symlink: the data folder
        # holds files the server's user owns.
        log = append_log(self.log)
        try:
            script = Path(front.__file__).with_name("front.py")
            proc = subprocess.Popen([sys.executable, "-E", "-s", str(script), str(self.config)],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd="/",
                                    start_new_session=True)
        finally:
            os.close(log)
        write_private(self.pid_file, str(proc.pid).encode(), None)
        host = listen.split(",")[0].strip()
        host = "127.0.0.1" if host in WILDCARDS else host
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                tail = read_here(self.log).strip().splitlines()[-1:] or ["no output"]
                raise ServerError(f"The TLS front could not start on {listen}:{port}: {tail[0]}")
            try:
                socket.create_connection((host, port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise ServerError(f"The TLS front did not start listening on {listen}:{port} within {READY_SECONDS} s")

    def stop(self) -> None:
        pid = self.pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            try:
                os.kill(pid, 0)
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    break
            except ChildProcessError:
                pass
            except OSError:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
