"""Talking to the server: connection strings without passwords, and the server's failures as one-line KnownErrors.

Every psycopg error that is the environment's fault (server down or restarting, wrong password, no pgvector)
becomes a KnownError subclass here; the connection string shown in a message never carries its password.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import errors as pg_errors

from desktop_app.core.errors import BugError, KnownError, ServerUnavailableError

CONNECT_TIMEOUT = int(os.environ.get("TROVE_SERVER_CONNECT_TIMEOUT", "5"))
# How long a write or read keeps retrying while the server is restarting before it gives up and says so.
RETRY_SECONDS = float(os.environ.get("TROVE_SERVER_RETRY_SECONDS", "30"))
# How every Trove connection to a server is made: TLS with the server's certificate checked against the pinned
# CA (`sslrootcert`, added per server), SCRAM with channel binding, and no other way of sending the password.
TLS_PARAMS = {"sslmode": "verify-full", "channel_binding": "require", "require_auth": "scram-sha-256"}


class ServerAuthError(ServerUnavailableError):
    """The server refused the user name or password."""


class MissingExtensionError(KnownError):
    """The database has no pgvector and this role cannot create it."""


class ServerGoneError(ServerUnavailableError):
    """The connection broke in the middle of a statement (a restart, a network cut)."""


class ServerTrustError(KnownError):
    """The server is not the one this desktop trusts (no TLS, a certificate the pinned CA did not sign, another
    way of asking for the password), or it does not admit this desktop: retrying will not help."""


def describe(url: str) -> str:
    """`user@host:port/db` for messages (no password, no query string)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "local socket"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "the library server"
    user = f"{parts.username}@" if parts.username else ""
    return f"{user}{host}{port}{parts.path or ''}"


# SQLSTATE classes and codes that mean "the server is not (or no longer) there", not "your SQL is wrong".
_GONE_CLASSES = ("08",)  # connection exceptions
_GONE_CODES = {"57P01", "57P02", "57P03", "53300"}  # admin/crash shutdown, cannot connect now, too many connections


def is_connection_failure(exc: BaseException) -> bool:
    """Whether `exc` says the connection or server went away (retrying later may work)."""
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError) and not isinstance(
        exc, psycopg.errors.QueryCanceled | psycopg.errors.LockNotAvailable
    ):
        state = getattr(exc, "sqlstate", None)
        if state is None or state[:2] in _GONE_CLASSES or state in _GONE_CODES:
            return True
    state = getattr(exc, "sqlstate", None)
    return state is not None and (state[:2] in _GONE_CLASSES or state in _GONE_CODES)


def translate_connect_error(exc: BaseException, url: str) -> KnownError:
    """A failed connection attempt as one plain line (never with the password)."""
    where = describe(url)
    state = getattr(exc, "sqlstate", None)
    text = str(exc)
    if _password(url):
        text = text.replace(_password(url), "***")
    trust = _trust_problem(text, where)
    if trust is not None:
        return trust
    if "is not permitted to log in" in text:
        return ServerAuthError(f"The library server at {where} no longer lets this person sign in (revoked); "
                               "ask its administrator for a new invite.")
    if state in ("28P01", "28000") or "password authentication failed" in text:
        return ServerAuthError(f"The library server at {where} refused the user name or password.")
    if "permission denied for database" in text:
        return ServerAuthError(f"The library server at {where} does not let this person open that library.")
    if state == "3D000":
        return ServerUnavailableError(f"The library server at {where} has no such database.")
    if state == "57P03":
        return ServerUnavailableError(f"The library server at {where} is starting up or shutting down; try again.")
    if state is None and ("server closed the connection unexpectedly" in text or "reset by peer" in text):
        # Trove's front closes a caller outside --allow as it accepts it, before TLS: it cannot say why (a reset
        # when our SSLRequest reached it first, an end of file otherwise)
        return ServerUnavailableError(
            f"The library server at {where} closed the connection before signing in: it does not admit this "
            "computer's address (on the server, `trove server start --allow ADDRESS/32`; its front.log names the "
            "address it refused), or it is busy with other sign-ins.")
    why = _why(text)
    if why in ("connection refused", "timed out", "no route to host") and not _loopback(url):
        return ServerUnavailableError(
            f"Cannot reach the library server at {where} ({why}). Is it running? If it is, a firewall may block "
            f"the port: on the server, let TCP port {_port(url)} in from this network (e.g. `sudo ufw allow from "
            f"192.168.1.0/24 to any port {_port(url)} proto tcp`, or Windows/macOS firewall settings) and check "
            "that it was started with --listen on an address this computer can reach.")
    return ServerUnavailableError(f"Cannot reach the library server at {where} ({why}). Is it running?")


_HBA = re.compile(r'no pg_hba\.conf entry for host "([^"]+)"')


