"""Downloads follow only https redirects, cap a body that sends no length, and say when nothing checks the hash.

Each against a real HTTP server the test starts on 127.0.0.1 (plain http is accepted only there)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from desktop_app.core.chat.models.download import DownloadError, download
from desktop_app.core.chat.models.gguf_header import MAGIC
from tests.support.model_server import ModelServer
from tests.support.runner import run_trove

UNSIZED = 8 << 20  # the body the unsized answer sends: 8 MiB, with no Content-Length


class Hostile(BaseHTTPRequestHandler):
    """/away.gguf: a redirect to plain http on another host; /relative.gguf: to ftp; /unsized.gguf: a GGUF body
    with no length."""

    seen: list[str] = []

    def do_GET(self) -> None:
        Hostile.seen.append(self.path)
        if self.path == "/away.gguf":
            self.send_response(302)
            self.send_header("Location", "http://downloads.example.invalid/model.gguf")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/relative.gguf":
            self.send_response(301)
            self.send_header("Location", "ftp://127.0.0.1/model.gguf")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/unsized.gguf":
            self.send_response(200)
            self.send_header("Connection", "close")  # the body ends when the connection does
            self.end_headers()
            self.wfile.write(MAGIC)
            block = b"\0" * (64 << 10)
            for _ in range(UNSIZED // len(block)):
                self.wfile.write(block)
        else:
            self.send_error(404)

    def log_message(self, *_args) -> None:
        """Quiet."""


@pytest.fixture
def hostile() -> Iterator[str]:
    Hostile.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_redirect_to_plain_http_is_refused_before_it_is_followed(hostile, tmp_path):
    for path in ("/away.gguf", "/relative.gguf"):
        with pytest.raises(DownloadError, match="not https; Trove follows only https redirects") as info:
            download(hostile + path, tmp_path / "models")
        assert "\n" not in str(info.value)
    assert not list((tmp_path / "models").iterdir())  # nothing was written


def test_a_body_without_a_length_is_cut_off_at_what_the_machine_allows(hostile, tmp_path):
    models = tmp_path / "models"
    with pytest.raises(DownloadError, match="did not say its size") as info:
        download(hostile + "/unsized.gguf", models, memory_bytes=4 << 20)  # a 4 MiB machine: 8 MiB cannot run
    assert "\n" not in str(info.value)
    assert not list(models.iterdir())  # the partial file was removed
    with pytest.raises(DownloadError, match="did not say its size"):
        download(hostile + "/unsized.gguf", models, free_space=lambda _p: (64 << 20) + (2 << 20))  # 2 MiB of disk
    result = download(hostile + "/unsized.gguf", models, memory_bytes=1 << 40, free_space=lambda _p: 1 << 40)
    assert result.size_bytes == len(MAGIC) + UNSIZED  # within what the machine allows it is downloaded


def test_the_cli_says_plainly_when_there_is_no_hash_to_check_against(tmp_path):
    from tests.support.gguf_files import write_gguf

    (tmp_path / "src").mkdir()
    model = write_gguf(tmp_path / "src" / "plain-Q4_K_M.gguf", size=1 << 20)
    with ModelServer() as server:
        name = server.add(model, linked_sha256="")
        run = run_trove(tmp_path / "home", "models", "download", server.url(name, redirect=False))
    assert run.returncode == 0, run.stderr
    assert "no published SHA-256 to check against" in run.stderr
