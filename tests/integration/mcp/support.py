"""Launching `trove mcp` as a real process and talking to it with the MCP SDK's own client."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[3]
SERVER_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
START_TIMEOUT = 120  # a loaded 2-core machine; only a hang reaches it


def trove_command(home: Path, *args: str) -> list[str]:
    """The `trove` command line for a library home, as this checkout runs it."""
    return [sys.executable, "-m", "desktop_app", "--home", str(home), *args]


def stdio_params(home: Path, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """What a desktop client is configured with: the command that starts `trove mcp` on stdio (the SDK passes the
    server only a few variables of ours, so `env` adds any other: TROVE_DB, TROVE_MACHINE_ID)."""
    command = trove_command(home, "mcp", *args)
    return StdioServerParameters(command=command[0], args=command[1:], env={**SERVER_ENV, **(env or {})},
                                 cwd=str(ROOT))


def over_stdio(home: Path, session: Callable[[Client], Awaitable[Any]], *args: str,
               env: dict[str, str] | None = None) -> Any:
    """Start `trove mcp` for `home`, run `session(client)` against it, stop it; returns what the session returned."""
    async def run() -> Any:
        with anyio.fail_after(START_TIMEOUT):
            async with Client(stdio_params(home, *args, env=env), read_timeout_seconds=START_TIMEOUT) as client:
                return await session(client)
    return anyio.run(run)


def start_http(home: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """`trove mcp --http --port 0` for `home`: the process and the URL it says it listens on."""
    proc = subprocess.Popen(trove_command(home, "mcp", "--http", "--port", "0", *args), cwd=ROOT,
                            env={**os.environ, **SERVER_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # the first line that names the URL; anything before it is a startup notice
        if "listening on " in line:
            return proc, line.split("listening on ", 1)[1].strip()
    proc.wait(10)
    raise AssertionError(f"trove mcp --http exited with {proc.returncode} before listening")


def stop(proc: subprocess.Popen) -> None:
    """End a server this test started (by its own handle) and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    if proc.stderr is not None:
        proc.stderr.close()


def structured(result: Any) -> dict[str, Any]:
    """A tool result's JSON, failing the test with the server's message when the call failed."""
    assert not result.is_error, result.content
    return result.structured_content
