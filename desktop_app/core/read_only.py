"""Read-only libraries: a library on a read-only mount (a backup disk, a snapshot, a DVD), in a folder this user
cannot write, or written by a newer Trove (which may be holding it open) is searched, asked and counted, never
indexed.

The SQLite engine decides (`SQLiteStore.read_only`, store/sqlite/base.py) and refuses every write with one line.
Here is what the facade does about it: indexing and watching refuse before they start (`refuse_if_read_only`), and
chat keeps its exchanges in memory for the session (`chat_store`), without conversation memory (`chat_memory`):
an answer never fails for want of saving it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop_app.core.store.sqlite.base import refuse_write

# The one line the CLI prints on stderr and the window shows in its status bar.
NOTICE = "This library is read-only here: search and ask work, nothing is indexed and chats are not saved."
# The chat methods of the Store protocol (store/base.py: ChatStore uses no others).
CHAT_METHODS = frozenset({"create_chat", "chat_exists", "list_chats", "chat_messages", "add_messages", "delete_chat"})


def read_only_notice(store: Any) -> str:
    """When `store` cannot be written, the line saying so (NOTICE, or why: a newer Trove's schema), else ""
    (`Library.read_only`: the CLI and the window show it)."""
    if not getattr(store, "read_only", False):
        return ""
    return getattr(store, "read_only_reason", "") or NOTICE


def refuse_if_read_only(store: Any) -> None:
    """Raise the one-line ReadOnlyDatabaseError when `store` cannot be written (before any indexing starts)."""
    if getattr(store, "read_only", False):
        refuse_write(getattr(store, "read_only_reason", ""))


def chat_store(store: Any) -> Any:
    """The store chat should use: `store` itself, or for a read-only one a view whose chats live in memory."""
    return SessionChats(store) if getattr(store, "read_only", False) else store


def chat_memory(library: Any) -> Callable[[], Any] | None:
    """What chat recalls and remembers with: the library's memory, or none on a read-only library (memory writes
    what it learns, and recall records what it injected)."""
    return None if library.read_only else (lambda: library.memory)


class SessionChats:
    """A read-only store with writable chats: the chat methods go to an in-memory SQLite library of this session,
    everything else (search, documents, meta) to the real store."""

    def __init__(self, store: Any) -> None:
        from desktop_app.core.store.sqlite import SQLiteStore  # on first use: the engine package imports a lot

        self._store = store
        self._chats = SQLiteStore(":memory:")

    def __getattr__(self, name: str) -> Any:
        if name in CHAT_METHODS:
            return getattr(self._chats, name)
        return getattr(self._store, name)
