"""How the UI writes quantities. One byte formatter for every pane and dialog: SI (decimal) units, 1 MB =
1,000,000 bytes, as download sizes, the model catalog and the CLI quote them, so the chat header and the
Models dialog say "386 MB" for the same file. The function itself is the core's (its messages and the CLI
use it too); UI modules take it from here. And one way to write a count with its noun (`counted`).
"""

from __future__ import annotations

from desktop_app.core.chat.models.catalog import format_bytes

__all__ = ["counted", "format_bytes"]


def counted(n: int, singular: str, plural: str = "") -> str:
    """“1 document”, “0 documents”, “3 pages”: a count and its noun in the right number (`plural` when the noun's
    plural is not singular + "s"). The UI is English only; this is the one place a translation's plural rules
    would go (QCoreApplication.translate with `n`), so no call site spells a plural itself."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def semantic_share(embedded: int, chunks: int, documents: int) -> int:
    """The semantic bar's value out of 1000, for the status bar and each folder row alike."""
    if chunks:
        return int(1000 * embedded / chunks)
    return 1000 if documents else 0
