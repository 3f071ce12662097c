"""A shown quote is whole units, in every script, with the real quote selector (the library's MiniLM embedder): a
Thai sentence ends at its space, a Chinese and an Arabic one at their own marks, the table row asked about is the
row quoted, a sentence a chunk edge cut is widened from the document's text, and the two sample-library questions
that were answered with a line-wrapped half sentence get whole sentences (the real bundled model plans the prompt)."""

from __future__ import annotations

import re

import pytest

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.quote.default import embedder_selector
from desktop_app.core.chat.answer.quote.selector import candidate_passages
from desktop_app.core.chat.answer.quote.sentence_split import MAX_SENTENCE
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.resources import sample_docs_dir


@pytest.fixture(scope="module")
def selector(minilm):
    return embedder_selector(lambda: minilm)


def quoted(selector, question: str, *texts: str):
    passages = [Passage(i, t, f"/docs/{i}.txt") for i, t in enumerate(texts, 1)]
    quote = selector.select(question, passages)
    assert quote is not None and passages[quote.n - 1].content[quote.start:quote.end] == quote.text
    return quote, passages[quote.n - 1].content


THAI = ("ระบบความจำรองรับแบ็กเอนด์สามแบบ แบ็กเอนด์ Qdrant ให้คุณภาพการค้นคืนสูงสุดในการทดสอบของเรา "
        "แบ็กเอนด์ FAISS เก็บข้อมูลไว้ในโฟลเดอร์ data/faiss บนดิสก์ ขนาดชิ้นข้อความเริ่มต้นคือ 512 โทเค็น")
THAI_MORE = ("ผู้ใช้สามารถเปลี่ยนแบ็กเอนด์ได้ในหน้าการตั้งค่าโดยไม่ต้องสร้างดัชนีใหม่ทั้งหมด "
             "ระบบจะย้ายข้อมูลเดิมไปยังแบ็กเอนด์ใหม่ในเบื้องหลังและแจ้งเมื่อเสร็จสิ้น")


def test_a_thai_sentence_is_quoted_whole_up_to_its_space(selector):
    quote, content = quoted(selector, "แบ็กเอนด์ FAISS เก็บข้อมูลไว้ที่ไหน", THAI + " " + THAI_MORE)
    assert "แบ็กเอนด์ FAISS เก็บข้อมูลไว้ในโฟลเดอร์ data/faiss บนดิสก์" in quote.text
    assert THAI_MORE not in quote.text  # a unit is a sentence or a few, never the passage
    # its space boundaries (or the passage's edges), never mid-word
    assert quote.start == 0 or content[quote.start - 1] == " "
    assert quote.end == len(content) or content[quote.end] == " "


def test_chinese_and_arabic_quotes_end_at_their_own_marks(selector):
    zh = "太阳系形成于约46亿年前。木星是最大的行星，超过一千三百个地球可以装进它的体内；土星以明亮的光环闻名。"
    quote, _ = quoted(selector, "哪颗行星最大？", zh)
    assert quote.text == "木星是最大的行星，超过一千三百个地球可以装进它的体内；"
    ar = ("\u200fتشكل النظام الشمسي قبل نحو 4.6 مليار سنة. المشتري هو أكبر كوكب، ويتسع لأكثر من 1300 أرض؟\u200f "
          "زحل مشهور بحلقاته.")
    quote, _ = quoted(selector, "ما هو أكبر كوكب؟", ar)
    assert quote.text == "المشتري هو أكبر كوكب، ويتسع لأكثر من 1300 أرض؟"


# One sentence of ~870 characters with no mark before its end (the length cap cuts it into units): the quote is the
# whole sentence. A run of ~3,000 characters with no mark at all keeps a unit no longer than the cap.
RUN_ON = ("The old canal company " + " ".join(f"kept lock number {n} open through the winter of 18{n:02d} while its"
                                            " keepers rebuilt the timber gates beside the mill" for n in range(10, 18))
          + " and the last barge of coal reached the harbour at Wexmoor in March 1884.")


