"""`trove join INVITE`: a desktop joins a team library with the invite its administrator gave it.

The desktop pins the server's CA from the invite, signs in once with the invite's one-time token over
verified TLS, replaces the token with a password only it knows (the server's trove_admin.accept_invite), and
keeps what it needs in HOME/team/<host>-<port>-<library>/, a folder only the user can open (0700; one per library,
so a second join keeps the first library's pin and password): `ca.crt` and `pgpass` (libpq's
password file, 0600). The library URL it returns carries no password -- `passfile=` points libpq at it -- so
the URL may sit in settings.json, in logs and in the window.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import psycopg

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.errors import KnownError
from desktop_app.core.server.invite import Invite, InviteError, decode, expired_message, refused_message
from desktop_app.core.server.process import write_private
from desktop_app.core.server.tls import der_to_pem, fingerprint
from desktop_app.core.store.postgres.access.roles import accept_invite, current_role, role_name, verifier

TEAM_DIR = "team"


@dataclass(frozen=True)
class Joined:
    """A library this desktop joined: its URL (no password in it) and who we are there."""

    url: str
    person: str
    host: str
    port: int
    database: str
    ca_fingerprint: str = ""  # the pinned CA's SHA-256, to compare with `trove server status` on the server


def _team_dir(home: Path, invite: Invite) -> Path:
    """HOME/team/<host>-<port>-<library>/ (each 0700): a library's own pin and password, so joining another
    library keeps the first one's."""
    team = home / TEAM_DIR
    folder = team / re.sub(r"[^A-Za-z0-9._-]", "_", f"{invite.host}-{invite.port}-{invite.database}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for made in (team, folder):
        made.chmod(0o700)
    return folder


def _write_private(path: Path, data: bytes) -> None:
    write_private(path, data, None)  # this user's file, 0600, replaced whole


def _pgpass_field(text: str) -> str:
    return text.replace("\\", "\\\\").replace(":", "\\:")


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def library_url(invite: Invite, ca: Path, passfile: Path | None) -> str:
    """The person's URL: verified TLS against the pinned CA, SCRAM with channel binding, the password file."""
    params = {**pgc.TLS_PARAMS, "sslrootcert": str(ca)}
    if passfile is not None:
        params["passfile"] = str(passfile)
    return (f"postgresql://{quote(role_name(invite.person))}@{_host(invite.host)}:{invite.port}/"
            f"{quote(invite.database)}?{urlencode(params, quote_via=quote, safe='/')}")


def join(home: Path, text: str, *, timeout: float | None = None) -> Joined:
    """Accept an invite: one line (InviteError, ServerTrustError, …) when it is expired, reused or the server is
    not the one that made it. On success the credentials are in HOME/team/<library>/ and the returned URL works."""
    invite = decode(text)
    if invite.expired():
        raise InviteError(expired_message(invite))
    folder = _team_dir(home, invite)
    ca, passfile = folder / "ca.crt", folder / "pgpass"
    pending = folder / "ca.crt.pending"
    _write_private(pending, der_to_pem(invite.ca_der))
    role = role_name(invite.person)
    first = library_url(invite, pending, None)
    try:
        conn = psycopg.connect(first, password=invite.token, autocommit=True,
                               connect_timeout=int(timeout or pgc.CONNECT_TIMEOUT))
    except psycopg.Error as exc:
        pending.unlink(missing_ok=True)
        known = pgc.translate_connect_error(exc, first)
        raise (InviteError(refused_message(invite)) if isinstance(known, pgc.ServerAuthError) else known) from None
    password = secrets.token_urlsafe(24)
    entry = ":".join(_pgpass_field(f) for f in (invite.host, str(invite.port), invite.database, role, password))
    _write_private(passfile.with_name("pgpass.pending"), (entry + "\n").encode())
    with conn:
        try:
            accept_invite(conn, verifier(conn, role, password))
        except psycopg.Error:
            raise InviteError(refused_message(invite)) from None
    os.replace(pending, ca)
    os.replace(passfile.with_name("pgpass.pending"), passfile)
    url = library_url(invite, ca, passfile)
    check(url)
    return Joined(url, invite.person, invite.host, invite.port, invite.database,
                  fingerprint(der_to_pem(invite.ca_der)))


def check(url: str) -> str:
    """Sign in with a stored URL; returns the person's role (a KnownError when the server refuses)."""
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=pgc.CONNECT_TIMEOUT) as conn:
            return current_role(conn)
    except psycopg.Error as exc:
        raise pgc.translate_connect_error(exc, url) from None


