"""Importing Trove (and its OCR package) loads no OCR runtime: onnxruntime, rapidocr and OpenCV wait for an image."""

from __future__ import annotations

import subprocess
import sys


def test_importing_trove_does_not_import_onnxruntime():
    code = ("import sys, desktop_app.core.ocr, desktop_app.core.ingest.extract, desktop_app.core.library;"
            "print(sorted(m for m in ('onnxruntime', 'rapidocr', 'cv2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