def _trust_problem(text: str, where: str) -> ServerTrustError | None:
    """The one line for a server that is not trusted, or that does not admit us, or None."""
    lowered = text.lower()
    if "server does not support ssl" in lowered:
        return ServerTrustError(f"The library server at {where} does not offer TLS (plain text): Trove refuses to "
                                "send a password or documents to it unencrypted.")
    if "certificate verify failed" in lowered or "does not match host name" in lowered:
        return ServerTrustError(
            f"The library server at {where} presented a certificate that the CA in your invite did not sign (or "
            "not for this address): it is not the server you joined, or it was set up again. Nothing was sent; "
            "ask its administrator for a new invite.")
    if "root certificate file" in lowered:
        return ServerTrustError(f"The server's CA certificate for {where} is missing on this computer: join again "
                                "with a new invite (`trove join INVITE`).")
    if "channel binding" in lowered or "authentication method requirement" in lowered:
        return ServerTrustError(f"The library server at {where} asked for the password in a way Trove does not "
                                "allow (only SCRAM with channel binding over TLS): refused.")
    found = _HBA.search(text)
    if found:
        return ServerTrustError(
            f"The library server at {where} does not admit connections from this computer ({found.group(1)}): on "
            f"the server, run `trove server start --allow {found.group(1)}/32` (or your network, e.g. "
            "192.168.1.0/24).")
    if "pg_hba.conf rejects connection" in lowered and "no encryption" in lowered:
        return ServerTrustError(f"The library server at {where} accepts only TLS connections: remove sslmode=disable "
                                "(Trove connects with sslmode=verify-full).")
    return None


def _loopback(url: str) -> bool:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    return is_loopback_host(host)


def is_loopback_host(host: str) -> bool:
    """Whether `host` is this computer (a loopback address or name, or a Unix socket's folder)."""
    return host in ("localhost", "::1") or host.startswith("127.") or host.startswith("/")


def _port(url: str) -> int:
    try:
        return urlsplit(url).port or 5432
    except ValueError:
        return 5432


def _why(message: str) -> str:
    """The reason in a libpq connection failure, in a few words."""
    lowered = message.lower()
    for needle, why in (("connection refused", "connection refused"), ("timeout", "timed out"),
                        ("timed out", "timed out"), ("could not translate host name", "unknown host name"),
                        ("no such file or directory", "no server on that socket"),
                        ("network is unreachable", "network unreachable"),
                        ("no route to host", "no route to host")):
        if needle in lowered:
            return why
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return _short(lines[0]) if lines else "no answer"


def gone(url: str, exc: BaseException | None = None) -> ServerGoneError:
    """The server went away and did not come back within the retry window."""
    why = f" ({_short(str(exc).strip().splitlines()[-1])})" if exc is not None and str(exc).strip() else ""
    return ServerGoneError(
        f"Lost the library server at {describe(url)}{why}; nothing half-written was kept. "
        "Trove picks up where it stopped once the server is back."
    )


def is_missing_extension(exc: BaseException) -> bool:
    """CREATE EXTENSION vector failed: not installed on the server, or not allowed for this role."""
    return isinstance(
        exc, pg_errors.UndefinedFile | pg_errors.FeatureNotSupported | pg_errors.InsufficientPrivilege
    ) or "extension \"vector\"" in str(exc)


def missing_vector(url: str) -> MissingExtensionError:
    """The one line for a database without pgvector."""
    return MissingExtensionError(
        f"The database at {describe(url)} has no pgvector extension and Trove may not create it; ask its "
        "administrator to run CREATE EXTENSION vector in it (or start a server with `trove server start`)."
    )


def _password(url: str) -> str:
    try:
        return urlsplit(url).password or ""
    except ValueError:
        return ""


# what meta's CHECK (migration 013) refuses: C0 controls but tab and newline, DEL, C1; and its length bound
_NOTICE_CONTROLS = re.compile(r"[\x01-\x08\x0b-\x1f\x7f-\x9f]")
NOTICE_MAX = 4000


def plain_notice(text: str) -> str:
    """A meta value as the server accepts it: each control character shown as \\xNN, cut to NOTICE_MAX."""
    plain = _NOTICE_CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return plain if len(plain) <= NOTICE_MAX else plain[:NOTICE_MAX - 1] + "…"


def _short(text: str) -> str:
    return text if len(text) <= 160 else text[:157] + "…"


def existing_tables(conn: psycopg.Connection, names: tuple[str, ...]) -> list[str]:
    """Those of `names` that are tables of this database's public schema (migrations add them over time)."""
    return [t for t in names if scalar(conn.execute("SELECT to_regclass(%s)", (f"public.{t}",)))]


def scalar(cursor: psycopg.Cursor) -> Any:
    """The first column of a query's only row (a query that must return one: COUNT, RETURNING, SHOW)."""
    row = cursor.fetchone()
    if row is None:
        raise BugError("a single-row query returned no row")
    return row[0]
