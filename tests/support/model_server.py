"""A real HTTP file server on 127.0.0.1 for download tests: Range and If-Range, a Hugging Face-like redirect that
carries X-Linked-Etag (the file's SHA-256), a connection that drops mid-body, and a throttle for cancel tests."""

from __future__ import annotations

import hashlib
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self

CHUNK = 64 << 10


@dataclass
class Served:
    """One file the server offers at /cdn/<name>, and at /resolve/<name> through a redirect."""

    path: Path
    etag: str = ""
    linked_sha256: str = ""  # sent as X-Linked-Etag on the /resolve/ redirect ("" = none)

    @property
    def size(self) -> int:
        return self.path.stat().st_size


@dataclass
class ServerState:
    """What the test can change while the server runs, and what it records."""

    files: dict[str, Served] = field(default_factory=dict)
    drop_after: int | None = None  # close the connection after this many body bytes …
    drops_left: int = 0  # … this many times
    ignore_range: bool = False  # answer every Range request with the whole file (200)
    delay_s: float = 0.0  # sleep between 64 KiB chunks
    requests: list[dict] = field(default_factory=list)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class ModelServer:
    """`with ModelServer() as server: server.add(path); url = server.url(name)`."""

    def __init__(self) -> None:
        self.state = ServerState()
        handler = _handler_for(self.state)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="model-server", daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def add(self, path: Path, *, linked_sha256: str | None = None, name: str = "") -> str:
        """Serve `path`; `linked_sha256=None` publishes its real SHA-256 on the redirect, "" publishes none."""
        name = name or path.name
        digest = sha256_of(path)
        published = digest if linked_sha256 is None else linked_sha256
        self.state.files[name] = Served(path, etag=f'"{digest[:16]}"', linked_sha256=published)
        return name

    def url(self, name: str, *, redirect: bool = True) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/{'resolve' if redirect else 'cdn'}/{name}"

    def gets(self, name: str) -> list[dict]:
        """The GET requests that reached the file itself (after any redirect)."""
        return [r for r in self.state.requests if r["method"] == "GET" and r["path"] == f"/cdn/{name}"]


def _handler_for(state: ServerState):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            state.requests.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
            kind, _, name = self.path.lstrip("/").partition("/")
            served = state.files.get(name)
            if served is None or kind not in ("resolve", "cdn"):
                self._plain(404, b"not found")
            elif kind == "resolve":
                self._redirect(served, name)
            else:
                self._send_file(served)

        def _plain(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _redirect(self, served: Served, name: str) -> None:
            self.send_response(302)
            self.send_header("Location", f"/cdn/{name}")
            if served.linked_sha256:
                self.send_header("X-Linked-Etag", f'"{served.linked_sha256}"')
                self.send_header("X-Linked-Size", str(served.size))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _send_file(self, served: Served) -> None:
            size = served.size
            start = self._range_start(served)
            if start is not None and start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206 if start is not None else 200)
            first = start or 0
            if start is not None:
                self.send_header("Content-Range", f"bytes {first}-{size - 1}/{size}")
            self.send_header("Content-Length", str(size - first))
            self.send_header("ETag", served.etag)
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            self._body(served.path, first)

        def _range_start(self, served: Served) -> int | None:
            match = re.match(r"bytes=(\d+)-$", self.headers.get("Range", ""))
            if not match or state.ignore_range:
                return None
            if_range = self.headers.get("If-Range")
            if if_range and if_range != served.etag:
                return None  # the file changed: send it whole
            return int(match.group(1))

        def _body(self, path: Path, first: int) -> None:
            limit = None
            if state.drop_after is not None and state.drops_left > 0:
                state.drops_left -= 1
                limit = state.drop_after
            sent = 0
            with open(path, "rb") as f:
                f.seek(first)
                while block := f.read(CHUNK):
                    if limit is not None and sent + len(block) > limit:
                        self.wfile.write(block[: limit - sent])
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                        return
                    try:
                        self.wfile.write(block)
                    except (BrokenPipeError, ConnectionResetError):
                        return  # the client went away (cancel)
                    sent += len(block)
                    if state.delay_s:
                        time.sleep(state.delay_s)

    return Handler
