"""How the UI writes quantities. One byte formatter for every pane and dialog: SI (decimal) units, 1 MB =
1,000,000 bytes, as download sizes, the model catalog and the CLI quote them, so the chat header and the
Models dialog say "386 MB" for the same file. The function itself is the core's (its messages and the CLI
use it too); UI modules take it from here.
"""

from __future__ import annotations

from desktop_app.core.chat.catalog import format_bytes

__all__ = ["format_bytes"]
