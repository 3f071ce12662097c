"""The MCP tools as plain functions of a Library: each returns a JSON-ready dict, bounded in size.

Every passage is passed through `inert` (text.py) and carries its file, its page (or slide, sheet, message) and a
passage id that `read_passage` takes. Only the `Library` facade is called (and its store's read methods the CLI
uses too), so a team library answers with the person's own role: row-level security decides what is seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from desktop_app.core.chat.answer.context import place_text
from desktop_app.core.errors import KnownError
from desktop_app.core.types import SearchMode
from desktop_app.mcp.text import DATA_NOTE, bounded, inert

if TYPE_CHECKING:
    from desktop_app.core.chat.answer.result import ChatAnswer
    from desktop_app.core.library import Library
    from desktop_app.core.types import RetrievalResult

MAX_K = 50  # results one search may return
SNIPPET_CHARS = 400  # a search result's text; read_passage has the whole passage
PASSAGE_CHARS = 8000  # one passage with its neighbours
DOCUMENT_CHARS = 20000  # one page of read_document
MODES = tuple(SearchMode)


class ToolError(KnownError):
    """A tool call the library cannot answer (unknown passage, document not indexed): told to the assistant."""


def search(library: Library, query: str, *, mode: str = "hybrid", k: int = 10, folders: list[str] | None = None,
           types: list[str] | None = None, languages: list[str] | None = None) -> dict[str, Any]:
    """The library's search, best first, each hit with its file, place, score and passage id."""
    if mode not in MODES:
        raise ToolError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    results = library.search(query, top_k=max(1, min(k, MAX_K)), mode=mode, folders=folders or None,
                             types=types or None, langs=languages or None)
    return {"query": query, "mode": mode, "results": [_hit(r) for r in results], "note": DATA_NOTE}


def _hit(r: RetrievalResult) -> dict[str, Any]:
    meta = r.metadata
    snippet, cut = bounded(" ".join(r.content.split()), SNIPPET_CHARS)
    return {"passage_id": meta.get("chunk_id"), "path": inert(r.source), "page": meta.get("page"),
            "place": inert(place_text(meta.get("label") or "", meta.get("page"))),
            "title": inert(meta.get("title") or ""),
            "type": meta.get("type") or "", "language": meta.get("lang") or "", "score": round(float(r.score), 6),
            "snippet": inert(snippet), "snippet_cut": cut}


def read_passage(library: Library, passage_id: int, *, around: int = 0) -> dict[str, Any]:
    """One passage by id (and up to `around` passages either side of it in its document), bounded."""
    rows = library.store.chunk_rows([passage_id])
    row = rows.get(passage_id)
    if row is None:
        raise ToolError(f"No passage {passage_id}: it may have been re-indexed since that search; search again.")
    reach = max(0, min(around, 3))
    parts = library.store.chunks_around(passage_id, reach) if reach else [(row.page, row.start, row.end, row.text)]
    text, cut = bounded("\n\n".join(p[3] for p in parts), PASSAGE_CHARS)
    return {"passage_id": passage_id, "path": inert(row.container or row.path), "page": row.page,
            "place": inert(place_text(row.label, row.page)), "title": inert(row.title), "text": inert(text),
            "truncated": cut, "note": DATA_NOTE}


def read_document(library: Library, path: str, *, start: int = 0) -> dict[str, Any]:
    """An indexed document's text as stored, in order, from passage `start`: at most DOCUMENT_CHARS a call, with
    the `next_start` to continue from (None at the end). Neighbouring passages may overlap by a few words."""
    chunks = library.document_chunks(path)
    if not chunks:
        raise ToolError(f"Not an indexed document: {inert(path)} (read_document reads only what Trove indexed; "
                        "search or list_folders shows what is there).")
    start = max(0, start)
    out: list[dict[str, Any]] = []
    used = 0
    index = start
    for index in range(start, len(chunks)):
        page, text = chunks[index]
        if out and used + len(text) > DOCUMENT_CHARS:
            break
        text, _ = bounded(text, DOCUMENT_CHARS)
        out.append({"passage": index, "page": page, "text": inert(text)})
        used += len(text)
    else:
        index = len(chunks)
    return {"path": inert(path), "passages": len(chunks), "start": start, "parts": out,
            "next_start": index if index < len(chunks) else None, "note": DATA_NOTE}


