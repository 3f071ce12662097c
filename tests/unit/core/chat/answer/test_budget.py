"""The single prompt budget, history compaction and the prefix-stable layout (word counter as tokenizer)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.budget import CONTEXT_HEADER, BudgetConfig, plan_prompt, retrieval_query, window_start
from desktop_app.core.chat.answer.prompt import LEGACY_SYSTEM
from desktop_app.core.errors import KnownError
from desktop_app.core.types import RetrievalResult, Turn


def legacy_plan(*args, **kwargs):
    """plan_prompt in the legacy style: these tests are about the budget, whose layout they spell out."""
    return plan_prompt(*args, style="legacy", **kwargs)


def words(text: str) -> int:
    return len(text.split())


def prompt_cost(plan, cfg) -> int:
    """What the plan costs under the same accounting the budget promises to respect."""
    return sum(words(m["content"]) + cfg.message_overhead for m in plan.messages) + cfg.prompt_overhead


def chunks(n, size, score=1.0):
    return [
        RetrievalResult(f"chunk{i} " + "word " * size, score, f"/docs/f{i}.txt", {"chunk_id": i, "page": None})
        for i in range(n)
    ]


def turns(n, size=20):
    return [Turn(f"question {i} " + "q " * size, f"answer {i} " + "a " * size) for i in range(n)]


def test_layout_system_first_history_next_passages_only_in_the_last_user_message():
    cfg = BudgetConfig(n_ctx=2000, answer_reserve=100, max_context_tokens=300, min_score=0.0)
    plan = legacy_plan("what now?", chunks(3, 20), turns(2), cfg, words)
    roles = [m["role"] for m in plan.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert plan.messages[0]["content"] == LEGACY_SYSTEM
    assert all(CONTEXT_HEADER not in m["content"] for m in plan.messages[:-1])
    last = plan.messages[-1]["content"]
    assert last.startswith(CONTEXT_HEADER) and last.endswith("Question: what now?")
    assert "[1] f0.txt" in last and len(plan.passages) == 3


def test_the_prefix_is_unchanged_when_a_turn_is_added_within_the_window():
    cfg = BudgetConfig(n_ctx=4000, answer_reserve=200, max_context_tokens=500, min_score=0.0)
    history = turns(5)
    first = legacy_plan("q1", chunks(5, 50), history, cfg, words)
    second = legacy_plan("q2", chunks(5, 50), history + [Turn("q1", "an answer")], cfg, words)
    shared = len(first.messages) - 1  # everything but the newest user message
    assert second.messages[:shared] == first.messages[:shared]


def test_long_history_is_compacted_down_and_then_stays_put():
    cfg = BudgetConfig(n_ctx=1000, answer_reserve=100, max_context_tokens=200, min_score=0.0)
    history = turns(40, size=10)
    plan = legacy_plan("q", chunks(5, 60), history, cfg, words)
    assert plan.history_start > 0 and plan.notes
    assert prompt_cost(plan, cfg) + cfg.answer_reserve <= cfg.compact_at * cfg.n_ctx
    kept = plan.history_turns
    again = legacy_plan("q", chunks(5, 60), history + [Turn("short", "short")], cfg, words)
    assert again.history_start == plan.history_start  # one small turn more: no second compaction yet
    assert again.history_turns == kept + 1


def test_no_context_means_a_bare_question():
    cfg = BudgetConfig(n_ctx=500, answer_reserve=50)
    plan = legacy_plan("just this", [], [], cfg, words, system_prompt="plain")
    assert plan.messages[-1] == {"role": "user", "content": "just this"} and plan.passages == ()


def test_a_huge_question_is_cut_to_fit():
    cfg = BudgetConfig(n_ctx=300, answer_reserve=50, max_context_tokens=100)
    plan = legacy_plan("word " * 5000, chunks(3, 50), turns(3), cfg, words)
    assert plan.question_truncated
    assert prompt_cost(plan, cfg) + cfg.answer_reserve <= cfg.n_ctx


def test_a_window_too_small_for_the_question_is_a_plain_error():
    with pytest.raises(KnownError, match="too small"):
        legacy_plan("why " * 50, [], [], BudgetConfig(n_ctx=120, answer_reserve=100), words)


@settings(max_examples=300, deadline=None)
@given(
    n_chunks=st.integers(0, 60),
    chunk_size=st.integers(0, 600),
    n_turns=st.integers(0, 120),
    turn_size=st.integers(0, 80),
    n_ctx=st.integers(256, 8192),
    reserve_share=st.floats(0.01, 0.5),
    max_ctx=st.integers(0, 4096),
    q_size=st.integers(1, 400),
)
def test_plan_never_exceeds_n_ctx(n_chunks, chunk_size, n_turns, turn_size, n_ctx, reserve_share, max_ctx, q_size):
    reserve = int(n_ctx * reserve_share)
    cfg = BudgetConfig(n_ctx=n_ctx, answer_reserve=reserve, max_context_tokens=max_ctx, min_score=0.0)
    plan = legacy_plan("why " * q_size, chunks(n_chunks, chunk_size), turns(n_turns, turn_size), cfg, words)
    assert prompt_cost(plan, cfg) + reserve <= n_ctx
    assert sum(words(p.content) for p in plan.passages) <= max_ctx
    assert plan.history_turns == (len(plan.messages) - 2) // 2


@settings(max_examples=300, deadline=None)
@given(costs=st.lists(st.integers(0, 300), max_size=60), high=st.integers(-50, 3000), gap=st.integers(0, 1000))
def test_window_start_fits_and_only_moves_when_the_window_overflows(costs, high, gap):
    low = high - gap
    start = window_start(costs, high, low)
    assert sum(costs[start:]) <= max(high, 0) or start == len(costs)
    if high >= 0:
        assert window_start(costs + [0], high, low) == start  # a free turn never shifts the window
    for extra in (1, 50, 400):
        assert window_start(costs + [extra], high, low) >= start  # monotone: the prefix only ever moves forward


def test_retrieval_query_carries_the_last_user_turn():
    history = [Turn("list the reactor designs", "1. Zorblax 2. Quell")]
    assert (
        retrieval_query("what about the second one?", history) == "list the reactor designs what about the second one?"
    )
    assert retrieval_query("first", []) == "first"


def test_passages_never_starve_the_newest_turn():
    cfg = BudgetConfig(n_ctx=1000, answer_reserve=100, max_context_tokens=1000, min_score=0.0)
    plan = legacy_plan("and then?", chunks(20, 300), turns(30, size=20), cfg, words)
    assert plan.passages and plan.history_turns >= 1
    assert plan.messages[-2]["content"].startswith("answer 29")  # the newest turn is the one kept
    assert prompt_cost(plan, cfg) + cfg.answer_reserve <= cfg.n_ctx


def utf8_pieces(text: str) -> int:
    """A byte-level tokenizer's cost, roughly (a Thai letter is three UTF-8 bytes)."""
    return (len(text.encode("utf-8")) + 1) // 2


