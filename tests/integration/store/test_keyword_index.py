"""The SQLite engine's keyword side index (core/store/side/keyword_index.py, fed by core/store/sqlite/side.py) on
real tantivy and FTS5.

Small libraries (a few hundred chunks in English, Thai, Japanese and Arabic) with the size threshold lowered, so
the side index answers. It proposes candidates by tantivy's BM25, which fts5_bm25.py ranks again as FTS5's bm25()
would: the answers are compared with FTS5's own (ids, order, scores), and with what must hold whatever the scoring:
every hit holds a query term, a rare word's chunk comes first, filters keep to the allowed chunks and still give k."""

from __future__ import annotations

import json
import logging
import random
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.rows import Filters, NewChunk, NewDocument
from desktop_app.core.store.side import keyword_index as ki
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite import side as sqlite_side
from desktop_app.core.store.sqlite.keyword import topk as keyword_topk
from tests.support.helpers import kill_9_when_flagged

WORDS = ("cell protein gene immune malaria blood tumour receptor kinase vaccine dose trial mouse virus insulin "
         "neuron cortex enzyme membrane signal pathway mutation cancer therapy").split()
OTHER = {"th": "ภาษาไทยเป็นภาษาที่สวยงามมาก", "ja": "東京の天気は晴れです", "ar": "اللغة العربية جميلة جدا"}


def chunk_texts(n: int) -> list[str]:
    """Words drawn with Zipf's law (as in real text: a few common, most rare) from WORDS and made-up ones."""
    rng = random.Random(3)
    vocabulary = [*WORDS, *(f"{a}{b}ase" for a in "bcdfgklmnprstv" for b in "aeiou")]
    rng.shuffle(vocabulary)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    texts = [" ".join(rng.choices(vocabulary, weights, k=rng.randint(8, 30))) for _ in range(n)]
    texts[17] += " zebrafish"  # one rare word, in one chunk
    for i, text in enumerate(OTHER.values()):
        texts[40 + i] = text
    return texts


def write(store: SQLiteStore, fid: int, name: str, text: str, kind: str = "txt") -> None:
    store.write_document(NewDocument(folder_id=fid, path=f"{name}.{kind}", title=Path(name).name, type=kind,
                                     size=1, mtime_ns=1, digest=name),
                         [NewChunk(Span(0, len(text), text), None, vectors=np.full((1, 4), 0.5, np.float32))])


def make_library(path: Path, n: int = 300) -> tuple[SQLiteStore, list[int]]:
    store = SQLiteStore(path)
    store.ensure_embedding_model("test-model", 4)
    fids = [store.add_folder(f"/lib/f{i}").id for i in range(3)]
    for i, text in enumerate(chunk_texts(n)):
        write(store, fids[i % 3], f"/lib/f{i % 3}/{i}", text, "md" if i % 5 == 0 else "txt")
    return store, fids


def chunk_id(store: SQLiteStore, needle: str) -> int:
    return int(store._read(lambda c: c.execute("SELECT id FROM chunks WHERE text LIKE ?",
                                               (f"%{needle}%",)).fetchone()[0]))


def fts5_answer(store: SQLiteStore, query: str, k: int, filters: Filters | None = None) -> list[tuple[int, float]]:
    """The keyword answer with the side index out of the way (FTS5's plan)."""
    kix = store.__dict__.pop("_keyword_index", None)
    store.__dict__["_keyword_index"] = _Absent()
    try:
        return store.keyword_candidates(query, k, filters=filters)
    finally:
        store.__dict__.pop("_keyword_index")
        if kix is not None:
            store.__dict__["_keyword_index"] = kix


class _Absent:
    def usable(self, conn):
        return None


def built(store: SQLiteStore) -> None:
    store.keyword_candidates("warm", 1)
    store.__dict__["_keyword_index"].wait(120)


def side_only(monkeypatch) -> None:
    """Fail if FTS5's plan is asked: the side index must answer."""
    def refuse(*a, **k):
        raise AssertionError("FTS5's plan was used")
    monkeypatch.setattr(keyword_topk.TopK, "search", refuse)
    monkeypatch.setattr(keyword_topk.TopK, "plain", refuse)


def holds_a_term(store: SQLiteStore, query: str, cid: int) -> bool:
    from desktop_app.core import text as tp

    match = tp.to_fts5(tp.build_query(query))
    return store._read(lambda c: c.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = ?",
                                           (match, cid)).fetchone()) is not None


def small_threshold(monkeypatch) -> None:
    monkeypatch.setattr(ki, "MIN_CHUNKS", 10)
    monkeypatch.setattr(ki, "REBUILD_QUIET", 0.0)


