"""A passage and a quote on an OCR'd page: the boxes of the words they touch, merged per line, found whatever the
spacing, line breaks and case."""

from __future__ import annotations

from desktop_app.core.ocr.words import OcrWord
from desktop_app.core.viewer_ocr import with_ocr_boxes
from desktop_app.core.viewer_rows import PdfPage

# two lines of words, as OCR reads them: "The storm of March" / "broke three windows"
WORDS = [OcrWord("The", 0.10, 0.10, 0.18, 0.14), OcrWord("storm", 0.20, 0.10, 0.32, 0.14),
         OcrWord("of", 0.34, 0.10, 0.38, 0.14), OcrWord("March", 0.40, 0.10, 0.52, 0.14),
         OcrWord("broke", 0.10, 0.20, 0.22, 0.24), OcrWord("three", 0.24, 0.20, 0.35, 0.24),
         OcrWord("windows", 0.37, 0.20, 0.55, 0.24)]
PAGE = PdfPage("scan.pdf", 1, 1, 1000, 2000, 4000, b"", 1.0)


def test_the_quote_covers_its_words_one_box_per_line():
    page = with_ocr_boxes(PAGE, WORDS, "The storm of March\nbroke three windows", "march broke  THREE")
    assert page.ocr and page.quote_chars == (3, 6)
    assert [(b.left, b.top, b.right, b.bottom) for b in page.quote_boxes] == [
        (400, 200, 520, 280), (100, 400, 350, 480)]
    assert [(b.left, b.right) for b in page.passage_boxes] == [(100, 520), (100, 550)]


def test_a_quote_that_starts_inside_a_word_covers_the_whole_word():
    page = with_ocr_boxes(PAGE, WORDS, "", "orm of")
    assert page.quote_chars == (1, 3) and [(b.left, b.right) for b in page.quote_boxes] == [(200, 380)]


def test_nothing_found_gives_no_boxes():
    page = with_ocr_boxes(PAGE, WORDS, "a passage from another page", "nowhere")
    assert (page.passage_boxes, page.quote_boxes, page.quote_chars) == ((), (), (-1, -1))


def test_chinese_and_japanese_words_are_characters_and_a_quote_covers_its_own():
    """RapidOCR gives a CJK line's characters as its words: a quote is found across them without spaces."""
    chars = [OcrWord(ch, 0.1 + i * 0.05, 0.3, 0.14 + i * 0.05, 0.34) for i, ch in enumerate("東京の図書館で本を探す")]
    page = with_ocr_boxes(PAGE, chars, "東京の図書館で本を探す", "図書館")
    assert page.quote_chars == (3, 6)
    assert [(b.left, b.right) for b in page.quote_boxes] == [(250, 390)]  # one rectangle over the three
