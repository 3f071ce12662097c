"""This machine's stable id, so a server library knows whose disk a folder is on.

The id is made once (host name + random suffix) and kept in the user's config folder; TROVE_MACHINE_ID
overrides it (tests run several "machines" on one computer that way).
"""

from __future__ import annotations

import os
import re
import socket
import uuid
from pathlib import Path

import platformdirs

from desktop_app.core.log import get_logger

log = get_logger("db")

ENV = "TROVE_MACHINE_ID"
FILE_NAME = "machine-id"
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def new_machine_id(hostname: str | None = None) -> str:
    """A readable, unique id: the host name (letters, digits, . _ -) and 8 random hex digits."""
    host = _SAFE.sub("-", hostname or socket.gethostname() or "machine").strip("-")[:40] or "machine"
    return f"{host}-{uuid.uuid4().hex[:8]}"


def config_dir() -> Path:
    """Where per-user (not per-library) Trove state lives."""
    return Path(platformdirs.user_config_dir("trove", appauthor=False))


def machine_id(folder: Path | None = None) -> str:
    """This machine's id: $TROVE_MACHINE_ID, else the one saved in `folder` (the config dir), made on first use."""
    override = os.environ.get(ENV, "").strip()
    if override:
        return override
    path = (folder or config_dir()) / FILE_NAME
    try:
        saved = path.read_text(encoding="utf-8").strip()
        if saved:
            return saved
    except OSError:
        pass
    made = new_machine_id()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(made + "\n", encoding="utf-8")
    except OSError as exc:  # a read-only home still works; the id just changes next time
        log.warning("could not save the machine id in %s: %s", path, exc)
    return made