@pytest.fixture(autouse=True)
def small(monkeypatch):
    small_threshold(monkeypatch)


@pytest.fixture
def library(tmp_path):
    store, fids = make_library(tmp_path / "library.db")
    yield store, fids
    store.close()


QUERIES = ["immune cell receptor", "malaria vaccine trial in mouse", "tumour kinase mutation therapy",
           "insulin signal pathway", "neuron cortex", "blood dose", "gene protein enzyme membrane cancer"]


def test_the_side_index_answers_like_fts5(library, caplog, monkeypatch):
    store, _ = library
    with caplog.at_level(logging.WARNING):
        built(store)
    assert "missing" in caplog.text and (ki.index_dir(store.path) / "current.json").exists()
    expected = {q: fts5_answer(store, q, 10) for q in QUERIES}
    side_only(monkeypatch)
    overlaps = []
    for q in QUERIES:
        got = store.keyword_candidates(q, 10)
        assert len(got) == 10 and all(holds_a_term(store, q, c) for c, _ in got)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        overlaps.append(len({c for c, _ in got} & {c for c, _ in expected[q]}) / 10)
    assert np.mean(overlaps) >= 0.6, overlaps  # the same words, another BM25: mostly the same chunks
    assert store.keyword_candidates("zebrafish cell", 5)[0][0] == chunk_id(store, "zebrafish")


def test_the_side_index_candidates_are_ranked_by_fts5_bm25(library, monkeypatch):
    # The side index proposes, bm25() as FTS5 computes it ranks (fts5_bm25.py): the same chunks, order and scores
    # as FTS5's own plan, for whole words and for a typed prefix with one expansion.
    store, _ = library
    built(store)
    queries = [*QUERIES, "zebraf", "receptor kinase dose.", "the cell of the tumour", "ภาษาไทย", "東京", "العربية",
               "東京 cell"]
    expected = {q: fts5_answer(store, q, 10) for q in queries}
    side_only(monkeypatch)
    for q in queries:
        got = store.keyword_candidates(q, 10)
        assert [c for c, _ in got] == [c for c, _ in expected[q]], q
        assert np.allclose([s for _, s in got], [s for _, s in expected[q]], rtol=1e-9, atol=1e-12), q


def test_fts5_bm25_reads_fts5s_own_row_and_token_totals(library):
    from desktop_app.core.store.sqlite.keyword import bm25 as fts5_bm25

    store, _ = library
    rows, per_column = store._read(lambda c: fts5_bm25.table_stats(c))
    texts = store._read(lambda c: c.execute("SELECT c.text, d.title, d.path FROM chunks c "
                                            "JOIN documents d ON d.id = c.document_id").fetchall())
    from desktop_app.core import text as tp
    from desktop_app.core.ingest.extract import index_title

    counted = [0] * len(tp.FTS5_COLUMNS)
    for text, title, path in texts:
        fields = tp.index_fields(index_title(title, Path(path)), text)
        for i, column in enumerate(tp.FTS5_COLUMNS):
            counted[i] += len(fts5_bm25.ascii_tokens(fields[column]))
    assert rows == len(texts) == 300 and per_column == counted


def test_a_typed_prefix_and_every_script_are_found(library, monkeypatch):
    store, _ = library
    built(store)
    side_only(monkeypatch)
    assert store.keyword_candidates("zebraf", 3)[0][0] == chunk_id(store, "zebrafish")
    for lang, text in OTHER.items():
        query = {"th": "ภาษาไทย", "ja": "東京", "ar": "العربية"}[lang]
        got = store.keyword_candidates(query, 3)
        assert got and got[0][0] == chunk_id(store, text[:4]), lang


