"""What the transcript shows of a conversation's exchange, and the one byte formatter of the UI. No Qt widgets."""

from __future__ import annotations

import ast
from pathlib import Path

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.conversation import Conversation
from desktop_app.ui.chat.answer_view import SHOW_LABEL, WRITING, shown_exchange
from desktop_app.ui.chat.markdown import escape_markdown
from desktop_app.ui.units import format_bytes

UI = Path(__file__).parents[3] / "desktop_app" / "ui"
P = (Passage(1, "Venus is the hottest planet.", "/d/planets.md"),)
Q = Quote("Venus is the hottest planet.", 1, 0, 28, 0.9, source="/d/planets.md")


def shown(c: Conversation, i: int = -1):
    i = i % len(c.exchanges)
    return shown_exchange(i, c.exchanges[i])


def test_streaming_shows_the_quote_then_the_tokens_then_the_finished_answer():
    c = Conversation()
    r = c.begin("Hottest planet?")
    assert r is not None
    assert shown(c).answer == ""
    c.quote(r.id, Q)
    assert "Venus is the hottest planet" in shown(c).answer and WRITING in shown(c).answer
    c.token(r.id, "Venus, clearly")
    assert shown(c).answer.endswith("Venus, clearly")
    c.answered(r.id, ChatAnswer("Venus [1].", 3, (), P, quote=Q, generation="Venus, clearly [1].",
                                generation_shown=False, hidden_because="small model"))
    body = shown(c).answer
    assert WRITING not in body and SHOW_LABEL in body and "Venus, clearly" not in body
    c.toggle(0)
    assert "Venus, clearly" in shown(c).answer


def test_a_hint_follows_the_answer_and_a_refusal():
    hint = "This library is searched with an English-only model, so a question in Thai finds little."
    c = Conversation()
    for answer in (ChatAnswer("Venus [1].", 3, (), P, quote=Q, hint=hint),
                   ChatAnswer("The documents in your library do not cover this.", 3, (), P, refused=True,
                              abstained=True, hint=hint)):
        r = c.begin("ดาวเคราะห์ที่ร้อนที่สุด?")
        assert r is not None
        c.answered(r.id, answer)
        body = shown(c).answer
        assert body.endswith(f"*{escape_markdown(hint)}*")  # in italics, after the answer, its text escaped
        assert body.index("Venus" if answer.quote else "do not cover") < body.index("English\\-only")


def test_a_failed_exchange_shows_what_streamed_and_why():
    c = Conversation()
    r = c.begin("Hottest planet?")
    assert r is not None
    c.token(r.id, "Ven")
    c.failed(r.id, OSError("disk"))
    assert (shown(c).question, shown(c).answer, shown(c).note) == ("Hottest planet?", "Ven", "Failed: disk")


def test_byte_sizes_are_si_units():
    assert [format_bytes(n) for n in (12, 1_500, 386_404_352, 2_393_232_608)] == ["12 B", "2 KB", "386 MB", "2.4 GB"]


def test_no_ui_module_writes_byte_units_of_its_own():
    """Every pane and dialog formats bytes with units.format_bytes (the chat header once said 368.1 MB where
    the Models dialog said 386 MB for the same file)."""
    units = {"B", "KB", "MB", "GB", "KiB", "MiB", "GiB"}
    offenders = []
    for path in UI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() in units:
                offenders.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.FunctionDef) and node.name in {"human_size", "format_bytes", "format_size"}:
                offenders.append(f"{path.name}:{node.lineno} defines {node.name}")
    assert offenders == []


def test_an_answer_of_quotes_from_several_passages_shows_its_prose_and_every_bullet():
    """Not the first quote alone (issue 48): the prose a larger model wrote, then each document's quotes."""
    venus = Quote("Venus is the hottest planet.", 1, 0, 28, 0.9, source="/d/planets.md")
    text = ("Venus is the hottest planet [1]. Mars is red [2].\n\n**planets.md**\n- Venus is the hottest planet. [1]"
            "\n\n**mars.md**\n- Mars is the red planet. [2]")
    c = Conversation()
    r = c.begin("Compare Venus and Mars.")
    assert r is not None
    c.answered(r.id, ChatAnswer(text, 3, (), P, quote=venus, generation="Venus is the hottest planet [1]. Mars is "
                                "red [2]. Mars has cheese.", generation_shown=True, several=True))
    body = shown(c).answer
    assert body.startswith("Venus is the hottest planet [1]. Mars is red [2].")
    assert "- Mars is the red planet. [2]" in body and "cheese" not in body
    c.answered(r.id, ChatAnswer(text.split("\n\n", 1)[1], 3, (), P, quote=venus, generation="Mars has cheese.",
                                generation_shown=False, hidden_because="not supported by a passage", several=True))
    body = shown(c).answer
    assert body.startswith("**planets.md**") and "- Mars is the red planet. [2]" in body
    assert SHOW_LABEL in body and "cheese" not in body
