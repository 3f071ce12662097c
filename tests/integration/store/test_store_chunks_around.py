"""Store.chunks_around on both engines: a chunk and its neighbours in document order, with their spans, so chat can
widen a chunk that a word count cut mid-sentence to whole sentences (core/chat/answer/quote/whole_units.py)."""

from __future__ import annotations

from desktop_app.core.chat.answer.quote.whole_units import whole_units
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans
from desktop_app.core.store.rows import NewChunk
from desktop_app.core.types import RetrievalResult
from tests.integration.store.test_store_protocol import doc

TEXT = ("The lighthouse on Korrin Island was built in 1871 by the harbour trust. Its lamp burned whale oil until "
        "1902, when a paraffin burner replaced it. Elsa Varga restored the tower in 2011 and painted it crimson. "
        "Visitors climb its 143 steps every summer afternoon.")


def written(store, folder) -> list[tuple[int, str]]:
    """TEXT cut into 12-word chunks overlapping by 3 words; (chunk id, text) in document order."""
    spans = chunk_spans(TEXT, ChunkConfig(chunk_size=12, chunk_overlap=3, min_chunk_size=2))
    store.write_document(doc(folder.id, f"{folder.path}/lighthouse.txt"), [NewChunk(s, None) for s in spans])
    ids = sorted(p.id for p in store.pending_chunks(100))
    return list(zip(ids, [s.text for s in spans], strict=True))


def test_a_chunk_comes_with_its_neighbours_in_document_order(store, folder):
    chunks = written(store, folder)
    middle = len(chunks) // 2
    rows = store.chunks_around(chunks[middle][0])
    assert [r[3] for r in rows] == [t for _, t in chunks[middle - 1: middle + 2]]
    assert all(TEXT[start:end] == text and page is None for page, start, end, text in rows)
    assert [r[3] for r in store.chunks_around(chunks[0][0], reach=2)] == [t for _, t in chunks[:3]]
    assert store.chunks_around(10**9) == []


def test_a_chunk_cut_mid_sentence_is_widened_to_whole_sentences(store, folder):
    chunks = written(store, folder)
    cut = next((cid, text) for cid, text in chunks if text.startswith("until"))  # "…whale oil until 1902, …"
    assert not cut[1].endswith(".")
    at = TEXT.index(cut[1])
    found = [RetrievalResult(cut[1], 1.0, "lighthouse.txt", {"chunk_id": cut[0], "start": at, "end": at + len(cut[1])})]
    widened = whole_units(store.chunks_around, found)[0]
    assert widened.content.startswith("Its lamp burned whale oil until 1902") and widened.content.endswith(".")
    assert cut[1] in widened.content and widened.content in TEXT
    assert (widened.metadata["start"], widened.metadata["end"]) == (TEXT.index(widened.content),
                                                                    TEXT.index(widened.content) + len(widened.content))
