"""A library on a real read-only mount (tmpfs remounted ro, as root: CI's tests run as root) is searched, asked and
counted, says so in one line, and is never indexed; its files stay byte for byte."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.errors import ReadOnlyDatabaseError
from desktop_app.core.library import Library
from desktop_app.core.read_only import NOTICE
from tests.support.helpers import query_db
from tests.support.scripted import ScriptedRuntime

LIGHTHOUSE = "The lighthouse keeper painted the tower crimson every spring, after the storms of March.\n"
BREAD = "Sourdough bread needs a starter of flour and water, fed daily for a week before baking.\n"


def mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    assert done.returncode == 0, f"tests run as root (CI): mount {' '.join(args)} failed: {done.stderr.strip()}"


@pytest.fixture
def read_only_mount(tmp_path):
    """A tmpfs to build a library on; `seal()` remounts it read-only (which even root cannot write)."""
    point = tmp_path / "media"
    point.mkdir()
    mount("-t", "tmpfs", "-o", "size=64m", "tmpfs", str(point))
    yield point
    subprocess.run(["umount", "-l", str(point)], check=True)


def seal(point: Path) -> dict[str, bytes]:
    mount("-o", "remount,ro", str(point))
    assert not os.access(point, os.W_OK)
    return {str(p): p.read_bytes() for p in sorted(point.rglob("*")) if p.is_file()}


@pytest.fixture
def sealed_library(read_only_mount, minilm):
    docs = read_only_mount / "docs"
    docs.mkdir()
    (docs / "lighthouse.txt").write_text(LIGHTHOUSE * 3)
    (docs / "bread.txt").write_text(BREAD * 3)
    home = read_only_mount / "home"
    with Library(home, embedder=minilm) as lib:
        lib.add_folder(docs)
        lib.sync(wait=True)
    files = seal(read_only_mount)
    assert sorted(Path(p).name for p in files if "/home/" in p) == ["library.db"]  # closed cleanly: no -wal/-shm
    return home, docs, files


def test_a_library_on_a_read_only_mount_searches_answers_and_never_indexes(sealed_library, minilm):
    home, docs, files = sealed_library
    with Library(home, embedder=minilm) as lib:
        assert lib.read_only
        assert [Path(r.source).name for r in lib.search("crimson tower", mode="keyword", top_k=1)] \
            == ["lighthouse.txt"]
        assert [Path(r.source).name for r in lib.search("baking with a starter", mode="semantic", top_k=1)] \
            == ["bread.txt"]
        assert Path(lib.search("lighthouse keeper")[0].source).name == "lighthouse.txt"
        stats = lib.stats()
        assert stats["documents"] == 2 and stats["chunks_embedded"] == stats["chunks"]

        lib.chat._factory = lambda _settings, _path: ScriptedRuntime("The keeper painted it crimson [1].")
        answer = lib.ask("What colour did the keeper paint the tower?", ask_model=True)
        assert answer.passages and Path(answer.passages[0].source).name == "lighthouse.txt"
        assert [c.id for c in lib.chat.list_chats()] == [answer.chat_id]  # kept for this session
        follow = lib.ask("And when?", chat_id=answer.chat_id, ask_model=True)
        assert follow.history_turns == 1

        for refused in (lambda: lib.sync(wait=True), lib.start_watching, lambda: lib.add_folder(docs),
                        lambda: lib.update_settings(top_k=3)):
            with pytest.raises((ReadOnlyDatabaseError, OSError)):
                refused()
        assert lib.indexer.stopping.is_set() is False and lib.watcher is None
    assert query_db(home / "library.db", "SELECT COUNT(*) FROM chats") == [(0,)]  # nothing was saved
    after = {str(p): p.read_bytes() for p in sorted(home.parent.rglob("*")) if p.is_file()}
    assert after == files


def test_the_cli_says_read_only_in_one_line_and_refuses_to_index(sealed_library, capsys):
    home, docs, _files = sealed_library
    assert main(["--home", str(home), "search", "crimson tower", "--mode", "keyword"]) == 0
    captured = capsys.readouterr()
    assert "lighthouse.txt" in captured.out
    assert captured.err.strip().splitlines() == [f"trove: {NOTICE}"]
    assert main(["--home", str(home), "stats"]) == 0
    assert "documents" in capsys.readouterr().out.lower()
    assert main(["--home", str(home), "index", str(docs)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read-only" in err[0] and "not indexed" in err[0]  # the refusal alone


def test_an_older_library_on_a_read_only_mount_is_refused_in_one_line(read_only_mount, capsys):
    home = read_only_mount / "old"
    home.mkdir()
    fixture = Path(__file__).parents[2] / "fixtures" / "libraries" / "schema4-9b0234f.db.gz"
    with gzip.open(fixture) as src, open(home / "library.db", "wb") as dst:
        shutil.copyfileobj(src, dst)
    files = seal(read_only_mount)
    assert main(["--home", str(home), "search", "lighthouse"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "needs an upgrade" in lines[0] and "cannot be written here" in lines[0]
    assert {str(p): p.read_bytes() for p in sorted(read_only_mount.rglob("*")) if p.is_file()} == files


def test_a_file_this_user_cannot_write_opens_read_only(tmp_path, make_library, monkeypatch):
    """Without a mount: a library file whose folder is writable but whose file is not (mode=ro, no immutable).
    Root writes any file whatever its mode, so os.access answers as it would for a user without write permission;
    the mount tests above check the real thing."""
    lib = make_library(tmp_path / "home")
    lib.close()
    from desktop_app.core.store.sqlite import SQLiteStore

    db = tmp_path / "home" / "library.db"
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if (Path(path) == db and mode == os.W_OK)
                        else real_access(path, mode, **kw))
    store = SQLiteStore(db)
    try:
        assert store.read_only and store.counts().documents == 0
        with pytest.raises(ReadOnlyDatabaseError, match="read-only"):
            store.set_meta("x", "1")
    finally:
        store.close()
