"""The record of what a team library's side-index copies may hold (store/side/copies.py)."""

from __future__ import annotations

import threading

from desktop_app.core.store.side.copies import covered, record


def test_two_threads_recording_at_once_lose_neither_rename_nor_folder(tmp_path):
    # hybrid search builds the keyword and the vector copy on two threads at once, and each records its folders
    rounds, errors = 200, []
    start = threading.Barrier(2)

    def writer(first: int) -> None:
        try:
            for n in range(rounds):
                if n % 20 == 0:
                    start.wait()
                record(tmp_path, {first + n})
        except Exception as exc:  # noqa: BLE001 -- the test reports any failure of the other thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(base,)) for base in (0, 10_000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert covered(tmp_path) == set(range(rounds)) | set(range(10_000, 10_000 + rounds))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folders.json"]  # no temporary file left behind
