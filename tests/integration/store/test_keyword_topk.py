"""The exact top-k keyword plan (core/store/sqlite/keyword/topk.py) against FTS5's plain plan, on a real SQLite
library where common and rare words mix: whenever the plan answers, it is the plain plan's top k, in the same order,
with the same scores; when it cannot prove that, keyword_candidates still returns the plain answer."""

from __future__ import annotations

import random

import pytest
import sqlean

from desktop_app.core import text as tp
from desktop_app.core.store.rows import Filters
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite.keyword import topk as kt
from tests.integration.store.test_store_protocol import chunks, doc

COMMON = "cell cells show shows effect increase protein patients risk study".split()
RARE = "zebrafish telomerase ketamine lupus osteoclast myelin".split()
SCRIPTS = ["ระบบค้นหาข้อมูล", "図書館で本を検索", "المكتبات العامة"]
QUERIES = [
    "zebrafish cells show effect", "telomerase increase in patients", "ketamine risk study shows",
    "lupus protein cell increase effect", "osteoclast study", "myelin cells risk patients show",
    "zebrafish telomerase protein", "cell show effect increase risk", "ketamine lupus myelin cells",
    "ระบบค้นหา cells effect", "図書館 protein study", "المكتبات risk show", "osteoclast cel",
]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """About 400 chunks in two folders: common words in most, each rare word in a few, some other scripts."""
    root = tmp_path_factory.mktemp("topk")
    store = SQLiteStore(root / "library.db")
    rng = random.Random(24)
    folders = [store.add_folder(str(root / name)) for name in ("a", "b")]
    for i in range(400):
        words = [rng.choice(COMMON) for _ in range(rng.randint(3, 40))]
        if rng.random() < 0.08:
            words += [rng.choice(RARE)] * rng.randint(1, 3)
        if rng.random() < 0.05:
            words.append(rng.choice(SCRIPTS))
        rng.shuffle(words)
        folder = folders[i % 2]
        store.write_document(doc(folder.id, f"{folder.path}/{i:04d}.txt", title=rng.choice(COMMON + ["notes"])),
                             chunks(" ".join(words)))
    yield store, root / "library.db", folders
    store.close()


def same(got, want) -> None:
    assert [c for c, _ in got] == [c for c, _ in want]
    assert all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for (_, a), (_, b) in zip(got, want, strict=True))


@pytest.mark.parametrize("budget", [30, 80, 200])
def test_plan_returns_the_plain_top_k_whenever_it_answers(library, budget):
    _, path, _ = library
    conn = sqlean.connect(str(path))
    rank = tp.fts5_rank("chunks_fts")
    answered = fell_back = 0
    for text in QUERIES:
        query = tp.build_query(text)
        for k in (1, 5, 10):
            plan = kt.TopK(conn, rank, budget=budget)
            hits = plan.search(query, k)
            want = plan.plain(str(tp.to_fts5(query)), k)
            if hits is None:
                fell_back += 1
                continue
            answered += 1
            same(hits, want)
            assert plan.last is not None and plan.last.kth > plan.last.bound
    conn.close()
    assert answered >= 5 and fell_back >= 1  # both paths ran: the plan pruned, and the bound refused some


def test_row_count_is_the_tables(library):
    _, path, _ = library
    conn = sqlean.connect(str(path))
    assert kt.row_count(conn) == conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == 400
    conn.close()


def test_keyword_candidates_with_filters_return_k_and_the_plain_order(library, monkeypatch):
    store, path, folders = library
    conn = sqlean.connect(str(path))
    join = " JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id"
    monkeypatch.setattr(kt, "MIN_CANDIDATES", 60)
    for text in QUERIES[:9]:
        only_b = Filters(folder_ids=(folders[1].id,))
        got = store.keyword_candidates(text, 10, filters=only_b)
        plain = kt.TopK(conn, tp.fts5_rank("chunks_fts"), join=join, extra=" AND d.folder_id IN (?)",
                        args=[folders[1].id]).plain(str(tp.to_fts5(tp.build_query(text))), 10)
        assert len(got) == 10
        same(got, plain)
        rows = store.chunk_rows([c for c, _ in got])
        assert {rows[c].folder_id for c, _ in got} == {folders[1].id}
    conn.close()


@pytest.mark.parametrize("text, word", [("ระบบค้นหา cells", "ระบบค้นหาข้อมูล"), ("図書館 protein", "図書館で本を検索"),
                                        ("المكتبات show", "المكتبات العامة")])
def test_other_scripts_are_found_beside_common_words(library, monkeypatch, text, word):
    store, _, _ = library
    monkeypatch.setattr(kt, "MIN_CANDIDATES", 60)
    hits = store.keyword_candidates(text, 3)
    rows = store.chunk_rows([c for c, _ in hits])
    assert word in rows[hits[0][0]].text


def test_varint_decodes_sqlite_varints():
    assert kt._varint(bytes([0x05])) == 5
    assert kt._varint(bytes([0x86, 0x8D, 0x20])) == 100_000
    assert kt._varint(bytes([0xFF] * 8 + [0x01])) == (2**56 - 1) << 8 | 1
