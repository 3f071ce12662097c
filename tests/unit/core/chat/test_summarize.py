"""Map-reduce summaries with a scripted model: packing, order, rounds, progress, cancel (pure orchestration)."""

from __future__ import annotations

import re
import threading
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.summarize import Summarizer, SummaryProgress, pack
from tests.support.scripted import ScriptedRuntime, last_user


@settings(max_examples=300, deadline=None)
@given(costs=st.lists(st.integers(0, 300), max_size=60), budget=st.integers(1, 600))
def test_pack_keeps_order_covers_everything_and_respects_the_budget(costs, budget):
    groups = pack(costs, budget)
    assert [i for g in groups for i in g] == list(range(len(costs)))
    for g in groups:
        assert len(g) == 1 or sum(costs[i] for i in g) <= budget
    for a, b in pairwise(groups):
        assert sum(costs[i] for i in a) + costs[b[0]] > budget  # a group closes only when the next item won't fit


def summarise_markers(messages) -> str:
    """The scripted model's 'summary': the part markers it was shown, in order, e.g. "S(p1 p2 p3)"."""
    return "S(" + " ".join(re.findall(r"p\d+", last_user(messages))) + ")"


def chunks(n: int, words: int = 60) -> list[str]:
    return [f"p{i} " + "word " * words for i in range(n)]


def test_a_short_document_is_summarised_in_one_call():
    rt = ScriptedRuntime(summarise_markers, n_ctx=1024)
    summary = Summarizer(rt, name="notes.md", max_tokens=40).run(chunks(3, 10))
    assert summary.text == "S(p0 p1 p2)" and summary.calls == 1 and summary.rounds == 1
    assert "notes.md" in last_user(rt.sent[0])


def test_a_long_document_is_mapped_in_order_then_reduced_until_one_summary_is_left():
    rt = ScriptedRuntime(summarise_markers, n_ctx=400)
    seen: list[SummaryProgress] = []
    summary = Summarizer(rt, name="book.txt", max_tokens=40, on_progress=seen.append).run(chunks(30))
    prompts = [last_user(m) for m in rt.sent]
    maps = [p for p in prompts if p.startswith("Summarise this part")]
    assert len(maps) > 5 and all(rt.prompt_tokens(m) + 40 <= 400 for m in rt.sent)
    mapped = [re.findall(r"p\d+", p) for p in maps]
    assert [x for part in mapped for x in part] == [f"p{i}" for i in range(30)]  # every chunk once, in order
    assert summary.rounds >= 2 and summary.calls == len(rt.sent)
    assert re.findall(r"p\d+", summary.text) == [f"p{i}" for i in range(30)]  # reduce kept the order too
    assert [p.done for p in seen] == list(range(1, len(rt.sent) + 1))
    assert all(p.done <= p.total for p in seen) and seen[-1].done == seen[-1].total
    assert {p.stage for p in seen} == {"map", "reduce"}


def test_cancel_stops_between_calls_and_keeps_what_was_done():
    cancel = threading.Event()
    rt = ScriptedRuntime(summarise_markers, n_ctx=400)

    def on_progress(p: SummaryProgress) -> None:
        if p.done == 2:
            cancel.set()

    summary = Summarizer(rt, name="book.txt", max_tokens=40, on_progress=on_progress, cancel=cancel).run(chunks(30))
    assert summary.cancelled and summary.calls == 2 and len(rt.sent) == 2
    assert summary.text.startswith("S(p0")


def test_cancel_mid_answer_stops_the_model():
    cancel = threading.Event()
    rt = ScriptedRuntime("a long summary " * 30, n_ctx=1024)
    pieces = []
    original = rt.generate

    def generate(messages, **kw):  # cancel from the token stream, as a Stop button would
        def on_text(piece):
            pieces.append(piece)
            if len(pieces) == 3:
                cancel.set()
        return original(messages, **{**kw, "on_text": on_text})

    rt.generate = generate
    summary = Summarizer(rt, name="a.txt", max_tokens=60, cancel=cancel).run(["short text"])
    assert summary.cancelled and summary.text == "a long summary"
