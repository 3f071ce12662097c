"""The seed memory API: MemoryBackend, MemoryRegistry and the sqlite / bm25 / dense / hybrid backends."""

from desktop_app.core.memory import backends as _backends  # noqa: F401  (registers the built-in backends)
from desktop_app.core.memory.base import MemoryBackend, MemoryRegistry

__all__ = ["MemoryBackend", "MemoryRegistry"]
