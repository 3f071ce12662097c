"""`trove gui --screenshot`: renders the window offscreen, saves a PNG and returns 0."""

from __future__ import annotations

from PySide6.QtGui import QImage

from desktop_app.ui.app import run_gui


def test_screenshot_of_the_empty_state(qtbot, tmp_path):
    out = tmp_path / "empty.png"
    assert run_gui(home=tmp_path / "home", screenshot=str(out)) == 0
    image = QImage(str(out))
    assert not image.isNull() and (image.width(), image.height()) == (1400, 860)


def test_screenshot_with_sample_and_a_query_opens_the_sample_library(qtbot, tmp_path, monkeypatch):
    # --sample must be asked for when a home is named: a query alone never adds the samples to that library
    # (tests/reliability/test_ui_text_safety.py checks that side)
    monkeypatch.setenv("TROVE_EMBEDDER", "hash")  # the sample library's settings pick the fast embedder
    out = tmp_path / "search.png"
    home = tmp_path / "home"
    assert run_gui(home=home, sample=True, screenshot=str(out), query="sourdough starter") == 0
    assert not QImage(str(out)).isNull()
    samples = home / "sample-documents"
    assert (samples / "solar-system.pdf").is_file() and (samples / "trove-quickstart.md").is_file()
    from desktop_app.core.library import Library

    with Library(home) as lib:
        assert [f.path for f in lib.folders()] == [str(samples.resolve())]
        assert lib.search("sourdough starter")[0].source.endswith("sourdough-bread.html")
