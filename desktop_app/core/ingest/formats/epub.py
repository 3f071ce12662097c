"""EPUB (ebooklib): a page per spine document, labelled "chapter N: Title" from the book's table of contents."""

from __future__ import annotations

import io
import re
import warnings

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder
from desktop_app.core.ingest.html_text import first_heading, html_to_text
from desktop_app.core.ingest.safezip import open_checked_zip, read_member
from desktop_app.core.ingest.xmlguard import harden_lxml
from desktop_app.core.text.decode import decode_text

_CONTENT_CIPHER = re.compile(rb"""URI=["'][^"']+\.(?:x?html?|xml|opf|ncx)["']""", re.IGNORECASE)


def extract_epub(data: bytes, fallback_title: str) -> Extracted:
    """Each readable spine document becomes a page; DRM-encrypted books get a reason instead."""
    _refuse_drm(data)
    book = _read_book(data)
    try:
        toc = _toc_titles(book.toc)
        builder = PageBuilder()
        number = 0
        for item in _spine_documents(book):
            markup = decode_text(item.content or b"")  # the bytes as stored: get_content() re-renders through lxml
            _head_title, text = html_to_text(markup)
            if not text.strip():
                continue  # a cover picture or a blank separator page
            number += 1
            name = toc.get(item.get_name()) or first_heading(markup)
            builder.add(text, f"chapter {number}: {name}" if name else f"chapter {number}", number=number)
        titles = book.get_metadata("DC", "title")
    except ExtractionError:
        raise
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable EPUB ({type(exc).__name__}: {str(exc)[:200]})") from exc
    title = str(titles[0][0]).strip() if titles and titles[0][0] else ""
    return builder.build(title or fallback_title, "epub")


def _refuse_drm(data: bytes) -> None:
    archive = open_checked_zip(data, "EPUB")
    try:
        names = set(archive.namelist())
        encryption = read_member(archive, "META-INF/encryption.xml", 4 * 1024 * 1024) \
            if "META-INF/encryption.xml" in names else b""
    finally:
        archive.close()
    # font obfuscation also lists itself in encryption.xml; only encrypted text is DRM
    if _CONTENT_CIPHER.search(encryption):
        raise ExtractionError("DRM-protected EPUB (its text is encrypted)")


def _read_book(data: bytes):
    from ebooklib import epub

    harden_lxml()  # ebooklib passes its own parser (resolve_entities=False) for most parts; the rest get this one
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ebooklib warns about its own future defaults on every read
            return epub.read_epub(io.BytesIO(data), {"ignore_ncx": False})
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable EPUB ({type(exc).__name__}: {str(exc)[:200]})") from exc


def _spine_documents(book):
    """The spine's XHTML documents in reading order, without the EPUB 3 navigation document (a table of contents)."""
    import ebooklib
    from ebooklib import epub

    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue
        if "nav" in (getattr(item, "properties", None) or []):
            continue
        yield item


def _toc_titles(toc, found: dict[str, str] | None = None) -> dict[str, str]:
    """File name -> the first table-of-contents title that points into it."""
    found = {} if found is None else found
    for entry in toc:
        section, children = (entry[0], entry[1]) if isinstance(entry, tuple) else (entry, ())
        href = (getattr(section, "href", "") or "").split("#", 1)[0]
        title = " ".join((getattr(section, "title", "") or "").split())
        if href and title and href not in found:
            found[href] = title
        _toc_titles(children, found)
    return found
