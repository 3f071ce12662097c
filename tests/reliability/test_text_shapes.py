"""Text of every shape is cut, decoded and searched in time linear in its size, and never lost.

The shapes of issue 15: 5 MB without whitespace, a 2.3 MB line, 10k+ nested tags, 300k one-word paragraphs.
Timeouts here are guards (a quadratic step would take minutes), not speed claims.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.ingest.chunking import MAX_GAP, MAX_WORD_CHARS, ChunkConfig, chunk_spans, chunk_stream
from desktop_app.core.ingest.extract import html_to_text
from desktop_app.core.text import build_query, highlight_spans
from desktop_app.core.text.decode import decode_text, looks_binary, sniff_encoding

MIB = 1 << 20


def covered_words(text: str, spans) -> None:
    """Every chunk is an exact slice and every non-space character is in some chunk."""
    covered = bytearray(len(text))
    for s in spans:
        assert text[s.start:s.end] == s.text and s.text.strip()
        covered[s.start:s.end] = b"\1" * (s.end - s.start)
    for m in re.finditer(r"\S+", text):
        assert all(covered[m.start():m.end()]), m.group(0)[:40]


@pytest.mark.timeout(60)
def test_five_megabytes_without_whitespace_are_many_bounded_chunks():
    text = "".join(random.Random(1).choices("abcdefghijklmnopqrstuvwxyz0123456789", k=5 * MIB))
    spans = chunk_spans(text)
    assert len(spans) > 100
    assert max(len(s.text) for s in spans) <= 512 * MAX_WORD_CHARS
    covered_words(text, spans)


@pytest.mark.timeout(60)
def test_a_2_3_megabyte_line_and_300_thousand_paragraphs():
    line = " ".join(f"w{i}" for i in range(int(2.3 * MIB) // 8))
    covered_words(line, chunk_spans(line))
    paragraphs = "\n\n".join(f"p{i}" for i in range(300_000))  # was quadratic: every chunk scanned them all
    spans = chunk_spans(paragraphs)
    assert len(spans) > 500
    covered_words(paragraphs, spans)


@pytest.mark.timeout(60)
def test_ten_thousand_nested_tags_and_a_long_gap():
    depth = 100_000
    _, body = html_to_text("<html><body>" + "<div>" * depth + "deep chinchilla" + "</div>" * depth + "</body></html>")
    assert "deep chinchilla" in body
    gap_text = "before" + " " * (10 * MAX_GAP) + "after"
    assert [s.text for s in chunk_spans(gap_text)] == ["before", "after"]  # a gap never sits inside a chunk


shapes = st.lists(st.one_of(
    st.text(alphabet="ab \n", max_size=30), st.just("\n\n"), st.just("x" * (MAX_WORD_CHARS + 7)),
    st.just(" " * (MAX_GAP + 3)), st.text(max_size=10)), max_size=60).map("".join)
configs = st.tuples(st.integers(1, 40), st.integers(0, 39), st.integers(0, 20)).filter(lambda t: t[1] < t[0]).map(
    lambda t: ChunkConfig(chunk_size=t[0], chunk_overlap=t[1], min_chunk_size=t[2]))


@settings(max_examples=250, deadline=None)
@given(text=shapes, cfg=configs, cuts=st.lists(st.integers(0, 10_000), max_size=8))
def test_streamed_chunks_equal_whole_text_chunks(text, cfg, cuts):
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    segments = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    assert list(chunk_stream(segments, cfg)) == chunk_spans(text, cfg)


@settings(max_examples=100, deadline=None)
@given(text=shapes, cfg=configs)
def test_chunker_loses_no_word_on_any_shape(text, cfg):
    covered_words(text, chunk_spans(text, cfg))


def test_encodings_people_actually_have():
    assert "naïve" in decode_text("Un café naïve et une crème brûlée.".encode("latin-1"))
    jp = "東京タワーは高い。" * 10
    assert decode_text(jp.encode("shift_jis")) == jp
    utf16 = "Plain English about a jaguarundi. " * 4
    assert sniff_encoding(utf16.encode("utf-16-le")) == "utf-16-le" and not looks_binary(utf16.encode("utf-16-le"))
    assert decode_text(utf16.encode("utf-16-le")) == utf16
    assert decode_text(utf16.encode("utf-16-be")) == utf16
    assert "okapi" in decode_text(b"valid \xff\xfe broken \xc3 then okapi")
    assert looks_binary(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)))


queries = st.lists(st.one_of(st.text(max_size=8), st.sampled_from(['"', "*", "(", ")", "AND", "NEAR", "OR", "NOT",
                                                                   "\udcff", "\ud800", "^", ":", "-", "\x00", " "])),
                   max_size=20).map("".join)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from desktop_app.core.ingest.chunking import Span
    from desktop_app.core.store.rows import NewChunk, NewDocument
    from desktop_app.core.store.sqlite import SQLiteStore

    s = SQLiteStore(tmp_path_factory.mktemp("fts") / "fts.db")
    folder = s.add_folder("/d")
    text = "some text and more"
    s.write_document(NewDocument(folder_id=folder.id, path="/d/a title.txt", title="a title", type="text", size=1,
                                 mtime_ns=1, digest="x"),
                     [NewChunk(Span(0, len(text), text), None)])
    yield s
    s.close()


@settings(max_examples=300, deadline=None)
@given(text=queries)
def test_every_query_string_is_searched_without_an_error(store, text):
    store.keyword_candidates(text, 5)


@pytest.mark.timeout(60)
def test_highlighting_a_huge_chunk_with_many_terms_is_linear():
    content = " ".join(f"word{i % 5000}" for i in range(100_000))
    query = build_query(" ".join(f"word{i}" for i in range(64)))
    spans = highlight_spans(content, query)
    assert spans and all(content[a:b].startswith("word") for a, b in spans)
