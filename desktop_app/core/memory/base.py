"""The MemoryBackend ABC and the registry that creates backends by key."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from desktop_app.core.types import RetrievalResult

B = TypeVar("B", bound="MemoryBackend")


class MemoryBackend(ABC):
    """Stores texts and retrieves the ones most relevant to a query (higher score is better)."""

    @abstractmethod
    def store(self, content: str, *, source: str = "", metadata: dict[str, Any] | None = None) -> str:
        """Keep `content`; returns its id."""

    @abstractmethod
    def retrieve(self, query: str, *, top_k: int = 5, **kwargs: Any) -> list[RetrievalResult]:
        """The stored texts most relevant to `query`, best first."""

    @abstractmethod
    def delete(self, doc_id: str) -> bool:
        """Forget one stored text. False if there was none with that id."""

    @abstractmethod
    def clear(self) -> None:
        """Forget everything."""


class MemoryRegistry:
    """Backends by key: `MemoryRegistry.create("sqlite", db_path=...)`; add one with `@MemoryRegistry.register(key)`."""

    _backends: dict[str, type[MemoryBackend]] = {}

    @classmethod
    def register(cls, key: str) -> Callable[[type[B]], type[B]]:
        def decorator(backend: type[B]) -> type[B]:
            if not (isinstance(backend, type) and issubclass(backend, MemoryBackend)):
                raise TypeError(f"{backend!r} is not a MemoryBackend")
            cls._backends[key] = backend
            return backend
        return decorator

    @classmethod
    def create(cls, key: str, **kwargs: Any) -> MemoryBackend:
        try:
            backend = cls._backends[key]
        except KeyError:
            raise KeyError(f"no memory backend {key!r}; known: {', '.join(sorted(cls._backends))}") from None
        return backend(**kwargs)

    @classmethod
    def available(cls) -> list[str]:
        return sorted(cls._backends)
