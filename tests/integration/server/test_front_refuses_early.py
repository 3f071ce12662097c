"""The front checks the caller's address as it accepts the connection, before TLS and the startup packet: a refused
address gets no ServerHello (the socket is closed, nothing read) and front.log names it with the `--allow` that
would admit it. A second front of the session's real server (same certificate, same PostgreSQL socket), on
loopback, with "admit_self": false -- this machine has no other address to be refused from -- and an empty
`--allow`; then the same front with 127.0.0.1 allowed does the handshake (the refusal was the address's)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import struct
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from desktop_app.core.server import joining
from desktop_app.core.server.frontproc import FrontProcess
from desktop_app.core.store.postgres.connect import ServerUnavailableError

SSL_REQUEST = struct.pack("!ii", 8, 80877103)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tls_answer(port: int, ca: str) -> str:
    """What the front answers an SSLRequest with: 'closed' (nothing, EOF or reset), or 'handshake' (S, then a
    verified TLS handshake)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(SSL_REQUEST)
            answer = sock.recv(1)
        except (ConnectionResetError, BrokenPipeError):
            return "closed"
        if answer == b"":
            return "closed"
        assert answer == b"S"
        context = ssl.create_default_context(cafile=ca)
        with context.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
        return "handshake"


def test_a_refused_address_is_closed_before_tls_and_logged_with_the_allow_hint(pg_server, tmp_path):
    conf = json.loads((pg_server.data / "front.json").read_text())
    conf.pop("user", None)  # this test's front stays the test's user (it reads its config from a private folder)
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="trove-front-"))
    front = FrontProcess(data)
    # the front finds PostgreSQL's socket by its own port's number: a link by that name to the real socket
    (data / f".s.PGSQL.{port}").symlink_to(Path(conf["socket_dir"]) / f".s.PGSQL.{conf['port']}")
    conf["socket_dir"] = str(data)
    front.configure({**conf, "port": port, "allow": [], "admit_self": False}, None)
    joined = joining.join(tmp_path / "desk", pg_server.invite(f"early{os.getpid()}"))
    ca = str(next((tmp_path / "desk" / "team").rglob("ca.crt")))
    try:
        front.start(None, "127.0.0.1", port)
        assert tls_answer(port, ca) == "closed"
        log = front.log.read_text()
        assert "refused a connection from 127.0.0.1 (not in --allow)" in log
        assert "`trove server start --allow 127.0.0.1/32`" in log
        url = joined.url.replace(f":{pg_server.status().port}/", f":{port}/")
        with pytest.raises(ServerUnavailableError) as err:
            joining.check(url)
        line = str(err.value)
        assert "\n" not in line and "closed the connection before signing in" in line and "--allow" in line

        front.configure({**conf, "port": port, "allow": ["127.0.0.1/32"], "admit_self": False}, None)
        later = time.time() + 5  # the front re-reads front.json when its mtime changes
        os.utime(front.config, (later, later))
        assert tls_answer(port, ca) == "handshake"
        signed = joining.url_with_password(joined.url).replace(f":{pg_server.status().port}/", f":{port}/")
        with psycopg.connect(signed, autocommit=True) as conn:  # and a person signs in through it (the password
            # file names the real port, so the password goes in the URL)
            assert conn.execute("SELECT current_user").fetchone() is not None
    finally:
        front.stop()
        shutil.rmtree(data, ignore_errors=True)
