"""Values that cross module and thread boundaries. All immutable."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class SearchMode(StrEnum):
    """How a search ranks: both sides fused, or one side alone."""

    HYBRID = "hybrid"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"


class Fusion(StrEnum):
    """How hybrid search joins its sides: a convex sum of normalised scores, or reciprocal rank fusion."""

    CONVEX = "convex"
    RRF = "rrf"


class ChatBackend(StrEnum):
    """Where answers are generated: llama.cpp in this process, or an OpenAI-compatible server."""

    LLAMA = "llama"
    OPENAI = "openai"


@dataclass(frozen=True)
class RetrievalResult:
    """One retrieved passage. Higher score is better; `source` is where it came from."""

    content: str
    score: float
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the seed's four keys."""
        return {"content": self.content, "score": self.score, "source": self.source, "metadata": dict(self.metadata)}


@dataclass(frozen=True)
class Turn:
    """One earlier exchange, as it is replayed in later prompts (without its passages); chat plans prompts with it,
    memory saves and recalls it."""

    question: str
    answer: str


MEMORY_SOURCE = "memory"  # the source of a fact passage (evidence the person stated); its place names the fact
