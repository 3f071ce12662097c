"""A real second machine: network namespaces joined by veth pairs, the server in one, a desktop in another.

The test makes three namespaces of its own (unique names per run) and two veth pairs that exist only inside
them -- no address is ever put on this machine's own interfaces -- and deletes them all at the end:

    desk 10.231.N.2 ──veth── 10.231.N.1 server (trove server start --listen 10.231.N.1 --allow 10.231.N.2/32)
                                 10.231.N.5 ──veth── 10.231.N.6 outside (routed to .1, not in --allow)

In the server's namespace: `trove server start` (without --allow the desk is refused; `start --allow` on the
running server admits it), `trove server invite alice`; on the desk: `trove join` (the invite on stdin),
`trove index`, `trove search`, over TLS with the pinned certificate. The same desktop with
sslmode=disable, with another CA, and from the outside address: refused, one line each.

Creating namespaces needs root (CAP_NET_ADMIN) and iproute2: without them the test is skipped and says so
(run it as root: `sudo .venv/bin/python -m pytest tests/integration/server/test_two_machines.py`).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_app.core.server.server import TroveServer
from desktop_app.core.server.tls import make_ca

ROOT = Path(__file__).parents[3]
TIMEOUT = 180


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def _why_no_namespaces() -> str | None:
    if shutil.which("ip") is None:
        return "needs iproute2's `ip` to create network namespaces"
    if os.geteuid() != 0:
        return ("creating network namespaces needs root (CAP_NET_ADMIN): run "
                "`sudo .venv/bin/python -m pytest tests/integration/server/test_two_machines.py`")
    probe = f"trvprobe{secrets.token_hex(3)}"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        return f"this machine cannot create network namespaces ({done.stderr.strip()}); run it where root can"
    _ip("netns", "del", probe)
    return None


@dataclass
class Net:
    server: str
    desk: str
    outside: str
    server_addr: str
    desk_addr: str
    outside_addr: str


@pytest.fixture
def net():
    why = _why_no_namespaces()
    if why:
        pytest.skip(why)
    tag = secrets.token_hex(3)
    n = secrets.randbelow(250) + 1
    made = Net(f"trv{tag}s", f"trv{tag}d", f"trv{tag}o", f"10.231.{n}.1", f"10.231.{n}.2", f"10.231.{n}.6")
    created: list[str] = []
    try:
        for ns in (made.server, made.desk, made.outside):
            _ip("netns", "add", ns)
            created.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        # each veth pair is made inside the server's namespace with its peer straight in the other one
        _ip("-n", made.server, "link", "add", "vdesk", "type", "veth", "peer", "name", "vsrv", "netns", made.desk)
        _ip("-n", made.server, "link", "add", "vout", "type", "veth", "peer", "name", "vsrv", "netns", made.outside)
        ends = ((made.server, "vdesk", f"{made.server_addr}/30"), (made.desk, "vsrv", f"{made.desk_addr}/30"),
                (made.server, "vout", f"10.231.{n}.5/30"), (made.outside, "vsrv", f"{made.outside_addr}/30"))
        for ns, dev, addr in ends:
            _ip("-n", ns, "addr", "add", addr, "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
        _ip("-n", made.outside, "route", "add", f"10.231.{n}.0/30", "via", f"10.231.{n}.5")
        yield made
    finally:
        for ns in created:  # deleting a namespace deletes the veth ends in it
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def trove(ns: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`trove ARGS` run inside namespace `ns`."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TROVE_MACHINE_ID": f"{ns}-desk"}
    return subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-m", "desktop_app", *args], cwd=ROOT,
                          env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


def refused(done: subprocess.CompletedProcess[str], says: str) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and says in lines[0], done.stderr


def with_params(url: str, **params: str) -> str:
    base, _, query = url.partition("?")
    kept = dict(p.split("=", 1) for p in query.split("&"))
    return base + "?" + "&".join(f"{k}={v}" for k, v in {**kept, **params}.items())


def test_a_desktop_on_another_machine_joins_indexes_and_searches_over_tls(net):
    work = Path(tempfile.mkdtemp(prefix="trove-netns-"))
    data, home, docs = work / "server", work / "desk", work / "docs"
    docs.mkdir()
    (docs / "lighthouse.txt").write_text("The lighthouse keeper wrote the storm into the harbour logbook.\n" * 3)
    home.mkdir()
    (home / "settings.json").write_text('{"embedder": "hash"}')
    try:
        started = trove(net.server, "server", "start", "--data", str(data), "--listen", net.server_addr,
                        "--port", "5432")
        assert started.returncode == 0, started.stderr
        assert "other machines will be refused until you allow their network" in started.stderr
        invited = trove(net.server, "server", "invite", "alice", "--data", str(data))
        assert invited.returncode == 0, invited.stderr
        invite = invited.stdout.strip()
        assert invite.startswith("trove1:")
        refused(trove(net.desk, "--home", str(home), "join", "-", stdin=invite),
                "closed the connection before signing in")  # at accept, before TLS: only the server's log says why
        assert f"`trove server start --allow {net.desk_addr}/32`" in (data / "front.log").read_text()

        allowed = trove(net.server, "server", "start", "--data", str(data), "--listen", net.server_addr,
                        "--port", "5432", "--allow", f"{net.desk_addr}/32")  # the running server takes it as is
        assert allowed.returncode == 0, allowed.stderr
        assert f"admits: this machine, {net.desk_addr}/32" in allowed.stdout
        joined = trove(net.desk, "--home", str(home), "join", "-", stdin=invite)  # the invite was not used up
        assert joined.returncode == 0, joined.stderr
        assert f"on {net.server_addr}:5432 as alice" in joined.stdout
        assert next((home / "team").rglob("pgpass")).stat().st_mode & 0o777 == 0o600
        indexed = trove(net.desk, "--home", str(home), "index", str(docs))
        assert indexed.returncode == 0, indexed.stderr
        found = trove(net.desk, "--home", str(home), "search", "lighthouse keeper")
        assert found.returncode == 0 and "lighthouse.txt" in found.stdout, (found.stdout, found.stderr)

        url = trove(net.desk, "--home", str(home), "join", "--print-url").stdout.strip()
        assert "sslmode=verify-full" in url and "require_auth=scram-sha-256" in url and "passfile" not in url
        stored = json.loads((home / "settings.json").read_text())["server_url"]  # no password in it
        refused(trove(net.desk, "--home", str(home), "--db", with_params(
            stored, sslmode="disable", channel_binding="disable"), "search", "lighthouse"), "Refusing sslmode=disable")
        impostor = work / "impostor-ca.crt"
        impostor.write_bytes(make_ca("impostor")[0])
        # a typed CA does not replace the joined library's pin: the search is verified against the pinned CA
        # (an impostor *pin* is refused: test_typed_urls.py)
        pinned = trove(net.desk, "--home", str(home), "--db", with_params(stored, sslrootcert=str(impostor)),
                       "search", "lighthouse")
        assert pinned.returncode == 0 and "lighthouse.txt" in pinned.stdout, (pinned.stdout, pinned.stderr)
        refused(trove(net.outside, "--home", str(home), "search", "lighthouse"),
                "closed the connection before signing in")
        assert f"refused a connection from {net.outside_addr} (not in --allow)" in (data / "front.log").read_text()
        again = trove(net.desk, "--home", str(work / "desk2"), "join", "-", stdin=invite)
        refused(again, "already used")
    finally:
        TroveServer(data).stop()
        shutil.rmtree(work, ignore_errors=True)
