"""The OCR engine: RapidOCR (PP-OCRv6 ONNX models shipped inside the `rapidocr` wheel) on onnxruntime.

Nothing is downloaded: the engine is built from the model files in the installed package, and a language
the bundled models do not cover is refused with a plain reason. rapidocr and onnxruntime are imported only when
the first image is read, so importing Trove stays light. rapidocr's image operations run on numpy and Pillow
(`imageops`, bound as its `cv2`), not OpenCV.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import ExtractionError, UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.ocr.words import OcrWord, band_words

log = get_logger("ocr")

# What the bundled PP-OCRv6 "small" recognition model reads (rapidocr's default_models.yaml, v3.10): Chinese
# (simplified and traditional), English, Japanese and Latin-script languages. Korean, Arabic, Thai, Cyrillic,
# Devanagari and others need other models, which rapidocr would download: Trove does not.
OFFLINE_LANGUAGES = frozenset({
    "ch", "chinese_cht", "en", "japan", "af", "az", "bs", "ca", "cs", "cy", "da", "de", "es", "et", "eu", "fi", "fr",
    "ga", "gl", "hr", "hu", "id", "is", "it", "ku", "la", "lb", "lt", "lv", "mi", "ms", "mt", "nl", "no", "oc", "pl",
    "pt", "qu", "rm", "ro", "rs_latin", "sk", "sl", "sq", "sv", "sw", "tl", "tr", "uz", "vi"
})
BUNDLED_MODELS = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx",
                  "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}
MIN_SIDE = 16  # smaller than this cannot hold a readable line
MAX_SIDE = 2000  # what rapidocr scales images down to anyway; done first so bands are cut at the final scale
# The bundled detector misses text on some tall, mostly blank pages (a short line at the top of an A4 scan:
# its probability map stays near 0), yet finds it in a band of the same page. So pages are read in
# overlapping horizontal bands; each line is kept by the band that holds its centre outside the overlap.
BAND_HEIGHT = 1024
BAND_OVERLAP = 160


@dataclass(frozen=True)
class OcrResult:
    """What OCR read from one image: its lines joined top to bottom, their mean confidence (0..1), and the words
    with their boxes (in fractions of the image: the viewer highlights a passage on the page with them)."""

    text: str
    confidence: float
    lines: int = 0
    words: tuple[OcrWord, ...] = ()


class OcrEngine:
    """One loaded RapidOCR pipeline. Thread-safe (one image at a time); `threads` caps onnxruntime's threads
    (0 = onnxruntime's default, all cores)."""

    def __init__(self, threads: int = 0, languages: tuple[str, ...] = ("en",), *, models: Path | None = None) -> None:
        missing = [lang for lang in languages if lang not in OFFLINE_LANGUAGES]
        if missing:
            raise UnavailableError(f"OCR languages {', '.join(missing)} need a model download, which Trove does "
                                   f"not do; the bundled models read: {', '.join(sorted(OFFLINE_LANGUAGES))}")
        self.threads = threads
        self.languages = languages
        self.models = models  # a folder of the three model files; None: the rapidocr package's own
        self._lock = threading.Lock()
        self._ocr = None

    def read(self, image) -> OcrResult:
        """OCR one image (a PIL image, or bytes/path of a PNG/JPEG/TIFF/WebP file). Raises ExtractionError
        for an image that cannot be decoded or OCR'd."""
        picture = _within(_as_rgb(image), MAX_SIDE)
        if min(picture.size) < MIN_SIDE:
            return OcrResult("", 0.0)
        import numpy as np

        array = np.asarray(picture)[:, :, ::-1]  # RGB -> BGR, the channel order OpenCV and rapidocr use
        lines: list[tuple[str, float]] = []
        words: list[OcrWord] = []
        height, width = array.shape[:2]
        with self._lock:
            engine = self._load()
            for top, bottom, keep_from, keep_to in band_ranges(height):
                try:  # word boxes: rapidocr places each word by where the recogniser read its characters
                    output = engine(array[top:bottom], return_word_box=True)
                except Exception as exc:  # onnxruntime/imageops errors on one odd image
                    raise ExtractionError(f"OCR failed on this image ({type(exc).__name__}: "
                                          f"{str(exc)[:200]})") from exc
                lines += _band_lines(output, top, keep_from, keep_to)
                words += band_words(getattr(output, "word_results", ()), top, keep_from, keep_to, width, height)
        return _result(lines, words)

    def _load(self):
        if self._ocr is None:
            self._ocr = build_rapidocr(self.threads, self.models)
        return self._ocr


def build_rapidocr(threads: int = 0, models: Path | None = None):
    """A RapidOCR pipeline pointed at the model files inside the installed package (never a download), or in
    `models` (bench/ocr_weights.py compares the packaged half-precision files with the wheel's)."""
    from desktop_app.core.ocr.imageops import use_in_rapidocr

    try:
        rapidocr = use_in_rapidocr()  # its `cv2` is imageops: the app ships without OpenCV
    except ImportError as exc:
        raise UnavailableError("OCR is not installed (the rapidocr and onnxruntime packages)") from exc
    models = models or Path(rapidocr.__file__).resolve().parent / "models"
    params: dict[str, object] = {"Global.log_level": "warning"}
    for stage, name in BUNDLED_MODELS.items():
        path = models / name
        if not path.is_file():
            raise UnavailableError(f"the OCR model {name} is missing from the rapidocr package")
        params[f"{stage}.model_path"] = str(path)
    if threads > 0:
        params["EngineConfig.onnxruntime.intra_op_num_threads"] = threads
        params["EngineConfig.onnxruntime.inter_op_num_threads"] = 1
    log.info("loading OCR models from %s", models)
    return rapidocr.RapidOCR(params=params)


def band_ranges(height: int, band: int = BAND_HEIGHT, overlap: int = BAND_OVERLAP) -> list[tuple[int, int, int, int]]:
    """(top, bottom, keep_from, keep_to) per band: bands overlap by `overlap` rows, and the keep ranges
    split [0, height) into consecutive pieces, so each line is kept exactly once. Pure."""
    if height <= band:
        return [(0, height, 0, height)]
    step = band - overlap
    tops = list(range(0, height - overlap, step))
    out = []
    for index, top in enumerate(tops):
        bottom = min(top + band, height)
        keep_from = 0 if index == 0 else top + overlap // 2
        keep_to = height if index == len(tops) - 1 else top + step + overlap // 2
        out.append((top, bottom, keep_from, keep_to))
    return out


def _band_lines(output, top: int, keep_from: int, keep_to: int) -> list[tuple[str, float]]:
    boxes = getattr(output, "boxes", None)
    texts = getattr(output, "txts", None) or ()
    scores = getattr(output, "scores", None) or ()
    if boxes is None:
        return []
    kept = []
    for box, text, score in zip(boxes, texts, scores, strict=False):
        centre = top + float(sum(point[1] for point in box)) / len(box)
        if text and text.strip() and keep_from <= centre < keep_to:
            kept.append((text.strip(), float(score)))
    return kept


def _result(lines: list[tuple[str, float]], words: list[OcrWord]) -> OcrResult:
    if not lines:
        return OcrResult("", 0.0)
    return OcrResult("\n".join(t for t, _ in lines), sum(s for _, s in lines) / len(lines), len(lines),
                     tuple(words))


def _within(picture, side: int):
    """`picture` scaled down (never up) so its longer side is at most `side`."""
    if max(picture.size) <= side:
        return picture
    ratio = side / max(picture.size)
    return picture.resize((max(1, round(picture.width * ratio)), max(1, round(picture.height * ratio))))


def _as_rgb(image):
    from desktop_app.core.ingest.page_images import load_image

    if isinstance(image, (bytes, bytearray, str, Path)):
        data = Path(image).read_bytes() if isinstance(image, (str, Path)) else bytes(image)
        return load_image(data)
    return image if image.mode == "RGB" else image.convert("RGB")


_default_engine: OcrEngine | None = None
_default_lock = threading.Lock()


def default_engine() -> OcrEngine:
    """The process's shared engine (models loaded on first use)."""
    global _default_engine
    with _default_lock:
        if _default_engine is None:
            _default_engine = OcrEngine()
        return _default_engine


def ocr_image(image, engine: OcrEngine | None = None) -> OcrResult:
    """OCR one image with `engine` (the shared one by default)."""
    return (engine or default_engine()).read(image)
