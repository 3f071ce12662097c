"""A team library's person backs up what they may read (`trove backup` on a server library), and `trove restore` puts
it into an embedded library. Real server (the session's), two people: Alice keeps a private folder and shares one
with the team, Bob keeps his own; Bob's backup holds his folder, the team's, his chats and memory, and nothing of
Alice's private folder, chats or memory (checked in every byte of the archive, not only through search)."""

from __future__ import annotations

import gzip
import json
import tarfile
import time
from pathlib import Path

import pytest

from desktop_app.cli import main as trove
from desktop_app.core.library import Library
from desktop_app.core.memory.raw import TurnText
from desktop_app.core.settings import Settings
from desktop_app.core.store.rows import MessageRow, Share
from tests.support.people import person_url

PER_FOLDER = 4
ALICE_SECRET = "quixotic-larkspur"  # only in Alice's private folder
ALICE_CHAT = "Alice asked about the marzipan budget"
ALICE_FACT = "periwinkle-falcon"
BOB_CHAT = "Bob asked about the ferry timetable"
BOB_FACT = "The Kestrel"
BOB_HISTORY = "Bob: which pier does the night ferry use? Trove: the north pier, berth seven."


def make_folder(root: Path, label: str, extra: str = "") -> Path:
    root.mkdir(parents=True)
    for i in range(PER_FOLDER):
        (root / f"{label}-{i}.txt").write_text(
            f"Harbour report {i} from the {label} desk. The pilots logged tides and ferry times. {extra}\n")
    return root


def open_as(home: Path, url: str, machine: str, monkeypatch) -> Library:
    monkeypatch.setenv("TROVE_MACHINE_ID", machine)
    return Library(home, settings=Settings(embedder="hash"), db=url)


def chat_with(lib: Library, title: str, question: str) -> int:
    now = time.time()
    chat = lib.store.create_chat(title, now)
    lib.store.add_messages(chat, [MessageRow(0, chat, "user", question, created_at=now),
                                  MessageRow(0, chat, "assistant", "Noted.", created_at=now)], title, now)
    return chat


@pytest.fixture
def office(pg_server, pg_url, tmp_path, monkeypatch):
    alice_url, bob_url = (person_url(pg_server, pg_url, n) for n in ("alice", "bob"))
    Library(tmp_path / "admin", settings=Settings(embedder="hash"), db=pg_url).close()  # the admin migrates first
    alice = open_as(tmp_path / "alice-home", alice_url, "desk-alice", monkeypatch)
    bob = open_as(tmp_path / "bob-home", bob_url, "desk-bob", monkeypatch)
    try:
        alice.add_folder(make_folder(tmp_path / "alice", "alice", ALICE_SECRET), Share("private"))
        alice.add_folder(make_folder(tmp_path / "team", "team"), Share("team"))
        bob.add_folder(make_folder(tmp_path / "bob", "bob"), Share("private"))
        alice.sync()
        bob.sync()
        chat_with(alice, ALICE_CHAT, f"What is the {ALICE_SECRET} budget?")
        alice.memory.add("codename", ALICE_FACT)
        bob_chat = chat_with(bob, BOB_CHAT, "When does the night ferry leave?")
        bob.memory.add("favourite_ship", "The Osprey")
        bob.memory.add("favourite_ship", BOB_FACT)  # corrects the first: the Osprey stays, outdated
        bob.memory.save_history(bob_chat, [TurnText(1, BOB_HISTORY)], BOB_CHAT)
        yield {"alice": alice, "bob": bob, "bob_url": bob_url}
    finally:
        alice.close()
        bob.close()


def archive_bytes(backup: Path) -> dict[str, bytes]:
    with tarfile.open(backup) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]


def test_bobs_backup_holds_what_he_may_read_and_restores_as_an_embedded_library(office, tmp_path, monkeypatch,
                                                                                 capsys):
    bob = office["bob"]
    seen_in_team = bob.stats()
    cli_home = tmp_path / "bob-cli"
    cli_home.mkdir()
    (cli_home / "settings.json").write_text(json.dumps({"embedder": "hash", "server_url": office["bob_url"]}))
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-bob")
    backup = tmp_path / "bob-backup.tar.gz"
    assert trove(["--home", str(cli_home), "backup", str(backup)]) == 0
    out = capsys.readouterr().out
    assert f"2 folder(s), {2 * PER_FOLDER} documents" in out and "1 chats" in out

    members = archive_bytes(backup)
    assert sorted(members) == ["library.db", "manifest.json", "settings.json"]
    assert json.loads(members["settings.json"]) == {"embedder": "hash"}  # no server address in a local library
    whole = gzip.decompress(backup.read_bytes())
    for secret in (ALICE_SECRET, ALICE_CHAT, ALICE_FACT, "alice-0.txt", office["bob_url"].split("@")[0]):
        assert secret.encode() not in whole, secret
    for kept in (BOB_CHAT, BOB_FACT, "The Osprey", BOB_HISTORY, "team-0.txt", "bob-3.txt"):
        assert kept.encode() in whole, kept

    restored = tmp_path / "restored"
    assert trove(["--home", str(restored), "restore", str(backup)]) == 0
    with Library(restored) as lib:
        assert not lib.is_team_library and not lib.read_only
        for mode in ("keyword", "semantic", "hybrid"):
            found = {Path(r.source).parent.name for r in lib.search("harbour pilots tides", top_k=50, mode=mode)}
            assert found == {"bob", "team"}, mode
        assert lib.search(ALICE_SECRET, mode="keyword") == []
        stats = lib.stats()
        assert (stats["documents"], stats["chunks"], stats["chunks_embedded"]) == \
            (seen_in_team["documents"], seen_in_team["chunks"], seen_in_team["chunks_embedded"]) == \
            (2 * PER_FOLDER, 2 * PER_FOLDER, 2 * PER_FOLDER)
        assert [c.title for c in lib.chat.list_chats()] == [BOB_CHAT]
        facts = {(f.key, f.value, f.outdated) for f in lib.memory.list(include_outdated=True)}
        assert facts == {("favourite_ship", BOB_FACT, False), ("favourite_ship", "The Osprey", True)}
        assert any(BOB_HISTORY in h.text for h in lib.memory.search("north pier berth", scope="memory"))


def test_alices_backup_holds_her_private_folder_and_not_bobs(office, tmp_path):
    backup = office["alice"].backups.backup(tmp_path / "alice.tar.gz")
    whole = gzip.decompress(backup.path.read_bytes())
    assert ALICE_SECRET.encode() in whole and ALICE_FACT.encode() in whole
    assert b"bob-0.txt" not in whole and BOB_FACT.encode() not in whole and BOB_CHAT.encode() not in whole
    assert backup.manifest.counts["documents"] == 2 * PER_FOLDER
    assert not [p.name for p in tmp_path.iterdir() if "partial" in p.name]  # nothing left beside it
