"""`trove index --no-wait` with scanned pages waiting for OCR: the process ends cleanly, and the pages wait whole.

The second adversarial run saw it abort ("terminate called without an active exception", exit -6): the OCR
thread was still inside onnxruntime (importing rapidocr, building its sessions or reading a page) when the
interpreter tore itself down. --no-wait returns once files are keyword-searchable, so no page is written after
that; a phase still inside native code then ends with the process, not with the interpreter's teardown.
"""

from __future__ import annotations

import pytest

from tests.support import sample_docs as sd
from tests.support.helpers import write_pdf
from tests.support.runner import run_trove


@pytest.mark.timeout(1800)  # the last run reads the pages with the real OCR models: minutes on a busy machine
def test_index_no_wait_with_scanned_pages_pending_exits_cleanly_and_leaves_them_whole(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    text_pdf = write_pdf(tmp_path / "t.pdf", ["THE PANGOLIN SLEEPS", "THE ECHIDNA DIGS"])
    sd.write_scanned_pdf(docs / "scan.pdf", text_pdf)  # two pages with no text layer: OCR's work
    home = tmp_path / "home"
    quick = run_trove(home, "index", "--no-wait", "--json", str(docs), timeout=300)
    assert quick.returncode == 0, quick.stderr
    assert "terminate called" not in quick.stderr and "Traceback" not in quick.stderr, quick.stderr
    ocr = quick.json()["phases"]["ocr"]
    assert ocr["pages_pending"] == 2 and ocr["pages_done"] == 0 and not ocr["error"], ocr
    stats = run_trove(home, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    after = stats.json()["ocr"]
    assert after["pages_pending"] == 2 and after["pages_done"] == 0, after  # nothing was written after it returned
    waited = run_trove(home, "index", "--json", str(docs), timeout=600)  # the next run reads them
    assert waited.returncode == 0, waited.stderr
    read = waited.json()["phases"]["ocr"]
    assert read["pages_pending"] == 0 and read["pages_done"] == 2, read
    search = run_trove(home, "search", "pangolin", "--mode", "keyword", "--json")
    assert search.returncode == 0 and [r["source"].endswith("scan.pdf") for r in search.json()] == [True], search
