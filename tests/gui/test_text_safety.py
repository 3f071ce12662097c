"""Pure functions that keep document and model text inert: snippets and chat Markdown."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.ui.chat.markdown import (
    ShownExchange,
    answer_markdown,
    escape_markdown,
    link_citations,
    parse_cite_url,
    transcript_markdown,
)
from desktop_app.ui.search.snippets import snippet_html

spans = st.lists(st.tuples(st.integers(-5, 400), st.integers(-5, 400)), max_size=8)


@given(st.text(max_size=400), spans)
def test_snippets_never_contain_markup_but_ours(text, highlights):
    out = snippet_html(text, highlights)
    stripped = out.replace("<b>", "").replace("</b>", "")
    assert "<" not in stripped and ">" not in stripped  # every other angle bracket is escaped
    assert out.count("<b>") == out.count("</b>")


def test_snippet_bolds_exactly_the_highlighted_words():
    text = "Venus is the <hottest> planet"
    out = snippet_html(text, [(0, 5), (13, 22)])
    assert out == "<b>Venus</b> is the <b>&lt;hottest&gt;</b> planet"
    assert html.unescape(out.replace("<b>", "").replace("</b>", "")) == text


def test_long_passages_are_windowed_around_the_first_match():
    text = "filler " * 100 + "needle" + " tail" * 100
    start = text.index("needle")
    out = snippet_html(text, [(start, start + 6)])
    assert out.startswith("… ") and out.endswith(" …") and "<b>needle</b>" in out and len(out) < 320


def test_citation_markers_become_links_and_ranges_expand():
    assert link_citations("hot [1] and [2, 4] and [5-6]", 3) == (
        "hot [\\[1\\]](cite:3:1) and [\\[2\\]](cite:3:2)[\\[4\\]](cite:3:4) and "
        "[\\[5\\]](cite:3:5)[\\[6\\]](cite:3:6)")
    assert link_citations("a real [link](http://x) stays", 0) == "a real [link](http://x) stays"
    assert parse_cite_url("cite:3:4") == (3, 4) and parse_cite_url("file:///etc/passwd") is None


def test_answers_cannot_embed_images_and_questions_are_not_markdown():
    assert "![" not in answer_markdown("look ![x](file:///etc/passwd)", 0)
    md = transcript_markdown([ShownExchange("**bold** [1] <img src=x>", "fine")])
    assert "\\*\\*bold\\*\\*" in md and "\\[1\\]" in md and "\\<img" in md


@given(st.text(max_size=200))
def test_escaped_questions_keep_every_character(text):
    unescaped = re.sub(r"\\(.)", r"\1", escape_markdown(text), flags=re.DOTALL)
    assert unescaped == text
