"""Every parser runs under a per-file budget: over time, over memory, a bomb or a crash fail one file, not the run."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.sandbox import Budget, ExtractionSandbox
from tests.support import bombs
from tests.support.helpers import write_docx, write_pdf

MIB = bombs.MIB
# A page whose content stream inflates to this much: PDFium needs about 9 CPU-s for it here, so even a machine
# several times faster is over a 1 s budget.
SLOW_PDF = 100 * MIB


@pytest.fixture
def sandbox():
    box = ExtractionSandbox()
    yield box
    box.close()


def failure(box: ExtractionSandbox, path, budget: Budget) -> str:
    with pytest.raises(ExtractionError) as caught:
        box.extract(path, budget)
    return str(caught.value)


def test_a_pdf_bomb_over_time_is_killed_and_the_next_file_reads_fine(sandbox, tmp_path):
    bomb = bombs.pdf_bomb(tmp_path / "bomb.pdf", SLOW_PDF)
    assert failure(sandbox, bomb, Budget(seconds=1, memory_mb=4096)) == "took longer than 1 s to read"
    fine = write_pdf(tmp_path / "fine.pdf", ["An ordinary page about a serval."])
    assert "serval" in sandbox.extract(fine, Budget(seconds=60))[0].text  # a new worker took over


def test_a_pdf_bomb_over_memory_fails_with_the_budget_named(sandbox, tmp_path):
    bomb = bombs.pdf_bomb(tmp_path / "bomb.pdf", 300 * MIB)  # 300 MB inflated: more than the budget at once
    assert failure(sandbox, bomb, Budget(seconds=60, memory_mb=128)) == "needed more than 128 MB of memory to read"


def test_zip_bombs_are_refused_before_parsing(sandbox, tmp_path):
    big = bombs.docx_bomb(tmp_path / "big.docx", 1536 * MIB, long_runs=True)
    assert big.stat().st_size < 2 * MIB
    started = time.monotonic()
    assert "would inflate to 1.6 GB" in failure(sandbox, big, Budget(seconds=60, memory_mb=1024))
    assert time.monotonic() - started < 30  # refused from the zip directory, not after inflating (guard only)
    lying = bombs.docx_lying(tmp_path / "lying.docx", 64 * MIB)
    assert "corrupt zip member 'word/document.xml'" in failure(sandbox, lying, Budget(seconds=60))
    laughs = bombs.docx_billion_laughs(tmp_path / "laughs.docx")
    assert "declares entities" in failure(sandbox, laughs, Budget(seconds=60))


def test_a_small_docx_bomb_is_simply_read(sandbox, tmp_path):
    doc, _inner = sandbox.extract(bombs.docx_bomb(tmp_path / "small.docx", MIB), Budget(seconds=60))
    assert doc.text.count("bomb payload paragraph") > 10_000


def test_a_worker_that_dies_fails_the_file_with_a_reason(sandbox, tmp_path):
    bomb = bombs.pdf_bomb(tmp_path / "bomb.pdf", SLOW_PDF)
    sandbox.extract(write_docx(tmp_path / "warm.docx", ["warm"]), Budget())
    pid = sandbox._worker.process.pid
    threading.Timer(1.0, lambda: os.kill(pid, signal.SIGKILL)).start()
    assert "crashed" in failure(sandbox, bomb, Budget(seconds=60, memory_mb=4096))
    assert sandbox.extract(write_docx(tmp_path / "next.docx", ["next margay"]), Budget())[0].text == "next margay"


def test_a_file_over_budget_is_retried_only_when_it_changes(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    bomb = bombs.pdf_bomb(docs / "bomb.pdf", SLOW_PDF)
    lib = make_library(extract_timeout_seconds=1)
    lib.add_folder(docs)
    first = lib.sync()
    assert first.errors == [(str(bomb.resolve()), "took longer than 1 s to read")]
    second = lib.sync()
    assert (second.failed, second.unchanged) == (0, 1)  # not read again
    os.utime(bomb, ns=(time.time_ns(), time.time_ns() + 10**9))
    third = lib.sync()
    assert third.failed == 1
