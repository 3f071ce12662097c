"""The keyword and semantic sides of a hybrid search, run at the same time on a small persistent thread pool.

Each side spends its time outside the GIL (SQLite and FTS5, tantivy, numpy, psycopg waiting on the server), so
running them together makes a hybrid search cost about its slower side instead of the sum of both. The pool is
made once and kept: a thread per query would cost its start and, on SQLite, a new read connection each time (the
store keeps one per thread). The caller's thread runs the second side itself, so one worker per concurrent search
is all the pool adds; results are the same lists, fused in the same order, as when the sides ran one after the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

A = TypeVar("A")
B = TypeVar("B")

WORKERS = 2  # searches that can each run a side here at once (the window's, plus the MCP server's or a chat's)
THREAD_PREFIX = "trove-search-side"

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def side_pool() -> ThreadPoolExecutor:
    """The process's pool, made on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix=THREAD_PREFIX)
        return _pool


def run_both(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """first() on the pool while second() runs here; both results. An error is raised as if they had run in order:
    first's when it failed, else second's (and second always waits for first, so nothing reads a store after the
    search has returned)."""
    if threading.current_thread().name.startswith(THREAD_PREFIX):
        return first(), second()  # already on the pool: waiting on it from here could starve it
    future = side_pool().submit(first)
    try:
        got_second = second()
    except BaseException:
        future.result()  # first's error wins, as it would have had first run alone before second
        raise
    return future.result(), got_second
