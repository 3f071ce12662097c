"""The chunker: exact spans, paragraph ends, overlap, short tails kept, and (hypothesis) no lost words."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans, chunk_text


def words(s):
    return re.findall(r"\S+", s)


def test_spans_are_exact_slices_and_end_on_paragraphs():
    text = "\n\n".join(" ".join(f"p{p}w{i}" for i in range(120)) for p in range(10))
    spans = chunk_spans(text)
    assert len(spans) >= 3
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert len(words(span.text)) <= 512 + 50
    # all but the last chunk end at the end of a paragraph (a word ending in w119)
    assert all(s.text.endswith("w119") for s in spans[:-1])


def test_overlap_repeats_the_last_words_of_the_previous_chunk():
    text = " ".join(f"w{i}" for i in range(1500))  # one paragraph: windows
    spans = chunk_spans(text, ChunkConfig(chunk_size=512, chunk_overlap=64))
    first, second = words(spans[0].text), words(spans[1].text)
    assert len(first) == 512
    assert second[:64] == first[-64:]


def test_short_document_is_kept_whole():
    note = "buy milk\ncall Ana\nremember the passport"
    assert chunk_text(note) == [note]


def test_short_tail_joins_previous_chunk():
    text = " ".join(f"w{i}" for i in range(530))
    spans = chunk_spans(text, ChunkConfig(chunk_size=512, chunk_overlap=64, min_chunk_size=50))
    assert len(spans) == 1
    assert words(spans[0].text)[-1] == "w529"


def test_empty_and_whitespace_give_no_chunks():
    assert chunk_text("") == []
    assert chunk_text(" \n\t\n ") == []


def test_offset_shifts_spans():
    spans = chunk_spans("hello world", offset=100)
    assert (spans[0].start, spans[0].end) == (100, 111)


@pytest.mark.parametrize("size,overlap", [(0, 0), (10, 10), (10, -1)])
def test_invalid_config_is_refused(size, overlap):
    with pytest.raises(ValueError):
        ChunkConfig(chunk_size=size, chunk_overlap=overlap)


texts = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40), st.just("\n\n"), st.just(" ")
    ),
    max_size=200,
).map("".join)
configs = (
    st.tuples(st.integers(1, 60), st.integers(0, 59), st.integers(0, 30))
    .filter(lambda t: t[1] < t[0])
    .map(lambda t: ChunkConfig(chunk_size=t[0], chunk_overlap=t[1], min_chunk_size=t[2]))
)


@settings(max_examples=300, deadline=None)
@given(text=texts, cfg=configs)
def test_chunker_terminates_and_loses_no_word(text, cfg):
    spans = chunk_spans(text, cfg)
    covered = [False] * len(text)
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert span.text.strip()
        for i in range(span.start, span.end):
            covered[i] = True
    for m in re.finditer(r"\S+", text):
        assert all(covered[m.start() : m.end()]), f"word {m.group()!r} lost"
    starts = [s.start for s in spans]
    assert starts == sorted(set(starts)), "chunks always advance"
