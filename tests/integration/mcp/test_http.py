"""`trove mcp --http`: Streamable HTTP on loopback only, behind the library's bearer token and an Origin check;
the SDK's own client lists the tools and searches through it. The server is a real process on a real socket."""

from __future__ import annotations

import ipaddress
import json
import socket
import stat
import subprocess
import urllib.error
import urllib.request

import anyio
import httpx2
import psutil
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from desktop_app.mcp.http import origin_allowed, read_token, token_path
from tests.integration.mcp.support import ROOT, SERVER_ENV, START_TIMEOUT, start_http, stop, structured, trove_command

INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "raw", "version": "0"}}}).encode()


@pytest.fixture(scope="module")
def served(library_home):
    proc, url = start_http(library_home)
    yield proc, url
    stop(proc)


def post(url: str, headers: dict[str, str]) -> int:
    """The HTTP status of an initialize request with these headers."""
    request = urllib.request.Request(url, data=INITIALIZE, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_token_is_made_on_first_use_private_and_rotatable(tmp_path):
    library_home = tmp_path / "home"  # its own library: rotating must not change the running server's token
    library_home.mkdir()
    token = read_token(library_home)
    path = token_path(library_home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(token) >= 40
    assert read_token(library_home) == token  # the same token until rotated
    out = subprocess.run(trove_command(library_home, "mcp", "--rotate-token"), capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env=SERVER_ENV | {"PATH": "/usr/bin:/bin"}, check=True)
    assert out.stdout.strip() == read_token(library_home) != token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_missing_or_wrong_token_and_a_foreign_origin_are_refused(served, library_home):
    _proc, url = served
    token = read_token(library_home)
    good = {"Authorization": f"Bearer {token}"}
    assert post(url, {}) == 401
    assert post(url, {"Authorization": "Bearer " + "x" * len(token)}) == 401
    assert post(url, {"Authorization": token}) == 401  # not a bearer header
    assert post(url, {**good, "Origin": "https://evil.example"}) == 403
    assert post(url, {**good, "Origin": "null"}) == 403
    assert post(url, {**good, "Origin": "http://127.0.0.1.evil.example:8080"}) == 403
    assert post(url, {**good, "Host": "evil.example"}) == 421  # a DNS-rebinding page's host name
    assert post(url, {**good, "Origin": "http://localhost:6274"}) == 200  # a local tool (the Inspector's UI)
    assert post(url, good) == 200


def test_the_origin_rule():
    assert origin_allowed(None) and origin_allowed("http://localhost") and origin_allowed("http://[::1]:3000")
    assert not origin_allowed("http://localhost.evil.example") and not origin_allowed("file://")
    assert not origin_allowed("chrome-extension://abc") and not origin_allowed("")


def test_the_server_listens_on_loopback_only(served):
    proc, url = served
    assert url.startswith("http://127.0.0.1:")
    listening = [c for c in psutil.Process(proc.pid).net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert listening and all(ipaddress.ip_address(c.laddr.ip).is_loopback for c in listening)
    assert {c.laddr.port for c in listening} == {int(url.rsplit(":", 1)[1].split("/")[0])}


def test_the_sdk_client_lists_the_tools_and_searches_over_streamable_http(served, library_home, docs):
    _proc, url = served

    async def run():
        with anyio.fail_after(START_TIMEOUT):
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {read_token(library_home)}"},
                                          timeout=60) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    names = {t.name for t in (await client.list_tools()).tools}
                    found = structured(await client.call_tool("search", {"query": "lighthouse painted crimson"}))
                    return names, found

    names, found = anyio.run(run)
    assert {"search", "ask", "read_passage", "read_document"} <= names
    assert found["results"][0]["path"] == str(docs / "korrin.pdf") and found["results"][0]["page"] == 2


def test_a_port_in_use_is_one_line_and_a_failure(library_home):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run(trove_command(library_home, "mcp", "--http", "--port", str(port)), capture_output=True,
                             text=True, timeout=120, cwd=ROOT, env=SERVER_ENV | {"PATH": "/usr/bin:/bin"}, check=False)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip().splitlines()[-1] == f"trove: cannot serve on 127.0.0.1:{port}: Address already in use"
