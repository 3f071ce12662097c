"""One named logger per area of Trove, made in one place: `get_logger("index")` is `trove.index`."""

from __future__ import annotations

import logging

AREAS = frozenset({"ingest", "watch", "index", "embed", "search", "chat", "db", "ocr", "server", "ui"})


def get_logger(area: str) -> logging.Logger:
    """The logger for one area of Trove (an unknown area is a bug: every logger is listed in AREAS)."""
    if area not in AREAS:
        raise ValueError(f"unknown log area {area!r}; add it to desktop_app.core.log.AREAS")
    return logging.getLogger(f"trove.{area}")
