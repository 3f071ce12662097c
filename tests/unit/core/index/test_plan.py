"""Indexer.plan, the reconcile worked out before any file is read: which files are read again, which documents go,
which of those a renamed file may take over, and what is recorded as seen but not read. Real SQLite store, real
files in a temporary folder, indexed once by the real keyword phase before each plan."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.core.index.indexer import Indexer, SyncReport
from desktop_app.core.ingest.discover import HIDDEN_FILE, HIDDEN_FOLDER
from desktop_app.core.settings import DEFAULT_EXCLUDES, Settings
from desktop_app.core.store.ledger_rows import LedgerQuery
from desktop_app.core.store.rows import DocStatus
from desktop_app.core.store.sqlite import SQLiteStore

FILES = {
    "same.txt": "The harbour master counts the boats each morning.",
    "edited.txt": "The lighthouse keeper logs the fog at dawn.",
    "removed.txt": "The ferry timetable changes in winter.",
    "before_rename.txt": "The net mender sings while she works on the quay.",
    "notes/deep.md": "# Tides\n\nSpring tides come twice a month.",
    "notes/drafts/old.txt": "A draft about the breakwater.",
}


@pytest.fixture
def library(tmp_path):
    """(store, folder id, root) after a first sync of FILES."""
    root = (tmp_path / "docs").resolve()
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    store = SQLiteStore(tmp_path / "library.db")
    folder = store.add_folder(str(root))
    first = Indexer(store, Settings()).sync_folder(folder.id, root)
    assert first.indexed == len(FILES) and first.failed == 0
    yield store, folder.id, root
    store.close()


def plan_of(store, folder_id: int, root: Path, settings: Settings | None = None, at: Path | None = None):
    report = SyncReport()
    plan = Indexer(store, settings or Settings()).plan(folder_id, at or root, report)
    assert plan is not None
    todo = {str(f.path.relative_to(root)) for f in plan.todo}
    vanished = {str(Path(d.path).relative_to(root)) for d in plan.vanished}
    return plan, report, todo, vanished


def test_an_untouched_folder_plans_nothing(library):
    store, folder_id, root = library
    plan, report, todo, vanished = plan_of(store, folder_id, root)
    assert todo == set() and vanished == set()
    assert report.unchanged == len(FILES)


def test_new_and_changed_files_are_read_again_the_same_size_and_time_are_not(library):
    store, folder_id, root = library
    (root / "fresh.txt").write_text("A new note about the pier.", encoding="utf-8")
    edited = root / "edited.txt"
    before = edited.stat()
    edited.write_text("The lighthouse keeper logs the fog and the wind at dawn.", encoding="utf-8")
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns + 10**10))  # ten seconds later
    plan, report, todo, vanished = plan_of(store, folder_id, root)
    assert todo == {"fresh.txt", "edited.txt"}
    assert vanished == set()
    assert report.unchanged == len(FILES) - 1  # all but edited.txt: same size and time as indexed


def test_a_removed_file_is_planned_to_go_and_still_there_until_the_sync_does_it(library):
    store, folder_id, root = library
    gone = store.document_by_path(str(root / "removed.txt"))
    (root / "removed.txt").unlink()
    plan, _report, todo, vanished = plan_of(store, folder_id, root)
    assert todo == set() and vanished == {"removed.txt"}
    assert store.document_by_path(str(root / "removed.txt")) == gone  # the plan itself deletes nothing


def test_a_renamed_file_is_read_under_its_new_name_and_may_take_the_old_document(library):
    store, folder_id, root = library
    old = store.document_by_path(str(root / "before_rename.txt"))
    (root / "before_rename.txt").rename(root / "notes" / "after_rename.txt")
    plan, _report, todo, vanished = plan_of(store, folder_id, root)
    assert todo == {"notes/after_rename.txt"}
    assert vanished == {"before_rename.txt"}
    # The new path is hashed when read; a match with this content takes the old document instead of a new one.
    assert plan.by_hash[old.content_hash].id == old.id and old.id in plan.hashed


def test_hidden_entries_are_recorded_as_not_read_and_never_planned(library):
    store, folder_id, root = library
    (root / ".private.txt").write_text("not for the index", encoding="utf-8")
    (root / ".cache").mkdir()
    (root / ".cache" / "inside.txt").write_text("never walked into", encoding="utf-8")
    (root / "tune.mp3").write_bytes(b"ID3" + bytes(64))
    plan, _report, todo, vanished = plan_of(store, folder_id, root)
    assert todo == set() and vanished == set()
    not_read = {str(Path(row.path).relative_to(root)): row.reason
                for row in store.ledger_page(LedgerQuery(folder=str(root))) if row.not_read}
    assert not_read.keys() == {".private.txt", ".cache", "tune.mp3"}
    assert not_read[".private.txt"] == HIDDEN_FILE and not_read[".cache"] == HIDDEN_FOLDER
    assert "unsupported file type" in not_read["tune.mp3"]
    assert store.document_by_path(str(root / ".private.txt")).status == DocStatus.NOT_READ


def test_excluded_names_are_left_out_and_an_indexed_file_newly_excluded_goes(library):
    store, folder_id, root = library
    (root / "node_modules").mkdir()
    (root / "node_modules" / "readme.txt").write_text("a dependency's readme", encoding="utf-8")
    (root / "notes" / "drafts" / "new.txt").write_text("another draft", encoding="utf-8")
    settings = Settings(excluded_patterns=(*DEFAULT_EXCLUDES, "drafts"))
    plan, _report, todo, vanished = plan_of(store, folder_id, root, settings)
    assert todo == set()
    assert vanished == {"notes/drafts/old.txt"}  # indexed before the folder was excluded
    assert store.document_by_path(str(root / "node_modules" / "readme.txt")) is None  # not even recorded
    assert store.document_by_path(str(root / "notes" / "drafts" / "new.txt")) is None


def test_a_plan_of_a_sub_folder_covers_only_what_is_under_it(library):
    store, folder_id, root = library
    (root / "removed.txt").unlink()
    (root / "notes" / "deep.md").unlink()
    (root / "notes" / "tide_table.txt").write_text("High water at six.", encoding="utf-8")
    _plan, _report, todo, vanished = plan_of(store, folder_id, root, at=root / "notes")
    assert todo == {"notes/tide_table.txt"}
    assert vanished == {"notes/deep.md"}  # removed.txt, outside notes/, waits for a plan of the whole folder


def test_a_folder_that_is_not_there_has_no_plan_and_is_reported_offline(library):
    store, folder_id, root = library
    report = SyncReport()
    assert Indexer(store, Settings()).plan(folder_id, root / "unplugged", report) is None
    assert report.offline == [str(root / "unplugged")]
