"""Shared fixtures. Every test runs offline against real SQLite/FTS5/sqlite-vec in a temp folder."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("TROVE_HOME", None)
os.environ.pop("TROVE_EMBEDDER", None)
os.environ["TROVE_CACHE"] = tempfile.mkdtemp(prefix="trove-test-cache-")  # unpacked weights: not the user's cache
atexit.register(shutil.rmtree, os.environ["TROVE_CACHE"], True)

import logging  # noqa: E402

import pytest  # noqa: E402

from tests.support.pg_server import pg_server, pg_url  # noqa: E402,F401  (a real PostgreSQL for the server-engine tests)


class _ErrorRecorder(logging.Handler):
    """Keeps every ERROR (and worse) that Trove's loggers emit during one test."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def fail_on_logged_errors(request):
    """Like qutebrowser's logfail: a test fails when Trove logs an ERROR it did not ask for.

    A test that provokes errors on purpose says so with `@pytest.mark.logs_errors` (and usually asserts on them
    through the `logged_errors` fixture).
    """
    recorder = _ErrorRecorder()
    trove = logging.getLogger("trove")
    trove.addHandler(recorder)
    request.node.trove_errors = recorder.records
    try:
        yield recorder.records
    finally:
        trove.removeHandler(recorder)
    if recorder.records and request.node.get_closest_marker("logs_errors") is None:
        lines = "\n".join(f"  {r.name}: {r.getMessage()}" for r in recorder.records[:10])
        pytest.fail(f"Trove logged {len(recorder.records)} unexpected error(s):\n{lines}", pytrace=False)


@pytest.fixture
def logged_errors(fail_on_logged_errors):
    """The ERROR records Trove logged so far in this test (use with @pytest.mark.logs_errors)."""
    return fail_on_logged_errors


@pytest.fixture
def make_library(tmp_path):
    """Build Libraries in a temp home; closed at the end. Default: the hash embedder (fast, deterministic)."""
    from desktop_app.core.library import Library
    from desktop_app.core.settings import Settings

    made = []

    def factory(home=None, **settings_changes):
        settings_changes.setdefault("embedder", "hash")
        lib = Library(home=home or tmp_path / "home", settings=Settings(**settings_changes))
        made.append(lib)
        return lib

    yield factory
    for lib in made:
        lib.close()


@pytest.fixture(scope="session")
def minilm():
    """The real embedding model, loaded once per test session."""
    from desktop_app.core.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    return embedder
