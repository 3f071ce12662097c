"""The window closes cleanly while a scanned page is being read, and the page waits whole for the next start.

`trove gui --screenshot` on a library whose OCR was still loading its models or reading a dense page ended with
"terminate called without an active exception" (exit 134): the OCR thread was inside onnxruntime, which cannot
be interrupted, when the interpreter tore itself down after close()'s 30-second wait. The window now gives a
phase a few seconds, then ends the process without that teardown (core/shutdown.py). Real OCR models, a real
window (offscreen), a page dense enough that no machine reads it before the screenshot is taken.
"""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.support.runner import run_trove, trove_env

WORDS = "the pangolin sleeps in a burrow while the echidna digs under moonlit gravel near river banks".split()


def write_dense_page(path, seed: int) -> None:
    """A 3000x4000 scan with about 270 lines of words: tens of seconds of OCR on two cores."""
    image = Image.new("L", (3000, 4000), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    pick = random.Random(seed)
    for y in range(40, 3940, 44):
        for x in range(40, 2700, 480):
            draw.text((x, y), " ".join(pick.choice(WORDS) for _ in range(3)), fill=0, font=font)
    image.save(path)


@pytest.mark.timeout(900)  # the window starts the real OCR models: minutes on a busy machine
def test_the_window_closes_cleanly_while_ocr_reads_and_the_page_in_flight_waits(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for seed in (1, 2):  # two pages: OCR is still busy when the screenshot is taken, however fast the machine
        write_dense_page(docs / f"scan{seed}.png", seed)
    home = tmp_path / "home"
    quick = run_trove(home, "index", "--no-wait", "--json", str(docs), timeout=300)
    assert quick.returncode == 0, quick.stderr
    assert quick.json()["phases"]["ocr"]["pages_pending"] == 2

    shot = tmp_path / "shot.png"
    gui = run_trove(home, "gui", "--screenshot", str(shot), env=trove_env(QT_QPA_PLATFORM="offscreen"), timeout=600)
    assert gui.returncode == 0, gui.stderr
    assert "terminate called" not in gui.stderr and "Traceback" not in gui.stderr, gui.stderr
    assert shot.stat().st_size > 10_000  # the picture was saved before the process ended
    log = (home / "logs" / "trove.log").read_text(encoding="utf-8")
    assert "the process ends without waiting for it" in log, log  # the OCR step was in flight: the path under test

    stats = run_trove(home, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    ocr = stats.json()["ocr"]
    assert ocr["pages_pending"] >= 1 and ocr["pages_pending"] + ocr["pages_done"] == 2, ocr  # the step in flight waits
    assert ocr["pages_failed"] == 0 and ocr["error"] is None, ocr
    # Reading what was left is the next run's ordinary OCR phase, shown on a smaller page by
    # test_no_wait_ocr_exit.py; reading these two dense pages again took minutes of the flake check for nothing more.
    words = run_trove(home, "search", "pangolin", "--mode", "keyword", "-k", "1000", "--json")
    assert words.returncode == 0, words.stderr
    found = {r["source"].rsplit("/", 1)[-1] for r in words.json()}
    assert len(found) == ocr["pages_done"], (found, ocr)  # a page is searchable exactly when its OCR was written whole