def test_filters_keep_to_the_allowed_chunks_and_return_k(library, monkeypatch):
    store, fids = library
    built(store)
    rows = store._read(lambda c: c.execute(
        "SELECT c.id, d.folder_id, d.type FROM chunks c JOIN documents d ON d.id = c.document_id").fetchall())
    cases = ((Filters(folder_ids=(fids[1],)), {r[0] for r in rows if r[1] == fids[1]}),
             (Filters(types=("md",)), {r[0] for r in rows if r[2] == "md"}),
             (Filters(folder_ids=(fids[0], fids[2]), types=("txt",)),
              {r[0] for r in rows if r[1] in (fids[0], fids[2]) and r[2] == "txt"}))
    query = " ".join(WORDS[:12])
    matching = {f: len(fts5_answer(store, query, 20, f)) for f, _ in cases}  # k, or all there are when fewer
    assert max(matching.values()) == 20 and min(matching.values()) > 0
    side_only(monkeypatch)
    for filters, allowed in cases:
        got = store.keyword_candidates(query, 20, filters=filters)
        assert len(got) == matching[filters] and {c for c, _ in got} <= allowed, filters

    # Paths, dates and tags (what the documents table holds): a path filter keeps the side index's best allowed
    # chunks (read once per documents generation: sqlite/allowed.py), dates and tags are fields of the index (a
    # change to them makes it stale: migration 016); the same ranking as FTS5's plan.
    docs = [r[0] for r in store._read(lambda c: c.execute("SELECT id FROM documents ORDER BY id").fetchall())]
    for doc_id in docs[::4]:
        store.set_document_facts(doc_id, "2024-03-10", ("work",))
    dated = {cid for cid, in store._read(lambda c: c.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.tags = '|work|'").fetchall())}
    in_f1 = {r[0] for r in rows if r[1] == fids[1]}
    by_document = ((Filters(paths=("/lib/f1",)), in_f1), (Filters(date_from="2024-03-01", date_to="2024-04-01"), dated),
                   (Filters(tags=("work",), types=("txt",)), {c for c in dated if c in {r[0] for r in rows
                                                                                      if r[2] == "txt"}}))
    monkeypatch.undo()
    small_threshold(monkeypatch)
    built(store)
    expected = {f: fts5_answer(store, query, 20, f) for f, _ in by_document}
    side_only(monkeypatch)
    for filters, allowed in by_document:
        got = store.keyword_candidates(query, 20, filters=filters)
        assert [c for c, _ in got] == [c for c, _ in expected[filters]], filters
        assert np.allclose([s for _, s in got], [s for _, s in expected[filters]], rtol=1e-9, atol=1e-12)
        assert {c for c, _ in got} <= allowed and len(got) == 20, filters
    monkeypatch.undo()
    store.set_document_facts(docs[1], "2024-03-11", ("work",))  # one more dated document: seen at once (FTS5)
    newly = store._read(lambda c: c.execute("SELECT id FROM chunks WHERE document_id = ?", (docs[1],)).fetchone()[0])
    wide = fts5_answer(store, query, 300, by_document[1][0])
    assert newly in {c for c, _ in store.keyword_candidates(query, 300, filters=by_document[1][0])}
    small_threshold(monkeypatch)
    built(store)  # and by the side index once it is built again
    side_only(monkeypatch)
    got = store.keyword_candidates(query, 300, filters=by_document[1][0])
    assert {c for c, _ in got} == {c for c, _ in wide} and newly in {c for c, _ in got}


def test_a_stale_index_is_rebuilt_and_fts5_answers_meanwhile(library, caplog):
    store, fids = library
    built(store)
    write(store, fids[0], "/lib/f0/new", "a narwhal appears among the proteins")
    with caplog.at_level(logging.WARNING):
        first = store.keyword_candidates("narwhal", 5)  # FTS5 answers while the side index is rebuilt
    assert "stale" in caplog.text
    new = chunk_id(store, "narwhal")
    assert [c for c, _ in first] == [new]
    store.__dict__["_keyword_index"].wait(120)
    kix = store.__dict__["_keyword_index"]
    assert kix._index is not None and kix._generation == sqlite_side.keyword_generation(store._conn)
    assert [c for c, _ in store.keyword_candidates("narwhal", 5)] == [new]
    doc = store._read(lambda c: c.execute("SELECT document_id FROM chunks WHERE id = ?", (new,)).fetchone()[0])
    assert store.delete_document(int(doc))  # a delete (a trigger) makes it stale too
    assert kix.usable(store._conn) is None
    kix.wait(120)
    assert store.keyword_candidates("narwhal", 5) == [] and kix._index is not None


def _damage_segment(root: Path) -> None:
    data = max((p for p in root.glob("gen-*/*") if p.suffix in (".idx", ".term")), key=lambda p: p.stat().st_size)
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])


@pytest.mark.parametrize("harm, reason", [
    (lambda root: (root / "current.json").write_text("{not json"), "damaged (current.json)"),
    (lambda root: (root / "current.json").write_text(json.dumps(
        {**json.loads((root / "current.json").read_text()), "format": 99})), "another version"),
    (lambda root: (root / "current.json").write_text(json.dumps(
        {**json.loads((root / "current.json").read_text()), "fingerprint": "0:old"})), "another version"),
    (lambda root: shutil.rmtree(next(root.glob("gen-*"))), "damaged"),
    (_damage_segment, "damaged"),
])
def test_a_damaged_or_other_version_index_is_rebuilt_with_a_notice(tmp_path, caplog, harm, reason):
    store, _ = make_library(tmp_path / "library.db")
    built(store)
    expected = store.keyword_candidates("zebrafish", 3)
    store.close()
    harm(ki.index_dir(tmp_path / "library.db"))
    store = SQLiteStore(tmp_path / "library.db")
    with caplog.at_level(logging.WARNING):
        assert store.keyword_candidates("zebrafish", 3)[0][0] == expected[0][0]  # FTS5 meanwhile
        store.__dict__["_keyword_index"].wait(120)
    assert reason in caplog.text and "rebuilding" in caplog.text
    assert store.__dict__["_keyword_index"]._index is not None
    assert store.keyword_candidates("zebrafish", 3) == expected
    store.close()


