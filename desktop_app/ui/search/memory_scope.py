"""The search pane's memory scope: Library.memory's search beside Library.search, and its hits as rows of the
results list (a fact or a past chat's excerpt named for what it is, with where it came from)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop_app.core.library_tools import memory_results
from desktop_app.core.memory.rows import MemoryHit
from desktop_app.core.types import RetrievalResult

MemorySearchFn = Callable[[str, int, str], list[MemoryHit]]  # (query, k, scope) -> hits, best first


def memory_hits_as_results(hits: Sequence[MemoryHit]) -> list[RetrievalResult]:
    """Memory hits for the results list: a fact or a past-chat excerpt is named "Memory · fact" / "Memory · chat"
    with its provenance (key and age, or chat title, turns and date; "outdated: …" when a newer fact replaced it)
    on the line under it; a document passage (scope "Both") keeps its file."""
    out = []
    for hit, result in zip(hits, memory_results(hits), strict=True):
        if hit.kind == "document":
            out.append(RetrievalResult(result.content, result.score, result.source,
                                       {**result.metadata, "label": hit.provenance.get("label", "")}))
        else:
            name = "Memory · fact" if hit.kind == "fact" else "Memory · chat"
            out.append(RetrievalResult(result.content, result.score, name, {**result.metadata, "type": ""}))
    return out


def library_memory_search(search_fn: Callable[..., object]) -> MemorySearchFn | None:
    """Library.memory.search beside Library.search (the window passes the bound method), or None."""
    owner = getattr(search_fn, "__self__", None)
    if owner is None or not hasattr(type(owner), "memory"):
        return None
    return lambda query, k, scope: owner.memory.search(query, k, scope)
