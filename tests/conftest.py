"""Shared fixtures. Every test runs offline against real SQLite/FTS5/sqlite-vec in a temp folder."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("TROVE_HOME", None)
os.environ.pop("TROVE_EMBEDDER", None)

import pytest  # noqa: E402


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
