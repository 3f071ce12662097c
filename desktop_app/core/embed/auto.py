"""The "auto" embedder: each library gets the model that reads its languages.

Measured (bench/retrieval.py, README): on English (SciFact) MiniLM's hybrid nDCG@10 is 0.738 and the multilingual
Universal Sentence Encoder's only 0.661 - below keyword search alone (0.693) - while on Thai, Chinese, Japanese and
Arabic MiniLM's vectors are noise (Thai semantic 0.09 against USE's 0.78). No one model is best for every library,
so "auto" picks per library from the languages of its chunks (detected by core.text when they are written):
MiniLM while at least 90 % of the library is English, the multilingual model once 10 % or more is another language
(Latin-script languages other than English included). A chunk's language is decided from its letters only
(core.text.language): chunks with too few letters, and Latin letters that name no language - server logs, CSV
exports, code, tables of numbers, short lines like "Backup completed" - are undetermined and left out of the
share. Back to MiniLM only below 5 %, so a library near the line does not flip.

The choice is made when the library opens and again before each embedding run, so a first folder of Thai files
gets the multilingual model in the same session. A change drops the library's vectors (they are recomputed, like
any model change) and is announced as a notice. The `embedder` setting names a model to fix the choice. On a team
library the choice is the server's: the model its vectors were made with (recorded_embedder), never one desktop's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from desktop_app.core.embed.base import EMBEDDERS, Embedder, embed_passages, embed_query, make_embedder
from desktop_app.core.errors import KnownError, UnavailableError
from desktop_app.core.log import get_logger

log = get_logger("index")

ENGLISH = "minilm"
MULTILINGUAL = "use-multilingual"
SWITCH_UP = 0.10  # share of non-English chunks at which the multilingual model takes over
SWITCH_DOWN = 0.05  # ... and below which MiniLM comes back


def other_language_share(languages: Sequence[tuple[str, int]]) -> float:
    """The share of chunks in a language other than English (chunks of undetermined language left out)."""
    counted = [(lang, n) for lang, n in languages if lang and lang != "und"]
    total = sum(n for _, n in counted)
    return sum(n for lang, n in counted if lang != "en") / total if total else 0.0


def choose_embedder(languages: Sequence[tuple[str, int]], current: str | None = None) -> str:
    """The embedder name for a library whose chunks have these (language, count) pairs."""
    share = other_language_share(languages)
    if current == MULTILINGUAL:
        return MULTILINGUAL if share >= SWITCH_DOWN else ENGLISH
    return MULTILINGUAL if share >= SWITCH_UP else ENGLISH


class AutoEmbedder:
    """An Embedder that stands for the model `choose_embedder` picks for one store's library."""

    def __init__(self, languages: Callable[[], Sequence[tuple[str, int]]],
                 make: Callable[[str], Embedder]) -> None:
        self._languages = languages
        self._make = make
        self._models: dict[str, Embedder] = {}
        self._lock = threading.Lock()
        self.choice = choose_embedder(languages())

    @property
    def current(self) -> Embedder:
        """The chosen model (created on first use; its weights load on its first text)."""
        with self._lock:
            choice = self.choice
            if choice not in self._models:
                self._models[choice] = self._make(choice)
            return self._models[choice]

    @property
    def model_id(self) -> str:
        return self.current.model_id

    @property
    def dim(self) -> int:
        return self.current.dim

    def refresh(self) -> bool:
        """Choose again from the library's languages now. True when the model changed."""
        choice = choose_embedder(self._languages(), self.choice)
        if choice == self.choice:
            return False
        self.choice = choice
        return True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.current.embed(texts)

    def embed_passages(self, texts: Sequence[str], max_windows: int = 8) -> list[np.ndarray]:
        return embed_passages(self.current, texts, max_windows)

    def embed_query(self, text: str) -> np.ndarray:
        return embed_query(self.current, text)


def library_embedder(name: str, batch_size: int,
                     languages: Callable[[], Sequence[tuple[str, int]]]) -> Embedder:
    """The embedder a library's `embedder` setting names: "auto" chooses from `languages` (the library's
    (language, chunk count) pairs, read again before each embedding run); any other name is that model."""
    if name == "auto":
        return AutoEmbedder(languages, lambda chosen: make_embedder(chosen, batch_size))
    return make_embedder(name, batch_size)


def embedder_for_model(model_id: str, batch_size: int) -> Embedder | None:
    """The embedder whose vectors carry `model_id` (None when this Trove has no such model)."""
    for name in EMBEDDERS:
        if name == "auto":
            continue
        try:
            made = make_embedder(name, batch_size)
        except UnavailableError:
            continue
        if made.model_id == model_id:
            return made
    return None


def recorded_embedder(recorded: str | None, embedder: Embedder, batch_size: int) -> Embedder:
    """On a team library the model its vectors were made with is authoritative: a desktop whose setting names
    another uses the library's (its own setting would drop everybody's vectors). An "auto" setting becomes the
    model it chose when the library opened (the first desktop's choice is then recorded) and never chooses again.
    A model this Trove does not have is a KnownError saying so; nothing is changed on the server."""
    if isinstance(embedder, AutoEmbedder):  # fixed: a desktop's "auto" must not re-choose for everybody
        embedder = embedder.current
    if not recorded or recorded == embedder.model_id:
        return embedder
    made = embedder_for_model(recorded, batch_size)
    if made is None:
        raise KnownError(f"This team library's vectors were made by {recorded}, a model this version of Trove "
                         "does not have: update Trove on this computer. Nothing was changed on the server.")
    log.info("the team library's vectors are made by %s: this desktop uses it instead of %s",
             recorded, embedder.model_id)
    return made