def test_thai_passages_get_the_room_english_ones_of_as_many_words_get():
    thai = "ระบบเก็บเอกสารแบบถาวรและค้นหาได้สำหรับการดึงข้อมูล " * 3
    english = "the system keeps documents and finds them again for retrieval " * 3
    cfg = BudgetConfig(n_ctx=8192, max_context_tokens=600)

    def sent(text):
        found = [RetrievalResult(f"{i} {text}", 1.0, f"/docs/f{i}.txt", {"chunk_id": i}) for i in range(4)]
        return plan_prompt("q", found, [], cfg, utf8_pieces, style="legacy").passages

    assert len(sent(english)) == 4  # about 100 tokens a passage
    assert len(sent(thai)) == 4  # 230 tokens a passage for as many words: the room grows with the cost


def test_non_latin_passages_spend_their_focus_windows_on_the_best_one():
    from desktop_app.core.chat.answer.budget import FIRST_WINDOW, LATER_WINDOW, focus_window

    thai, english = "เทสลาเกิดที่หมู่บ้านสมิลยาน", "Tesla was born in Smiljan."
    assert focus_window(96, 0, thai) == int(96 * FIRST_WINDOW) > 96
    assert focus_window(96, 1, thai) == focus_window(96, 4, thai) == int(96 * LATER_WINDOW) < 96
    assert focus_window(96, 0, english) == focus_window(96, 3, english) == 96  # the window English was tuned with


def test_the_best_thai_passage_is_sent_wider_than_the_next_one():
    sentence = "ประโยคภาษาไทยที่มีคำหลายคำอยู่ในนั้น"
    text = " ".join(f"{sentence}{n}" for n in range(80))
    results = [RetrievalResult(text, 1.0, f"/docs/th{i}.txt", {"chunk_id": i, "page": None}) for i in range(2)]
    cfg = BudgetConfig(n_ctx=20000, answer_reserve=10, max_context_tokens=10000)
    plan = plan_prompt("ประโยคภาษาไทย", results, [], cfg, lambda t: len(t.encode("utf-8")) // 2, style="grounded-96")
    first, second = (p.content for p in plan.passages)
    assert len(first) > 3 * len(second) and len(first) < len(text)
