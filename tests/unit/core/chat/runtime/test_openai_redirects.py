"""The OpenAI-compatible backend never carries its API key through a redirect, and warns about plain http."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from desktop_app.core.chat.runtime.openai_backend import OpenAICompatibleRuntime, is_loopback_host, plain_http_warning
from desktop_app.core.errors import UnavailableError


class _Server:
    """A loopback HTTP server that records each request's headers and answers with `respond(handler)`."""

    def __init__(self, respond) -> None:
        self.seen: list[dict[str, str]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                outer.seen.append({k.lower(): v for k, v in self.headers.items()})
                respond(self)

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers():
    made: list[_Server] = []

    def make(respond):
        server = _Server(respond)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def _models(handler):
    body = json.dumps({"data": [{"id": "elsewhere"}]}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_a_redirect_to_another_port_never_receives_the_key(servers, code):
    target = servers(_models)

    def redirect(handler):
        handler.send_response(code)
        handler.send_header("Location", target.url + "/v1/models")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    origin = servers(redirect)
    runtime = OpenAICompatibleRuntime(origin.url + "/v1", api_key="sk-secret-key")
    with pytest.raises(UnavailableError, match="redirected to .*does not follow redirects"):
        runtime.list_models()
    assert origin.seen and origin.seen[0]["authorization"] == "Bearer sk-secret-key"
    assert target.seen == []  # not followed at all, so no header could go along


def test_a_server_that_answers_is_used_with_its_key(servers):
    server = servers(_models)
    assert OpenAICompatibleRuntime(server.url + "/v1", api_key="k").list_models() == ["elsewhere"]
    assert server.seen[0]["authorization"] == "Bearer k"


def test_plain_http_to_another_machine_is_warned_about(caplog):
    assert plain_http_warning("http://127.0.0.1:8080/v1") is None
    assert plain_http_warning("http://localhost:11434/v1") is None
    assert plain_http_warning("http://[::1]:8080/v1") is None
    assert plain_http_warning("https://gpu.example.org/v1") is None
    warning = plain_http_warning("http://gpu.example.org:8080/v1")
    assert warning and "gpu.example.org" in warning and "plain http" in warning
    assert plain_http_warning("http://10.0.0.7/v1")
    with caplog.at_level("WARNING", logger="trove.chat"):
        runtime = OpenAICompatibleRuntime("http://192.168.1.20:8080/v1")
    assert runtime.warning and any("plain http" in r.getMessage() for r in caplog.records)
    assert is_loopback_host("127.8.9.10") and not is_loopback_host("128.0.0.1")
