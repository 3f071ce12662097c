"""What Trove logs may be kept and sent: credentials are redacted, documents' words never appear."""

from __future__ import annotations

import logging

import pytest

from desktop_app.core.log import RecentLines, SafeFormatter, get_logger, recent_lines, redact_text


def test_a_server_url_and_a_conninfo_password_are_redacted():
    line = redact_text("Lost postgresql://bob:hunter2@db.example:5432/lib?sslmode=verify-full; "
                       "conninfo host=db password='s3 cret' user=bob")
    assert "hunter2" not in line and "s3 cret" not in line
    assert "postgresql://bob:***@db.example:5432/lib" in line and "password=***" in line
    assert redact_text("indexed 3 files in /data/docs") == "indexed 3 files in /data/docs"


def test_a_traceback_through_the_formatter_is_redacted():
    record = None
    try:
        raise ConnectionError("could not reach postgresql://ann:topsecret@10.0.0.5/team")
    except ConnectionError as exc:
        record = logging.LogRecord("trove.db", logging.ERROR, __file__, 1, "failed: %s", (exc,), None)
        record.exc_info = (type(exc), exc, exc.__traceback__)
    text = SafeFormatter().format(record)
    assert "topsecret" not in text and "Traceback" in text
    assert text.count("ann:***@") >= 2  # the message and the traceback


def test_recent_lines_keep_the_last_ones_only():
    ring = RecentLines(size=3)
    logger = logging.getLogger("trove.test-ring")
    logger.addHandler(ring)
    logger.setLevel(logging.INFO)
    try:
        for n in range(5):
            logger.info("line %d", n)
    finally:
        logger.removeHandler(ring)
    assert [line.rsplit(" ", 1)[-1] for line in ring.lines()] == ["2", "3", "4"]
    assert recent_lines() is recent_lines()  # one buffer on the trove logger


@pytest.fixture
def every_line():
    """Every line the trove.* loggers emit at INFO and above during the test."""
    trove = logging.getLogger("trove")
    ring = RecentLines(size=100_000)
    level = trove.level
    trove.setLevel(logging.INFO)
    trove.addHandler(ring)
    yield ring
    trove.removeHandler(ring)
    trove.setLevel(level)


def test_indexing_searching_and_failing_files_log_no_document_text(make_library, tmp_path, every_line):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("The quokka xylophonist keeps a zanzibarcode ledger.\n", encoding="utf-8")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 zanzibarcode not really a pdf")
    library = make_library()
    library.add_folder(docs)
    library.sync(wait=True)
    assert library.search("xylophonist", mode="keyword")
    get_logger("index").info("a line to prove the capture works")
    text = "\n".join(every_line.lines())
    assert "a line to prove the capture works" in text
    for word in ("quokka", "xylophonist", "zanzibarcode"):
        assert word not in text
