"""With the real MiniLM model: a watched file becomes semantically searchable without any keyword overlap."""

from __future__ import annotations

import pytest

from desktop_app.core.settings import Settings
from tests.integration.watch.conftest import names, wait_until


@pytest.mark.slow
def test_watched_file_becomes_semantically_searchable(make_watched, minilm):
    w = make_watched(Settings(debounce_seconds=0.2), embedder=minilm)  # Settings() default: the real model
    assert w.lib.embedder.model_id == minilm.model_id
    (w.docs / "pets.txt").write_text(
        "Puppies need daily walks, fresh water and a warm place to sleep.", encoding="utf-8"
    )
    (w.docs / "tax.txt").write_text(
        "Quarterly revenue reports must be filed before the fiscal deadline.", encoding="utf-8"
    )
    wait_until(lambda: w.lib.stats()["chunks_embedded"] == 2, timeout=60, message="both files embedded")
    assert w.lib.search("dog", mode="keyword") == []  # no shared word: only the semantic side can find it
    assert names(w.lib.search("caring for a young dog", top_k=2, mode="semantic"))[0] == "pets.txt"
    assert names(w.lib.search("caring for a young dog", top_k=2, mode="hybrid"))[0] == "pets.txt"
