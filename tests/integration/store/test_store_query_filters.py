"""The query language's filters on both engines (the `store` fixture runs each test on SQLite and PostgreSQL):
path texts, document dates (own, else the modified day), tags (stored, and folder names below the library
folder), and a search through SearchService that applies phrases, exclusions and the typed filters."""

from __future__ import annotations

import datetime as dt
import os

import pytest

from desktop_app.core.search.service import SearchParams, SearchService
from desktop_app.core.store.rows import Filters
from tests.integration.store.test_store_protocol import chunks, doc, embed_all, unit

DAY_NS = 86_400 * 1_000_000_000


def ns(day: str) -> int:
    return int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp()) * 1_000_000_000 + DAY_NS // 2


@pytest.fixture
def library(store, folder):
    """Five documents: dated by metadata or only by mtime, tagged or in tag-named folders."""
    made = {}
    rows = [  # name, text, mtime day, own date, tags
        ("Invoices/acme-2024-03.txt", "invoice from ACME for solar panels", "2024-06-01", "2024-03-10", ("billing",)),
        ("Invoices/acme-2024-05.txt", "invoice from ACME for wind turbine parts", "2024-05-20", None, ()),
        ("notes/launch.md", "launch meeting notes: solar panel pricing draft", "2024-04-02", None, ("work", "launch")),
        ("notes/old.md", "old meeting notes about the solar panel pilot", "2023-11-30", "2023-01-05", ()),
        ("ภาษา/ใบแจ้งหนี้.txt", "ใบแจ้งหนี้ค่าไฟฟ้า solar", "2024-03-15", None, ("ภาษี",)),
    ]
    for i, (name, text, mtime, date, tags) in enumerate(rows):
        path = os.path.join(folder.path, *name.split("/"))
        doc_id = store.write_document(doc(folder.id, path, digest=f"q{i}", mtime=ns(mtime)), chunks(text))
        if date or tags:
            store.set_document_facts(doc_id, date, tags)
        made[name] = doc_id
    embed_all(store)
    return made


def names(store, hits, folder) -> list[str]:
    rows = store.chunk_rows([c for c, _ in hits])
    return sorted(os.path.relpath(rows[c].path, folder.path).replace(os.sep, "/") for c, _ in hits)


def test_path_texts_each_group_one_of(store, folder, library):
    f = Filters(path_has=((f"{os.sep}invoices{os.sep}",), ("2024-05", "launch")))
    assert names(store, store.keyword_candidates("solar wind invoice notes", 10, filters=f), folder) == [
        "Invoices/acme-2024-05.txt"]


def test_dates_are_the_documents_own_else_the_modified_day(store, folder, library):
    march = Filters(date_from="2024-03-01", date_to="2024-04-01")
    assert names(store, store.keyword_candidates("solar invoice notes", 10, filters=march), folder) == [
        "Invoices/acme-2024-03.txt", "ภาษา/ใบแจ้งหนี้.txt"]  # own date 03-10 (mtime June); mtime 03-15
    before = Filters(date_to="2024-01-01")
    assert names(store, store.dense_candidates(unit(1), 10, filters=before), folder) == ["notes/old.md"]
    since = Filters(date_from="2024-04-01")
    assert names(store, store.dense_candidates(unit(1), 10, filters=since), folder) == [
        "Invoices/acme-2024-05.txt", "notes/launch.md"]


def test_tags_stored_or_folder_names_below_the_library_folder(store, folder, library):
    def tagged(*tags):
        return names(store, store.keyword_candidates("solar invoice notes ใบแจ้งหนี้", 10,
                                                     filters=Filters(tags=tags)), folder)
    assert tagged("launch") == ["notes/launch.md"]
    assert tagged("notes") == ["notes/launch.md", "notes/old.md"]  # the folder's name is a tag
    assert tagged("billing", "ภาษี") == ["Invoices/acme-2024-03.txt", "ภาษา/ใบแจ้งหนี้.txt"]
    assert tagged(os.path.basename(folder.path)) == []  # the library folder itself and what is above it are not
    assert tagged("bill") == []  # whole tags only
    store.set_document_facts(library["notes/launch.md"], None, ())
    assert tagged("launch") == []


def service(store) -> SearchService:
    made = SearchService(store, embedder=None, params=SearchParams())  # type: ignore[arg-type]  # keyword mode
    made.today = lambda: dt.date(2024, 6, 15)
    return made


def found(store, folder, query, **kw) -> list[str]:
    results = service(store).search(query, 10, "keyword", **kw)
    return sorted(os.path.relpath(r.source, folder.path).replace(os.sep, "/") for r in results)


