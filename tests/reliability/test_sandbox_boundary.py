"""The parser worker is a boundary: no secrets in its environment, no sockets, plain data back, the parent's file."""

from __future__ import annotations

import os
import pickle
import platform
import sys

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest import wire
from desktop_app.core.ingest.confine import seccomp_program, worker_environment
from desktop_app.core.ingest.sandbox import Budget, ExtractionSandbox
from tests.support import bombs
from tests.support.helpers import write_docx, write_pdf

SECRETS = {"TROVE_DB": "postgresql://trove:hunter2@db/trove", "OPENAI_API_KEY": "sk-secret",
           "PGPASSWORD": "hunter2", "GITHUB_TOKEN": "ghp_secret", "MY_SERVICE_PASSWORD": "pw",
           "AWS_SECRET_ACCESS_KEY": "k", "PYTHONPATH": "/attacker"}
SECCOMP = sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64")


@pytest.fixture
def sandbox(monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    box = ExtractionSandbox()
    yield box
    box.close()


def test_the_worker_sees_none_of_the_parents_secrets_and_cannot_open_a_socket(sandbox, tmp_path):
    probe = sandbox.probe()
    for seen in (probe["environ"], probe["initial_environ"]):
        assert not set(SECRETS) & set(seen), seen
    if sys.platform == "linux":
        assert probe["initial_environ"], "the worker's /proc/self/environ was read"
    if SECCOMP:
        assert probe["network_blocked"] is True
        assert probe["network"] == "refused: [Errno 13] Permission denied"
    # and it still reads documents
    doc, _inner = sandbox.extract(write_docx(tmp_path / "a.docx", ["an ocelot"]), Budget())
    assert doc.text == "an ocelot"


def test_the_allow_list_keeps_locale_and_drops_everything_else():
    env = worker_environment({"LANG": "C.UTF-8", "TZ": "UTC", "TROVE_DB": "x", "PGHOST": "db", "HOME": "/root",
                              "OPENAI_BASE_URL": "http://h", "SOME_TOKEN": "t", "SystemRoot": "C:\\Windows"})
    assert env["LANG"] == "C.UTF-8" and env["TZ"] == "UTC" and env["SystemRoot"] == "C:\\Windows"
    assert not {"TROVE_DB", "PGHOST", "HOME", "OPENAI_BASE_URL", "SOME_TOKEN"} & set(env)


def test_the_seccomp_program_denies_sockets_on_both_linux_architectures():
    for machine, socket_nr in (("x86_64", 41), ("aarch64", 198)):
        program = seccomp_program(machine)
        assert program is not None
        assert any(k == socket_nr for _code, _jt, _jf, k in program)
        assert program[-2][3] == 0x7FFF0000  # allow what is not listed
    assert seccomp_program("mips") is None


def test_the_parent_never_unpickles_and_checks_every_field():
    with pytest.raises(wire.WireError):
        wire.decode(pickle.dumps({"status": "ok"}))
    good = {"doc": {"text": "t", "title": "", "type": "pdf", "part": "", "label": "", "meta": [],
                    "pages": [[1, 0, 1, "", False, False]]}, "documents": [], "failed": []}
    assert wire.extraction_from_plain(good)[0].pages[0].end == 1
    for bad in ({**good, "doc": {**good["doc"], "text": 5}},
                {**good, "doc": {**good["doc"], "pages": [[1, 0, "1", "", False, False]]}},
                {**good, "failed": [["a", "b"]]}, [good]):
        with pytest.raises(wire.WireError):
            wire.extraction_from_plain(bad)


def test_pages_survive_the_trip(sandbox, tmp_path):
    doc, _inner = sandbox.extract(write_pdf(tmp_path / "two.pdf", ["first page lynx", "second page caracal"]),
                                  Budget())
    assert [p.number for p in doc.pages] == [1, 2]
    assert "caracal" in doc.page_text(doc.pages[1])


def test_the_worker_reads_the_file_the_parent_opened_not_the_path_again(sandbox, tmp_path):
    real = write_docx(tmp_path / "real.docx", ["the file that was listed: a fossa"])
    swapped = write_docx(tmp_path / "swapped.docx", ["the file swapped in afterwards"])
    with open(real, "rb") as fh:
        os.replace(swapped, real)  # the path now names another file; the descriptor still names the first
        answer = sandbox._ask({"op": "extract", "name": real.name, "memory": 2**30, "cap_address_space": True},
                              fh.fileno(), Budget(), 2**30)
    assert wire.extraction_from_plain(answer["extraction"])[0].text == "the file that was listed: a fossa"


def test_a_link_is_refused_by_the_parent_before_the_worker_sees_it(sandbox, tmp_path):
    target = write_docx(tmp_path / "target.docx", ["linked"])
    (tmp_path / "link.docx").symlink_to(target)
    with pytest.raises(ExtractionError, match="symbolic link"):
        sandbox.extract(tmp_path / "link.docx", Budget())


def test_a_mailbox_is_read_through_the_descriptor(sandbox, tmp_path):
    box = tmp_path / "inbox.mbox"
    box.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: one\n\nfirst message about a genet\n\n"
                    b"From a@b Mon Jan  1 00:00:00 2024\nSubject: two\n\nsecond message about a civet\n")
    _own, inner = sandbox.extract(box, Budget())
    assert [("genet" in d.text, "civet" in d.text) for d in inner.documents] == [(True, False), (False, True)]


def test_the_memory_budget_holds_by_polling_where_there_is_no_address_space_cap(tmp_path):
    box = ExtractionSandbox(cap_address_space=False)  # what macOS and Windows get: resident-size polling only
    try:
        bomb = bombs.pdf_bomb(tmp_path / "bomb.pdf", 300 * bombs.MIB)
        with pytest.raises(ExtractionError) as caught:
            box.extract(bomb, Budget(seconds=120, memory_mb=128))
        assert str(caught.value) == "needed more than 128 MB of memory to read"
        fine = write_docx(tmp_path / "fine.docx", ["read after the kill"])
        assert box.extract(fine, Budget())[0].text == "read after the kill"
    finally:
        box.close()
