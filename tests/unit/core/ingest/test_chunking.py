"""The chunker: exact spans, paragraph ends, overlap, short tails kept, and (hypothesis) no lost words."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans, chunk_stream, chunk_text
from desktop_app.core.text.word_units import units


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


# ---- every script: sizes in words, not in runs between spaces ---------------------------------------------------

MULTILINGUAL = Path(__file__).resolve().parents[3] / "data" / "multilingual"


def test_a_thai_document_is_cut_into_bounded_chunks_about_as_long_as_english_ones():
    thai = (MULTILINGUAL / "memory-th.txt").read_text(encoding="utf-8")
    english = (MULTILINGUAL / "memory-en.txt").read_text(encoding="utf-8")
    cfg = ChunkConfig(chunk_size=256, chunk_overlap=32, min_chunk_size=20)
    th, en = chunk_spans(thai, cfg), chunk_spans(english, cfg)
    assert len(th) >= 4
    assert all(len(units(s.text)) <= cfg.chunk_size for s in th)
    assert all(thai[s.start:s.end] == s.text for s in th)
    mean_th, mean_en = (sum(len(s.text) for s in spans) / len(spans) for spans in (th, en))
    assert 0.5 < mean_th / mean_en < 2  # the same page in both languages: chunks of about the same length


def test_a_paragraph_without_spaces_is_many_chunks_cut_between_words():
    sentence = "ระบบเก็บเอกสารแบบถาวรและค้นหาได้สำหรับการดึงข้อมูล"  # Thai writes no spaces between words
    text = sentence * 200
    spans = chunk_spans(text, ChunkConfig(chunk_size=100, chunk_overlap=10, min_chunk_size=10))
    assert len(spans) > 10
    word_starts = {a for a, _ in units(text)}
    assert all(s.start in word_starts for s in spans)  # never inside a word ICU found
    assert max(len(s.text) for s in spans) < 100 * 8


def test_chinese_is_counted_in_words_too():
    text = "中文文本在词与词之间没有空格。" * 300
    spans = chunk_spans(text, ChunkConfig(chunk_size=128, chunk_overlap=16))
    assert len(spans) > 5 and all(len(units(s.text)) <= 128 for s in spans)


def test_english_is_cut_exactly_as_by_whitespace_words():
    text = "\n\n".join(" ".join(f"p{p}w{i}" for i in range(90)) for p in range(12))
    assert units(text) == [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


unspaced = st.lists(
    st.one_of(st.sampled_from(["ภาษาไทย", "ไม่มีช่องว่าง", "中文", "日本語の文", "한국어", "ก" * 70, "x" * 70, "่", " ",
                               "\n\n", "word", "。"]),
              st.text(alphabet="กขคงจำ่้ab中文 \n", max_size=30)),
    max_size=120,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=unspaced, cfg=configs, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_thai_and_chinese_chunks_lose_nothing_and_stream_as_the_whole(text, cfg, cuts):
    spans = chunk_spans(text, cfg)
    covered = [False] * len(text)
    for span in spans:
        assert text[span.start:span.end] == span.text and span.text.strip()
        for i in range(span.start, span.end):
            covered[i] = True
    assert all(covered[m.start()] and covered[m.end() - 1] for m in re.finditer(r"\S+", text))
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    segments = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    assert list(chunk_stream(segments, cfg)) == spans


def test_a_long_thai_run_streamed_in_segments_is_cut_as_the_whole():
    text = ("ระบบเก็บเอกสารแบบถาวรและค้นหาได้" * 400 + " ") * 3  # runs far longer than a segmentation block
    segments = [text[i:i + 1000] for i in range(0, len(text), 1000)]
    assert list(chunk_stream(segments)) == chunk_spans(text)