def _build_and_hang(db: str, flag: str) -> None:
    """Child process: build the side index, stopping for good half-way through the chunks."""
    made = ki.chunk_document
    seen = []

    def slow(*args):
        seen.append(1)
        if len(seen) == 150:
            Path(flag).write_text("writing")
            time.sleep(600)
        return made(*args)

    ki.chunk_document = slow
    ki.build_index(ki.index_dir(Path(db)), lambda: sqlite_side.database_rows(Path(db)))


@pytest.mark.parametrize("had_index", [False, True])
def test_kill_9_while_building_leaves_search_correct(tmp_path, had_index):
    db = tmp_path / "library.db"
    store, _ = make_library(db)
    if had_index:
        built(store)
    root = ki.index_dir(db)
    before = (root / "current.json").read_text() if had_index else None
    expected = fts5_answer(store, "zebrafish cell", 3)
    flag = tmp_path / "flag"
    kill_9_when_flagged(_build_and_hang, (str(db), str(flag)), flag)
    assert len(list(root.glob("gen-*"))) == (2 if had_index else 1)  # the half-built one is there, unnamed
    assert ((root / "current.json").read_text() if had_index else None) == before
    store.close()
    store = SQLiteStore(db)
    assert store.keyword_candidates("zebrafish cell", 3)[0][0] == expected[0][0]
    store.__dict__["_keyword_index"].wait(120)
    assert store.__dict__["_keyword_index"]._index is not None
    assert store.keyword_candidates("zebrafish cell", 3)[0][0] == expected[0][0]
    if not had_index:  # a rebuild ran: it cleared the dead build's directory
        assert len(list(root.glob("gen-*"))) == 1
    store.close()


def test_a_small_library_has_no_side_index(tmp_path, monkeypatch):
    monkeypatch.setattr(ki, "MIN_CHUNKS", 10_000)
    store, _ = make_library(tmp_path / "library.db", n=60)
    assert store.keyword_candidates("zebrafish", 3)[0][0] == chunk_id(store, "zebrafish")
    store.__dict__["_keyword_index"].wait(10)
    assert store.__dict__["_keyword_index"]._index is None and not ki.index_dir(store.path).exists()
    store.close()


def _tagged_library(tmp_path: Path) -> tuple[SQLiteStore, list[int]]:
    """make_library's chunks, each document filed below folders (folder-name tags, one with a non-ASCII capital),
    with its own date, front-matter tags (one nested) or neither (then its modified day, 1970-01-01, counts)."""
    store = SQLiteStore(tmp_path / "library.db")
    store.ensure_embedding_model("test-model", 4)
    fids = [store.add_folder(f"/lib/f{i}").id for i in range(3)]
    below = ("Projects/Alpha", "projects/beta/notes", "Über/Alpha", "", "work")
    for i, text in enumerate(chunk_texts(300)):
        sub = below[i % len(below)]
        write(store, fids[i % 3], f"/lib/f{i % 3}/{sub + '/' if sub else ''}{i}", text)
    docs = [r[0] for r in store._read(lambda c: c.execute("SELECT id FROM documents ORDER BY id").fetchall())]
    for i, doc_id in enumerate(docs):
        if i % 7:
            store.set_document_facts(doc_id, f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}" if i % 3 else None,
                                     ("work", "project/alpha") if i % 4 == 0 else ("launch",) if i % 4 == 1 else ())
    return store, fids


DOCUMENT_FILTERS = [
    Filters(date_from="2024-03-01", date_to="2024-04-01"), Filters(date_from="2024-06-15"),
    Filters(date_to="2024-02-02"), Filters(date_from="1970-01-01", date_to="1970-01-02"),
    Filters(tags=("work",)), Filters(tags=("projects",)), Filters(tags=("projects/alpha",)),
    Filters(tags=("alpha", "launch")), Filters(tags=("project/alpha",)), Filters(tags=("beta/notes",)),
    Filters(tags=("über",)), Filters(tags=("nowhere",)),
    Filters(tags=("alpha",), date_from="2024-05-01", date_to="2025-01-01"),
]


