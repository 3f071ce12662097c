"""SearchMode, Fusion and ChatBackend are closed sets: settings hold members and refuse anything else, the file
keeps their plain values, and the search service takes a member or its value alike (on the real SQLite store)."""

from __future__ import annotations

import json

import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.search.service import SearchParams, search_store
from desktop_app.core.settings import Settings, SettingsError, read_settings, save_settings, settings_from_dict
from desktop_app.core.store.rows import NewChunk, NewDocument
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import ChatBackend, Fusion, SearchMode

TEXTS = {"/d/a.txt": "reciprocal rank fusion of two rankings", "/d/b.txt": "a convex sum of normalised scores"}


def test_settings_hold_members_and_refuse_other_values():
    assert Settings().fusion is Fusion.CONVEX and Settings().chat_backend is ChatBackend.LLAMA
    changed = Settings().with_changes(fusion="rrf", chat_backend="openai")
    assert changed.fusion is Fusion.RRF and changed.chat_backend is ChatBackend.OPENAI
    with pytest.raises(SettingsError, match="chat_backend must be one of 'llama', 'openai', not \"gpt\""):
        Settings(chat_backend="gpt")
    with pytest.raises(SettingsError, match="fusion must be one of 'convex', 'rrf', not 3"):
        Settings(fusion=3)  # type: ignore[arg-type]
    settings, problems = settings_from_dict({"fusion": "sum", "chat_backend": "openai"})
    assert settings.fusion is Fusion.CONVEX and settings.chat_backend is ChatBackend.OPENAI
    assert problems == ["fusion must be one of 'convex', 'rrf', not \"sum\"; using the default"]


def test_the_settings_file_keeps_plain_values_and_reads_back_members(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(path, Settings(fusion=Fusion.RRF, chat_backend=ChatBackend.OPENAI))
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert (stored["fusion"], stored["chat_backend"]) == ("rrf", "openai")
    settings, problems = read_settings(path)
    assert problems == [] and settings.fusion is Fusion.RRF and settings.chat_backend is ChatBackend.OPENAI


@pytest.fixture(scope="module")
def store():
    s = SQLiteStore(":memory:")
    folder = s.add_folder("/d")
    for path, text in TEXTS.items():
        s.write_document(NewDocument(folder_id=folder.id, path=path, title="", type="text", size=len(text),
                                     digest=path), [NewChunk(Span(0, len(text), text), None)])
    yield s
    s.close()


def test_search_takes_a_member_or_its_value_and_refuses_others(store):
    by_member = search_store(store, "rank fusion", embedder=None, mode=SearchMode.KEYWORD)
    by_value = search_store(store, "rank fusion", embedder=None, mode="keyword")
    assert [r.source for r in by_member] == [r.source for r in by_value] == ["/d/a.txt"]
    # hybrid without an embedder is keyword only, through either fusion
    for fusion in ("convex", Fusion.RRF):
        hits = search_store(store, "convex sum", embedder=None, mode="hybrid", params=SearchParams(fusion=fusion))
        assert [r.source for r in hits] == ["/d/b.txt"]
    with pytest.raises(ValueError, match="unknown search mode 'fuzzy'; use one of hybrid, keyword, semantic"):
        search_store(store, "x", embedder=None, mode="fuzzy")
    assert SearchParams(fusion="rrf").fusion is Fusion.RRF
    with pytest.raises(ValueError, match="unknown fusion 'sum'; use one of convex, rrf"):
        SearchParams(fusion="sum")
