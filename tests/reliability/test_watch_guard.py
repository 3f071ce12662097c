"""The live-sync thread outlives any failure, including one in its first reconcile (it used to die there while
`trove watch` went on printing "watching")."""

from __future__ import annotations

import time

import pytest

from desktop_app.core.events import Notice


@pytest.mark.logs_errors  # the failing reconcile is logged as an error on purpose
def test_a_failing_first_reconcile_does_not_end_live_sync(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    lib = make_library(debounce_seconds=0.2)
    lib.add_folder(docs)
    notices: list[Notice] = []
    lib.subscribe(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    real = lib.indexer.sync_folders
    calls = {"n": 0}

    def sync_folders(folders):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("a file the indexer could not handle")
        return real(folders)

    lib.indexer.sync_folders = sync_folders
    watcher = lib.start_watching()
    try:
        (docs / "later.txt").write_text("a later heron", encoding="utf-8")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not lib.search("heron", mode="keyword"):
            time.sleep(0.1)
        assert lib.search("heron", mode="keyword") and watcher.running
        assert any("Live sync hit an error" in n.message for n in notices)
    finally:
        lib.stop_watching()
