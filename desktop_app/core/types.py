"""Values that cross module and thread boundaries. All immutable."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
