"""Real watchdog events: a hidden or unsupported file that appears between syncs is listed by the ledger with its
reason at once (as a full sync lists it), and its row goes when the file does."""

from __future__ import annotations

import os
import shutil

import pytest

from desktop_app.core.ingest.discover import HIDDEN_FILE, HIDDEN_FOLDER, unsupported
from tests.integration.watch.conftest import wait_until

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


def not_read(lib) -> dict[str, str]:
    """The ledger's never-read rows: path -> reason."""
    return {row.path: row.reason for row in lib.ledger.rows() if row.not_read}


def paths(lib) -> set[str]:
    return {row.path for row in lib.ledger.rows()}


def test_hidden_and_unsupported_files_are_listed_when_they_appear_and_forgotten_when_they_go(watched):
    docs, lib = watched.docs, watched.lib
    assert not_read(lib) == {}
    hidden, odd = docs / ".draft.txt", docs / "song.xyz"
    hidden.write_text("a hidden draft", encoding="utf-8")
    odd.write_bytes(b"\x00\x01 not a document Trove reads")
    expected = {str(hidden): HIDDEN_FILE, str(odd): unsupported(odd)}
    wait_until(lambda: not_read(lib) == expected, message="both files listed as not read")
    counts = lib.ledger.counts()
    assert (counts.not_read, counts.failed) == (2, 0)  # listed, not counted as failures
    assert lib.sync(wait=True).failed == 0
    assert not_read(lib) == expected  # what a full sync lists: the same rows, the same reasons
    hidden.unlink()
    odd.unlink()
    wait_until(lambda: not_read(lib) == {}, message="both rows gone with their files")
    assert paths(lib) == set()


def test_a_hidden_folder_is_one_row_and_nothing_inside_it_is_read(watched):
    docs, lib = watched.docs, watched.lib
    cache = docs / ".cache"
    cache.mkdir()
    (cache / "inside.txt").write_text("the okapi hides here", encoding="utf-8")
    (docs / "visible.txt").write_text("the okapi is seen", encoding="utf-8")
    watched.wait_keyword("okapi", ["visible.txt"])
    wait_until(lambda: not_read(lib) == {str(cache): HIDDEN_FOLDER}, message="the hidden folder listed")
    assert paths(lib) == {str(cache), str(docs / "visible.txt")}
    shutil.rmtree(cache)
    wait_until(lambda: not_read(lib) == {}, message="the hidden folder's row gone")
    assert paths(lib) == {str(docs / "visible.txt")}


def test_renames_between_read_and_not_read_names_move_the_row_to_the_right_kind(watched):
    docs, lib = watched.docs, watched.lib
    notes = docs / "notes.tmp"
    notes.write_text("the quokka smiles", encoding="utf-8")
    wait_until(lambda: not_read(lib) == {str(notes): unsupported(notes)}, message="notes.tmp listed")
    readable = docs / "notes.txt"
    os.rename(notes, readable)  # now a type Trove reads: read, and the not-read row gone
    watched.wait_keyword("quokka", ["notes.txt"])
    wait_until(lambda: not_read(lib) == {}, message="the old name's row gone")
    hidden = docs / ".notes.txt"
    os.rename(readable, hidden)  # hidden by a rename: no longer read, listed instead
    wait_until(lambda: not_read(lib) == {str(hidden): HIDDEN_FILE}, message="the hidden name listed")
    assert watched.keyword("quokka") == [] and paths(lib) == {str(hidden)}


def test_excluded_names_stay_out_of_the_ledger(watched):
    docs, lib = watched.docs, watched.lib
    (docs / "node_modules").mkdir()  # one of the default exclude patterns: left out without a word, as by a sync
    (docs / "node_modules" / "pkg.bin").write_bytes(b"\x00")
    (docs / "node_modules" / ".hidden").write_text("x", encoding="utf-8")
    (docs / "marker.xyz").write_bytes(b"\x00")  # written last: once it is listed, the events before it were handled
    wait_until(lambda: not_read(lib) == {str(docs / "marker.xyz"): unsupported(docs / "marker.xyz")},
               message="only the marker listed")
    assert watched.watcher.wait_idle(15)
    assert paths(lib) == {str(docs / "marker.xyz")}
