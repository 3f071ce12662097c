"""RTF (striprtf): the plain text of a Rich Text file, and its \\title if it has one."""

from __future__ import annotations

import re

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted

_INFO_TITLE = re.compile(r"\{\\title\s+([^{}]*)\}")


def extract_rtf(data: bytes, fallback_title: str) -> Extracted:
    """RTF is 7-bit text with escapes for everything else, so latin-1 decoding loses nothing before striprtf."""
    from striprtf.striprtf import rtf_to_text

    if not data.lstrip()[:5] == b"{\\rtf":
        raise ExtractionError("not an RTF file (no {\\rtf header)")
    source = data.decode("latin-1")
    try:
        text = rtf_to_text(source, errors="replace")
    except Exception as exc:  # striprtf raises plain exceptions on broken escapes or code pages
        raise ExtractionError(f"unreadable RTF ({type(exc).__name__}: {str(exc)[:200]})") from exc
    found = _INFO_TITLE.search(source[:50_000])
    title = rtf_to_text(found.group(1)).strip() if found else ""
    return Extracted(text.strip(), title or fallback_title, "rtf")
