"""Citation markers: parsing, resolution to sent passages, dropping markers that point nowhere."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import (
    Citation,
    cited_numbers,
    drop_dangling_markers,
    format_source_line,
    resolve_citations,
    snippet,
)

PASSAGES = [
    Passage(1, "The reactor was built in 1987.", "/d/reactor.pdf", page=2, chunk_id=11),
    Passage(2, "Bread needs a starter.", "/d/bread.md", page=None, chunk_id=12),
    Passage(3, "Trains run hourly.", "/d/trains.txt", chunk_id=13),
]


def test_markers_in_their_usual_spellings():
    assert cited_numbers("A [1]. B [2, 3]. C [1][3]. D [2-3]; E [ 2 ; 1 ].") == [1, 2, 3]
    assert cited_numbers("no markers, [a], [], [1.5]? see [10]") == [10]


def test_resolution_names_path_page_chunk_and_snippet_and_drops_unknown_numbers():
    cites = resolve_citations("Built in 1987 [1] and [7]; bread [2].", PASSAGES)
    assert [(c.n, c.path, c.page, c.chunk_id) for c in cites] == [
        (1, "/d/reactor.pdf", 2, 11),
        (2, "/d/bread.md", None, 12),
    ]
    assert cites[0].snippet == "The reactor was built in 1987."


def test_dangling_markers_are_removed_from_the_text():
    assert drop_dangling_markers("Yes [1][9]. Also [2, 9].", {1, 2}) == "Yes [1]. Also [2]."
    assert drop_dangling_markers("Only [9].", {1}) == "Only."
    assert drop_dangling_markers("Kept [2-3] as written.", {1, 2, 3}) == "Kept [2-3] as written."


def test_source_lines_omit_a_missing_page():
    cites = resolve_citations("[1] [2]", PASSAGES)
    assert [format_source_line(c) for c in cites] == ["[1] /d/reactor.pdf (p. 2)", "[2] /d/bread.md"]
    assert format_source_line(PASSAGES[2]) == "[3] /d/trains.txt"


def test_snippet_is_short_and_flat():
    s = snippet("word\n\n" * 200)
    assert len(s) <= 201 and "\n" not in s and s.endswith("…")


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
    | st.lists(st.sampled_from(["[1]", "[2,3]", "[9]", "[4-2]", "[1-9999]", " text ", "[", "]", ",", "5"])).map("".join)
)
def test_any_text_resolves_only_to_sent_passages(text):
    cites = resolve_citations(text, PASSAGES)
    assert {c.n for c in cites} <= {1, 2, 3}
    assert len({c.n for c in cites}) == len(cites)
    cleaned = drop_dangling_markers(text, {1, 2, 3})
    assert set(cited_numbers(cleaned)) <= {1, 2, 3}


def test_a_citation_names_its_place_in_the_file_when_the_format_has_one():
    slide = Passage(1, "the third slide", "/d/deck.pptx", page=3, chunk_id=7, place="slide 3")
    message = Passage(2, "attached", "/d/box.mbox", page=2, chunk_id=8, place="message 2 · report.pdf · p. 2")
    [c1, c2] = resolve_citations("See [1] and [2].", [slide, message])
    assert format_source_line(c1) == "[1] /d/deck.pptx (slide 3)"
    assert format_source_line(c2) == "[2] /d/box.mbox (message 2 · report.pdf · p. 2)"
    assert Citation.from_dict(c1.to_dict()) == c1 and Passage.from_dict(slide.to_dict()) == slide
    assert slide.label == "deck.pptx, slide 3"
