"""Search under permissions, through the Library and `trove search`: two people, three folders (Alice's private,
Bob's private, a team folder), each person sees exactly their own and the team's results in every mode, k of
them, counted by stats; and what a person may see ranks the same whatever they may not see."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.cli import main as trove
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.store.rows import Share
from tests.support.people import person_url

PER_FOLDER = 6
MODES = ("keyword", "semantic", "hybrid")


def make_folder(root: Path, label: str, n: int = PER_FOLDER) -> Path:
    root.mkdir(parents=True)
    for i in range(n):
        (root / f"{label}-{i}.txt").write_text(
            f"Harbour report {i} from the {label} desk. The harbour pilots logged tides, cargo and ferry times "
            f"for week {i}.\n", encoding="utf-8")
    return root


def open_as(home: Path, url: str, machine: str, monkeypatch) -> Library:
    monkeypatch.setenv("TROVE_MACHINE_ID", machine)
    return Library(home, settings=Settings(embedder="hash"), db=url)


@pytest.fixture
def office(pg_server, pg_url, tmp_path, monkeypatch):
    """Alice indexed her private folder and the team folder, Bob his private folder; both libraries open."""
    alice_url, bob_url = (person_url(pg_server, pg_url, n) for n in ("alice", "bob"))
    Library(tmp_path / "admin", settings=Settings(embedder="hash"), db=pg_url).close()  # the admin migrates first
    folders = {name: make_folder(tmp_path / name, name) for name in ("alice", "bob", "team")}
    alice = open_as(tmp_path / "alice-home", alice_url, "desk-alice", monkeypatch)
    bob = open_as(tmp_path / "bob-home", bob_url, "desk-bob", monkeypatch)
    alice.add_folder(folders["alice"], Share("private"))
    alice.add_folder(folders["team"], Share("team"))
    bob.add_folder(folders["bob"], Share("private"))
    alice.sync()
    bob.sync()
    yield {"alice": alice, "bob": bob, "folders": folders, "urls": {"alice": alice_url, "bob": bob_url}}
    alice.close()
    bob.close()


def sources(results) -> set[str]:
    return {Path(r.source).parent.name for r in results}


@pytest.mark.parametrize("mode", MODES)
def test_each_person_sees_their_own_and_the_teams_results_k_of_them(office, mode):
    for person, other in (("alice", "bob"), ("bob", "alice")):
        lib = office[person]
        seen = {person, "team"}
        top = lib.search("harbour pilots tides", top_k=4, mode=mode)
        assert len(top) == 4 and sources(top) <= seen
        every = lib.search("harbour pilots tides", top_k=50, mode=mode)
        assert sources(every) == seen and other not in sources(every)
        assert len(every) == PER_FOLDER * len(seen)


def test_what_bob_sees_follows_alices_sharing(office):
    bob, alice = office["bob"], office["alice"]
    alice.share_folder(office["folders"]["team"], Share("private"))
    assert sources(bob.search("harbour", top_k=50, mode="keyword")) == {"bob"}
    alice.share_folder(office["folders"]["team"], Share("people", ("bob",)))
    assert sources(bob.search("harbour", top_k=50, mode="hybrid")) == {"bob", "team"}
    alice.share_folder(office["folders"]["alice"], Share("team"))
    assert sources(bob.search("harbour", top_k=50, mode="semantic")) == {"alice", "bob", "team"}
    assert {f.visibility for f in alice.folders()} == {"team", "people"}


def test_stats_count_only_what_each_person_sees(office):
    a, b = office["alice"].stats(), office["bob"].stats()
    assert a["documents"] == b["documents"] == 2 * PER_FOLDER  # their own folder and the team's, not the other's
    assert a["chunks"] == a["chunks_embedded"] == b["chunks"] == 2 * PER_FOLDER
    office["alice"].share_folder(office["folders"]["team"], Share("private"))
    assert office["bob"].stats()["documents"] == PER_FOLDER
    assert {Path(f["path"]).name for f in b["folders"]} == {"bob"}


def test_trove_search_and_stats_on_the_command_line_as_bob(office, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-bob")
    args = ["--home", str(tmp_path / "bob-cli"), "--db", office["urls"]["bob"]]
    assert trove([*args, "search", "harbour", "-k", "50", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    names = {Path(r["source"]).parent.name for r in (shown["results"] if isinstance(shown, dict) else shown)}
    assert names == {"bob", "team"}
    assert trove([*args, "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 2 * PER_FOLDER


def test_what_bob_may_see_ranks_the_same_whatever_he_may_not(pg_server, pg_url, tmp_path, monkeypatch):
    alice_url, bob_url = (person_url(pg_server, pg_url, n) for n in ("alice", "bob"))
    Library(tmp_path / "admin", settings=Settings(embedder="hash"), db=pg_url).close()
    team = make_folder(tmp_path / "team", "team")
    alice = open_as(tmp_path / "alice-home", alice_url, "desk-alice", monkeypatch)
    bob = open_as(tmp_path / "bob-home", bob_url, "desk-bob", monkeypatch)
    try:
        alice.add_folder(team, Share("team"))
        alice.sync()
        query = "harbour pilots ferry"
        before = {m: [(r.source, round(r.score, 6)) for r in bob.search(query, top_k=5, mode=m)] for m in MODES}
        hidden = tmp_path / "hidden"
        hidden.mkdir()
        for i in range(40):  # many hidden chunks full of the query's words: they must change nothing for Bob
            (hidden / f"h{i}.txt").write_text("harbour " * (i + 1) + "pilots ferry harbour pilots\n")
        alice.add_folder(hidden, Share("private"))
        alice.sync()
        after = {m: [(r.source, round(r.score, 6)) for r in bob.search(query, top_k=5, mode=m)] for m in MODES}
        assert after == before and all(len(v) == 5 for v in after.values())
        assert any("hidden" in r.source for r in alice.search(query, top_k=5, mode="keyword"))
    finally:
        alice.close()
        bob.close()


def test_a_desktop_uses_the_model_the_team_library_records(pg_server, pg_url, tmp_path, monkeypatch):
    from desktop_app.core.embed.minilm_onnx import MODEL_ID as MINILM
    from desktop_app.core.errors import KnownError
    from desktop_app.core.store.postgres import PostgresStore
    from tests.support.people import connect

    admin = PostgresStore(pg_url, machine="server-desk")
    admin.ensure_embedding_model(MINILM, 384)
    admin.close()
    bob = open_as(tmp_path / "bob-home", person_url(pg_server, pg_url, "bob"), "desk-bob", monkeypatch)
    try:
        assert bob.settings.embedder == "hash" and bob.embedder.model_id == MINILM  # the library's, not the setting's
    finally:
        bob.close()
    admin = PostgresStore(pg_url, machine="server-desk")
    admin.ensure_embedding_model("a-model-from-a-newer-trove", 384)
    admin.close()
    with pytest.raises(KnownError, match="does not have"):
        open_as(tmp_path / "bob-home", person_url(pg_server, pg_url, "bob"), "desk-bob", monkeypatch)
    with connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()[0] == \
            "a-model-from-a-newer-trove"


def test_sharing_is_refused_in_one_line_on_an_embedded_library(tmp_path, capsys):
    folder = make_folder(tmp_path / "notes", "notes", 1)
    assert trove(["--home", str(tmp_path / "home"), "index", str(folder), "--share", "private", "--no-wait"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Sharing applies to a team library" in err
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"))
    lib.add_folder(folder)
    lib.close()
    assert trove(["--home", str(tmp_path / "home"), "share", str(folder), "bob,carol"]) != 0
    assert "Sharing applies to a team library" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        trove(["--home", str(tmp_path / "home"), "index", str(folder), "--share", "Bad Name!"])
    assert usage.value.code == 2
    assert "--share takes team, private" in capsys.readouterr().err
