"""Events in a folder made a moment before: a file moved into it and deleted at once is forgotten.

Tried as a person would under `trove watch`: write new.txt, change it, `mkdir sub && mv new.txt sub/moved.txt`,
then `rm sub/moved.txt`. The delete event folds into the new folder's pending sync; that sync found the folder
empty and took it for an unmounted drive ("never read it as all deleted"), so the file stayed searchable until the
next full rescan (4 of 10 rounds on a quiet 2-core machine). Only a library folder or a mount point may be an
unmounted drive now; an ordinary emptied sub-folder loses its documents.
"""

from __future__ import annotations

import pytest

from tests.integration.watch.conftest import doc_paths, wait_until

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

ROUNDS = 50


def test_a_file_moved_into_a_new_folder_then_deleted_is_never_left_searchable(watched):
    docs = watched.docs
    for i in range(ROUNDS):
        word = f"zebu{i}x"
        new = docs / "new.txt"
        new.write_text(f"first {word}", encoding="utf-8")
        new.write_text(f"second {word} changed", encoding="utf-8")
        sub = docs / f"sub{i}"
        sub.mkdir()
        new.rename(sub / "moved.txt")
        watched.wait_keyword(word, ["moved.txt"])
        (sub / "moved.txt").unlink()
        watched.wait_keyword(word, [])
    wait_until(lambda: doc_paths(watched.lib) == [], message="no document left")


def test_an_emptied_sub_folder_loses_its_documents_but_an_empty_library_folder_reads_as_offline(make_library, tmp_path):
    """The rule itself, without the watcher: a sync of an emptied sub-folder removes its documents; a sync of the
    emptied library folder keeps them (it may be a drive that went away)."""
    docs = tmp_path / "docs"
    sub = docs / "sub"
    sub.mkdir(parents=True)
    (sub / "a.txt").write_text("the quokka", encoding="utf-8")
    (docs / "b.txt").write_text("the numbat", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync(wait=False)
    assert len(doc_paths(lib)) == 2
    (sub / "a.txt").unlink()
    report = lib.sync_paths([sub])
    assert report.removed == 1 and doc_paths(lib) == [str(docs / "b.txt")]
    (docs / "b.txt").unlink()
    sub.rmdir()
    report = lib.sync_paths([docs])
    assert report.removed == 0 and doc_paths(lib) == [str(docs / "b.txt")]
    assert str(docs) in report.offline
