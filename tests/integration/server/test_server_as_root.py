"""Started as root (as this suite is in CI's containers), the server keeps root's files root's: the data folder is
root's, only the cluster is handed to the server's system user, the network-facing front gives up root, and the
files root writes there (front.pid, server.json, front.log) are never written through a symlink. Run as another
user, the same tests check the same files are that user's and private."""

from __future__ import annotations

import os
from pathlib import Path

from desktop_app.core.server.process import run_user, user_ids


def uids(pid: int) -> list[int]:
    """(real, effective, saved, filesystem) user ids of a running process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return [int(x) for x in line.split()[1:]]
    raise AssertionError(f"no Uid line for {pid}")


def test_the_front_does_not_run_as_root(pg_server):
    pid = pg_server.front.pid()
    assert pid is not None
    expected = user_ids(run_user())[0]  # the server's system user as root; ourselves otherwise
    assert uids(pid) == [expected] * 4
    if os.geteuid() == 0:
        assert expected != 0


def test_the_data_folder_is_ours_and_only_the_cluster_is_handed_over(pg_server):
    me, server_user = os.geteuid(), user_ids(run_user())[0]
    data = pg_server.data.stat()
    assert data.st_uid == me and data.st_mode & 0o777 == (0o711 if me == 0 else 0o700)
    cluster = pg_server.cluster.stat()
    assert cluster.st_uid == server_user and cluster.st_mode & 0o777 == 0o700
    for mine in (pg_server.config_path, pg_server.tls.ca_key, pg_server.tls.ca_cert, pg_server.front.pid_file):
        st = mine.stat()
        assert st.st_uid == me and st.st_mode & 0o777 == 0o600, mine


def test_a_symlinked_front_pid_or_server_json_is_replaced_not_followed(pg_server, tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep me")
    config = pg_server._config()
    pg_server.front.stop()
    pg_server.front.pid_file.unlink(missing_ok=True)
    pg_server.front.pid_file.symlink_to(target)
    pg_server.front.start(run_user(), config["listen"], int(config["port"]))
    assert not pg_server.front.pid_file.is_symlink() and pg_server.front.pid() is not None
    assert target.read_text() == "keep me"

    saved = pg_server.config_path.read_bytes()
    pg_server.config_path.unlink()
    pg_server.config_path.symlink_to(target)
    assert pg_server._config() == {}  # not read through the link either
    pg_server._save_config(__import__("json").loads(saved))
    assert not pg_server.config_path.is_symlink() and target.read_text() == "keep me"
    assert pg_server._config()["port"] == config["port"]


def test_one_address_cannot_hold_every_sign_in(pg_server):
    import socket
    import time

    import psycopg

    from desktop_app.core.store.postgres.access.front import HANDSHAKES_PER_ADDRESS

    port = pg_server.status().port
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(HANDSHAKES_PER_ADDRESS)]
    try:
        # Each idle socket holds a sign-in (the front waits for its first bytes): one more from here is closed
        # unanswered, without waiting for the handshake's timeout.
        extra = socket.create_connection(("127.0.0.1", port))
        extra.settimeout(10)
        extra.sendall(b"\x00\x00\x00\x08\x04\xd2\x16\x2f")  # SSLRequest
        try:
            answer = extra.recv(1)  # without the cap: b"S", the front's yes to TLS
        except ConnectionResetError:
            answer = b""
        assert answer == b""
        extra.close()
    finally:
        for s in idle:
            s.close()
    deadline = time.monotonic() + 20  # the front sees the idle ones go (EOF) and counts them out
    while True:
        try:
            with psycopg.connect(pg_server.url(), connect_timeout=5) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
            break
        except psycopg.OperationalError:
            assert time.monotonic() < deadline, "the front never let sign-ins in again"
            time.sleep(0.2)
