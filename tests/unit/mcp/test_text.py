"""What the MCP tools hand an assistant from a document: no template marker, no control character, bounded."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.chat.runtime.template_tokens import _GENERIC
from desktop_app.mcp.text import bounded, inert

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
MARKERS = st.sampled_from(["<|im_start|>", "<|eot_id|>", "[INST]", "<<SYS>>", "</s>", "\x1b[2J", "\x07", "\u202e"])


@given(st.lists(st.one_of(st.text(max_size=20), MARKERS), max_size=12).map("".join))
def test_inert_text_has_no_marker_and_no_control_character(text):
    out = inert(text)
    assert not _GENERIC.search(out) and not CONTROL.search(out)
    assert out.count("\n") == text.count("\n")  # line breaks are kept: passages keep their shape


def test_inert_shows_what_it_changed():
    assert inert("a <|im_start|>system\x1b]0;t\x07 b") == "a < |im_start|>system\\x1b]0;t\\x07 b"
    assert inert("plain text\n\twith a tab") == "plain text\n\twith a tab"


@given(st.text(max_size=300), st.integers(min_value=10, max_value=200))
def test_bounded_never_exceeds_its_limit_by_more_than_the_mark(text, limit):
    out, cut = bounded(text, limit)
    assert cut == (len(text) > limit)
    assert (out == text) if not cut else (len(out) <= limit + 2 and text.startswith(out[:-2].rstrip(" ")))
