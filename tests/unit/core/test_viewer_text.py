"""The viewer's text work: a document rebuilt from overlapping chunk spans, and a passage found whatever its
spacing, line breaks and soft hyphens."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.viewer_text import assemble, find_text

DOC = "First paragraph about harbours.\n\nSecond one, about lighthouses and their keepers.\n\nThird: storms."


def spans(doc: str, cuts: list[tuple[int, int]]) -> list[tuple[int | None, int, int, str]]:
    return [(None, a, b, doc[a:b]) for a, b in cuts]


def test_overlapping_chunks_are_written_once_and_the_focus_is_found():
    chunks = spans(DOC, [(0, 45), (33, 82), (70, len(DOC))])
    text, start, end = assemble(chunks, 1)
    assert text == DOC
    assert text[start:end] == DOC[33:82]


def test_a_gap_between_chunks_becomes_a_paragraph_break():
    chunks = spans(DOC, [(0, 31), (33, 82)])
    text, start, end = assemble(chunks, 1)
    assert text == DOC[0:31] + "\n\n" + DOC[33:82] and text[start:end] == DOC[33:82]


@given(st.lists(st.integers(1, len(DOC) - 1), min_size=1, max_size=6, unique=True), st.data())
def test_any_overlapping_cover_rebuilds_the_document(cuts, data):
    bounds = [0, *sorted(cuts), len(DOC)]
    chunks = [(None, max(a - data.draw(st.integers(0, 5)), 0), b, "") for a, b in zip(bounds, bounds[1:])]
    chunks = [(p, a, b, DOC[a:b]) for p, a, b, _ in chunks if b > a]
    focus = data.draw(st.integers(0, len(chunks) - 1))
    text, start, end = assemble(chunks, focus)
    assert text == DOC and text[start:end] == chunks[focus][3]


def test_a_passage_is_found_across_line_breaks_hyphens_and_case():
    page = "The light-\r\nhouse keeper\r\nwrote in his LOG that the\u00adstorm broke three windows."
    found = find_text(page, "keeper wrote in his log that the storm")
    assert found is not None and page[found[0]:found[1]].startswith("keeper") and page[found[1] - 5:found[1]] == "storm"


def test_the_occurrence_nearest_the_passage_wins_and_a_missing_one_is_none():
    text = "storm at dawn. " * 3 + "calm. " + "storm at dawn."
    assert find_text(text, "storm at dawn", near=len(text) - 5)[0] == text.rindex("storm")
    assert find_text(text, "hurricane") is None and find_text(text, "   ") is None


def test_a_passage_spelled_differently_in_its_middle_is_found_by_its_ends():
    page = ("Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
            "upsilon phi chi psi omega")
    passage = page.replace("lambda mu", "lambda, mu!")
    found = find_text(page, passage)
    assert found == (0, len(page))
