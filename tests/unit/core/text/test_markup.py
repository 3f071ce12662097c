"""Snippets read as text: Markdown and HTML syntax is stripped, the highlighted words stay highlighted, and any
string goes through without raising."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.text.markup import plain_spans, strip_markup
from desktop_app.ui.search.snippets import snippet_html


def spans_of(text: str, *words: str) -> list[tuple[int, int]]:
    return [(text.index(w), text.index(w) + len(w)) for w in words]


def test_markdown_syntax_goes_and_the_highlights_stay_on_their_words():
    text = ("## Storms\n\n**Lighthouse** keepers log *every* storm; see [the log](http://x/log.md) and `tide`.\n\n"
            "- one item")
    shown = snippet_html(text, spans_of(text, "Lighthouse", "storm;", "the log"), markup=True)
    assert shown == ("Storms <b>Lighthouse</b> keepers log every <b>storm;</b> see <b>the log</b> and tide. one item")
    for syntax in ("#", "**", "*", "](", "`", "- "):
        assert syntax not in shown


def test_html_tags_go_and_entities_read_as_their_characters():
    text = "<p>Caf&eacute; <b>menu</b> &amp; prices</p><!-- hidden --><br/>Soup"
    plain, origin = strip_markup(text)
    assert plain.split() == ["Café", "menu", "&", "prices", "Soup"]
    assert snippet_html(text, spans_of(text, "menu"), markup=True) == "Café <b>menu</b> &amp; prices Soup"


def test_code_like_text_keeps_what_is_not_markup():
    text = "snake_case_name = 2 * 3 # not a heading; C# and a_b"
    plain, _ = strip_markup(text)
    assert plain == text
    assert snippet_html("## Title", [], markup=False) == "## Title"  # verbatim types are left alone


@given(st.text(alphabet=st.sampled_from("ab #*_[]()<>&;!`-~|\n"), max_size=80), st.data())
def test_any_text_maps_spans_inside_the_plain_text(text, data):
    plain, origin = strip_markup(text)
    assert len(origin) == len(plain) and origin == sorted(origin)
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    for s, e in plain_spans(origin, [(a, b)]):
        assert 0 <= s < e <= len(plain)
    snippet_html(text, [(a, b)], markup=True)