def url_with_password(url: str) -> str:
    """A stored URL with its password from the password file in it and no `passfile` (for psql or pg_dump)."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    passfile = params.pop("passfile", "")
    if not passfile:
        return url
    password = _password_in(Path(passfile), parts.username or "")
    if not password:
        raise KnownError(f"The password file {passfile} has no password for this library: join again.")
    netloc = f"{parts.username}:{quote(password, safe='')}@{parts.netloc.rpartition('@')[2]}"
    return parts._replace(netloc=netloc, query=urlencode(params, quote_via=quote, safe="/")).geturl()


def _password_in(passfile: Path, user: str) -> str:
    try:
        lines = passfile.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    for line in lines:
        fields = [f.replace("\\:", ":").replace("\\\\", "\\") for f in _split_pgpass(line)]
        if len(fields) == 5 and fields[3] == user:
            return fields[4]
    return ""


def _split_pgpass(line: str) -> list[str]:
    out, cur, escaped = [], "", False
    for ch in line:
        if escaped:
            cur += "\\" + ch
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ":":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]


def remember(home: Path, url: str) -> str:
    """Make `url` this home's library (settings.json's server_url); returns the URL it had before."""
    from desktop_app.core.settings import save_settings, settings_from_dict

    path = home / "settings.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        data = {}
    settings, _ = settings_from_dict(data if isinstance(data, dict) else {})
    save_settings(path, settings.with_changes(server_url=url))
    return settings.server_url



# libpq's modes that may send the password and documents in plain text (`prefer` and `allow` fall back to it)
WEAK_SSLMODES = ("disable", "allow", "prefer")


def typed_url(home: Path, url: str) -> str:
    """A postgresql:// URL a person typed (--db, $TROVE_DB, settings), made as safe as a joined one.

    When it names a library this desktop joined (a pin in HOME/team/<host>-<port>-<library>/), it gets that
    library's TLS parameters: sslmode=verify-full against the pinned CA, SCRAM with channel binding, and the
    password file when the URL has no password -- a typed URL without them would trust any certificate. A weak
    sslmode (disable, allow, prefer) to a host that is not this computer is refused in one line, pinned or not."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port or 5432
    except ValueError:
        return url  # libpq says what is wrong with it, in translate_connect_error's words
    params = dict(parse_qsl(parts.query))
    host = params.get("host", host)
    mode = params.get("sslmode", "")
    if mode in WEAK_SSLMODES and host and not pgc.is_loopback_host(host):
        raise pgc.ServerTrustError(
            f"Refusing sslmode={mode} to {pgc.describe(url)}: it may send the password and documents in plain "
            "text. Remove it (Trove connects with sslmode=verify-full to a library you joined).")
    database = params.get("dbname", parts.path.lstrip("/"))
    folder = home / TEAM_DIR / re.sub(r"[^A-Za-z0-9._-]", "_", f"{host}-{port}-{database}")
    if not host or not (folder / "ca.crt").is_file():
        return url
    pinned = {**pgc.TLS_PARAMS, "sslrootcert": str(folder / "ca.crt")}
    if parts.password is None and "password" not in params and (folder / "pgpass").is_file():
        pinned["passfile"] = str(folder / "pgpass")
    # the pin wins over what was typed for the trust parameters; anything else typed is kept
    merged = {**params, **pinned}
    return parts._replace(query=urlencode(merged, quote_via=quote, safe="/")).geturl()
