"""`trove mcp --http`: Streamable HTTP on 127.0.0.1 only, behind a per-library bearer token and an Origin check.

A web page the person visits can send requests to 127.0.0.1 (and a DNS-rebinding page can make its own host name
resolve there), so every request must pass three checks before the SDK sees it: the Host is a loopback name, the
Origin is absent or a loopback origin (browsers always send one; desktop clients send none), and the
`Authorization: Bearer` token is this library's. The token lives in the library folder (`mcp-token`, mode 0600,
made on first use, replaced by `trove mcp --rotate-token`); a client is configured with it once.
"""

from __future__ import annotations

import hmac
import os
import secrets
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from desktop_app.mcp.server import TroveServer

HOST = "127.0.0.1"  # never a wildcard: the server is for this computer's apps
DEFAULT_PORT = 8765
PATH = "/mcp"
TOKEN_NAME = "mcp-token"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def token_path(home: str | os.PathLike[str]) -> Path:
    """Where the library in `home` keeps its MCP bearer token."""
    return Path(home) / TOKEN_NAME


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, readable by its owner only from the first byte."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_token(home: str | os.PathLike[str]) -> str:
    """This library's token, made on first use (0600); a file others may read is made private again."""
    path = token_path(home)
    if path.exists():
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        token = path.read_text(encoding="ascii").strip()
        if token:
            return token
    return rotate_token(home)


def rotate_token(home: str | os.PathLike[str]) -> str:
    """A new token for the library in `home`; the old one stops working when the server next starts."""
    token = secrets.token_urlsafe(32)
    path = token_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_private(path, token + "\n")
    return token


def _loopback_host(value: str) -> bool:
    """Whether a Host header or an origin's host names this computer (any port)."""
    host = urlsplit(f"//{value}").hostname or ""
    return host in LOOPBACK_NAMES


def origin_allowed(origin: str | None) -> bool:
    """No Origin (a desktop client), or an http(s) origin on a loopback host. "null" and anything else: refused."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and (parts.hostname or "") in LOOPBACK_NAMES


class Guard:
    """ASGI middleware in front of the SDK's app: loopback Host, loopback-or-absent Origin, the bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for key, value in scope.get("headers", ()):
            headers.setdefault(key.lower(), value)
        origin = headers.get(b"origin")
        if not _loopback_host(headers.get(b"host", b"").decode("latin-1")):
            await _refuse(send, 421, "Host must be 127.0.0.1 or localhost")
        elif not origin_allowed(None if origin is None else origin.decode("latin-1")):
            await _refuse(send, 403, "Origin not allowed")
        elif not hmac.compare_digest(headers.get(b"authorization", b""), self._expected):
            await _refuse(send, 401, "Missing or wrong bearer token", {b"www-authenticate": b'Bearer realm="trove"'})
        else:
            await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, reason: str, extra: dict[bytes, bytes] | None = None) -> None:
    body = reason.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
               *(extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def http_app(server: TroveServer, token: str) -> Any:
    """The guarded Streamable HTTP app (the SDK's own Host/Origin checks stay on behind ours)."""
    from mcp.server.transport_security import TransportSecuritySettings

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "https://127.0.0.1:*", "https://localhost:*"])
    return Guard(server.streamable_http_app(streamable_http_path=PATH, transport_security=security, host=HOST), token)


def serve_http(server: TroveServer, token: str, port: int) -> None:
    """Serve until interrupted; says the URL on standard error once it listens (with the real port for --port 0)."""
    import anyio
    import uvicorn

    if port:  # a port in use is said in one line (uvicorn would log it and exit with a bare status)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((HOST, port))
    config = uvicorn.Config(http_app(server, token), host=HOST, port=port, log_config=None, access_log=False,
                            lifespan="on")
    web = uvicorn.Server(config)

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(web.serve)
            while not web.started:
                if web.should_exit:
                    return
                await anyio.sleep(0.05)
            bound = web.servers[0].sockets[0].getsockname()
            print(f"trove mcp: listening on http://{HOST}:{bound[1]}{PATH}", file=sys.stderr, flush=True)

    anyio.run(run)
