"""Stopping live sync during a long startup reconcile returns after the file in flight.

Deterministic: the third file's indexing waits until the stop has been asked for (the indexer's `stopping`
event), so exactly three files are done whatever the machine's speed (a 20 ms sleep per file used to leave 0 or
200 done on a loaded or a fast machine)."""

import threading

from tests.support.helpers import assert_consistent


def test_stop_watching_interrupts_the_reconcile_and_sync_finishes_it(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(200):
        (docs / f"n{i:03}.txt").write_text(f"note {i} on the oryx{i}", encoding="utf-8")
    lib = make_library(debounce_seconds=0.2)
    lib.add_folder(docs)
    started = threading.Event()
    calls = []
    real = lib.indexer._index_found

    def gated_index_found(*args, **kwargs):  # the third file is in flight when the stop is asked for
        calls.append(1)
        if len(calls) == 3:
            started.set()
            assert lib.indexer.stopping.wait(60)
        return real(*args, **kwargs)

    lib.indexer._index_found = gated_index_found
    lib.start_watching()
    assert started.wait(60)
    lib.stop_watching()
    assert not lib.watcher.running
    done = assert_consistent(lib.db_path)["chunks"]
    assert done == 3 == len(calls)  # the file in flight is finished, and no later one is started
    report = lib.sync(wait=False)  # stopping was only for the watcher: a later sync runs to the end
    assert report.indexed == 200 - done and report.unchanged == done
