"""Files that disappear while a folder is being indexed are gone, not "failed"."""

from __future__ import annotations

import shutil


def _folder(root, count: int):
    root.mkdir()
    for i in range(count):
        (root / f"note{i:02d}.txt").write_text(f"note number {i} about a tamandua\n")
    return root


def test_a_folder_deleted_mid_index_leaves_no_failures(make_library, tmp_path):
    docs = _folder(tmp_path / "docs", 12)
    lib = make_library()
    lib.add_folder(docs)
    real = lib.indexer._index_found
    seen = []

    def index_then_delete(*args, **kwargs):
        real(*args, **kwargs)
        seen.append(1)
        if len(seen) == 3:
            shutil.rmtree(docs)  # the folder is removed while the run is on its fourth file

    lib.indexer._index_found = index_then_delete
    report = lib.sync()
    assert report.indexed == 3 and report.failed == 0, report.errors
    [folder] = lib.folders()
    assert folder.documents == 3 and folder.failed == 0


def test_a_file_deleted_between_listing_and_reading_is_forgotten(make_library, tmp_path):
    docs = _folder(tmp_path / "docs", 3)
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    for i in range(3):
        (docs / f"note{i:02d}.txt").write_text(f"edited note {i} about a kinkajou\n")
    real = lib.indexer._index_found

    def delete_the_last_first(*args, **kwargs):
        (docs / "note02.txt").unlink(missing_ok=True)  # gone after the walk listed it as changed
        real(*args, **kwargs)

    lib.indexer._index_found = delete_the_last_first
    report = lib.sync()
    assert report.failed == 0, report.errors
    assert report.indexed == 2 and report.removed == 1
    assert [h.source.rsplit("/", 1)[-1] for h in lib.search("kinkajou", mode="keyword", top_k=10)].count(
        "note02.txt") == 0
    assert lib.folders()[0].documents == 2
