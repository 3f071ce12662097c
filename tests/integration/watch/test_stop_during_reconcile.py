"""Stopping live sync during a long startup reconcile returns after the file in flight."""

import threading
import time

from tests.support.helpers import assert_consistent


def test_stop_watching_interrupts_the_reconcile_and_sync_finishes_it(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(200):
        (docs / f"n{i:03}.txt").write_text(f"note {i} on the oryx{i}", encoding="utf-8")
    lib = make_library(debounce_seconds=0.2)
    lib.add_folder(docs)
    started = threading.Event()
    real = lib.indexer._index_found

    def slow_index_found(*args, **kwargs):  # 20 ms a file: the whole reconcile would take 4 s
        started.set()
        time.sleep(0.02)
        return real(*args, **kwargs)

    lib.indexer._index_found = slow_index_found
    lib.start_watching()
    assert started.wait(15)
    lib.stop_watching()
    assert not lib.watcher.running
    done = assert_consistent(lib.db_path)["chunks"]
    assert 0 < done < 200
    report = lib.sync(wait=False)  # stopping was only for the watcher: a later sync runs to the end
    assert report.indexed == 200 - done and report.unchanged == done
