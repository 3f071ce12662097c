"""Prompt styles (pure): labels without paths, the worked example, echoed labels stripped, budgets still fit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.budget import BudgetConfig, plan_prompt
from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.prompt import (
    DEFAULT_STYLE,
    EXAMPLE_ANSWER,
    STYLES,
    get_style,
    short_label,
    strip_echoed_label,
)
from desktop_app.core.types import RetrievalResult, Turn


def words(text: str) -> int:
    return len(text.split())


PDF = Passage(1, "Venus is the hottest planet.", "/home/me/Documents/space/planets.pdf", page=3)
TXT = Passage(2, "Mars is red.", "/home/me/notes/mars.txt")


def test_short_labels_name_the_file_and_page_never_the_path():
    style = STYLES["short+focus"]
    message = style.user_message("Which planet is hottest?", [PDF, TXT])
    assert message == ("[1] planets.pdf, p. 3\nVenus is the hottest planet.\n\n[2] mars.txt\nMars is red.\n\n"
                       "Question: Which planet is hottest?")
    assert "/home/me" not in message and "[Source:" not in message
    assert short_label(Passage(4, "x", "C:\\docs\\a.docx")) == "[4] a.docx"


def test_the_legacy_style_keeps_the_seed_source_tags():
    message = STYLES["legacy"].user_message("q", [PDF])
    assert message.startswith("Passages from my documents:\n\n[1] planets.pdf, p. 3 [Source: /home/me/Documents")


def test_no_passages_means_the_bare_question():
    assert all(s.user_message("just this", []) == "just this" for s in STYLES.values())


def test_the_worked_example_is_a_constant_exchange_that_cites():
    style = STYLES["example+focus"]
    user, assistant = style.example_messages()
    assert user["role"] == "user" and "[1] tea.txt" in user["content"] and "Question:" in user["content"]
    assert assistant == {"role": "assistant", "content": EXAMPLE_ANSWER} and "[1]" in EXAMPLE_ANSWER
    assert style.example_messages() == (user, assistant)
    assert STYLES["short+focus"].example_messages() == ()


def test_styles_by_name():
    assert get_style(None) is DEFAULT_STYLE and get_style("short+focus") is STYLES["short+focus"]
    assert get_style(STYLES["example+focus"]) is STYLES["example+focus"]
    with pytest.raises(ValueError, match="unknown prompt style"):
        get_style("nope")


@pytest.mark.parametrize("echo", ["1. reactor.txt [Source: /d/reactor.txt]\n", "[1] reactor.txt\n",
                                  "[2] report.pdf, p. 4\n", "  1) notes.md [Source: x]\n"])
def test_an_echoed_label_on_the_first_line_is_removed(echo):
    assert strip_echoed_label(echo + "Dr. Quell invented it [1].") == "Dr. Quell invented it [1]."


@pytest.mark.parametrize("text", ["Dr. Quell invented it [1].", "1. First point.\n2. Second point.",
                                  "[1] says that Venus is hot.\nMore."])
def test_answers_that_do_not_start_with_a_label_are_kept(text):
    assert strip_echoed_label(text) == text


def test_the_example_sits_between_the_system_prompt_and_the_history():
    cfg = BudgetConfig(n_ctx=3000, answer_reserve=100, max_context_tokens=300, min_score=0.0)
    results = [RetrievalResult("Venus is hot.", 1.0, "/d/v.txt", {"chunk_id": 1})]
    plan = plan_prompt("q", results, [Turn("earlier", "reply")], cfg, words, style="example+focus")
    roles = [m["role"] for m in plan.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert plan.messages[2]["content"] == EXAMPLE_ANSWER and plan.messages[3]["content"] == "earlier"
    plain = plan_prompt("q", [], [Turn("earlier", "reply")], cfg, words, system_prompt="plain", style="example+focus")
    assert [m["role"] for m in plain.messages] == ["system", "user", "assistant", "user"]  # no example without passages


@settings(max_examples=200, deadline=None)
@given(style=st.sampled_from(sorted(STYLES)), n_chunks=st.integers(0, 20), chunk_size=st.integers(0, 400),
       n_turns=st.integers(0, 40), n_ctx=st.integers(400, 4096), max_ctx=st.integers(0, 2048))
def test_every_style_fits_the_window(style, n_chunks, chunk_size, n_turns, n_ctx, max_ctx):
    cfg = BudgetConfig(n_ctx=n_ctx, answer_reserve=64, max_context_tokens=max_ctx, min_score=0.0)
    results = [RetrievalResult("w " * chunk_size, 1.0, f"/d/f{i}.txt", {"chunk_id": i}) for i in range(n_chunks)]
    turns = [Turn("q " * 10, "a " * 20) for _ in range(n_turns)]
    plan = plan_prompt("why " * 5, results, turns, cfg, words, style=style)
    cost = sum(words(m["content"]) + cfg.message_overhead for m in plan.messages) + cfg.prompt_overhead
    assert cost + cfg.answer_reserve <= n_ctx
