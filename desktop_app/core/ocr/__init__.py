"""Offline OCR (RapidOCR models inside the rapidocr wheel). Importing this package loads no model and no
onnxruntime: that happens on the first image read."""

from desktop_app.core.ocr.engine import OFFLINE_LANGUAGES, OcrEngine, OcrResult, default_engine, ocr_image
from desktop_app.core.ocr.pages import OcrPage, apply_ocr, ocr_page, ocr_pages

__all__ = ["OFFLINE_LANGUAGES", "OcrEngine", "OcrPage", "OcrResult", "apply_ocr", "default_engine", "ocr_image",
           "ocr_page", "ocr_pages"]