def ask(library: Library, question: str, *, k: int | None = None, scope: list[str] | None = None) -> dict[str, Any]:
    """Trove's grounded answer (the same `Library.ask` as the window): the quote and its citations, or the refusal
    with the closest passages it found."""
    answer = library.ask(question, top_k=max(1, min(k, MAX_K)) if k else None, scope=tuple(scope or ()))
    return answer_dict(answer)


def answer_dict(answer: ChatAnswer) -> dict[str, Any]:
    """What an assistant needs from a ChatAnswer: refused or not, the quote, citations, the passages sent."""
    quote = answer.quote
    return {
        "refused": answer.refused,
        "answer": inert(answer.text),
        "quote": None if quote is None else {"text": inert(quote.text), "path": inert(quote.source),
                                             "page": quote.page, "place": inert(place_text(quote.place, quote.page))},
        "citations": [{"n": c.n, "path": inert(c.path), "page": c.page, "place": inert(c.where),
                       "passage_id": c.chunk_id, "snippet": inert(c.snippet)} for c in answer.citations],
        "closest_passages" if answer.refused else "passages": [
            {"n": p.n, "path": inert(p.source), "page": p.page, "place": inert(place_text(p.place, p.page)),
             "passage_id": p.chunk_id, "text": inert(bounded(p.content, SNIPPET_CHARS)[0])} for p in answer.passages],
        "model_answer_shown": bool(answer.generation) and answer.generation_shown,
        "chat_id": answer.chat_id,
        "note": DATA_NOTE,
    }


def list_folders(library: Library) -> dict[str, Any]:
    """The library's folders: state (active, paused, offline…), documents, failures, passages, vectors."""
    return {"folders": [{"path": inert(f.path), "state": str(f.state), "documents": f.documents, "failed": f.failed,
                         "passages": f.chunks, "with_vectors": f.embedded, "ocr_pages_waiting": f.ocr_pending,
                         "owner": f.owner, "visibility": f.visibility} for f in library.folders()]}


def library_status(library: Library) -> dict[str, Any]:
    """Counts and what is still being indexed (passages without vectors, OCR pages waiting, keyword rebuild)."""
    s = library.stats()
    return {"engine": s["engine"]["name"], "team_library": library.is_team_library,
            "read_only": library.read_only or "", "documents": s["documents"], "failed": s["failed"],
            "passages": s["chunks"], "passages_with_vectors": s["chunks_embedded"],
            "passages_waiting_for_vectors": max(0, s["chunks"] - s["chunks_embedded"]),
            "ocr_pages_waiting": s["ocr"]["pages_pending"], "keyword_rebuild_pending": s["keyword_rebuild_pending"],
            "embedding_model": s["embedding_model"], "languages": s["languages"], "formats": s["formats"],
            "memory_on": memory_on(library), "folders": len(s["folders"])}


def memory_on(library: Library) -> bool:
    """Whether conversation memory is on (search_memory is offered only then)."""
    return bool(library.memory.enabled)


def search_memory(library: Library, query: str, *, k: int = 10) -> dict[str, Any]:
    """Facts the person told Trove and excerpts of past chats, each with where it came from."""
    if not memory_on(library):
        raise ToolError("Memory is off in this library (the person turns it on in Trove).")
    hits = library.memory.search(query, top_k=max(1, min(k, MAX_K)), scope="memory")
    return {"query": query, "results": [{"kind": h.kind, "label": inert(h.label()), "score": round(float(h.score), 6),
                                         "text": inert(bounded(h.text, SNIPPET_CHARS)[0]), "outdated": h.outdated}
                                        for h in hits], "note": DATA_NOTE}
