"""`trove backup` / `trove restore`: a consistent copy of a library in use, and a restore that refuses damage."""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import threading
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.backup import MANIFEST, check_backup, read_manifest
from desktop_app.core.events import IndexProgress
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION
from tests.support.helpers import assert_consistent, query_db

WORDS = ("amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "heron", "indigo", "juniper")


def write_docs(folder: Path, prefix: str, n: int) -> None:
    folder.mkdir(parents=True)
    for i in range(n):
        text = f"{prefix} note {i}: the {WORDS[i % len(WORDS)]} report about {prefix}{i} and its findings.\n\n"
        (folder / f"{prefix}{i:03d}.txt").write_text(text * 3)


def read_member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    data = tar.extractfile(member)
    assert data is not None
    return data.read()


def rewritten(backup: Path, out: Path, name: str, change) -> Path:
    """A copy of the backup archive `backup` at `out` with member `name`'s bytes passed through `change`."""
    with tarfile.open(backup) as tar:
        entries = [(m, read_member(tar, m)) for m in tar.getmembers()]
    with tarfile.open(out, "w:gz") as tar:
        for member, data in entries:
            if member.name == name:
                data = change(data)
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return out


def home_state(home: Path) -> dict[str, bytes]:
    """Every file under a home with its bytes (what "changes nothing" compares)."""
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_a_backup_made_while_indexing_and_watching_restores_consistent(tmp_path, minilm):
    docs_a, docs_b = tmp_path / "a", tmp_path / "b"
    write_docs(docs_a, "alpha", 12)
    write_docs(docs_b, "beta", 80)
    live = Library(tmp_path / "home", embedder=minilm)
    try:
        live.update_settings(top_k=7)  # settings.json: the backup carries it
        live.add_folder(docs_a)
        live.sync(wait=True)
        live.chat.new_chat("kept chat")
        live.start_watching(check_seconds=0.05)
        # the indexer waits at its 40th file of folder b (inside an open write batch) while the backup is made
        reached, backed_up = threading.Event(), threading.Event()

        def pause(event) -> None:
            if isinstance(event, IndexProgress) and event.phase == "keyword" and event.files_done == 40 \
                    and "beta" in event.current_file and not reached.is_set():
                reached.set()
                backed_up.wait(120)

        live.subscribe(pause)
        live.add_folder(docs_b)
        syncing = threading.Thread(target=lambda: live.sync(wait=True), daemon=True)
        syncing.start()
        assert reached.wait(120)
        (tmp_path / "backups").mkdir()  # a folder: the backup gets a dated name in it
        try:
            report = live.backups.backup(tmp_path / "backups")
        finally:
            backed_up.set()
        syncing.join(120)
        expected_live = [Path(r.source).name for r in live.search("alpha7 findings", mode="keyword", top_k=3)]
    finally:
        live.close()

    manifest = report.manifest
    assert report.path.parent == tmp_path / "backups" and report.path.name.startswith("trove-backup-")
    assert manifest.schema_version == SCHEMA_VERSION and manifest.embedder == minilm.model_id
    assert manifest.counts["folders"] == 2 and manifest.counts["chats"] == 1
    assert 12 <= manifest.counts["documents"] < 92  # all of a, part of b: made mid-run
    assert [f.name for f in manifest.files] == ["library.db", "settings.json"]

    restored_home = tmp_path / "restored"
    assert main(["--home", str(restored_home), "restore", str(report.path)]) == 0
    db = restored_home / "library.db"
    checked = assert_consistent(db)  # chunks, FTS rows, vectors and the kept counts agree: no torn copy
    assert checked["chunks"] == manifest.counts["chunks"]
    assert query_db(db, "SELECT COUNT(*) FROM documents") == [(manifest.counts["documents"],)]
    with Library(restored_home, embedder=minilm) as back:
        assert back.settings.top_k == 7
        assert [c.title for c in back.chat.list_chats()] == ["kept chat"]
        assert [Path(r.source).name for r in back.search("alpha7 findings", mode="keyword", top_k=3)] \
            == expected_live[:3]
        assert Path(back.search("alpha7 findings", mode="semantic", top_k=1)[0].source).name.startswith("alpha")
        back.sync(wait=True)  # the rest of b is indexed again from the folder
        assert back.stats()["documents"] == 92


@pytest.fixture
def backup_file(tmp_path, make_library):
    docs = tmp_path / "docs"
    write_docs(docs, "gamma", 5)
    lib = make_library(tmp_path / "source")
    lib.add_folder(docs)
    lib.sync(wait=True)
    return lib.backups.backup(tmp_path / "good.tar.gz").path


@pytest.fixture
def current_home(tmp_path):
    """A library in place, which a refused restore must leave byte for byte."""
    docs = tmp_path / "mine"
    write_docs(docs, "delta", 3)
    home = tmp_path / "current"
    with Library(home, settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs)
        lib.sync(wait=True)
        lib.update_settings(top_k=3)
    return home


def restore_refused(home: Path, archive: Path, capsys) -> str:
    before = home_state(home)
    assert main(["--home", str(home), "restore", str(archive)]) == 1
    err = capsys.readouterr().err
    assert home_state(home) == before  # nothing changed, nothing left behind
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "nothing was changed" in lines[0].lower()
    return lines[0]


def test_a_truncated_backup_is_refused_with_one_line(backup_file, current_home, tmp_path, capsys):
    data = backup_file.read_bytes()
    for keep in (len(data) // 2, len(data) - 9):  # mid-stream, and only the gzip trailer cut
        cut = tmp_path / f"cut-{keep}.tar.gz"
        cut.write_bytes(data[:keep])
        assert "damaged" in restore_refused(current_home, cut, capsys)


def test_a_bit_flipped_backup_is_refused_with_one_line(backup_file, current_home, tmp_path, capsys):
    data = bytearray(backup_file.read_bytes())
    for at in (len(data) // 3, len(data) // 2, len(data) - 20):
        flipped = tmp_path / f"flip-{at}.tar.gz"
        changed = bytearray(data)
        changed[at] ^= 0x10
        flipped.write_bytes(bytes(changed))
        assert "damaged" in restore_refused(current_home, flipped, capsys)


def test_a_payload_that_differs_from_its_checksum_is_refused(backup_file, current_home, tmp_path, capsys):
    """A well-formed archive whose database was altered after the manifest was written."""
    forged = rewritten(backup_file, tmp_path / "forged.tar.gz", "library.db", lambda d: d[:-1] + bytes([d[-1] ^ 1]))
    assert "checksum" in restore_refused(current_home, forged, capsys)


def test_a_backup_of_a_newer_schema_is_refused_with_one_line(backup_file, current_home, tmp_path, capsys):
    def newer_schema(data: bytes) -> bytes:
        raw = json.loads(data)
        raw["schema_version"] = SCHEMA_VERSION + 1
        return json.dumps(raw).encode()

    newer = rewritten(backup_file, tmp_path / "newer.tar.gz", MANIFEST, newer_schema)
    line = restore_refused(current_home, newer, capsys)
    assert "newer Trove" in line and f"schema {SCHEMA_VERSION + 1}" in line


def test_a_file_that_is_no_backup_is_refused(current_home, tmp_path, capsys):
    other = tmp_path / "notes.tar.gz"
    with gzip.open(other, "wb") as out:
        out.write(b"just some text, not a tar archive" * 100)
    restore_refused(current_home, other, capsys)
    assert "No backup file" in restore_refused(current_home, tmp_path / "missing.tar.gz", capsys)


def test_restore_keeps_the_replaced_library_aside(backup_file, current_home, capsys):
    before = home_state(current_home)
    assert main(["--home", str(current_home), "restore", str(backup_file)]) == 0
    out = capsys.readouterr().out
    [aside] = [p for p in current_home.iterdir() if p.name.startswith("before-restore-")]
    assert str(aside) in out
    assert (aside / "settings.json").read_bytes() == before["settings.json"]  # kept, not deleted
    assert query_db(aside / "library.db", "SELECT COUNT(*) FROM documents") == [(3,)]
    assert query_db(current_home / "library.db", "SELECT COUNT(*) FROM documents") == [(5,)]
    assert not (current_home / "settings.json").exists()  # the backup had none: the defaults apply
    assert read_manifest(backup_file).counts["documents"] == 5
    assert check_backup(backup_file).payload_sha256


def test_the_facade_restore_refuses_before_closing(backup_file, make_library, tmp_path):
    lib = make_library(tmp_path / "open")
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(backup_file.read_bytes()[:100])
    with pytest.raises(Exception, match="damaged"):
        lib.backups.restore(bad)
    assert lib.stats()["documents"] == 0  # still open and usable
    report = lib.backups.restore(backup_file)
    assert report.kept_aside is not None and os.path.isdir(report.kept_aside)
    with Library(lib.home, settings=Settings(embedder="hash")) as back:
        assert back.stats()["documents"] == 5


def test_backup_refuses_to_overwrite_a_file(backup_file, make_library, tmp_path):
    lib = make_library(tmp_path / "again")
    before = backup_file.read_bytes()
    with pytest.raises(Exception, match="already exists"):
        lib.backups.backup(backup_file)
    assert backup_file.read_bytes() == before
