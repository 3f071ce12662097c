"""Real watchdog events on a temp folder: every kind of change ends up in the index, once."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.integration.watch.conftest import doc_paths, wait_until
from tests.support.helpers import query_db

# watchdog warns when it re-adds a watch for a folder created inside a just-created folder (mkdir -p races)
pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


def test_create_makes_a_file_searchable(watched):
    (watched.docs / "new.md").write_text("# New\n\nthe axolotl regenerates", encoding="utf-8")
    watched.wait_keyword("axolotl", ["new.md"])


def test_modify_finds_new_words_and_forgets_old_ones(watched):
    note = watched.docs / "note.txt"
    note.write_text("first draft mentions the pangolin", encoding="utf-8")
    watched.wait_keyword("pangolin", ["note.txt"])
    note.write_text("second draft mentions the narwhal instead", encoding="utf-8")
    watched.wait_keyword("narwhal", ["note.txt"])
    assert watched.keyword("pangolin") == []
    assert doc_paths(watched.lib) == [str(note)]


def test_delete_removes_it(watched):
    note = watched.docs / "gone.txt"
    note.write_text("a fleeting capybara", encoding="utf-8")
    watched.wait_keyword("capybara", ["gone.txt"])
    note.unlink()
    watched.wait_keyword("capybara", [])
    assert doc_paths(watched.lib) == []


def _chunk_ids(lib, path):
    return [r[0] for r in query_db(
        lib.db_path,
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? ORDER BY c.ordinal",
        (str(path),))]


def test_rename_and_move_keep_chunks_under_the_new_path(watched):
    sub = watched.docs / "sub"
    sub.mkdir()
    old = watched.docs / "old-name.txt"
    old.write_text("the okapi lives in forests", encoding="utf-8")
    watched.wait_keyword("okapi", ["old-name.txt"])
    assert watched.lib.wait_for_embeddings(15)
    chunk_ids = _chunk_ids(watched.lib, old)
    renamed = watched.docs / "new-name.txt"
    old.rename(renamed)
    watched.wait_keyword("okapi", ["new-name.txt"])
    moved = sub / "new-name.txt"
    renamed.rename(moved)
    wait_until(lambda: doc_paths(watched.lib) == [str(moved)], message="the moved path")
    assert watched.keyword("okapi") == ["new-name.txt"]
    # the same chunk rows (and so their vectors) followed the file: nothing was re-extracted or re-embedded
    assert _chunk_ids(watched.lib, moved) == chunk_ids
    assert watched.lib.stats()["chunks_embedded"] == len(chunk_ids)


def test_folder_rename_moves_everything_under_it(watched):
    project = watched.docs / "project"
    (project / "deep").mkdir(parents=True)
    for i in range(5):
        (project / "deep" / f"n{i}.md").write_text(f"# N{i}\n\nmeerkat number {i}", encoding="utf-8")
    wait_until(lambda: len(watched.keyword("meerkat")) == 5, message="five meerkats")
    before = sorted(cid for p in doc_paths(watched.lib) for cid in _chunk_ids(watched.lib, p))
    project.rename(watched.docs / "renamed")
    expected = sorted(str(watched.docs / "renamed" / "deep" / f"n{i}.md") for i in range(5))
    wait_until(lambda: doc_paths(watched.lib) == expected, message="paths under the renamed folder")
    after = sorted(cid for p in doc_paths(watched.lib) for cid in _chunk_ids(watched.lib, p))
    assert after == before


def test_move_out_of_the_tree_forgets_file_and_folder(watched, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (watched.docs / "leaving.txt").write_text("a wandering ibex", encoding="utf-8")
    (watched.docs / "box").mkdir()
    (watched.docs / "box" / "inner.txt").write_text("a boxed ibex", encoding="utf-8")
    wait_until(lambda: len(watched.keyword("ibex")) == 2, message="two ibexes")
    shutil.move(str(watched.docs / "leaving.txt"), str(outside / "leaving.txt"))
    shutil.move(str(watched.docs / "box"), str(outside / "box"))
    watched.wait_keyword("ibex", [])
    assert doc_paths(watched.lib) == []


def test_move_into_the_tree_indexes_it(watched, tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "pack").mkdir(parents=True)
    (outside / "pack" / "a.txt").write_text("the tapir arrives", encoding="utf-8")
    (outside / "b.txt").write_text("another tapir arrives", encoding="utf-8")
    os.rename(outside / "pack", watched.docs / "pack")
    os.rename(outside / "b.txt", watched.docs / "b.txt")
    watched.wait_keyword("tapir", ["a.txt", "b.txt"])


def test_two_hundred_files_copied_in_are_indexed_exactly_once(watched, tmp_path):
    source = tmp_path / "source"
    (source / "batch").mkdir(parents=True)
    for i in range(120):
        (source / f"loose{i:03d}.txt").write_text(f"loose file {i} about the quoll", encoding="utf-8")
    for i in range(80):
        (source / "batch" / f"b{i:03d}.txt").write_text(f"batch file {i} about the quoll", encoding="utf-8")
    for i in range(120):
        shutil.copy2(source / f"loose{i:03d}.txt", watched.docs / f"loose{i:03d}.txt")
    shutil.copytree(source / "batch", watched.docs / "batch")
    wait_until(lambda: len(doc_paths(watched.lib)) == 200, message="200 documents")
    assert watched.watcher.wait_idle(15)
    paths = doc_paths(watched.lib)
    assert len(paths) == len(set(paths)) == 200
    assert len(watched.lib.search("quoll", top_k=500, mode="keyword")) == 200
    assert watched.watcher.runner.total.indexed == 200  # none indexed twice (half-copied, then again)
    assert watched.watcher.runner.total.failed == 0


def test_atomic_rename_saves_keep_one_document(watched):
    note = watched.docs / "draft.md"
    note.write_text("# Draft\n\nversion one about the dugong", encoding="utf-8")
    watched.wait_keyword("dugong", ["draft.md"])
    # gedit / many editors: write a hidden temp file, then rename it over the original
    tmp = watched.docs / ".goutputstream-ABC123"
    tmp.write_text("# Draft\n\nversion two about the manatee", encoding="utf-8")
    os.replace(tmp, note)
    watched.wait_keyword("manatee", ["draft.md"])
    assert watched.keyword("dugong") == []
    # vim (backupcopy=no): rename the original to a backup, write a new file, delete the backup
    backup = watched.docs / "draft.md~"
    os.rename(note, backup)
    note.write_text("# Draft\n\nversion three about the walrus", encoding="utf-8")
    backup.unlink()
    watched.wait_keyword("walrus", ["draft.md"])
    assert watched.keyword("manatee") == []
    assert doc_paths(watched.lib) == [str(note)]


def test_save_storm_ends_with_the_last_version(watched):
    note = watched.docs / "storm.txt"
    for i in range(30):
        with open(note, "w", encoding="utf-8") as fh:
            fh.write(f"revision {i} " + ("lemur " if i == 29 else "gibbon ") * 20)
    watched.wait_keyword("lemur", ["storm.txt"])
    assert watched.keyword("gibbon") == []
    assert doc_paths(watched.lib) == [str(note)]


def test_excluded_and_hidden_paths_are_ignored(watched):
    (watched.docs / "node_modules").mkdir()
    (watched.docs / "node_modules" / "pkg.md").write_text("the hidden aardvark", encoding="utf-8")
    (watched.docs / ".secret.txt").write_text("the hidden aardvark", encoding="utf-8")
    (watched.docs / "visible.txt").write_text("the visible aardvark", encoding="utf-8")
    watched.wait_keyword("aardvark", ["visible.txt"])
    assert watched.watcher.wait_idle(15)
    assert watched.keyword("aardvark") == ["visible.txt"]
