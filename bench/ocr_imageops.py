"""OCR without OpenCV: core/ocr/imageops.py's findContours against OpenCV's, and a whole page read both ways.

The floor is OpenCV itself (opencv-python, a dev dependency; the app ships without it). Detector maps are the ones
rapidocr thresholds on real pages: the scanned two-page PDF of tests/support/sample_docs (a blank band there makes
a dithered map of ~43,000 blobs and holes) and a page of dense text. For each map, both findContours are timed
(best of --repeat) and their outputs compared (counts and boxes); then each page is read end to end by rapidocr
with imageops bound as its cv2 (what the app does) and with the real cv2. Saves bench/results/ocr_imageops.json.

    python bench/ocr_imageops.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import save

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.core.ingest.page_images import render_pdf_page  # noqa: E402
from desktop_app.core.ocr import imageops  # noqa: E402
from desktop_app.core.ocr.engine import OcrEngine  # noqa: E402
from tests.support import sample_docs as sd  # noqa: E402
from tests.support.helpers import write_pdf  # noqa: E402


def pages(folder: Path) -> dict[str, object]:
    """Named page images: a scanned page of one line (its lower band is blank), and a page of dense text."""
    from PIL import Image, ImageDraw, ImageFont

    text_pdf = write_pdf(folder / "t.pdf", ["THE PANGOLIN SLEEPS", "THE ECHIDNA DIGS"])
    scan = sd.write_scanned_pdf(folder / "scan.pdf", text_pdf).read_bytes()
    dense = Image.new("RGB", (1240, 1750), "white")
    draw = ImageDraw.Draw(dense)
    font = ImageFont.load_default(size=22)
    words = "the pangolin sleeps in a burrow while the echidna digs under moonlit gravel".split()
    for row, y in enumerate(range(40, 1700, 36)):
        draw.text((40, y), " ".join(words[(row + i) % len(words)] for i in range(12)), fill="black", font=font)
    return {"scanned line": render_pdf_page(scan, 1), "dense text": dense}


def maps_of(image) -> list[np.ndarray]:
    """The binary maps rapidocr hands findContours while it reads `image` (with imageops as its cv2)."""
    caught: list[np.ndarray] = []
    real = imageops.findContours

    def spy(bitmap, mode, method):
        caught.append(np.array(bitmap, copy=True))
        return real(bitmap, mode, method)

    imageops.findContours = spy
    try:
        OcrEngine().read(image)
    finally:
        imageops.findContours = real
    return caught


def best_of(repeat: int, fn) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def read_with_real_cv2(image) -> float:
    """Seconds for rapidocr with the real OpenCV to read `image` in the app's bands (models loaded beforehand)."""
    import rapidocr

    from desktop_app.core.ocr.engine import BUNDLED_MODELS, band_ranges

    models = Path(rapidocr.__file__).resolve().parent / "models"
    params: dict[str, object] = {"Global.log_level": "warning"}
    params.update({f"{stage}.model_path": str(models / name) for stage, name in BUNDLED_MODELS.items()})
    engine = rapidocr.RapidOCR(params=params)
    array = np.asarray(image.convert("RGB"))[:, :, ::-1]
    engine(array[:64])  # sessions warm
    start = time.perf_counter()
    for top, bottom, _keep_from, _keep_to in band_ranges(array.shape[0]):
        engine(array[top:bottom], return_word_box=True)
    return time.perf_counter() - start


def main() -> None:
    import cv2

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, image in pages(Path(tmp)).items():
            for band, bitmap in enumerate(maps_of(image)):
                ours_s, ours = best_of(args.repeat, lambda b=bitmap: imageops.findContours(b, 1, 2)[0])
                floor_s, theirs = best_of(args.repeat, lambda b=bitmap: cv2.findContours(b, 1, 2)[0])
                rows.append({"page": name, "band": band, "pixels_on": round(float((bitmap != 0).mean()), 4),
                             "contours": len(theirs), "same_count": len(ours) == len(theirs),
                             "ours_s": round(ours_s, 4), "opencv_s": round(floor_s, 4),
                             "ratio": round(ours_s / max(floor_s, 1e-9), 1)})
                print(f"findContours {name} band {band}: {len(theirs)} contours, ours {ours_s:.3f} s, "
                      f"OpenCV {floor_s:.3f} s ({rows[-1]['ratio']}x)")
            engine = OcrEngine()
            engine.read(image.crop((0, 0, 200, 64)))  # models loaded
            ours_page, _ = best_of(1, lambda e=engine, i=image: e.read(i))
            real_page = read_with_real_cv2(image)
            rows.append({"page": name, "whole_page_ours_s": round(ours_page, 2),
                         "whole_page_opencv_s": round(real_page, 2), "ratio": round(ours_page / real_page, 2)})
            print(f"whole page {name}: ours {ours_page:.2f} s, with OpenCV {real_page:.2f} s "
                  f"({rows[-1]['ratio']}x)")
    save("ocr_imageops", {"repeat": args.repeat, "rows": rows})


if __name__ == "__main__":
    main()
