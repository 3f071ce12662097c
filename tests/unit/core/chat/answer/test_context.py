"""Context injection and passage selection (pure functions; a word counter stands in for the tokenizer)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.context import (
    ContextConfig,
    Passage,
    format_passage,
    inject_context,
    select_passages,
    truncate_to_tokens,
)
from desktop_app.core.memory.seed import MemoryRegistry
from desktop_app.core.types import RetrievalResult


def words(text: str) -> int:
    return len(text.split())


class ListBackend:
    """A seed MemoryBackend stand-in returning fixed results (the real bm25 backend is tested below)."""

    def __init__(self, results):
        self.results = results
        self.calls = []

    def retrieve(self, query, *, top_k=5, **kw):
        self.calls.append((query, top_k))
        return self.results[:top_k]


def result(text, score=1.0, source="/docs/a.txt", page=None, chunk_id=1):
    return RetrievalResult(text, score, source, {"page": page, "chunk_id": chunk_id})


def test_inject_context_puts_tagged_numbered_passages_in_the_first_system_message():
    backend = ListBackend([result("alpha beta", source="/d/one.pdf", page=3), result("gamma", source="/d/two.txt")])
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "q"}]
    out = inject_context("q", messages, backend, ContextConfig(top_k=2, min_score=0.0))
    assert out is not messages and messages[0]["content"] == "Be brief."  # a new list; the input is untouched
    system = out[0]["content"]
    assert system.startswith("Be brief.")
    assert "[1] one.pdf, p. 3 [Source: /d/one.pdf]\nalpha beta" in system
    assert "[2] two.txt [Source: /d/two.txt]\ngamma" in system
    assert out[1:] == messages[1:]
    assert backend.calls == [("q", 2)]


def test_inject_context_inserts_a_system_message_when_there_is_none():
    out = inject_context(
        "q", [{"role": "user", "content": "q"}], ListBackend([result("text")]), ContextConfig(min_score=0)
    )
    assert [m["role"] for m in out] == ["system", "user"]
    assert "[Source: /docs/a.txt]" in out[0]["content"]


def test_inject_context_disabled_or_below_min_score_changes_nothing():
    messages = [{"role": "user", "content": "q"}]
    backend = ListBackend([result("text", score=0.05)])
    assert inject_context("q", messages, backend, ContextConfig(enabled=False)) == messages
    assert inject_context("q", messages, backend, ContextConfig(min_score=0.1)) == messages


def test_inject_context_with_the_real_bm25_backend():
    backend = MemoryRegistry.create("bm25")
    backend.store("The lighthouse keeper lit the lamp at dusk.", source="/notes/lighthouse.md")
    backend.store("Bread rises when the yeast is warm.", source="/notes/bread.md")
    backend.store("Trains leave the station every hour.", source="/notes/trains.md")
    out = inject_context(
        "who lit the lighthouse lamp",
        [{"role": "user", "content": "x"}],
        backend,
        ContextConfig(top_k=1, min_score=float("-inf")),
    )
    assert "[Source: /notes/lighthouse.md]" in out[0]["content"]
    assert "bread.md" not in out[0]["content"]


def test_select_passages_keeps_rank_order_and_cuts_the_first_that_does_not_fit():
    results = [result("one " * 30, chunk_id=1), result("two " * 100, chunk_id=2), result("three " * 5, chunk_id=3)]
    chosen = select_passages(results, min_score=0, budget_tokens=100, count_tokens=words)
    assert [p.chunk_id for p in chosen] == [1, 2]  # 3 is never used to fill the gap left by cutting 2
    assert chosen[1].truncated and chosen[1].content.endswith("…")
    assert sum(words(format_passage(p)) + 2 for p in chosen) <= 100


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 400), max_size=12),
    budget=st.integers(0, 1500),
    scores=st.lists(st.floats(0, 1), min_size=12, max_size=12),
)
def test_selected_passages_always_fit_and_clear_min_score(sizes, budget, scores):
    results = [result(f"w{i} " * n, score=scores[i], chunk_id=i) for i, n in enumerate(sizes)]
    chosen = select_passages(results, min_score=0.3, budget_tokens=budget, count_tokens=words)
    assert sum(words(format_passage(p)) + 2 for p in chosen) <= budget
    assert [p.n for p in chosen] == list(range(1, len(chosen) + 1))
    assert all(p.score >= 0.3 for p in chosen)
    ids = [p.chunk_id for p in chosen]
    assert ids == sorted(ids)  # best-first order kept


@settings(max_examples=200, deadline=None)
@given(text=st.text(min_size=0, max_size=600), limit=st.integers(1, 80))
def test_truncate_to_tokens_fits_and_is_a_prefix(text, limit):
    cut = truncate_to_tokens(text, limit, words)
    assert words(cut) <= limit
    body = cut.removesuffix(" …")
    assert text.startswith(body) or text.rstrip().startswith(body)


def test_passage_label_and_round_trip():
    p = Passage(2, "text", "/a/b/report.pdf", page=4, chunk_id=9, score=0.5)
    assert p.label == "report.pdf, p. 4"
    assert Passage.from_dict(p.to_dict()) == p
