"""The window's log file: warnings reach <home>/logs/trove.log, redacted; a second start replaces the handler."""

from __future__ import annotations

import logging

from desktop_app.core.log import get_logger
from desktop_app.ui.log_file import log_path, start_log_file


def test_warnings_reach_the_log_file_without_credentials(tmp_path):
    trove = logging.getLogger("trove")
    before = list(trove.handlers)
    try:
        path = start_log_file(tmp_path / "home")
        assert path == log_path(tmp_path / "home")
        again = start_log_file(tmp_path / "other")  # a second window: one file handler, the new one
        assert len(trove.handlers) == len(before) + 1
        get_logger("ui").warning("could not reach postgresql://ann:s3cret@db.example/trove")
        for handler in trove.handlers:
            handler.flush()
        text = again.read_text(encoding="utf-8")
        assert "could not reach" in text and "s3cret" not in text
        assert path.read_text(encoding="utf-8") == ""
    finally:
        for handler in [h for h in trove.handlers if h not in before]:
            trove.removeHandler(handler)
            handler.close()
