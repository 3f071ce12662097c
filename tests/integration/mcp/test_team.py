"""A team library on a real PostgreSQL: person B's assistant, through `trove mcp` as B, cannot see person A's
private folder through any tool or resource, while the team folder A shares is there (row-level security decides,
as in the window). Real MiniLM vectors, the SDK's client over stdio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.store.rows import Share
from tests.integration.mcp.support import over_stdio, structured
from tests.support.people import person_url

SECRET = "Alice's private salary notes: the Zenthrop offer is ninety-one thousand kroner, negotiated in March."
TEAM = "Team harbour schedule: the Zenthrop ferry leaves pier four at noon every weekday."


def open_as(home: Path, url: str, machine: str, monkeypatch) -> Library:
    monkeypatch.setenv("TROVE_MACHINE_ID", machine)
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"embedder": "minilm"}), encoding="utf-8")
    return Library(home, db=url)


@pytest.fixture
def office(pg_server, pg_url, tmp_path, monkeypatch):
    """Alice indexed her private folder and a team folder (MiniLM vectors); Bob's home is joined, nothing of his."""
    alice_url, bob_url = (person_url(pg_server, pg_url, n) for n in ("alice", "bob"))
    open_as(tmp_path / "admin", pg_url, "desk-admin", monkeypatch).close()  # the admin migrates first
    private, team = tmp_path / "alice-private", tmp_path / "team"
    for folder, text in ((private, SECRET), (team, TEAM)):
        folder.mkdir()
        (folder / "notes.txt").write_text(text, encoding="utf-8")
    alice = open_as(tmp_path / "alice-home", alice_url, "desk-alice", monkeypatch)
    alice.add_folder(private, Share("private"))
    alice.add_folder(team, Share("team"))
    alice.sync()
    assert alice.wait_for_embeddings(timeout=300)
    secret_hit = alice.search("Zenthrop salary offer kroner", top_k=1, mode="keyword")[0]
    assert secret_hit.source == str(private / "notes.txt")  # Alice herself sees it
    alice.close()
    bob_home = tmp_path / "bob-home"
    open_as(bob_home, bob_url, "desk-bob", monkeypatch).close()
    # `trove mcp` serves the library TROVE_DB names, signed in as Bob
    yield {"bob_home": bob_home, "env": {"TROVE_DB": bob_url, "TROVE_MACHINE_ID": "desk-bob"}, "private": private,
           "team": team, "secret_id": secret_hit.metadata["chunk_id"]}


def test_bobs_assistant_cannot_see_alices_private_folder(office):
    private = str(office["private"])

    async def session(client):
        searches = [structured(await client.call_tool("search", {"query": q, "mode": mode, "k": 50}))
                    for q in ("Zenthrop salary offer kroner", "Zenthrop")
                    for mode in ("keyword", "semantic", "hybrid")]
        passage = await client.call_tool("read_passage", {"passage_id": office["secret_id"], "around": 3})
        document = await client.call_tool("read_document", {"path": str(office["private"] / "notes.txt")})
        folders = structured(await client.call_tool("list_folders", {}))
        status = structured(await client.call_tool("library_status", {}))
        answer = structured(await client.call_tool("ask", {"question": "What is the Zenthrop salary offer?"}))
        resources = (await client.list_resources()).resources
        return searches, passage, document, folders, status, answer, resources

    searches, passage, document, folders, status, answer, resources = over_stdio(office["bob_home"], session,
                                                                                   env=office["env"])
    paths = {r["path"] for s in searches for r in s["results"]}
    assert paths == {str(office["team"] / "notes.txt")}  # the team folder, found in every mode; nothing private
    assert passage.is_error and "No passage" in passage.content[0].text
    assert document.is_error and "Not an indexed document" in document.content[0].text
    assert all(not f["path"].startswith(private) for f in folders["folders"])
    assert status["team_library"] is True and status["documents"] == 1
    cited = [c["path"] for c in answer["citations"]] + [p["path"] for p in answer.get("closest_passages", [])]
    cited += [p["path"] for p in answer.get("passages", [])] + ([answer["quote"]["path"]] if answer["quote"] else [])
    assert all(not p.startswith(private) for p in cited) and "ninety-one" not in json.dumps(answer)
    assert [r.title for r in resources] == [str(office["team"] / "notes.txt")]