def test_a_sentence_longer_than_the_unit_cap_is_quoted_whole(selector):
    assert 2 * MAX_SENTENCE >= len(RUN_ON) > MAX_SENTENCE
    intro = "The canal was dug by hand between 1790 and 1796."
    quote, _ = quoted(selector, "When did the last barge of coal reach the harbour at Wexmoor?",
                      intro + " " + RUN_ON + " It closed in 1921.")
    assert quote.text == RUN_ON
    page = " ".join(f"gate {n} of the canal kept its keeper busy" for n in range(80))  # no mark anywhere
    quote, _ = quoted(selector, "Which gate kept its keeper busy?", page)
    assert len(quote.text) <= MAX_SENTENCE


TABLE = ("## Chunking\n\nChunks are cut by word counts.\n\n| setting | value | note |\n|---|---|---|\n"
         "| minimum chunk size | 50 words | shorter tails join the chunk before |\n"
         "| default chunk size | 512 words | about 650 word pieces |\n| chunk overlap | 64 words | repeated |\n")


def test_the_table_row_asked_for_is_the_row_quoted(selector):
    quote, _ = quoted(selector, "What is the default chunk size?", TABLE)
    assert quote.text == "| default chunk size | 512 words | about 650 word pieces |"
    quote, _ = quoted(selector, "What is the minimum chunk size?", TABLE)
    assert quote.text == "| minimum chunk size | 50 words | shorter tails join the chunk before |"


LIGHTHOUSE = ("The lighthouse on Korrin Island was built in 1871 by the harbour trust. Its lamp burned whale oil until "
              "1902, when a paraffin burner replaced it. Elsa Varga restored the tower in 2011 and painted it crimson. "
              "Visitors climb its 143 steps every summer afternoon.")


def test_a_quote_cut_by_a_chunk_edge_is_widened_to_the_whole_sentence(make_library, tmp_path, selector):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lighthouse.txt").write_text(LIGHTHOUSE, encoding="utf-8")
    lib = make_library(chunk_size=12, chunk_overlap=3, min_chunk_size=2)
    lib.add_folder(docs)
    lib.sync()
    question = "What replaced the whale oil burner in 1902?"
    bare = lib.search(question, top_k=3, mode="hybrid")
    assert any(r.content.startswith("until 1902") for r in bare)  # the chunk edge cuts the sentence asked about
    quote = selector.select(question, candidate_passages(lib._retrieve_for_chat(question, 3), 0.0))
    assert quote is not None
    assert quote.text == "Its lamp burned whale oil until 1902, when a paraffin burner replaced it."


def whole_sentence(text: str, document: str) -> bool:
    """Whether `text` (whitespace collapsed) is a run of whole sentences of `document`: it starts the document or
    follows a sentence mark or a line of its own, and ends with a sentence mark."""
    flat, doc = " ".join(text.split()), " ".join(document.split())
    at = doc.find(flat)
    return at >= 0 and (at == 0 or bool(re.search(r"[.!?:]\s$|\n\s*$", doc[:at]))) and flat[-1] in ".!?"


@pytest.fixture(scope="module")
def sample_library(tmp_path_factory, runtime):
    from desktop_app.core.library import Library

    lib = Library(tmp_path_factory.mktemp("home"), settings=Settings(embedder="minilm", n_threads=1))
    lib.add_folder(sample_docs_dir())
    lib.sync()
    assert lib.wait_for_embeddings(timeout=240)
    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings, embedder=lambda: lib.embedder,
                            runtime_factory=lambda s, p: runtime, reranker=None)
    yield lib
    lib.close()


@pytest.mark.parametrize("question", [
    "Summarize what my documents say about the planets.",  # was quoted: "and Mars, … Uranus and [1]"
    "Compare keyword search and semantic search.",  # was: "Semantic search finds … rare names and [1]"
])
def test_the_sample_library_quotes_whole_sentences(sample_library, question):
    answer = sample_library.ask(question, max_tokens=4)
    quote = answer.quote  # chosen before generation; the abstention gate may still decline to show it
    assert quote is not None
    document = "\n\n".join(text for _page, text in sample_library.document_chunks(quote.source))
    assert whole_sentence(quote.text, document), quote.text
    # shown whole: first, or as one of the bullets when the answer quotes several passages (chat/answer/span/compose.py)
    assert answer.refused or answer.text.startswith(quote.cited()) or f"\n- {quote.cited()}" in answer.text
