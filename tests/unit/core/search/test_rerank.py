"""Reranking with a deterministic scorer: the order rerank() returns, what it keeps, the search path's depth,
and load_reranker's caching and its None when nothing loads."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest

from desktop_app.core.errors import UnavailableError
from desktop_app.core.library import Library
from desktop_app.core.search import rerank as rerank_module
from desktop_app.core.search.rerank import forget_reranker, load_reranker, rerank
from desktop_app.core.search.rerank_embed import sentences
from desktop_app.core.search.service import RERANK_DEPTH
from desktop_app.core.settings import Settings
from desktop_app.core.types import RetrievalResult


class WordCount:
    """Scores a passage by how often it says the query's last word; remembers every batch it was given."""

    name = "word-count"
    floor = 0.5

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.batches.append(list(texts))
        word = query.split()[-1].lower()
        return [float(t.lower().split().count(word)) for t in texts]


def results(*texts: str) -> list[RetrievalResult]:
    return [RetrievalResult(content=t, score=1.0 - i / 10, source=f"/d/{i}.txt", metadata={"chunk_id": i})
            for i, t in enumerate(texts)]


def test_rerank_orders_by_score_and_keeps_the_search_order_on_ties():
    found = results("no match here", "kiwi once", "kiwi kiwi kiwi", "kiwi kiwi", "still nothing")
    ranked = rerank(WordCount(), "fruit kiwi", found, top_n=4)
    assert [r.content for r in ranked] == ["kiwi kiwi kiwi", "kiwi kiwi", "kiwi once", "no match here"]
    assert [r.metadata["search_rank"] for r in ranked] == [2, 3, 1, 0]
    assert [r.metadata["rerank_score"] for r in ranked] == [3.0, 2.0, 1.0, 0.0]
    assert [r.score for r in ranked] == [0.8, 0.7, 0.9, 1.0]  # the search's scores ride along unchanged
    assert all(r.metadata["chunk_id"] == r.metadata["search_rank"] for r in ranked)
    assert "rerank_score" not in found[2].metadata  # copies: the caller's results are untouched


def test_rerank_of_nothing_or_to_nothing_is_empty():
    scorer = WordCount()
    assert rerank(scorer, "kiwi", [], top_n=5) == []
    assert rerank(scorer, "kiwi", results("kiwi"), top_n=0) == []
    assert scorer.batches == []  # the model was not asked


def test_a_scorer_that_loses_passages_is_an_error_not_a_shorter_list():
    class Short(WordCount):
        def score(self, query, texts):
            return super().score(query, texts)[:-1]

    with pytest.raises(UnavailableError, match="scored 1 of 2"):
        rerank(Short(), "kiwi", results("kiwi", "apple"), top_n=2)


@pytest.fixture
def fresh_loader(monkeypatch):
    forget_reranker()
    yield monkeypatch
    forget_reranker()


def test_load_reranker_takes_the_first_that_loads_once_per_process(fresh_loader):
    made = []

    def missing():
        raise UnavailableError("no such model")

    def word_count():
        made.append(WordCount())
        return made[-1]

    fresh_loader.setattr(rerank_module, "LOADERS", [missing, word_count])
    first = load_reranker()
    assert first is made[0] and load_reranker() is first and len(made) == 1


def test_load_reranker_is_none_with_one_log_line_when_nothing_loads(fresh_loader, caplog):
    def missing():
        raise UnavailableError("no such model")

    fresh_loader.setattr(rerank_module, "LOADERS", [missing, missing])
    with caplog.at_level(logging.WARNING, logger="trove.search"):
        assert load_reranker() is None
        assert load_reranker() is None
    lines = [r.getMessage() for r in caplog.records if "reranker" in r.getMessage()]
    assert len(lines) == 1 and "no such model" in lines[0]


