"""Many desktops on one server library: folders per machine + path, shared folders indexed once, leases."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres.leases import LeaseKeeper
from desktop_app.core.store.rows import FolderState, NewChunk, NewDocument


@pytest.fixture
def desks(pg_url):
    made = {name: PostgresStore(pg_url, machine=name) for name in ("desk-a", "desk-b")}
    yield made
    for store in made.values():
        store.close()


def write(store, folder, name: str, text: str) -> int:
    path = Path(folder.path) / name
    return store.write_document(NewDocument(folder_id=folder.id, path=str(path), title=path.stem, type="txt",
                                            size=len(text), mtime_ns=1, digest=text),
                                [NewChunk(Span(0, len(text), text), None)])


def test_each_desktop_has_its_own_folders_and_everybody_searches_all(desks, tmp_path):
    a, b = desks["desk-a"], desks["desk-b"]
    fa = a.add_folder(str(tmp_path / "alice"))
    fb = b.add_folder(str(tmp_path / "bob"))
    write(a, fa, "a.txt", "lighthouse keepers")
    write(b, fb, "b.txt", "lighthouse lenses")
    assert [f.path for f in a.folders()] == [fa.path] and [f.path for f in b.folders()] == [fb.path]
    assert {(f.path, f.machine_id) for f in a.all_folders()} == {(fa.path, "desk-a"), (fb.path, "desk-b")}
    hits = b.keyword_candidates("lighthouse", 10)
    rows = b.chunk_rows([c for c, _ in hits])
    assert {(Path(r.path).name, r.machine_id) for r in rows.values()} == {("a.txt", "desk-a"), ("b.txt", "desk-b")}


def test_the_same_path_on_two_desktops_with_different_files_is_two_folders(desks, tmp_path):
    a, b = desks["desk-a"], desks["desk-b"]
    path = str(tmp_path / "notes")  # nothing there on "desk-b"'s disk matches desk-a's documents
    fa = a.add_folder(path)
    write(a, fa, "mine.txt", "alice's note")
    fb = b.add_folder(path)
    assert fb.id != fa.id and fb.machine_id == "desk-b"
    write(b, fb, "mine.txt", "bob's note")
    assert a.document_by_path(path + "/mine.txt").folder_id == fa.id
    assert b.document_by_path(path + "/mine.txt").folder_id == fb.id
    assert a.counts().documents == 2


def test_a_shared_drive_is_one_folder_indexed_by_one_machine_at_a_time(desks, tmp_path):
    a, b = desks["desk-a"], desks["desk-b"]
    share = tmp_path / "share"
    share.mkdir()
    (share / "plan.txt").write_text("the shared plan")
    fa = a.add_folder(str(share))
    write(a, fa, "plan.txt", "the shared plan")
    fb = b.add_folder(str(share))  # desk-b sees the same files at the same path: it watches desk-a's folder
    assert fb.id == fa.id and fb.machine_id == "desk-a"
    assert a.claim_folder(fa.id) and not b.claim_folder(fa.id)
    assert b.folder_holder(fa.id) == "desk-a"
    b.set_folder_state(fb.id, FolderState.OFFLINE)  # one machine's view of a folder is its own
    assert a.folder(fa.id).state == FolderState.ACTIVE
    a.release_folder(fa.id)
    assert b.claim_folder(fa.id) and b.folder_holder(fa.id) == "desk-b"
    assert b.delete_folder(fb.id) == 0 and a.folder(fa.id) is not None  # desk-a still watches it
    assert a.delete_folder(fa.id) == 1 and a.all_folders() == []


def test_a_lease_is_renewed_while_held_and_taken_over_when_its_machine_stops(desks, tmp_path):
    a, b = desks["desk-a"], desks["desk-b"]
    folder = a.add_folder(str(tmp_path / "f"))
    short = LeaseKeeper("desk-a", a._write, seconds=1.0)
    assert short.claim(folder.id)
    time.sleep(1.6)  # renewed every third of a second by its thread
    assert not b.claim_folder(folder.id)
    short._stop.set()  # the machine "crashes": nobody renews, nobody releases
    short._thread.join()
    deadline = time.monotonic() + 5
    while not b.claim_folder(folder.id):
        assert time.monotonic() < deadline, "the expired lease was never taken over"
        time.sleep(0.2)
    assert b.folder_holder(folder.id) == "desk-b" and not short.claim(folder.id)


def test_closing_a_store_releases_its_leases(pg_url, tmp_path):
    a = PostgresStore(pg_url, machine="desk-a")
    b = PostgresStore(pg_url, machine="desk-b")
    try:
        folder = a.add_folder(str(tmp_path / "f"))
        assert a.claim_folder(folder.id)
        a.close()
        assert b.claim_folder(folder.id)
    finally:
        a.close()
        b.close()


def test_library_results_name_the_machine_of_a_file_elsewhere(pg_url, tmp_path, monkeypatch):
    from desktop_app.core.library import Library
    from desktop_app.core.settings import Settings

    docs_a, docs_b = tmp_path / "a", tmp_path / "b"
    for folder, word in ((docs_a, "alpha"), (docs_b, "beta")):
        folder.mkdir()
        (folder / f"{word}.txt").write_text(f"{word} lighthouse report")
    libs = {}
    for name, docs in (("desk-a", docs_a), ("desk-b", docs_b)):
        monkeypatch.setenv("TROVE_MACHINE_ID", name)
        libs[name] = Library(tmp_path / name, settings=Settings(embedder="hash"), db=pg_url)
        libs[name].add_folder(docs)
        libs[name].sync()
    try:
        results = libs["desk-b"].search("lighthouse", top_k=5)
        where = {Path(r.source).name: r.metadata.get("machine") for r in results}
        assert where == {"alpha.txt": "desk-a", "beta.txt": None}
        assert [f.path for f in libs["desk-b"].folders()] == [str(docs_b)]
        assert libs["desk-a"].stats()["documents"] == 2
    finally:
        for lib in libs.values():
            lib.close()
