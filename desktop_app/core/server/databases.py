"""The databases half of TroveServer: provisioning the cluster, adopting, migrating, creating, dropping and backing
up its libraries. What each step asks of PostgreSQL is the engine's SQL (store/postgres/access/provision.py,
roles.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import psycopg

from desktop_app.core.log import get_logger
from desktop_app.core.server.process import ServerError, bin_dir, check_private, run_user
from desktop_app.core.store.postgres.access import provision
from desktop_app.core.store.postgres.access import roles as roles_mod
from desktop_app.core.store.postgres.access.provision import DATABASE, EXTENSIONS

log = get_logger("server")


def check_locked(conn: psycopg.Connection) -> None:
    """A ServerError naming the people who may still create tables in this library (their logins are refused)."""
    loose = provision.people_who_may_create(conn)
    if loose:
        name = provision.current_database(conn)
        raise ServerError(f"In library {name!r}, {', '.join(loose)} may create temporary tables or objects, so "
                          f"their logins are refused: REVOKE TEMPORARY, CREATE ON DATABASE {name} (and CREATE ON "
                          "SCHEMA public) from them.")


class ServerDatabases:
    """The databases half of TroveServer (which provides admin() and url())."""

    def admin(self, database: str = "postgres") -> psycopg.Connection:
        raise NotImplementedError

    def url(self, database: str = DATABASE, password: str | None = None) -> str:
        raise NotImplementedError

    def _config(self) -> dict[str, Any]:
        raise NotImplementedError

    def backup(self, path: Path, database: str = DATABASE) -> Path:
        """A pg_dump of one library (custom format, every row: the superuser over the private socket), written
        by the bundled pg_dump to `path`, mode 0600; `pg_restore` reads it back."""
        config = self._config()
        check_private(config.get("socket_dir", ""), run_user())
        path = path.expanduser().absolute()
        cmd = [str(bin_dir() / "pg_dump"), "--format=custom", f"--file={path}", "-h", config["socket_dir"],
               "-p", str(config["port"]), "-U", "postgres", database]
        # Every person's rows: readable by this user only, even while pg_dump writes it (umask), and if it existed.
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL,
                              umask=0o077)
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
            raise ServerError(f"pg_dump failed: {tail[0]}")
        path.chmod(0o600)
        return path

    def _provision(self, password: str) -> None:
        """The roles (the trove role's password reset to ours), the trove database, every library handed to
        trove_owner, and the trove database's schema migrated as the owner."""
        with self.admin() as conn:
            roles_mod.ensure_group_roles(conn)
            roles_mod.ensure_admin(conn, password)
            provision.close_cluster_databases(conn)
            libraries = provision.library_databases(conn)
        self.create_database(DATABASE)
        for name in {*libraries, DATABASE}:
            self._adopt(name, check=False)
        with self.admin() as conn:
            roles_mod.harden_memberships(conn, sorted({*libraries, DATABASE}))
        self.migrate(DATABASE)

    def _adopt(self, name: str, *, check: bool = True) -> None:
        """Make `name` a library as `trove server` keeps them (whoever made it: createdb, pg_restore): owned by
        trove_owner, connectable by people only, locked down; a ServerError (with `check`) if people may still
        create tables in it."""
        with self.admin() as conn:
            provision.own_database(conn, name)
        with self.admin(name) as conn:
            provision.prepare_library(conn)
            if check:
                check_locked(conn)
            else:
                for loose in provision.people_who_may_create(conn):
                    log.warning("in library %s, %s may create tables: their logins are refused", name, loose)

    def migrate(self, database: str = DATABASE) -> None:
        """Bring a library's schema up to date, as trove_owner (`trove server migrate`), after locking it down
        (a ServerError names anyone who may still create tables in it)."""
        self._adopt(database)
        with self.admin(database) as conn:
            provision.create_extensions(conn, EXTENSIONS)
            provision.migrate_as_owner(conn, self.url(database))

    def create_database(self, name: str, *, extensions: tuple[str, ...] = EXTENSIONS,
                        template: str | None = None) -> str:
        """A database owned by trove_owner with `extensions` (none: a database without pgvector), copied from
        `template` when given; only trove_owner's members and trove_people may connect. Returns its URL."""
        with self.admin() as conn:
            provision.ensure_database(conn, name, template)
        with self.admin(name) as conn:
            provision.create_extensions(conn, extensions)
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop a database (its connections are ended first)."""
        with self.admin() as conn:
            provision.drop_database(conn, name)
