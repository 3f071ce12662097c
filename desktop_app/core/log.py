"""One named logger per area (trove.ingest, trove.watch, trove.index, trove.search, trove.chat, trove.db, trove.ui)."""

from __future__ import annotations

import logging

AREAS = ("ingest", "watch", "index", "search", "chat", "db", "ui", "embed")


def get_logger(area: str) -> logging.Logger:
    """The logger for one area of Trove."""
    return logging.getLogger(f"trove.{area}")
