"""Real OCR (rapidocr + onnxruntime, models from the wheel) with the network blocked."""

from __future__ import annotations

import socket

import pytest

from desktop_app.core.errors import UnavailableError
from desktop_app.core.ingest.extract import extract
from desktop_app.core.ocr import OcrEngine, apply_ocr, ocr_image, ocr_pages
from tests.support import sample_docs as sd
from tests.support.helpers import write_pdf

pytestmark = pytest.mark.slow


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: the engine must load from the package."""
    def refuse(*args, **kwargs):
        raise AssertionError("OCR tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture(scope="module")
def engine():
    return OcrEngine()


def test_scanned_pdf_page_two_is_read(tmp_path, no_network, engine):
    text_pdf = write_pdf(tmp_path / "t.pdf", ["page one text", "page two mentions the pangolin"])
    scan = sd.write_scanned_pdf(tmp_path / "scan.pdf", text_pdf)
    data = scan.read_bytes()
    doc = extract(scan, data)
    assert doc.pages[1].needs_ocr
    results = list(ocr_pages(data, doc, engine))
    assert "pangolin" in results[1].text.lower() and results[1].confidence > 0.5
    done = apply_ocr(doc, results)
    assert "pangolin" in done.page_text(done.pages[1]).lower()
    assert done.pages[1].ocr and not done.pages[1].needs_ocr
    assert "pangolin" not in done.page_text(done.pages[0]).lower()


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".tiff", ".webp"])
def test_image_files_are_read(tmp_path, no_network, engine, suffix):
    image = sd.write_text_image(tmp_path / f"r{suffix}", ["Receipt total 42 EUR"])
    data = image.read_bytes()
    doc = extract(image, data)
    (result,) = ocr_pages(data, doc, engine)
    assert "receipt" in result.text.lower() and not result.reason


def test_blank_image_gives_a_reason(tmp_path, engine):
    blank = sd.write_text_image(tmp_path / "blank.png", [])
    data = blank.read_bytes()
    (result,) = ocr_pages(data, extract(blank, data), engine)
    assert result.text == "" and result.reason == "OCR found no text on this page"


def test_ocr_image_accepts_bytes(tmp_path, engine):
    data = sd.write_text_image(tmp_path / "r.png", ["Invoice 7731"]).read_bytes()
    assert "7731" in ocr_image(data, engine).text


def test_language_outside_the_bundled_models_is_refused():
    with pytest.raises(UnavailableError, match="korean"):
        OcrEngine(languages=("en", "korean"))


def test_single_threaded_engine_reads(tmp_path, no_network):
    """One onnxruntime thread leaves a core for the keyword phase and the window on a 2-core machine."""
    data = sd.write_text_image(tmp_path / "r.png", ["Invoice 7731"]).read_bytes()
    assert "7731" in OcrEngine(threads=1).read(data).text