def test_the_query_language_through_search(store, folder, library):
    assert found(store, folder, '"solar panel"') == ["notes/launch.md", "notes/old.md"]  # not "solar panels"
    assert found(store, folder, '"solar panel" -draft') == ["notes/old.md"]
    assert found(store, folder, 'solar -"meeting notes"') == ["Invoices/acme-2024-03.txt", "ภาษา/ใบแจ้งหนี้.txt"]
    assert found(store, folder, "invoice file:2024-05") == ["Invoices/acme-2024-05.txt"]
    assert found(store, folder, "notes folder:notes after:2024") == ["notes/launch.md"]
    assert found(store, folder, "solar invoice date:2024-03") == ["Invoices/acme-2024-03.txt", "ภาษา/ใบแจ้งหนี้.txt"]
    assert found(store, folder, "invoice notes last month") == ["Invoices/acme-2024-05.txt"]
    assert found(store, folder, "solar tag:#ภาษี") == ["ภาษา/ใบแจ้งหนี้.txt"]
    assert found(store, folder, "solar tag:launch type:text") == []
    assert found(store, folder, "solar after:2025 before:2024") == []  # an empty range finds nothing, no error
    assert found(store, folder, "after:banana solar") == found(store, folder, "after banana solar")  # words
    assert len(found(store, folder, "after:banana solar")) == 4
    assert found(store, folder, "solar type:text", types=["markdown"]) == []  # the menu's and the typed filters
    assert found(store, folder, '"ใบแจ้งหนี้ค่าไฟฟ้า"') == ["ภาษา/ใบแจ้งหนี้.txt"]


def test_checks_read_deeper_until_k_results_pass(store, folder):
    for i in range(120):  # the excluded word is in the best-ranked passages: k results come from further down
        text = ("harbour harbour harbour crane" if i < 100 else "harbour quay") + f" n{i}"
        store.write_document(doc(folder.id, f"{folder.path}/h{i:03d}.txt", digest=f"h{i}"), chunks(text))
    results = service(store).search("harbour -crane", 10, "keyword")
    assert len(results) == 10 and all("crane" not in r.content for r in results)
    one_each = service(store).search("harbour -crane", 30, "keyword", group_by_document=True)
    assert len(one_each) == 20


def test_a_rewrite_clears_the_date_and_tags(store, folder, library):
    path = os.path.join(folder.path, "notes", "launch.md")
    store.write_document(doc(folder.id, path, digest="q2b", mtime=ns("2024-04-02")), chunks("launch notes again"))
    assert store.keyword_candidates("launch", 10, filters=Filters(tags=("work",))) == []
    hits = store.keyword_candidates("launch", 10, filters=Filters(date_from="2024-04-02", date_to="2024-04-03"))
    assert names(store, hits, folder) == ["notes/launch.md"]


def test_stats_count_own_dates_and_tags(store, folder, library):
    assert store.document_dates() == (2, "2023-01-05", "2024-03-10")  # modified days are not counted
    assert store.tag_counts() == [("billing", 1), ("launch", 1), ("work", 1), ("ภาษี", 1)]
    store.set_document_facts(library["notes/old.md"], "2023-01-05", ("work",))
    assert store.tag_counts(limit=1) == [("work", 2)]


def test_a_query_of_filters_only_lists_their_documents_newest_first(store, folder, library):
    def listed(query):
        return [os.path.relpath(r.source, folder.path).replace(os.sep, "/")
                for r in service(store).search(query, 10, "hybrid")]
    assert listed("tag:notes") == ["notes/launch.md", "notes/old.md"]  # 2024-04-02 (modified), 2023-01-05 (own)
    assert listed("file:.txt after:2024-03-12") == ["Invoices/acme-2024-05.txt", "ภาษา/ใบแจ้งหนี้.txt"]
    assert listed("folder:invoices -wind") == ["Invoices/acme-2024-03.txt"]
    assert listed("-wind") == [] and listed("") == []  # no words and no filter: nothing to list
    (chunk_id, score), = store.listed_documents(Filters(tags=("launch",)), 10)
    assert score == 1.0 and store.chunk_rows([chunk_id])[chunk_id].document_id == library["notes/launch.md"]


def test_results_carry_the_documents_own_date_and_tags(store, folder, library):
    by_name = {os.path.relpath(r.source, folder.path).replace(os.sep, "/"): r.metadata
               for r in service(store).search("solar invoice notes", 10, "keyword")}
    assert (by_name["Invoices/acme-2024-03.txt"]["date"], by_name["Invoices/acme-2024-03.txt"]["tags"]) == (
        "2024-03-10", ["billing"])
    assert by_name["notes/launch.md"]["tags"] == ["work", "launch"] and "date" not in by_name["notes/launch.md"]
