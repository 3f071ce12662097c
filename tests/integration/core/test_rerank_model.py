"""The best-sentence reranker (the shipped embedding models, read sentence by sentence; the fallback when the
cross-encoder is not installed): what any CPU must get right; and `trove search --rerank` as a user runs it (with
the process's reranker: the cross-encoder, tests/integration/core/test_cross_encoder.py)."""

from __future__ import annotations

import json

import pytest

from desktop_app.core.search.rerank import rerank
from desktop_app.core.search.rerank_embed import ENGLISH, MULTILINGUAL, load_embed_reranker
from desktop_app.core.types import RetrievalResult
from tests.integration.core.test_cli import trove

pytestmark = pytest.mark.slow

SHORTCUTS = ("Trove keeps an index of the folders you add and updates it as files change. Press Ctrl+F or Ctrl+K "
             "to focus the search bar. Ctrl+N starts a new chat, and Ctrl+, opens the settings.")
UNRELATED = ("Sourdough needs a starter fed with flour and water for several days before the first loaf. A long, "
             "cool proof gives the crumb its open structure.")


@pytest.fixture(scope="module")
def reranker():
    return load_embed_reranker()  # the embedding model packages are dependencies: it must load


def test_the_passage_that_answers_outranks_an_unrelated_one(reranker):
    query = "What keyboard shortcut focuses the search bar?"
    assert reranker.choose(query, [SHORTCUTS, UNRELATED]) == ENGLISH
    answer, other = reranker.score(query, [SHORTCUTS, UNRELATED])
    assert answer > other
    found = [RetrievalResult(content=UNRELATED, score=0.9, source="/bread.txt"),
             RetrievalResult(content=SHORTCUTS, score=0.4, source="/keys.txt")]
    assert [r.source for r in rerank(reranker, query, found, top_n=2)] == ["/keys.txt", "/bread.txt"]


def test_a_thai_question_is_read_by_the_multilingual_model(reranker):
    query = "ปุ่มลัดใดใช้สำหรับไปที่ช่องค้นหา"  # which shortcut key goes to the search box
    relevant = "กด Ctrl+F หรือ Ctrl+K เพื่อไปที่ช่องค้นหา แล้วพิมพ์คำที่ต้องการค้นหา"
    unrelated = "ขนมปังซาวโดว์ต้องใช้หัวเชื้อที่เลี้ยงด้วยแป้งและน้ำหลายวันก่อนอบ"
    assert reranker.choose(query, [relevant, unrelated]) == MULTILINGUAL
    near, far = reranker.score(query, [relevant, unrelated])
    assert near > far


def test_trove_search_rerank_orders_by_the_reranker(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "keys.txt").write_text(SHORTCUTS, encoding="utf-8")
    (docs / "bread.txt").write_text(UNRELATED + " The bakery's website has a search bar for its recipes.",
                                    encoding="utf-8")
    home = tmp_path / "home"
    assert trove(home, "index", str(docs)).returncode == 0
    query = "What keyboard shortcut focuses the search bar?"
    done = trove(home, "search", query, "--mode", "keyword", "--rerank", "--json")
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    assert [h["source"].rsplit("/", 1)[-1] for h in hits] == ["keys.txt", "bread.txt"]
    scores = [h["metadata"]["rerank_score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    plain = json.loads(trove(home, "search", query, "--mode", "keyword", "--json").stdout)
    assert {h["source"] for h in plain} == {h["source"] for h in hits}
    assert all("rerank_score" not in h["metadata"] for h in plain)  # without --rerank no model is asked
    printed = trove(home, "search", query, "--mode", "keyword", "--rerank")
    assert printed.returncode == 0 and "rerank" in printed.stdout
