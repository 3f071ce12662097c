"""Which quote selector chat uses: the best that loads, else the library embedder's (which always works).

The floors (scores under which a selector, or the reranker, says no passage answers) were chosen on the dev
questions only (bench/data/qa/questions.jsonl: 150 answerable, 50 unanswerable), as the lowest that keeps
false refusals of answerable questions at or under 0.1; see the README's table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate import abstain
from desktop_app.core.chat.answer.quote.selector import EmbedderQuoteSelector, Quote, QuoteSelector
from desktop_app.core.embed.base import Embedder, embed_query
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings

log = get_logger("chat")

# The embedder selector's weights and score floor, chosen on the first 80 dev questions (63 answerable, 17 not;
# /tmp/h1/grid.py in H1's report): quote contains gold 0.841 at semantic 0.6 (0.825 at 0.5); a floor of 0.52
# refused 0.12 of the unanswerable with 0.05 false refusals (0.536: 0.18 / 0.08). The floor holds for the
# embedder it was measured with (cosines of other models sit on other scales): elsewhere the selector never
# abstains on its own. Term coverage (`Quote.support`) cost more false refusals than it gained: off.
SEMANTIC = 0.6
RANK_BONUS = 0.05
KIND_BONUS = 0.0  # added when choosing to a sentence offering the kind of answer asked for (answer_kind.py)
FLOORS = {"all-MiniLM-L6-v2": 0.52}
GATED = ("all-MiniLM-L6-v2",)  # embedders abstain.WEIGHTS were fitted with (others keep FLOORS)
EMBEDDER_FLOOR = 0.0
RERANK_FLOOR = 0.0  # the reranker's floor when it names none (`Reranker.floor`): a cross-encoder's logit of 0

GetEmbedder = Callable[[], Embedder | None]


def settings_embedder(settings: Settings) -> Embedder | None:
    """The embedder the settings name (for a service built without the library's own), or None if it cannot load."""
    try:
        from desktop_app.core.embed.auto import library_embedder

        return library_embedder(settings.embedder, settings.embed_batch_size, lambda: [])
    except Exception as exc:  # noqa: BLE001 - quotes then use keywords only
        log.warning("quote: no embedder (%s); keyword overlap only", exc)
        return None


def embedder_selector(get_embedder: GetEmbedder) -> EmbedderQuoteSelector:
    """The fallback selector over whatever embedder `get_embedder` gives (read at each question)."""

    def embed(texts: Any):
        embedder = get_embedder()
        if embedder is None:
            raise RuntimeError("no embedder")
        return embedder.embed(texts)

    def query(text: str):
        embedder = get_embedder()
        if embedder is None:
            raise RuntimeError("no embedder")
        return embed_query(embedder, text)

    return LibraryQuoteSelector(get_embedder, embed, query)


def floor_for(model_id: str) -> float:
    """The score floor measured for an embedder (by its model id), or EMBEDDER_FLOOR."""
    return next((f for name, f in FLOORS.items() if name in model_id), EMBEDDER_FLOOR)


class LibraryQuoteSelector(EmbedderQuoteSelector):
    """The embedder selector over the library's embedder, with the floor measured for that embedder."""

    def __init__(self, get_embedder: GetEmbedder, embed: Any, query: Any) -> None:
        super().__init__(embed, query, semantic=SEMANTIC, rank_bonus=RANK_BONUS, kind_bonus=KIND_BONUS)
        self._get_embedder = get_embedder

    @property
    def floor(self) -> float:
        embedder = self._get_embedder()
        return floor_for(embedder.model_id) if embedder is not None else EMBEDDER_FLOOR

    @floor.setter
    def floor(self, _value: float) -> None:  # the base class sets one; the measured one wins
        pass

    def select(self, question: str, passages: Sequence[Passage]) -> Quote | None:
        """The best sentence, with the abstention gate's confidence when the gate was fitted for this embedder
        (its signals include the selector's score, whose scale is the embedder's)."""
        quote = super().select(question, passages)
        embedder = self._get_embedder()
        if quote is None or embedder is None or not any(name in embedder.model_id for name in GATED):
            return quote
        return replace(quote, confidence=abstain.answer_probability(abstain.signals(question, quote, passages)))


def model_selector() -> QuoteSelector | None:
    """A selector on a model made for the job (extractive QA / cross-encoder), when one is installed and loads."""
    try:
        from desktop_app.core.chat.quote_model import load_model_selector
    except ImportError:
        return None
    try:
        return load_model_selector()
    except Exception as exc:  # noqa: BLE001 - the embedder's selector stands in
        log.warning("quote model unavailable (%s): quotes chosen by the embedder", exc)
        return None


def default_selector(settings: Settings, get_embedder: GetEmbedder | None = None) -> QuoteSelector:
    """The model selector when it loads, else the embedder one (the library's embedder, or the settings')."""
    best = model_selector()
    if best is not None:
        return best
    if get_embedder is None:
        cached: list[Embedder | None] = []

        def get_embedder() -> Embedder | None:
            if not cached:
                cached.append(settings_embedder(settings))
            return cached[0]

    return embedder_selector(get_embedder)
