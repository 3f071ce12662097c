"""OCR's page rendering (PDFium, Pillow) runs in the extraction worker, under the same budget, not in the parent."""

from __future__ import annotations

import io

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.sandbox import Budget, ExtractionSandbox
from tests.support.helpers import write_pdf


@pytest.fixture
def sandbox():
    box = ExtractionSandbox()
    yield box
    box.close()


def _refuse_in_parent(*_args, **_kwargs):
    raise AssertionError("rendered in the parent process")


def test_a_pdf_page_and_an_image_are_rendered_by_the_worker(sandbox, tmp_path, monkeypatch):
    from PIL import Image

    from desktop_app.core.ingest import page_images as images

    monkeypatch.setattr(images, "render_pdf_page", _refuse_in_parent)  # the parent's copy: never called
    monkeypatch.setattr(images, "load_image", _refuse_in_parent)
    pdf = write_pdf(tmp_path / "two.pdf", ["first", "second page"]).read_bytes()
    page = sandbox.render_page(pdf, "pdf", 2, Budget())
    assert page.mode == "RGB" and page.width > 1000 and page.height > 1000  # A4 at 150 dpi: 1240 x 1754
    picture = io.BytesIO()
    Image.new("RGB", (64, 32), (200, 10, 10)).save(picture, "PNG")
    image = sandbox.render_page(picture.getvalue(), "image", 1, Budget())
    assert image.size == (64, 32) and image.getpixel((5, 5)) == (200, 10, 10)
    with pytest.raises(ExtractionError, match="has no page 9"):
        sandbox.render_page(pdf, "pdf", 9, Budget())


def test_a_poster_sized_page_over_the_budget_fails_with_the_budget_named(sandbox, tmp_path):
    from fpdf import FPDF

    pdf = FPDF(format=(5000, 5000))  # millimetres: rendered at the 40-megapixel cap, 120 MB of RGB and more
    pdf.add_page()
    pdf.set_font("Helvetica", size=400)
    pdf.text(100, 1000, "poster")
    data = bytes(pdf.output())
    with pytest.raises(ExtractionError) as caught:
        sandbox.render_page(data, "pdf", 1, Budget(seconds=120, memory_mb=64))
    assert str(caught.value) == "needed more than 64 MB of memory to read"
    assert sandbox.render_page(write_pdf(tmp_path / "next.pdf", ["next"]).read_bytes(), "pdf", 1, Budget()).width
