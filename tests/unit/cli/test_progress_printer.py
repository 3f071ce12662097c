"""ProgressPrinter output: JSON lines, plain lines, and the terminal bar."""

from __future__ import annotations

import io
import json

from desktop_app.cli.progress import ProgressPrinter, event_to_dict, format_bar
from desktop_app.core.events import IndexProgress, Notice


def test_json_events_are_one_object_per_line_with_a_kind():
    out = io.StringIO()
    p = ProgressPrinter(out, json_events=True)
    p(IndexProgress("keyword", files_queued=4, files_done=2, current_file="/x/a.txt"))
    p(Notice("warning", "Folder is offline", "/x"))
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["kind"] == "progress" and first["files_done"] == 2 and first["fraction"] == 0.5
    assert second == {**event_to_dict(Notice("warning", "Folder is offline", "/x", at=second["at"]))}


def test_plain_mode_prints_notices_and_a_summary_line_not_a_bar():
    out = io.StringIO()
    p = ProgressPrinter(out, tty=False, line_every=0)
    p(IndexProgress("keyword", files_queued=3, files_done=3, current_file="/x/c.txt"))
    p(Notice("error", "Could not index c.txt: damaged", "/x/c.txt"))
    p(IndexProgress("idle", files_queued=3, files_done=3))
    text = out.getvalue()
    assert "\r" not in text
    assert text.splitlines() == ["keyword: keyword 3/3 files  c.txt", "error: Could not index c.txt: damaged",
                                 "idle: up to date: 3 files indexed"]


def test_tty_bar_appears_for_long_runs_and_is_cleared_for_notices():
    out = io.StringIO()
    p = ProgressPrinter(out, tty=True, bar_after=0)
    p(IndexProgress("keyword", files_queued=10, files_done=5, rate=2.0, eta_seconds=2.5))
    assert out.getvalue().startswith("\r[" + "#" * 12 + "." * 12 + "]  50% keyword 5/10 files")
    p(Notice("warning", "hello"))
    assert out.getvalue().endswith("\rwarning: hello\n")
    p.close()


def test_short_runs_show_no_bar():
    out = io.StringIO()
    p = ProgressPrinter(out, tty=True, bar_after=60)
    p(IndexProgress("keyword", files_queued=10, files_done=5))
    assert out.getvalue() == ""


def test_format_bar_semantic_phase():
    bar = format_bar(IndexProgress("semantic", chunks_embedded=30, chunks_total=120, rate=15))
    assert "semantic 30/120 chunks" in bar and "15 chunks/s" in bar and "25%" in bar


def test_the_scan_leaves_the_status_line_once_the_keyword_phase_reports():
    from desktop_app.cli.progress import format_status

    scan = IndexProgress("scan", files_queued=408)
    keyword = IndexProgress("keyword", files_queued=408, files_done=338)
    assert "scan 0/408" in format_status({"scan": scan})
    line = format_status({"scan": scan, "keyword": keyword})
    assert "scan" not in line and "keyword 338/408 files" in line
