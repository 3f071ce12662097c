"""Obsidian [[wikilinks]] on a real vault (tests/fixtures/obsidian_vault), indexed by a real Library on both engines:
each note's links are stored at index time and followed (`library.links`) to the documents they name as Obsidian
resolves them; an edit that removes a link removes it, and a note written later is found by the old link."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

VAULT = Path(__file__).resolve().parents[2] / "fixtures" / "obsidian_vault"


@pytest.fixture(params=["sqlite", "postgresql"])
def vault_library(request, tmp_path):
    db = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    vault = tmp_path / "Vault"
    shutil.copytree(VAULT, vault)
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), db=db)
    lib.add_folder(vault)
    lib.sync(wait=True)
    yield lib, vault
    lib.close()


def followed(lib: Library, vault: Path, note: str) -> list[tuple[str, str, str, bool, str]]:
    """(target, heading, alias, embed, the linked file relative to the vault or "") of a note's links."""
    return [(f.link.target, f.link.heading, f.link.alias, f.link.embed,
             Path(f.path).relative_to(vault).as_posix() if f.path else "")
            for f in lib.searcher.links(str(vault / note))]


def test_each_notes_links_are_followed_as_obsidian_resolves_them(vault_library):
    lib, vault = vault_library
    assert followed(lib, vault, "Projects/Lighthouse/Plan.md") == [
        ("Ada Lovelace", "", "Ada", False, "People/Ada Lovelace.md"),
        ("Budget 2024", "Totals", "", False, "Projects/Budget 2024.md"),
        ("Kickoff", "", "", False, "Projects/Lighthouse/Kickoff.md"),
        ("lamp-spec.pdf", "", "", True, "Attachments/lamp-spec.pdf"),
        ("Maintenance schedule", "", "", False, ""),  # not written yet: kept, unresolved
    ]
    assert followed(lib, vault, "Projects/Lighthouse/Kickoff.md") == [
        ("Plan", "", "", False, "Projects/Lighthouse/Plan.md"),  # its own folder's Plan, not Archive/Plan.md
        ("Plan", "^risk-list", "the risk list", False, "Projects/Lighthouse/Plan.md"),
        ("Ada Lovelace", "", "Ada", False, "People/Ada Lovelace.md"),  # the escaped pipe of a table
    ]  # `[[not a link]]` and the fenced one are code
    assert followed(lib, vault, "Daily/2024-05-02.md") == [
        ("ada lovelace", "", "", False, "People/Ada Lovelace.md"),  # names in any case
        ("kickoff", "", "", False, "Projects/Lighthouse/Kickoff.md"),
    ]  # [[#Evening]] is a place in the note itself
    assert followed(lib, vault, "Projects/Budget 2024.md") == [
        ("Projects/Lighthouse/Plan", "", "", False, "Projects/Lighthouse/Plan.md")]
    assert followed(lib, vault, "People/Ada Lovelace.md") == [
        ("Daily/2024-05-02", "", "daily notes", False, "Daily/2024-05-02.md")]
    assert followed(lib, vault, "Archive/Plan.md") == []
    assert lib.searcher.links(str(vault / "Attachments" / "lamp-spec.pdf")) == []
    assert lib.searcher.links(str(vault / "not indexed.md")) == []
    assert not list(lib.searcher.links(str(vault / ".obsidian" / "app.json")))
    tagged = lib.search("tag:launch lighthouse", mode="keyword")
    assert [Path(r.source).name for r in tagged] == ["Plan.md"]  # the vault's front matter tags, as before
    shown = tagged[0].to_dict()["metadata"]["links"]  # what `trove search --json` prints with the result
    assert [(x["target"], x["alias"], x["embed"]) for x in shown] == [
        ("Ada Lovelace", "Ada", False), ("Budget 2024", "", False), ("Kickoff", "", False),
        ("lamp-spec.pdf", "", True), ("Maintenance schedule", "", False)]
    assert "links" not in lib.search("harbour wall", mode="keyword")[0].metadata  # Archive/Plan.md has none


def test_an_edit_and_a_new_note_change_what_the_links_are_and_name(vault_library):
    lib, vault = vault_library
    plan = vault / "Projects" / "Lighthouse" / "Plan.md"
    plan.write_text(plan.read_text(encoding="utf-8").replace("[[Kickoff]]", "the kickoff"), encoding="utf-8")
    (vault / "Maintenance schedule.md").write_text("# Maintenance\nEvery March: paint the lamp room.\n",
                                                   encoding="utf-8")
    daily = vault / "Daily" / "2024-05-02.md"
    daily.write_text("# 2024-05-02\nNo links today.\n", encoding="utf-8")
    lib.sync(wait=True)
    assert [t for t, *_ in followed(lib, vault, "Projects/Lighthouse/Plan.md")] == [
        "Ada Lovelace", "Budget 2024", "lamp-spec.pdf", "Maintenance schedule"]
    assert followed(lib, vault, "Projects/Lighthouse/Plan.md")[-1][-1] == "Maintenance schedule.md"
    assert followed(lib, vault, "Daily/2024-05-02.md") == []  # the last link removed: none kept
