"""Index, search and ask with the real models while every socket creation fails: nothing needs the network.

A sitecustomize on PYTHONPATH replaces socket.socket, socketpair and create_connection in every Python process
of the run (the parser worker included) with functions that log the attempt and raise. The test fails on a
failed command or on any attempt in the log, even one a library caught and hid. The queries carry undecodable
bytes, which used to reach the real tokenizers as lone surrogates (TypeError / UnicodeEncodeError).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.support.helpers import write_pdf
from tests.support.runner import ROOT, trove_env

SITECUSTOMIZE = textwrap.dedent('''
    import os, socket, traceback

    def _blocked(*args, **kwargs):
        with open(os.environ["TROVE_TEST_SOCKET_LOG"], "a") as log:
            log.write("".join(traceback.format_stack(limit=8)) + "\\n---\\n")
        raise OSError("socket creation is blocked in this test")

    class _BlockedSocket(socket.socket):
        def __init__(self, *args, **kwargs):
            _blocked()

    socket.socket = _BlockedSocket
    socket.socketpair = socket.create_connection = _blocked
''')


DRIVER = textwrap.dedent('''
    import json, os, sys
    from desktop_app.cli import main

    home, docs = sys.argv[1], sys.argv[2]
    query = os.fsdecode(b"fastest bird fal\\xffcon")  # what a non-UTF-8 argv byte becomes
    question = os.fsdecode(b"How fast does the peregrine falcon dive?\\xff")
    for name, args in (("index", ["index", docs]), ("search", ["search", query, "--json"]), ("ask", ["ask", question])):
        print(f"=== {name}", flush=True)
        code = main(["--home", home, *args])
        print(f"=== {name} exit {code}", flush=True)
''')


def test_index_search_and_ask_without_any_socket(tmp_path):
    """One process runs the three commands (the models load once: the machine has two cores)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = tmp_path / "sockets.log"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "falcon.md").write_text("# Falcons\n\nThe peregrine falcon is the fastest bird, diving at 300 km/h.",
                                    encoding="utf-8")
    write_pdf(docs / "harbor.pdf", ["The harbor lantern is lit at dusk by the keeper."])
    env = trove_env(TROVE_EMBEDDER="", TROVE_TEST_SOCKET_LOG=str(log))
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    run = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "home"), str(docs)], cwd=ROOT, env=env,
                         capture_output=True, text=True, errors="replace", timeout=900)
    out = run.stdout
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-3000:]
    for name in ("index", "search", "ask"):
        assert f"=== {name} exit 0" in out, (name, out[-3000:], run.stderr[-3000:])
    hits = json.loads(out.split("=== search\n")[1].split("=== search exit")[0])
    assert hits[0]["source"].endswith("falcon.md")
    assert "harbor.pdf" in out.split("=== index exit")[0] or "indexed 2" in out  # the PDF went through the worker
    assert "falcon.md" in out.split("=== ask\n")[1]  # the answer's sources; its words are the model's
    assert not log.exists(), log.read_text()[:3000]
