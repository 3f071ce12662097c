"""`trove server invite | users | revoke | rotate`: the people of a team library, managed on the server machine.

An invite makes the person's login role with a random one-time token as its password, valid for `hours`; until
it is accepted the role may only connect to that library and accept (roles.py). `trove join` on their desktop
replaces the token with a password only that desktop knows and makes the role a member of the library's group
(provision.ACCEPT_INVITE). Revoking takes the login away, drops the person from every library's group and ends
their open sessions at once.
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from desktop_app.core.server.invite import Invite, encode
from desktop_app.core.server.process import run_user
from desktop_app.core.server.tls import cert_names, pem_to_der, server_names
from desktop_app.core.store.postgres.access import roles

if TYPE_CHECKING:
    import psycopg

    from desktop_app.core.server.tls import ServerTLS

INVITE_HOURS = 24.0  # a token is a pending login: short-lived


class ServerPeople:
    """The people half of TroveServer (which provides admin(), host(), tls and the saved config)."""

    tls: ServerTLS

    def admin(self, database: str = "postgres") -> psycopg.Connection:
        raise NotImplementedError

    def host(self) -> str:
        raise NotImplementedError

    def _config(self) -> dict[str, Any]:
        raise NotImplementedError

    def _configure_front(self, user: str | None) -> None:
        raise NotImplementedError

    def _adopt(self, name: str, *, check: bool = True) -> None:
        raise NotImplementedError

    def invite(self, person: str, *, host: str | None = None, hours: float = INVITE_HOURS,
               database: str = "trove") -> str:
        """A new person and their one-time invite (`host`: the name or address their desktop reaches us at)."""
        token = secrets.token_urlsafe(18)
        expires = time.time() + hours * 3600
        host = self._covered(host or self.host())
        self._adopt(database)  # locked down, with its group and accept_invite
        with self.admin() as conn:
            role = roles.create_person(conn, person, token, valid_until=expires, database=database)
        return self._encode(host, database, role, token, expires)

    def rotate(self, person: str, *, host: str | None = None, hours: float = INVITE_HOURS,
               database: str = "trove") -> str:
        """A new invite for an existing (or revoked) person; their old password and sessions end now."""
        token = secrets.token_urlsafe(18)
        expires = time.time() + hours * 3600
        host = self._covered(host or self.host())
        self._adopt(database)
        with self.admin() as conn:
            roles.rotate_person(conn, person, token, valid_until=expires, database=database)
        return self._encode(host, database, roles.role_name(person), token, expires)

    def revoke(self, person: str) -> None:
        """The person can no longer log in, and their open sessions end."""
        with self.admin() as conn:
            roles.revoke_person(conn, person)

    def users(self) -> list[tuple[str, str, int]]:
        """(name, state, open sessions) of every person."""
        with self.admin() as conn:
            return roles.people_status(conn)

    def _encode(self, host: str, database: str, role: str, token: str, expires: float) -> str:
        port = int(self._config().get("port", 5432))
        return encode(Invite(host, port, database, roles.person_of(role), token,
                             pem_to_der(self.tls.ca_pem()), expires))

    def _covered(self, host: str) -> str:
        """`host`, after making sure the server's certificate names it (re-issued from the same CA if not)."""
        if host not in cert_names(self.tls.cert.read_bytes()):
            listen = str(self._config().get("listen", "127.0.0.1"))
            self.tls.ensure(server_names(listen, (host,)), run_user())
            self._configure_front(run_user())  # the front loads the new certificate on its next connection
        return host
