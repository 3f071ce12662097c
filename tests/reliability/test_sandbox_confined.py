"""The parser worker's filesystem and its parent are out of a parser exploit's reach: a probe run inside the real
worker (ExtractionSandbox.probe) tries to open the team password file, settings and the library, to write into an
indexed folder and to ptrace its parent.

Which confinement applies is the kernel's to say: with Landlock (ABI >= 1, Linux 5.13+; this machine's kernel
6.18 has ABI 7) every file attempt is refused with EACCES; without it the worker says "" and one log line tells
the person (the file attempts then succeed: docs/team-library.md says what is left). ptrace is refused by the
seccomp filter on Linux x86-64/arm64 on any kernel (and by Landlock's scoping where it is on)."""

from __future__ import annotations

import logging
import os
import platform
import sqlite3
import sys

import pytest

from desktop_app.core.ingest import confine
from desktop_app.core.ingest.sandbox import Budget, ExtractionSandbox
from tests.support.helpers import write_docx

LINUX = sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64")
REFUSED = ("[Errno 13] Permission denied", "[Errno 1] Operation not permitted")


@pytest.fixture
def person(tmp_path):
    """A Trove home as a joined desktop leaves it, and an indexed folder with one document in it."""
    home = tmp_path / "home"
    team = home / "team" / "127.0.0.1-5432-trove"
    team.mkdir(parents=True, mode=0o700)
    (team / "pgpass").write_text("127.0.0.1:5432:trove:trove_p_alice:the-team-password\n")
    (team / "pgpass").chmod(0o600)
    (team / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\n")
    (home / "settings.json").write_text('{"chat_backend": "openai", "openai_api_key": "sk-secret"}')
    with sqlite3.connect(home / "library.db") as db:
        db.execute("CREATE TABLE chunks (text TEXT)")
        db.execute("INSERT INTO chunks VALUES ('a private chunk')")
    db.close()
    docs = tmp_path / "docs"
    docs.mkdir()
    write_docx(docs / "a.docx", ["an ocelot in an indexed folder"])
    return {"secrets": [str(team / "pgpass"), str(home / "settings.json"), str(home / "library.db")],
            "writes": [str(docs / "a.docx"), str(docs / "planted.py")], "docs": docs}


@pytest.fixture
def sandbox():
    box = ExtractionSandbox()
    yield box
    box.close()


def test_a_probe_in_the_worker_cannot_read_secrets_write_an_indexed_folder_or_trace_its_parent(
        sandbox, person, caplog):
    for path in person["secrets"]:  # the parent reads them: a refusal below is the worker's confinement
        with open(path, "rb"):
            pass
    abi = confine.landlock_abi()
    with caplog.at_level(logging.WARNING):
        probe = sandbox.probe({"read": person["secrets"], "write": person["writes"], "ptrace_parent": True})
    if LINUX and abi >= 1:  # this kernel allowed Landlock: the filesystem is confined
        assert probe["filesystem"] == f"landlock ABI {abi}"
        assert probe["read"] == dict.fromkeys(person["secrets"], REFUSED[0])
        assert probe["write"] == dict.fromkeys(person["writes"], REFUSED[0])
        assert not (person["docs"] / "planted.py").exists()
        assert "no Landlock" not in caplog.text
    else:  # no Landlock here: said once in the log, and the files are not confined
        assert probe["filesystem"] == ""
        if sys.platform == "linux":
            assert "this kernel has no Landlock" in caplog.text
    if LINUX:
        assert probe["ptrace_parent"] in REFUSED
    # and the worker still reads the file it is handed (a descriptor the parent opened)
    doc, _inner = sandbox.extract(person["docs"] / "a.docx", Budget())
    assert doc.text == "an ocelot in an indexed folder"


def test_the_worker_writes_only_its_own_temp_folder_which_goes_with_it(sandbox):
    sandbox.probe()  # starts the worker
    worker = sandbox._worker
    assert worker is not None and os.path.isdir(worker.tmpdir)
    inside = os.path.join(worker.tmpdir, "scratch")
    probe = sandbox.probe({"write": [inside]})
    assert probe["write"] == {inside: "allowed"}
    sandbox.close()
    assert not os.path.exists(worker.tmpdir)


def test_a_kernel_without_landlock_is_told_in_one_line(monkeypatch, caplog):
    """The parent's side of a worker that could not be confined (its ready message's "filesystem" is "")."""
    from desktop_app.core.ingest import sandbox as module

    monkeypatch.setattr(module, "_told", [])
    with caplog.at_level(logging.WARNING):
        module._say_unconfined("")
        module._say_unconfined("")
        module._say_unconfined("landlock ABI 7")
    expected = 1 if sys.platform == "linux" else 0
    assert caplog.text.count("this kernel has no Landlock") == expected


def test_a_frozen_app_worker_may_read_its_own_executable(monkeypatch, tmp_path):
    """A PyInstaller app's executable sits beside _internal, outside every folder the worker may read; pypdfium2
    and the HTML reader call platform.libc_ver(), which reads it (refused, every PDF and HTML file failed to index
    in the frozen app). The frozen build itself is checked by packaging/smoke_test.sh."""
    from desktop_app.core.ingest import sandbox_worker

    app = tmp_path / "trove"
    app.write_bytes(b"\x7fELF")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(app))
    readable, _writable = sandbox_worker.confinement()
    assert str(app) in readable
    monkeypatch.setattr(sys, "frozen", False)
    assert str(app) not in sandbox_worker.confinement()[0]  # a source checkout's worker gets no such file