def test_dates_and_tags_are_fields_of_the_side_index(tmp_path, monkeypatch):
    # A date or tag filter is answered inside the side index (no allowed chunks read, no FTS5), with exactly the
    # chunks, order and scores of FTS5's plan, whose SQL is the definition: the document's own date else its
    # modified day, [from, to); a tag from its front matter or a run of folder names below its library folder,
    # folded as SQLite's lower() folds (ASCII only: `über` is not the folder `Über`).
    from desktop_app.core.store.sqlite.allowed import AllowedChunks

    store, fids = _tagged_library(tmp_path)
    built(store)
    query = " ".join(WORDS[:12])
    cases = [*DOCUMENT_FILTERS, Filters(tags=("work",), folder_ids=(fids[1],)), Filters(tags=("work",), types=("md",))]
    expected = {(f, k): fts5_answer(store, query, k, f) for f in cases for k in (10, 300)}
    sizes = {len(v) for v in expected.values()}
    assert 0 in sizes and 300 not in sizes and max(sizes) > 50  # narrow, empty and wide filters

    def refuse(*a, **k):
        raise AssertionError("the allowed chunks were read")
    monkeypatch.setattr(AllowedChunks, "of", refuse)
    side_only(monkeypatch)
    for (filters, k), want in expected.items():
        got = store.keyword_candidates(query, k, filters=filters)
        assert [c for c, _ in got] == [c for c, _ in want], filters
        assert np.allclose([s for _, s in got], [s for _, s in want], rtol=1e-9, atol=1e-12), filters
    store.close()


def test_a_date_or_tag_the_side_index_cannot_hold_is_left_to_the_allowed_chunks(tmp_path):
    store, _ = _tagged_library(tmp_path)
    docs = [r[0] for r in store._read(lambda c: c.execute("SELECT id FROM documents ORDER BY id").fetchall())]
    store.set_document_facts(docs[3], "2024-3-5", ())  # not an ISO day: compared as text by the filter's SQL
    built(store)
    side = store.__dict__["_keyword_index"].usable(store._conn)
    assert side is not None and side.tags and not side.days
    query = " ".join(WORDS[:12])
    for filters in (*DOCUMENT_FILTERS, Filters(date_from="2024-3-01"), Filters(tags=("a|b",)),
                    Filters(tags=("/".join("abcdefghij"),)), Filters(paths=("/lib/f1/work",))):
        assert not side.takes(filters) or not (filters.date_from or filters.date_to), filters
        got, want = store.keyword_candidates(query, 300, filters=filters), fts5_answer(store, query, 300, filters)
        assert [c for c, _ in got] == [c for c, _ in want], filters
        assert np.allclose([s for _, s in got], [s for _, s in want], rtol=1e-9, atol=1e-12), filters
    store.close()


@pytest.mark.parametrize("change, counts", [
    (lambda s, d, f: s.set_document_facts(d, "2024-01-01", ("work",)), True),
    (lambda s, d, f: s.set_document_facts(d, None, ("work", "new")), True),
    (lambda s, d, f: s.set_document_facts(d, None, ("work",)), False),  # the same again
    (lambda s, d, f: s._write(lambda c: c.execute("UPDATE documents SET mtime_ns = ? WHERE id = ?", (2, d))), False),
    (lambda s, d, f: s._write(lambda c: c.execute("UPDATE documents SET mtime_ns = ? WHERE id = ?",
                                                  (86_400 * 10**9, d))), True),  # another modified day
    (lambda s, d, f: s._write(lambda c: c.execute("UPDATE documents SET path = '/lib/f0/x/1.txt' WHERE id = ?",
                                                  (d,))), True),
    (lambda s, d, f: s._write(lambda c: c.execute("UPDATE folders SET path = '/lib/g0' WHERE id = ?", (f,))), True),
])
def test_a_change_to_a_documents_date_tags_or_path_makes_the_side_index_stale(tmp_path, change, counts):
    store = SQLiteStore(tmp_path / "library.db")
    store.ensure_embedding_model("test-model", 4)
    fid = store.add_folder("/lib/f0").id
    write(store, fid, "/lib/f0/1", "a protein")
    doc = store._read(lambda c: c.execute("SELECT id FROM documents").fetchone()[0])
    store.set_document_facts(doc, None, ("work",))
    before = sqlite_side.keyword_generation(store._conn)
    change(store, doc, fid)
    assert (sqlite_side.keyword_generation(store._conn) > before) is counts
    store.close()
