"""What extraction produces: a document's text cut into labelled pages, and the documents inside one file.

A "page" is whatever a citation should name: a PDF page, a slide, a chapter, a block of spreadsheet rows, a
message of a mailbox. `number` is its 1-based ordinal (what today's store keeps per chunk); `label` is how a
person reads it ("slide 3", "sheet Budget rows 2-41", "chapter 4: The Sea").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

PAGE_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Page:
    """One page's slice of the extracted text: `text[start:end]`.

    `needs_ocr`: the page has no text layer but shows an image (a scan, a photo): its text can only come from
    OCR, so it is empty until the OCR phase fills it. `ocr`: the page's text came from OCR.
    """

    number: int
    start: int
    end: int
    label: str = ""
    needs_ocr: bool = False
    ocr: bool = False

    @property
    def display(self) -> str:
        """The label, or "p. N" when the format has no better name for its pages."""
        return self.label or f"p. {self.number}"


@dataclass(frozen=True)
class Extracted:
    """A document's text, title and type, where each page lies in the text, and header fields (mail).

    `part` is "" for the file itself; a document found inside a file (a message of a mailbox, an attachment)
    has a part path such as "3" or "3/report.pdf", and its key is `f"{path}#{part}"`; its `label` says how a
    citation names it ("message 3", "message 3 · report.pdf").
    """

    text: str
    title: str
    type: str
    pages: tuple[Page, ...] = ()
    meta: tuple[tuple[str, str], ...] = ()
    part: str = ""
    label: str = ""

    @property
    def page_count(self) -> int | None:
        return len(self.pages) or None

    @property
    def metadata(self) -> dict[str, str]:
        return dict(self.meta)

    @property
    def pages_needing_ocr(self) -> tuple[Page, ...]:
        """Pages whose text can only come from OCR (empty until then)."""
        return tuple(p for p in self.pages if p.needs_ocr)

    def page_text(self, page: Page) -> str:
        return self.text[page.start:page.end]


@dataclass(frozen=True)
class FailedPart:
    """A document inside a file that could not be read (an attachment of an unreadable type, a broken one)."""

    part: str
    name: str
    reason: str


@dataclass(frozen=True)
class Extraction:
    """Every document one file yields: the file's own (part "") and those inside it, plus the parts that failed."""

    documents: tuple[Extracted, ...]
    failed: tuple[FailedPart, ...] = ()


@dataclass
class PageBuilder:
    """Joins page texts with a blank line between them and records where each lands. Not shared across threads."""

    parts: list[str] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    length: int = 0

    def add(self, text: str, label: str = "", *, number: int | None = None, needs_ocr: bool = False,
            ocr: bool = False) -> Page:
        """Append one page (its text is stripped); returns where it landed."""
        text = text.strip()
        if self.parts:
            self.parts.append(PAGE_SEPARATOR)
            self.length += len(PAGE_SEPARATOR)
        self.parts.append(text)
        page = Page(number if number is not None else len(self.pages) + 1, self.length, self.length + len(text),
                    label, needs_ocr, ocr)
        self.pages.append(page)
        self.length += len(text)
        return page

    def build(self, title: str, type_: str, meta: tuple[tuple[str, str], ...] = ()) -> Extracted:
        return Extracted("".join(self.parts), title, type_, tuple(self.pages), meta)


def flatten(extraction: Extraction, kind: str) -> Extracted:
    """One document from a file that holds several: each inner document's pages become pages of it, labelled
    by where they came from ("message 3", "message 3 · report.pdf p. 2"). Works with a store that keys
    documents by path alone."""
    docs = extraction.documents
    if len(docs) == 1 and not docs[0].part:
        return docs[0]
    builder = PageBuilder()
    for doc in docs:
        prefix = doc.label
        if not doc.pages:
            builder.add(doc.text, prefix)
            continue
        for page in doc.pages:
            label = " · ".join(x for x in (prefix, page.display) if x)
            builder.add(doc.page_text(page), label, needs_ocr=page.needs_ocr, ocr=page.ocr)
    first = docs[0] if docs else Extracted("", "", kind)
    return builder.build(first.title, kind, first.meta)


def with_page_text(doc: Extracted, texts: dict[int, str], *, ocr: bool = True) -> Extracted:
    """A copy of `doc` whose pages numbered in `texts` carry that text (e.g. OCR results); others keep theirs."""
    builder = PageBuilder()
    for page in doc.pages:
        if page.number in texts:
            builder.add(texts[page.number], page.label, number=page.number, ocr=ocr)
        else:
            builder.add(doc.page_text(page), page.label, number=page.number, needs_ocr=page.needs_ocr, ocr=page.ocr)
    return replace(builder.build(doc.title, doc.type, doc.meta), part=doc.part, label=doc.label)