@pytest.fixture
def library(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(30):
        (docs / f"note{i:02}.txt").write_text(f"note {i} about gardens" + " kiwi" * (i % 5), encoding="utf-8")
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"))
    lib.add_folder(docs)
    lib.sync()
    yield lib
    lib.close()


def test_search_with_rerank_reads_the_deeper_candidates_and_keeps_top_k(library):
    scorer = WordCount()
    library.searcher.reranker = lambda: scorer
    plain = library.search("gardens kiwi", top_k=5, mode="keyword")
    reranked = library.search("gardens kiwi", top_k=5, mode="keyword", rerank=True)
    assert len(plain) == len(reranked) == 5
    assert len(scorer.batches) == 1 and len(scorer.batches[0]) == RERANK_DEPTH  # 20 candidates read, 5 kept
    assert [r.content.count("kiwi") for r in reranked] == [4] * 5
    assert [r.metadata["rerank_score"] for r in reranked] == [4.0] * 5
    assert library.search("gardens kiwi", top_k=5, mode="keyword") == plain  # without rerank: no model asked
    assert len(scorer.batches) == 1


def test_search_with_rerank_and_no_model_says_so(library):
    library.searcher.reranker = lambda: None
    with pytest.raises(UnavailableError, match="no reranking model"):
        library.search("gardens", top_k=3, rerank=True)
    assert len(library.search("gardens", top_k=3)) == 3  # plain search is unaffected


@pytest.mark.parametrize("text, expected", [
    ("Press Ctrl+F to search. Ctrl+N starts a chat! Done?", ["Press Ctrl+F to search.", "Ctrl+N starts a chat!",
                                                              "Done?"]),
    ("第一句。第二句！第三句", ["第一句。", "第二句！", "第三句"]),
    ("ما هذا؟ هذا كتاب.", ["ما هذا؟", "هذا كتاب."]),
    ("line one\nline two\n\nline three", ["line one", "line two", "line three"]),
])
def test_sentences_are_cut_at_the_marks_of_each_script(text, expected):
    assert sentences(text) == expected


def test_a_run_without_marks_is_cut_at_spaces_into_bounded_pieces():
    thai = " ".join(["ภาษาไทยเป็นภาษาราชการของประเทศไทย"] * 40)
    pieces = sentences(thai)
    assert len(pieces) > 1 and all(0 < len(p) <= 300 for p in pieces)
    assert " ".join(pieces) == thai


def test_a_passage_is_scored_by_its_best_sentence_and_its_whole_text():
    from desktop_app.core.embed.base import HashEmbedder
    from desktop_app.core.search.rerank_embed import SENTENCE_WEIGHT, EmbedReranker

    made: list[str] = []
    reranker = EmbedReranker(["minilm"], make=lambda name: made.append(name) or HashEmbedder())
    answer = "Bread needs flour. The search bar takes focus with control k. Ovens run hot."
    diffuse = "search here, bar there, focus elsewhere, control nothing, take it all"
    best, whole = reranker.parts("search bar focus control k", [answer, diffuse])
    assert best[0] > best[1] and best[0] > whole[0]  # one sentence says it all; the passage as a whole less so
    assert reranker.score("search bar focus control k", [answer, diffuse]) == pytest.approx(
        [SENTENCE_WEIGHT * b + (1 - SENTENCE_WEIGHT) * w for b, w in zip(best, whole)])
    assert made == ["minilm"]  # one model, created once, shared by both calls
    assert reranker.choose("ค้นหา", ["ข้อความ"]) == "minilm"  # the only model installed reads every language
    assert reranker.score("anything", []) == []


def test_interpolation_orders_by_both_scores_each_scaled_to_0_1():
    from desktop_app.core.search.rerank import mixed

    found = results("kiwi", "nothing", "kiwi kiwi kiwi")  # search scores 1.0, 0.9, 0.8
    assert mixed([1.0, 0.0, 3.0], [1.0, 0.9, 0.8], 0.5) == pytest.approx([0.5 / 3 + 0.5, 0.25, 0.5])
    by_reranker = rerank(WordCount(), "fruit kiwi", found, top_n=3)
    by_both = rerank(WordCount(), "fruit kiwi", found, top_n=3, mix=0.5)
    assert [r.content for r in by_reranker] == ["kiwi kiwi kiwi", "kiwi", "nothing"]
    assert [r.content for r in by_both] == ["kiwi", "kiwi kiwi kiwi", "nothing"]  # the search's first kept first
    assert [r.metadata["rerank_score"] for r in by_both] == [1.0, 3.0, 0.0]  # the reranker's own score rides along
    assert [r.content for r in rerank(WordCount(), "fruit kiwi", found, top_n=3, mix=0.0)] == [
        "kiwi", "nothing", "kiwi kiwi kiwi"]  # no share: the search's order


ENGLISH_PASSAGES = ["The DECnet suite includes protocols for file access and remote login.",
                    "Digital Equipment Corporation designed the network architecture in the 1970s."]


@pytest.mark.parametrize("query, texts, expected", [
    ("Who founded the company that designed it?", ENGLISH_PASSAGES, True),
    # too bare of function words to tell: undetermined, and read as English over English passages
    ("What does DECnet suite include?", ENGLISH_PASSAGES, True),
    ("Wer war Goethe?", ["Goethe war ein deutscher Dichter und Naturforscher, der in Weimar lebte."] * 2, False),
    ("What does DECnet suite include?", ["ดีเอ็กเน็ตเป็นชุดโปรโตคอลเครือข่ายที่ออกแบบโดยบริษัทดิจิทัล"] * 2, False),
    ("ดีเอ็กเน็ต", ENGLISH_PASSAGES, False),  # undetermined, but not in ASCII letters
    ("Quand est-il mort ? Où est-il né ?", ENGLISH_PASSAGES, False),  # another Latin-script language
])
def test_the_cross_encoder_reads_english_and_undetermined_ascii_questions_over_english_passages(query, texts,
                                                                                                expected):
    from desktop_app.core.search.rerank_embed import english
    from desktop_app.core.text.language import detect_language

    assert detect_language("What does DECnet suite include?") == "und"  # the case this rule is for
    assert english(query, texts) is expected
