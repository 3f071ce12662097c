"""Trove's headless core. Never imports PySide6; torch and llama.cpp load only when first used."""

from desktop_app.core.chat.answer.context import ContextConfig, inject_context
from desktop_app.core.errors import BugError, KnownError, TroveError
from desktop_app.core.events import IndexProgress, Notice
from desktop_app.core.folders import FolderInfo
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_text
from desktop_app.core.library import Library
from desktop_app.core.memory.seed import MemoryBackend, MemoryRegistry
from desktop_app.core.settings import Settings
from desktop_app.core.types import RetrievalResult

__all__ = [
    "BugError", "ChunkConfig", "ContextConfig", "FolderInfo", "IndexProgress", "KnownError", "Library",
    "MemoryBackend", "MemoryRegistry", "Notice", "RetrievalResult", "Settings", "TroveError", "chunk_text",
    "inject_context",
]
